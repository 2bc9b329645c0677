@pin-0.16.0
Feature: Built-in edit — exact-string replacement (SPEC §4A)

  §4A: `edit` replaces `oldString` by `newString` in `path`, exactly (no patterns). By default
  `oldString` must occur once; absent, or non-unique without `replaceAll` ⇒ `isError` (and the
  file is left as it was, checked with recorded trees); `replaceAll:true` replaces every
  occurrence. Confirmation and error wordings are not fixed by §4A and are not pinned. Each
  scenario edits files in its own {{TMP}}.

  @spec-4A @clause-4A.edit.single-default @partial-clause-4A.edit.exact-replace
  Scenario: edit replaces the single occurrence of oldString
    Given a file "src/app.txt" containing:
      """
      greeting = "hello world"
      farewell = "bye"
      """
    And a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/src/app.txt", "oldString": "hello world", "newString": "hello there"}
      """
    Then the result is not an error
    And the file "src/app.txt" now contains:
      """
      greeting = "hello there"
      farewell = "bye"
      """

  @spec-4A @clause-4A.edit.replace-all
  Scenario: edit with replaceAll replaces every occurrence
    Given a file "list.txt" containing:
      """
      item-a, item-b, item-a
      item-a
      """
    And a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/list.txt", "oldString": "item-a", "newString": "X", "replaceAll": true}
      """
    Then the result is not an error
    And the file "list.txt" now contains:
      """
      X, item-b, X
      X
      """

  @spec-4A @clause-4A.edit.exact-replace
  Scenario: edit matches oldString literally and inserts newString literally
    Given a file "lit.txt" containing:
      """
      abc a.c (x)
      """
    And a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/lit.txt", "oldString": "a.c (x)", "newString": "$& $1 \\1"}
      """
    Then the result is not an error
    And the file "lit.txt" now contains:
      """
      abc $& $1 \1
      """

  @spec-4A @partial-clause-4A.edit.exact-replace
  Scenario: edit can replace across lines and delete with an empty newString
    Given a file "multi.txt" containing:
      """
      keep 1
      drop A
      drop B
      keep 2
      """
    And a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/multi.txt", "oldString": "drop A\ndrop B\n", "newString": ""}
      """
    Then the result is not an error
    And the file "multi.txt" now contains:
      """
      keep 1
      keep 2
      """

  @spec-4A @partial-clause-4A.edit.absent-error
  Scenario: edit with an oldString that does not occur is an error and changes nothing
    Given a file "ws/a.txt" containing:
      """
      one two three
      """
    And the files under "ws" are recorded
    And a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/a.txt", "oldString": "four", "newString": "4"}
      """
    Then the result is an error
    # The message's words are the port's (NOTES #320: the @beyond-spec twin below checks them).
    And the output matches:
      """
      \S
      """
    And the files under "ws" are unchanged
    # The cause: an oldString that does occur is replaced.
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/a.txt", "oldString": "three", "newString": "3"}
      """
    Then the result is not an error
    And the file "ws/a.txt" now contains:
      """
      one two 3
      """

  @spec-4A @beyond-spec
  Scenario: edit's error for an oldString that does not occur says it was not found
    Beyond the SPEC: §4A says "`oldString` absent … ⇒ `isError:true`" and gives no words
    (NOTES #320); the reference and python name `oldString` or say it was not found.
    Given a file "ws/a.txt" containing:
      """
      one two three
      """
    And a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/a.txt", "oldString": "four", "newString": "4"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)oldString|not found|no match
      """
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/a.txt", "oldString": "three", "newString": "3"}
      """
    Then the result is not an error

  @spec-4A @partial-clause-4A.edit.absent-error
  Scenario: edit with a non-unique oldString and no replaceAll is an error and changes nothing
    Given a file "ws/dup.txt" containing:
      """
      same; same; other
      """
    And the files under "ws" are recorded
    And a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/dup.txt", "oldString": "same", "newString": "new"}
      """
    Then the result is an error
    # The message's words are the port's (NOTES #320: the @beyond-spec twin below checks them).
    And the output matches:
      """
      \S
      """
    And the files under "ws" are unchanged
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/dup.txt", "oldString": "same", "newString": "new", "replaceAll": false}
      """
    Then the result is an error
    And the files under "ws" are unchanged
    # The cause: with replaceAll the same call replaces every occurrence (§4A).
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/dup.txt", "oldString": "same", "newString": "new", "replaceAll": true}
      """
    Then the result is not an error
    And the file "ws/dup.txt" now contains:
      """
      new; new; other
      """

  @spec-4A @beyond-spec
  Scenario: edit's error for a non-unique oldString says it is not unique
    Beyond the SPEC: §4A says "(without `replaceAll`) non-unique ⇒ `isError:true`" and gives no
    words (NOTES #320); the reference and python say it is not unique or point to `replaceAll`.
    Given a file "ws/dup.txt" containing:
      """
      same; same; other
      """
    And a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/dup.txt", "oldString": "same", "newString": "new"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)unique|occurrences|replaceAll
      """
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/dup.txt", "oldString": "same", "newString": "new", "replaceAll": true}
      """
    Then the result is not an error

  @spec-4A @partial-clause-4A.common.failure-is-result
  Scenario: edit of a missing file is an error result and creates nothing
    Given a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/absent.txt", "oldString": "a", "newString": "b"}
      """
    Then the result is an error
    # The message's words are the port's (NOTES #320: the @beyond-spec twin below checks them).
    And the output matches:
      """
      \S
      """
    And the file "absent.txt" does not exist
    # The cause: once the file exists, the same call edits it.
    When "write" is executed with:
      """
      {"path": "{{TMP}}/absent.txt", "content": "a"}
      """
    And "edit" is executed with:
      """
      {"path": "{{TMP}}/absent.txt", "oldString": "a", "newString": "b"}
      """
    Then the result is not an error
    And the file "absent.txt" now contains:
      """
      b
      """

  @spec-4A @beyond-spec
  Scenario: edit's error for a missing file says it does not exist
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python name the file or say it does not exist.
    Given a file "present.txt" containing:
      """
      a
      """
    And a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/absent.txt", "oldString": "a", "newString": "b"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)no such|not found|does not exist|absent\.txt
      """
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/present.txt", "oldString": "a", "newString": "b"}
      """
    Then the result is not an error

  @spec-4A @partial-clause-4A.common.failure-is-result
  Scenario: edit without oldString is an error result and changes nothing
    Given a file "ws/a.txt" containing:
      """
      untouched
      """
    And the files under "ws" are recorded
    And a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/a.txt", "newString": "x"}
      """
    Then the result is an error
    # The message's words are the port's (NOTES #320: the @beyond-spec twin below checks them).
    And the output matches:
      """
      \S
      """
    And the files under "ws" are unchanged
    # The cause: with an oldString the same call edits.
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/a.txt", "oldString": "untouched", "newString": "x"}
      """
    Then the result is not an error
    And the file "ws/a.txt" now contains:
      """
      x
      """

  @spec-4A @beyond-spec
  Scenario: edit's error for a missing oldString names the field
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python name the missing `oldString`.
    Given a file "ws/a.txt" containing:
      """
      untouched
      """
    And a toolkit built with no options
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/a.txt", "newString": "x"}
      """
    Then the result is an error
    And the output contains "oldString"
    When "edit" is executed with:
      """
      {"path": "{{TMP}}/ws/a.txt", "oldString": "untouched", "newString": "x"}
      """
    Then the result is not an error
