@pin-0.16.0
Feature: Built-in grep — regex search of file contents (SPEC §4A)

  §4A: `grep` searches file contents by regex under `path`, optionally filtered by an
  `include` glob; output = `file:line:text` matches capped at `limit` (default 100); a failure
  is an isError ToolResult. SPEC 0.16.0 fixes neither the order of the matches nor the form of
  `file`, so the all-versions scenarios compare the set of lines, each `file` ending in the path
  relative to `path` (NOTES #69). Sorted relative paths (code-point order, then line order) are
  the python port's since 0.19.0 and are checked by `@since-0.19.0` scenarios. Skipping `.git`
  and `node_modules`, and binary files, is `@beyond-spec`. A slash-less `include` tests the
  basename, as opencode's ripgrep `--glob` does. Each scenario searches its own {{TMP}} tree.

  @spec-4A @clause-4A.grep.output-format @partial-clause-4A.grep.regex-under-path
  Scenario: grep prints one file:line:text line per match
    Given a file "proj/b.txt" containing:
      """
      needle one
      hay
      needle two
      """
    And a file "proj/a/z.txt" containing:
      """
      needle in a/z
      """
    And a file "proj/a.txt" containing:
      """
      hay
      needle at 2
      """
    And a file "proj/a-b/x.txt" containing:
      """
      x needle
      """
    And a file "proj/B.txt" containing:
      """
      Needle capital
      needle lower
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"pattern": "needle", "path": "{{TMP}}/proj"}
      """
    Then the result is not an error
    And the output matches:
      """
      ^(?:[^\n]*/)?(?:B\.txt:2:needle lower|a-b/x\.txt:1:x needle|a\.txt:2:needle at 2|a/z\.txt:1:needle in a/z|b\.txt:1:needle one|b\.txt:3:needle two)(?:\n(?:[^\n]*/)?(?:B\.txt:2:needle lower|a-b/x\.txt:1:x needle|a\.txt:2:needle at 2|a/z\.txt:1:needle in a/z|b\.txt:1:needle one|b\.txt:3:needle two)){5}$
      """
    And the output matches:
      """
      (?m)^(?:[^\n]*/)?B\.txt:2:needle lower$
      """
    And the output matches:
      """
      (?m)^(?:[^\n]*/)?a-b/x\.txt:1:x needle$
      """
    And the output matches:
      """
      (?m)^(?:[^\n]*/)?a\.txt:2:needle at 2$
      """
    And the output matches:
      """
      (?m)^(?:[^\n]*/)?a/z\.txt:1:needle in a/z$
      """
    And the output matches:
      """
      (?m)^(?:[^\n]*/)?b\.txt:1:needle one$
      """
    And the output matches:
      """
      (?m)^(?:[^\n]*/)?b\.txt:3:needle two$
      """

  @spec-4A @since-0.19.0 @clause-4A.grep.output-format @partial-clause-4A.grep.regex-under-path
  Scenario: grep prints file:line:text, files in sorted relative-path order, then line order
    SPEC 0.16.0 §4A fixes only `file:line:text`; relative `/` paths in code-point order, then
    line order, are python's since 0.19.0 (its addenda A24/A28), so this holds from 0.19.0.
    Given a file "proj/b.txt" containing:
      """
      needle one
      hay
      needle two
      """
    And a file "proj/a/z.txt" containing:
      """
      needle in a/z
      """
    And a file "proj/a.txt" containing:
      """
      hay
      needle at 2
      """
    And a file "proj/a-b/x.txt" containing:
      """
      x needle
      """
    And a file "proj/B.txt" containing:
      """
      Needle capital
      needle lower
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"pattern": "needle", "path": "{{TMP}}/proj"}
      """
    Then the result is not an error
    And the output is:
      """
      B.txt:2:needle lower
      a-b/x.txt:1:x needle
      a.txt:2:needle at 2
      a/z.txt:1:needle in a/z
      b.txt:1:needle one
      b.txt:3:needle two
      """

  @spec-4A @beyond-spec
  Scenario: grep takes a regular expression and never searches .git or node_modules
    Beyond the SPEC: §4A does not say which directories grep skips; the reference, opencode's
    ripgrep and every python release skip `.git` and `node_modules`.
    Given a file "proj/src/lib.rs" containing:
      """
      fn alpha() {}
      // fn commented() {}
      fn beta_two(x: u8) {}
      """
    And a file "proj/.git/hooks/hook.rs" containing:
      """
      fn hidden() {}
      """
    And a file "proj/node_modules/pkg/index.rs" containing:
      """
      fn vendored() {}
      """
    And a file "proj/web/node_modules/deep/x.rs" containing:
      """
      fn nested_vendored() {}
      """
    And a file "proj/web/app.rs" containing:
      """
      use x;
      fn web_main() {}
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"pattern": "^fn [a-z_]+\\(", "path": "{{TMP}}/proj"}
      """
    Then the result is not an error
    And the output matches:
      """
      ^(?:[^\n]*/)?(?:src/lib\.rs:1:fn alpha\(\) \{\}|src/lib\.rs:3:fn beta_two\(x: u8\) \{\}|web/app\.rs:2:fn web_main\(\) \{\})(?:\n(?:[^\n]*/)?(?:src/lib\.rs:1:fn alpha\(\) \{\}|src/lib\.rs:3:fn beta_two\(x: u8\) \{\}|web/app\.rs:2:fn web_main\(\) \{\})){2}$
      """
    And the output matches:
      """
      (?m)^(?:[^\n]*/)?src/lib\.rs:1:fn alpha\(\) \{\}$
      """
    And the output matches:
      """
      (?m)^(?:[^\n]*/)?src/lib\.rs:3:fn beta_two\(x: u8\) \{\}$
      """
    And the output matches:
      """
      (?m)^(?:[^\n]*/)?web/app\.rs:2:fn web_main\(\) \{\}$
      """

  @spec-4A @partial-clause-4A.grep.regex-under-path
  Scenario: grep with an include glob searches only the files it names
    Given a file "proj/main.py" containing:
      """
      import os
      """
    And a file "proj/pkg/util.py" containing:
      """
      import sys
      """
    And a file "proj/pkg/README.md" containing:
      """
      import nothing from here
      """
    And a file "proj/pkg/util.pyc" containing:
      """
      import compiled
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"pattern": "import", "path": "{{TMP}}/proj", "include": "*.py"}
      """
    Then the result is not an error
    And the output matches:
      """
      ^(?:[^\n]*/)?(?:main\.py:1:import os|pkg/util\.py:1:import sys)(?:\n(?:[^\n]*/)?(?:main\.py:1:import os|pkg/util\.py:1:import sys)){1}$
      """
    And the output matches:
      """
      (?m)^(?:[^\n]*/)?main\.py:1:import os$
      """
    And the output matches:
      """
      (?m)^(?:[^\n]*/)?pkg/util\.py:1:import sys$
      """

  @spec-4A @partial-clause-4A.grep.default-limit
  Scenario: grep's limit caps the number of matches
    Given a file "proj/b.txt" containing:
      """
      needle one
      needle two
      """
    And a file "proj/a/z.txt" containing:
      """
      needle in a/z
      """
    And a file "proj/a.txt" containing:
      """
      needle at 1
      needle at 2
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"pattern": "needle", "path": "{{TMP}}/proj", "limit": 3}
      """
    Then the result is not an error
    And the output matches:
      """
      ^(?:[^\n]*/)?(?:b\.txt:1:needle one|b\.txt:2:needle two|a/z\.txt:1:needle in a/z|a\.txt:1:needle at 1|a\.txt:2:needle at 2)(?:\n(?:[^\n]*/)?(?:b\.txt:1:needle one|b\.txt:2:needle two|a/z\.txt:1:needle in a/z|a\.txt:1:needle at 1|a\.txt:2:needle at 2)){2}$
      """

  @spec-4A @since-0.19.0 @partial-clause-4A.grep.default-limit
  Scenario: grep's limit keeps the first matches in the deterministic order
    SPEC 0.16.0 §4A caps the output at `limit` without saying which matches stay; python sorts
    before the cap since 0.19.0 (addendum A24), so this holds from 0.19.0.
    Given a file "proj/b.txt" containing:
      """
      needle one
      needle two
      """
    And a file "proj/a/z.txt" containing:
      """
      needle in a/z
      """
    And a file "proj/a.txt" containing:
      """
      needle at 1
      needle at 2
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"pattern": "needle", "path": "{{TMP}}/proj", "limit": 3}
      """
    Then the result is not an error
    And the output is:
      """
      a.txt:1:needle at 1
      a.txt:2:needle at 2
      a/z.txt:1:needle in a/z
      """

  @spec-4A @clause-4A.grep.default-limit
  Scenario: grep without a limit returns at most 100 matches
    Given a file "proj/many.txt" containing:
      """
      hit 1
      hit 2
      hit 3
      hit 4
      hit 5
      hit 6
      hit 7
      hit 8
      hit 9
      hit 10
      hit 11
      hit 12
      hit 13
      hit 14
      hit 15
      hit 16
      hit 17
      hit 18
      hit 19
      hit 20
      hit 21
      hit 22
      hit 23
      hit 24
      hit 25
      hit 26
      hit 27
      hit 28
      hit 29
      hit 30
      hit 31
      hit 32
      hit 33
      hit 34
      hit 35
      hit 36
      hit 37
      hit 38
      hit 39
      hit 40
      hit 41
      hit 42
      hit 43
      hit 44
      hit 45
      hit 46
      hit 47
      hit 48
      hit 49
      hit 50
      hit 51
      hit 52
      hit 53
      hit 54
      hit 55
      hit 56
      hit 57
      hit 58
      hit 59
      hit 60
      hit 61
      hit 62
      hit 63
      hit 64
      hit 65
      hit 66
      hit 67
      hit 68
      hit 69
      hit 70
      hit 71
      hit 72
      hit 73
      hit 74
      hit 75
      hit 76
      hit 77
      hit 78
      hit 79
      hit 80
      hit 81
      hit 82
      hit 83
      hit 84
      hit 85
      hit 86
      hit 87
      hit 88
      hit 89
      hit 90
      hit 91
      hit 92
      hit 93
      hit 94
      hit 95
      hit 96
      hit 97
      hit 98
      hit 99
      hit 100
      hit 101
      hit 102
      hit 103
      hit 104
      hit 105
      hit 106
      hit 107
      hit 108
      hit 109
      hit 110
      hit 111
      hit 112
      hit 113
      hit 114
      hit 115
      hit 116
      hit 117
      hit 118
      hit 119
      hit 120
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"pattern": "^hit", "path": "{{TMP}}/proj"}
      """
    Then the result is not an error
    And the output matches:
      """
      ^(?:(?:[^\n]*/)?many\.txt:([0-9]+):hit [0-9]+\n){99}(?:[^\n]*/)?many\.txt:[0-9]+:hit [0-9]+$
      """

  @spec-4A @clause-4A.common.failure-is-result @partial-clause-4A.grep.regex-under-path
  Scenario: grep with an invalid regular expression is an error result
    Given a file "proj/a.txt" containing:
      """
      (unclosed
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"pattern": "(unclosed", "path": "{{TMP}}/proj"}
      """
    Then the result is an error
    # The message's words are the port's (NOTES #320: the @beyond-spec twin below checks them).
    And the output matches:
      """
      \S
      """
    # The cause: the same text as a valid (escaped) regex is found.
    When "grep" is executed with:
      """
      {"pattern": "\\(unclosed", "path": "{{TMP}}/proj"}
      """
    Then the result is not an error
    And the output contains "(unclosed"

  @spec-4A @beyond-spec
  Scenario: grep's error for an invalid regular expression says so
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python name the regex or the pattern.
    Given a file "proj/a.txt" containing:
      """
      (unclosed
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"pattern": "(unclosed", "path": "{{TMP}}/proj"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)regex|pattern
      """
    When "grep" is executed with:
      """
      {"pattern": "\\(unclosed", "path": "{{TMP}}/proj"}
      """
    Then the result is not an error

  @spec-4A @clause-4A.common.failure-is-result
  Scenario Outline: grep without a pattern is an error result
    Beyond the SPEC: (the `@beyond-spec` example rows only) §4A types `pattern` as a string but
    does not say what execute does with a non-string one (NOTES #38, #74). A missing pattern
    leaves grep nothing to search for, a failure §4A makes an isError result. Its words are the
    port's (NOTES #320: the @beyond-spec twin below checks them); the positive control: with a
    pattern the same call finds the line.
    Given a file "proj/a.txt" containing:
      """
      anything
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      <args>
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    When "grep" is executed with:
      """
      {"pattern": "any", "path": "{{TMP}}/proj"}
      """
    Then the result is not an error
    And the output contains "anything"

    Examples:
      | args                                  |
      | {"path": "{{TMP}}/proj"}              |

    @beyond-spec
    Examples:
      | args                                  |
      | {"pattern": 5, "path": "{{TMP}}/proj"}  |

  @spec-4A @beyond-spec
  Scenario: grep's error for a missing pattern names the field
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python name the missing `pattern`.
    Given a file "proj/a.txt" containing:
      """
      anything
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"path": "{{TMP}}/proj"}
      """
    Then the result is an error
    And the output contains "pattern"
    When "grep" is executed with:
      """
      {"pattern": "any", "path": "{{TMP}}/proj"}
      """
    Then the result is not an error

  @spec-4A @beyond-spec
  Scenario: grep skips a file that is not UTF-8 text and still reports the others
    Beyond the SPEC: §4A says nothing about binary or non-UTF-8 files (NOTES #39); the reference
    skips them as ripgrep does.
    Given a file "proj/bin/blob.dat" containing invalid UTF-8
    And a file "proj/notes.txt" containing:
      """
      name: good
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"pattern": "name", "path": "{{TMP}}/proj"}
      """
    Then the result is not an error
    And the output matches:
      """
      ^(?:[^\n]*/)?notes\.txt:1:name: good$
      """

  @spec-4A @clause-4A.grep.output-format
  Scenario Outline: grep reports only the file's lines, never an empty line after the last newline
    §4A's `file:line:text` numbers the file's lines; a final `\n` ends the last line and does
    not start another, so a pattern matching the empty string reports no line past it.
    Given a directory "proj"
    And a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/proj/f.txt", "content": "<content>"}
      """
    And "grep" is executed with:
      """
      {"pattern": "<pattern>", "path": "{{TMP}}/proj"}
      """
    Then the result is not an error
    And the output matches:
      """
      <output>
      """

    Examples:
      | content             | pattern | output                                                    |
      | foo\\n\\nbar\\n     | ^$      | ^(?:[^\\n]*/)?f[.]txt:2:$                                 |
      | one\\ntwo\\n        | .*      | ^(?:[^\\n]*/)?f[.]txt:1:one\\n(?:[^\\n]*/)?f[.]txt:2:two$ |
      | one\\ntwo           | .*      | ^(?:[^\\n]*/)?f[.]txt:1:one\\n(?:[^\\n]*/)?f[.]txt:2:two$ |

  @spec-4A @beyond-spec
  Scenario: grep takes CRLF as a line end, so "$" matches before it and the text has no carriage return
    Beyond the SPEC: §4A does not say what a line of a CRLF file is (NOTES #130). The
    reference ends a line at `\n` and drops one `\r` before it, as python's universal newlines
    do, so `foo$` matches `foo\r\n` and the reported text is `foo`.
    Given a directory "proj"
    And a toolkit built with no options
    When "write" is executed with:
      """
      {"path": "{{TMP}}/proj/crlf.txt", "content": "foobar\r\nfoo\r\nfoo \r\n"}
      """
    And "grep" is executed with:
      """
      {"pattern": "^foo$", "path": "{{TMP}}/proj"}
      """
    Then the result matches:
      """
      {"output": {"$regex": "^(?:[^\\n]*/)?crlf[.]txt:2:foo$"}, "isError": false, "$partial": true}
      """

  @spec-4A @lenient @partial-clause-4A.common.failure-is-result
  Scenario Outline: grep with a lookaround or a backreference either matches it or is an error result
    §4A types `pattern` as a regex but names no dialect (NOTES #131): the reference's Rust
    `regex` crate has no lookaround and no backreferences, python's `re` has both. Either is
    accepted — the right matches, or an isError result (§4A: a failure is a result).
    Given a file "proj/a.txt" containing:
      """
      foobar
      foobaz
      aa
      ab
      """
    And a toolkit built with no options
    When "grep" is executed with:
      """
      {"pattern": "<pattern>", "path": "{{TMP}}/proj"}
      """
    Then the result matches:
      """
      {"$oneOf": [
        {"output": {"$regex": "^(?:[^\\n]*/)?<matches>$"}, "isError": false, "$partial": true},
        {"output": {"$regex": "\\S"}, "isError": true, "$partial": true}
      ]}
      """
    # An error's words are the port's (NOTES #320); the positive control: a plain regex over
    # the same file is matched, so an error above is about the construct.
    When "grep" is executed with:
      """
      {"pattern": "^a[ab]$", "path": "{{TMP}}/proj"}
      """
    Then the result is not an error
    And the output matches:
      """
      ^(?:[^\n]*/)?a[.]txt:3:aa\n(?:[^\n]*/)?a[.]txt:4:ab$
      """

    Examples:
      | pattern        | matches           |
      | foo(?=bar)     | a[.]txt:1:foobar  |
      | foo(?!bar)     | a[.]txt:2:foobaz  |
      | ^(a)\\\\1$     | a[.]txt:3:aa      |
