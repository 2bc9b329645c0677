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
    # The message's words are the port's (NOTES #320: the @beyond-spec twin below checks them).
    And the output matches:
      """
      \S
      """
    And the files under "ws" are unchanged
    # The cause: beside the blocker, the same write creates its parent and the file.
    When "write" is executed with:
      """
      {"path": "{{TMP}}/ws/free/child.txt", "content": "written"}
      """
    Then the result is not an error
    And the file "ws/free/child.txt" now contains:
      """
      written
      """

  @spec-4A @beyond-spec
  Scenario: write's error under a parent that is a file names the problem
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python say the parent is not a directory or
    exists, or name the path.
    Given a file "ws/blocker" containing:
      """
      I am a file, not a directory
      """
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
    When "write" is executed with:
      """
      {"path": "{{TMP}}/ws/free/child.txt", "content": "written"}
      """
    Then the result is not an error

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
    # The message's words are the port's (NOTES #320: the @beyond-spec twin below checks them).
    And the output matches:
      """
      \S
      """
    And the files under "ws" are unchanged
    # The cause: a file path inside the directory is written.
    When "write" is executed with:
      """
      {"path": "{{TMP}}/ws/dir/new.txt", "content": "beside it"}
      """
    Then the result is not an error
    And the file "ws/dir/new.txt" now contains:
      """
      beside it
      """

  @spec-4A @beyond-spec
  Scenario: write's error onto a directory says it is a directory
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python say the path is a directory.
    Given a file "ws/dir/inside.txt" containing:
      """
      inside
      """
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
    When "write" is executed with:
      """
      {"path": "{{TMP}}/ws/dir/new.txt", "content": "beside it"}
      """
    Then the result is not an error

  @spec-4A @clause-4A.common.failure-is-result
  Scenario: write without a path is an error result
    # The message's words are the port's (NOTES #320); the positive control: with a path the
    # same call writes.
    Given a toolkit built with no options
    When "write" is executed with:
      """
      {"content": "orphan"}
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    When "write" is executed with:
      """
      {"path": "{{TMP}}/adopted.txt", "content": "orphan"}
      """
    Then the result is not an error
    And the file "adopted.txt" now contains:
      """
      orphan
      """

  @spec-4A @beyond-spec
  Scenario: write's error for a missing path names the field
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python name the missing `path`.
    Given a toolkit built with no options
    When "write" is executed with:
      """
      {"content": "orphan"}
      """
    Then the result is an error
    And the output contains "path"
    When "write" is executed with:
      """
      {"path": "{{TMP}}/adopted.txt", "content": "orphan"}
      """
    Then the result is not an error

  @spec-4A @beyond-spec
  Scenario: write without content is an error result and creates no file
    Beyond the SPEC: §4A gives the tool's input schema (required fields, types) but not what
    execute does with input that breaks it (NOTES #38); the reference refuses it with an isError
    result. The positive control: with content the same call writes (NOTES #321).
    Given a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/no-content.txt"}
      """
    Then the result is an error
    And the output contains "content"
    And the file "no-content.txt" does not exist
    When "write" is executed with:
      """
      {"path": "{{TMP}}/no-content.txt", "content": "now some"}
      """
    Then the result is not an error
    And the file "no-content.txt" now contains:
      """
      now some
      """
