@pin-0.16.0
Feature: Built-in apply_patch — opencode's patch grammar, all files or none (SPEC §4A)

  §4A: `apply_patch` applies one patch in opencode's grammar (`*** Begin Patch`,
  `*** Add File: p`, `*** Update File: p`, `*** Delete File: p`, `*** End Patch`, with
  `+`/`-`/context lines) atomically: a hunk that does not match is an isError result and
  nothing is written. Where §4A is silent the scenarios follow the Python port 0.21: an added
  file is its `+` lines joined by `\n` (no newline added at the end), an `@@` line starts a
  hunk, a hunk's context and `-` lines must equal consecutive whole lines of the file
  (§4A: they are lines) and their first such run is replaced; malformed patches and missing or already-present files are isError results.
  Message wording is not pinned: a scenario expecting an error checks that there is a message
  and a positive control (the patch without its fault applies); *apply_patch's error says what
  went wrong* checks the reference's words, beyond the SPEC (NOTES #320). Each scenario patches
  its own {{TMP}} workspace.

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
    # The message's words are the port's (NOTES #320: *apply_patch's error says what went
    # wrong* checks them).
    And the output matches:
      """
      \S
      """
    And the files under "ws" are unchanged
    And the file "ws/new/d.txt" does not exist
    # The cause: the same patch without the hunk that does not match applies, all of it.
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Update File: {{TMP}}/ws/a.txt\n@@\n alpha\n-beta\n+BETA\n*** Add File: {{TMP}}/ws/new/d.txt\n+created\n*** Delete File: {{TMP}}/ws/c.txt\n*** End Patch"}
      """
    Then the result is not an error
    And the file "ws/a.txt" contains "BETA"
    And the file "ws/new/d.txt" contains "created"
    And the file "ws/c.txt" does not exist

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
    # The message's words are the port's (NOTES #320).
    And the output matches:
      """
      \S
      """
    And the files under "ws" are unchanged
    # The cause: the first hunk alone applies.
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Update File: {{TMP}}/ws/a.txt\n@@\n-first\n+FIRST\n*** End Patch"}
      """
    Then the result is not an error
    And the file "ws/a.txt" contains "FIRST"

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
    # The message's words are the port's (NOTES #320).
    And the output matches:
      """
      \S
      """
    And the files under "ws" are unchanged
    # The cause: the same patch without the file it cannot write applies.
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Update File: {{TMP}}/ws/a.txt\n@@\n alpha\n-beta\n+BETA\n*** Delete File: {{TMP}}/ws/gone.txt\n*** End Patch"}
      """
    Then the result is not an error
    And the file "ws/a.txt" contains "BETA"
    And the file "ws/gone.txt" does not exist

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
    # The message's words are the port's (NOTES #320).
    And the output matches:
      """
      \S
      """
    And the files under "ws" are unchanged
    # The positive control: a well-formed patch applies.
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Add File: {{TMP}}/ws/b.txt\n+well formed\n*** End Patch"}
      """
    Then the result is not an error
    And the file "ws/b.txt" contains "well formed"

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
    # The message's words are the port's (NOTES #320).
    And the output matches:
      """
      \S
      """
    And the files under "ws" are unchanged
    And the file "ws/first.txt" does not exist
    # The cause: the same patch without that operation applies.
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Add File: {{TMP}}/ws/first.txt\n+would be added\n*** End Patch"}
      """
    Then the result is not an error
    And the file "ws/first.txt" contains "would be added"

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
    # The message's words are the port's (NOTES #320); the positive control: with a patchText
    # the same call applies it.
    And the output matches:
      """
      \S
      """
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Add File: {{TMP}}/ws/b.txt\n+added\n*** End Patch"}
      """
    Then the result is not an error
    And the file "ws/b.txt" contains "added"

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
    # The message's words are the port's (NOTES #320).
    And the output matches:
      """
      \S
      """
    And the files under "ws" are unchanged
    # The positive control: a patch on the same file applies (whole-line hunks applying is
    # *apply_patch updates a file hunk by hunk…*).
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Delete File: {{TMP}}/ws/f.txt\n*** End Patch"}
      """
    Then the result is not an error
    And the file "ws/f.txt" does not exist

    Examples:
      | content               | hunk                       |
      | abc\\n                | -b\\n+B                    |
      | prefix-one\\ntwo\\n   | \\u0020one\\n-two\\n+TWO  |

  @spec-4A @beyond-spec
  Scenario Outline: apply_patch's error says what went wrong
    Beyond the SPEC: §4A says "a hunk that doesn't match ⇒ `isError:true` and no partial write"
    and makes every failure `ToolResult{isError:true, output:<message>}`, with no words (NOTES
    #320); the reference and python name the hunk, the marker, the file or the missing field.
    The positive control: a patch that matches applies.
    Given a file "ws/a.txt" containing:
      """
      alpha
      beta
      """
    And a file "ws/blocker" containing:
      """
      a regular file where the patch needs a directory
      """
    And a toolkit built with no options
    When "apply_patch" is executed with:
      """
      <args>
      """
    Then the result is an error
    And the output matches:
      """
      <words>
      """
    When "apply_patch" is executed with:
      """
      {"patchText": "*** Begin Patch\n*** Update File: {{TMP}}/ws/a.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch"}
      """
    Then the result is not an error

    Examples:
      | problem                       | args                                                                                                                       | words                                                              |
      | a hunk that does not match    | {"patchText": "*** Begin Patch\\n*** Update File: {{TMP}}/ws/a.txt\\n@@\\n alpha\\n-gamma\\n+GAMMA\\n*** End Patch"}        | (?i)hunk\|match                                                    |
      | a file it cannot write        | {"patchText": "*** Begin Patch\\n*** Add File: {{TMP}}/ws/blocker/inner.txt\\n+x\\n*** End Patch"}                        | (?i)exists\|not a directory\|blocker\|inner[.]txt                  |
      | no begin marker               | {"patchText": "*** Add File: {{TMP}}/ws/b.txt\\n+no begin marker\\n*** End Patch"}                                        | (?i)begin\|end\|unexpected\|hunk\|match\|marker\|invalid\|malformed |
      | no end marker                 | {"patchText": "*** Begin Patch\\n*** Add File: {{TMP}}/ws/b.txt\\n+no end marker"}                                        | (?i)begin\|end\|unexpected\|hunk\|match\|marker\|invalid\|malformed |
      | a line that is no file marker | {"patchText": "*** Begin Patch\\nthis is not a file marker\\n*** End Patch"}                                              | (?i)begin\|end\|unexpected\|hunk\|match\|marker\|invalid\|malformed |
      | a missing file to delete      | {"patchText": "*** Begin Patch\\n*** Delete File: {{TMP}}/ws/missing.txt\\n*** End Patch"}                                | (?i)not found\|no such\|exists\|missing                            |
      | a missing file to update      | {"patchText": "*** Begin Patch\\n*** Update File: {{TMP}}/ws/missing.txt\\n+appended\\n*** End Patch"}                    | (?i)not found\|no such\|exists\|missing                            |
      | a file to add that exists     | {"patchText": "*** Begin Patch\\n*** Add File: {{TMP}}/ws/a.txt\\n+clobber\\n*** End Patch"}                              | (?i)not found\|no such\|exists\|missing                            |
      | no patchText                  | {}                                                                                                                         | patchText                                                          |

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
