@pin-0.16.0
Feature: Built-in apply_patch — opencode's patch grammar, all files or none (SPEC §4A)

  §4A: `apply_patch` applies one patch in opencode's grammar (`*** Begin Patch`,
  `*** Add File: p`, `*** Update File: p`, `*** Delete File: p`, `*** End Patch`, with
  `+`/`-`/context lines) atomically: a hunk that does not match is an isError result and
  nothing is written. Where §4A is silent the scenarios follow the Python port 0.21: an added
  file is its `+` lines joined by `\n` (no newline added at the end), an `@@` line starts a
  hunk, a hunk's context and `-` lines must equal consecutive whole lines of the file
  (§4A: they are lines) and their first such run is replaced; malformed patches and missing or already-present files are isError results.
  Message wording is not pinned. Each scenario patches its own {{TMP}} workspace.

  @spec-4A @partial-clause-4A.apply-patch.grammar
  Scenario: apply_patch adds a file, creating its parent directories
    Given a directory "ws"
    And a toolkit built with no options
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Add File: {{TMP}}/ws/new/dir/hello.txt\n+hello\n+world\n*** End Patch"}
      """
    Then the result is not an error
    And the file "ws/new/dir/hello.txt" now contains:
      """
      hello
      world
      """

  @spec-4A @partial-clause-4A.apply-patch.grammar
  Scenario: apply_patch updates a file hunk by hunk, with context, removed and added lines
    Given a file "ws/app.py" containing:
      """
      import os

      def greet():
          print('hi')

      def main():
          greet()
      """
    And a toolkit built with no options
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Update File: {{TMP}}/ws/app.py\n@@\n def greet():\n-    print('hi')\n+    print('hello')\n@@\n def main():\n     greet()\n+    greet()\n*** End Patch"}
      """
    Then the result is not an error
    And the file "ws/app.py" now contains:
      """
      import os

      def greet():
          print('hello')

      def main():
          greet()
          greet()
      """

  @spec-4A @clause-4A.apply-patch.grammar @partial-clause-4A.apply-patch.atomic
  Scenario: apply_patch applies an add, an update and a delete of one patch together
    Given a file "ws/keep.txt" containing:
      """
      alpha
      beta
      gamma
      """
    And a file "ws/old.txt" containing:
      """
      obsolete
      """
    And a toolkit built with no options
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Add File: {{TMP}}/ws/added.txt\n+fresh\n*** Update File: {{TMP}}/ws/keep.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** Delete File: {{TMP}}/ws/old.txt\n*** End Patch"}
      """
    Then the result is not an error
    And the file "ws/added.txt" now contains:
      """
      fresh
      """
    And the file "ws/keep.txt" now contains:
      """
      alpha
      BETA
      gamma
      """
    And the file "ws/old.txt" does not exist

  @spec-4A @clause-4A.apply-patch.no-partial-write @clause-4A.apply-patch.atomic
  Scenario: apply_patch whose last hunk does not match is an error and leaves every file byte-identical
    Given a file "ws/a.txt" containing:
      """
      alpha
      beta
      """
    And a file "ws/b.txt" containing:
      """
      one
      two
      """
    And a file "ws/c.txt" containing:
      """
      to be deleted
      """
    And the files under "ws" are recorded
    And a toolkit built with no options
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Update File: {{TMP}}/ws/a.txt\n@@\n alpha\n-beta\n+BETA\n*** Add File: {{TMP}}/ws/new/d.txt\n+created\n*** Delete File: {{TMP}}/ws/c.txt\n*** Update File: {{TMP}}/ws/b.txt\n@@\n one\n-three\n+THREE\n*** End Patch"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)hunk|match
      """
    And the files under "ws" are unchanged
    And the file "ws/new/d.txt" does not exist

  @spec-4A @clause-4A.apply-patch.no-partial-write
  Scenario: apply_patch whose second hunk in a file does not match leaves that file byte-identical
    Given a file "ws/a.txt" containing:
      """
      first
      second
      third
      """
    And the files under "ws" are recorded
    And a toolkit built with no options
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Update File: {{TMP}}/ws/a.txt\n@@\n-first\n+FIRST\n@@\n second\n-fourth\n+FOURTH\n*** End Patch"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)hunk|match
      """
    And the files under "ws" are unchanged

  @spec-4A @partial-clause-4A.apply-patch.atomic
  Scenario: apply_patch that cannot write one of its files is an error and writes none of them
    Given a file "ws/a.txt" containing:
      """
      alpha
      beta
      """
    And a file "ws/blocker" containing:
      """
      a regular file where the patch needs a directory
      """
    And a file "ws/gone.txt" containing:
      """
      still here
      """
    And the files under "ws" are recorded
    And a toolkit built with no options
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Update File: {{TMP}}/ws/a.txt\n@@\n alpha\n-beta\n+BETA\n*** Delete File: {{TMP}}/ws/gone.txt\n*** Add File: {{TMP}}/ws/blocker/inner.txt\n+cannot be written\n*** End Patch"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)exists|not a directory|blocker|inner\.txt
      """
    And the files under "ws" are unchanged

  @spec-4A @partial-clause-4A.apply-patch.grammar @partial-clause-4A.apply-patch.no-partial-write
  Scenario Outline: apply_patch rejects a malformed patch and writes nothing
    Given a file "ws/a.txt" containing:
      """
      alpha
      """
    And the files under "ws" are recorded
    And a toolkit built with no options
    When "apply_patch" is executed with:
      """
      {"patchText": "<patch>"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)begin|end|unexpected|hunk|match|marker|invalid|malformed
      """
    And the files under "ws" are unchanged

    Examples:
      | patch                                                                                   |
      | *** Add File: {{TMP}}/ws/b.txt\\n+no begin marker\\n*** End Patch                         |
      | *** Begin Patch\\n*** Add File: {{TMP}}/ws/b.txt\\n+no end marker                         |
      | *** Begin Patch\\nthis is not a file marker\\n*** End Patch                               |
      | *** Begin Patch\\n*** Update File: {{TMP}}/ws/a.txt\\n-omega\\n+OMEGA\\n*** End Patch       |

  @spec-4A @partial-clause-4A.apply-patch.atomic
  Scenario Outline: apply_patch on a missing or already present file is an error and applies nothing
    Given a file "ws/a.txt" containing:
      """
      alpha
      """
    And the files under "ws" are recorded
    And a toolkit built with no options
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Add File: {{TMP}}/ws/first.txt\n+would be added\n<op>\n*** End Patch"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)not found|no such|exists|missing
      """
    And the files under "ws" are unchanged
    And the file "ws/first.txt" does not exist

    Examples:
      | op                                                        |
      | *** Delete File: {{TMP}}/ws/missing.txt                   |
      | *** Update File: {{TMP}}/ws/missing.txt\\n+appended         |
      | *** Add File: {{TMP}}/ws/a.txt\\n+clobber                  |

  @spec-4A @clause-4A.common.failure-is-result
  Scenario: apply_patch without patchText is an error result
    Given a directory "ws"
    And a toolkit built with no options
    When "apply_patch" is executed with:
      """
      {}
      """
    Then the result is an error
    And the output contains "patchText"

  @spec-4A @partial-clause-4A.apply-patch.grammar @partial-clause-4A.apply-patch.no-partial-write
  Scenario Outline: apply_patch matches whole lines, so a hunk that is only part of a line does not match
    §4A: the `+`/`-`/context lines of a hunk are lines; a `-` or context line that equals only
    part of a file line is not that line, so the hunk does not match: an isError result, and
    the file is left byte-identical.
    Given a directory "ws"
    And a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/ws/f.txt", "content": "<content>"}
      """
    And the files under "ws" are recorded
    And "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Update File: {{TMP}}/ws/f.txt\n@@\n<hunk>\n*** End Patch"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)hunk|match
      """
    And the files under "ws" are unchanged

    Examples:
      | content               | hunk                       |
      | abc\\n                | -b\\n+B                    |
      | prefix-one\\ntwo\\n   | \\u0020one\\n-two\\n+TWO  |

  @spec-4A @beyond-spec
  Scenario: apply_patch renames an updated file with "*** Move to:"
    Beyond the SPEC: §4A lists Add/Update/Delete markers but names opencode's grammar, which
    also has `*** Move to: dest` straight after `*** Update File:` (NOTES #132). The reference
    writes the updated content to `dest` and removes the source, in the same all-or-nothing
    commit; python 0.21 has no Move to (it reads the line as context that does not match).
    Given a file "ws/old.txt" containing:
      """
      keep
      change me
      """
    And a toolkit built with no options
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Update File: {{TMP}}/ws/old.txt\n*** Move to: {{TMP}}/ws/sub/new.txt\n@@\n keep\n-change me\n+changed\n*** End Patch"}
      """
    Then the result is not an error
    And the file "ws/sub/new.txt" now contains:
      """
      keep
      changed
      """
    And the file "ws/old.txt" does not exist
