@pin-0.16.0
Feature: Built-in read — UTF-8 text, whole or as a line window (SPEC §4A)

  §4A: `read` reads a UTF-8 text file; with `offset` (1-based line) and/or `limit` (lines) it
  returns that line window; a missing file ⇒ `isError`. Without a window the output is the
  file's text as it is (the Python port 0.21 returns it untouched). How a window is joined (a
  trailing newline or not) is not fixed by §4A, so windows are matched with an optional
  final newline; error wordings are matched leniently. Each scenario reads its own {{TMP}}.

  @spec-4A @clause-4A.read.utf8
  Scenario: read returns the whole file byte for byte
    Given a file "docs/notes.txt" containing:
      """
      alpha
        indented beta
      ünïcödé γ → ok

      last line, no newline after it
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/docs/notes.txt"}
      """
    Then the result is not an error
    And the output is:
      """
      alpha
        indented beta
      ünïcödé γ → ok

      last line, no newline after it
      """

  @spec-4A @clause-4A.read.line-window @clause-4A.read.offset-one-based
  Scenario: read with offset and limit returns that line window (offset is 1-based)
    Given a file "lines.txt" containing:
      """
      line1
      line2
      line3
      line4
      line5
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/lines.txt", "offset": 2, "limit": 3}
      """
    Then the result is not an error
    And the output matches:
      """
      ^line2\nline3\nline4\n?$
      """

  @spec-4A @clause-4A.read.offset-one-based @partial-clause-4A.read.line-window
  Scenario: read with only an offset returns the lines from there to the end
    Given a file "lines.txt" containing:
      """
      line1
      line2
      line3
      line4
      line5
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/lines.txt", "offset": 4}
      """
    Then the result is not an error
    And the output matches:
      """
      ^line4\nline5\n?$
      """

  @spec-4A @partial-clause-4A.read.line-window
  Scenario: read with only a limit returns the first lines
    Given a file "lines.txt" containing:
      """
      line1
      line2
      line3
      line4
      line5
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/lines.txt", "limit": 2}
      """
    Then the result is not an error
    And the output matches:
      """
      ^line1\nline2\n?$
      """

  @spec-4A @clause-4A.read.missing-file @clause-4A.common.failure-is-result
  Scenario: read of a missing file with a window is an error result
    # §4A gives the failure no words (NOTES #320: the @beyond-spec scenario below checks that
    # they name the file); the positive control: once the file exists, the same call reads it.
    Given a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/nowhere/missing.txt", "offset": 1, "limit": 10}
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    When "write" is executed with:
      """
      {"path": "{{TMP}}/nowhere/missing.txt", "content": "found\n"}
      """
    And "read" is executed with:
      """
      {"path": "{{TMP}}/nowhere/missing.txt", "offset": 1, "limit": 10}
      """
    Then the result is not an error
    And the output contains "found"

  @spec-4A @beyond-spec
  Scenario: read of a missing file with a window is an error result naming the file
    Beyond the SPEC: §4A says "Missing file ⇒ `isError:true`" and gives no words (NOTES #320);
    the reference and python name the file.
    Given a file "nowhere/present.txt" containing:
      """
      present
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/nowhere/missing.txt", "offset": 1, "limit": 10}
      """
    Then the result is an error
    And the output contains "missing.txt"
    When "read" is executed with:
      """
      {"path": "{{TMP}}/nowhere/present.txt", "offset": 1, "limit": 10}
      """
    Then the result is not an error
    And the output contains "present"

  @spec-4A @partial-clause-4A.common.failure-is-result
  Scenario: read of a file that is not UTF-8 answers a ToolResult, and read still works after it
    # §4A says only "Read a UTF-8 text file": refusing other bytes and decoding them lossily are
    # both readings (NOTES #307), so the answer may be an error or a text; it must be a
    # ToolResult (never a crash), and the tool must go on working (the positive control).
    Given a file "blob.bin" containing invalid UTF-8
    And a file "fine.txt" containing:
      """
      fine
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/blob.bin"}
      """
    And "read" is executed with:
      """
      {"path": "{{TMP}}/fine.txt"}
      """
    Then the result is not an error
    And the output contains "fine"

  @spec-4A @beyond-spec
  Scenario: read of a file that is not UTF-8 is an error result naming UTF-8
    Beyond the SPEC: §4A says only "Read a UTF-8 text file", not what other bytes give (NOTES
    #307); the reference refuses them with an error naming the encoding, and ports that decode
    lossily (JS 0.16) return the text with U+FFFD instead.
    Given a file "blob.bin" containing invalid UTF-8
    And a file "fine.txt" containing:
      """
      fine
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/fine.txt"}
      """
    Then the result is not an error
    When "read" is executed with:
      """
      {"path": "{{TMP}}/blob.bin"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)utf-?8
      """

  @spec-4A @clause-4A.common.failure-is-result
  Scenario: read without a path is an error result
    # The message's words are the port's (NOTES #320); the positive control: with a path the
    # same call reads.
    Given a file "file.txt" containing:
      """
      content
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"offset": 1}
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    When "read" is executed with:
      """
      {"path": "{{TMP}}/file.txt", "offset": 1}
      """
    Then the result is not an error
    And the output contains "content"

  @spec-4A @beyond-spec
  Scenario: read's error for a missing path names the field
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python name the missing `path`.
    Given a file "file.txt" containing:
      """
      content
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"offset": 1}
      """
    Then the result is an error
    And the output contains "path"
    When "read" is executed with:
      """
      {"path": "{{TMP}}/file.txt", "offset": 1}
      """
    Then the result is not an error
    And the output contains "content"

  @spec-4A @partial-clause-4A.common.failure-is-result
  Scenario: read of a directory is an error result
    # The message's words are the port's (NOTES #320); the positive control: a file inside the
    # directory reads.
    Given a file "adir/inside.txt" containing:
      """
      inside
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/adir"}
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    When "read" is executed with:
      """
      {"path": "{{TMP}}/adir/inside.txt"}
      """
    Then the result is not an error
    And the output contains "inside"

  @spec-4A @beyond-spec
  Scenario: read's error for a directory says it is a directory
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python say it is a directory or name it.
    Given a file "adir/inside.txt" containing:
      """
      inside
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/adir"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)directory|adir
      """
    When "read" is executed with:
      """
      {"path": "{{TMP}}/adir/inside.txt"}
      """
    Then the result is not an error
    And the output contains "inside"

  @spec-4A @beyond-spec
  Scenario Outline: read returns a CRLF file's carriage returns as they are, whole or windowed
    Beyond the SPEC: §4A says "read a UTF-8 text file" and nothing of line ends (NOTES #130).
    The reference returns the bytes untouched, so an `edit` with an `oldString` copied from a
    read matches the file; python's universal newlines turn `\r\n` into `\n`.
    Given a directory "docs"
    And a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/docs/crlf.txt", "content": "one\r\ntwo\r\nthree\r\n"}
      """
    And "read" is executed with:
      """
      <args>
      """
    Then the result matches:
      """
      {"output": "<output>", "isError": false, "$partial": true}
      """

    Examples:
      | args                                                          | output                       |
      | {"path": "{{TMP}}/docs/crlf.txt"}                             | one\\r\\ntwo\\r\\nthree\\r\\n |
      | {"path": "{{TMP}}/docs/crlf.txt", "offset": 2, "limit": 1}    | two\\r                       |
