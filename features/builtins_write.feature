@pin-0.16.0
Feature: Built-in write — create or overwrite a file, atomically (SPEC §4A)

  §4A: `write` writes `content` to `path` (create/overwrite), creating parent directories;
  output = a confirmation with the byte count (wording not fixed: matched leniently, the
  count as a number of UTF-8 bytes). The reference writes a temp file and renames it into
  place, so a failed write leaves the tree as it was (checked with recorded trees). Each
  scenario writes into its own {{TMP}}.

  @spec-4A @clause-4A.write.parent-dirs @partial-clause-4A.write.create-overwrite
  Scenario: write creates a new file and its missing parent directories
    Given a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/deep/er/new.txt", "content": "hello\nworld\n"}
      """
    Then the result is not an error
    And the file "deep/er/new.txt" now contains:
      """
      hello
      world

      """

  @spec-4A @clause-4A.write.byte-count @partial-clause-4A.write.create-overwrite
  Scenario: write states the number of UTF-8 bytes written
    Given a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/u.txt", "content": "héllo→"}
      """
    Then the result is not an error
    And the output matches:
      """
      (^|\D)9(\D|$)
      """
    And the file "u.txt" now contains:
      """
      héllo→
      """

  @spec-4A @clause-4A.write.byte-count @partial-clause-4A.write.create-overwrite
  Scenario: write overwrites an existing file completely
    Given a file "ws/existing.txt" containing:
      """
      a much longer original content that must not survive
      second line
      """
    And a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/ws/existing.txt", "content": "short"}
      """
    Then the result is not an error
    And the output matches:
      """
      (^|\D)5(\D|$)
      """
    And the file "ws/existing.txt" now contains:
      """
      short
      """

  @spec-4A @partial-clause-4A.write.create-overwrite
  Scenario: write of empty content creates an empty file
    Given a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/empty.txt", "content": ""}
      """
    Then the result is not an error
    And the file "empty.txt" now contains:
      """
      """

  @spec-4A @partial-clause-4A.common.failure-is-result
  Scenario: write under a parent that is a file fails and leaves nothing half-written
    Given a file "ws/blocker" containing:
      """
      I am a file, not a directory
      """
    And a file "ws/keep.txt" containing:
      """
      keep me
      """
    And the files under "ws" are recorded
    And a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/ws/blocker/child.txt", "content": "never written"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)exists|not a directory|blocker|child\.txt
      """
    And the files under "ws" are unchanged

  @spec-4A @partial-clause-4A.common.failure-is-result
  Scenario: write onto a path that is a directory fails and leaves no temp file behind
    Given a file "ws/dir/inside.txt" containing:
      """
      inside
      """
    And the files under "ws" are recorded
    And a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/ws/dir", "content": "would clobber a directory"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)directory|dir
      """
    And the files under "ws" are unchanged

  @spec-4A @clause-4A.common.failure-is-result
  Scenario: write without a path is an error result
    Given a toolkit built with no options
    When "write" is executed with:
      """
      {"content": "orphan"}
      """
    Then the result is an error
    And the output contains "path"

  @spec-4A @beyond-spec
  Scenario: write without content is an error result and creates no file
    Beyond the SPEC: §4A gives the tool's input schema (required fields, types) but not what
    execute does with input that breaks it (NOTES #38); the reference refuses it with an isError
    result.
    Given a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/no-content.txt"}
      """
    Then the result is an error
    And the output contains "content"
    And the file "no-content.txt" does not exist
