@pin-0.16.0
Feature: Built-in bash — one shell command, combined output, exit codes, timeouts (SPEC §4A)

  §4A: `bash` runs one shell command (`/bin/sh -c`, as the Python port 0.21 does) in `workdir`
  (default cwd); output = combined stdout+stderr; a non-zero exit is `isError` with the exit
  code in the output; a `timeout` (ms, default 60000) kills the child ⇒ `isError`. Since SPEC
  0.20.0 (python 0.20.0) a timeout kills the command's whole process group, so what it
  backgrounded dies with it (`@since-0.20.0`). §4A gives no error words: a scenario expecting
  an error checks that there is a message and a positive control (the same call, its cause
  removed, runs), and a `@beyond-spec` twin checks the reference's words (NOTES #320). Each
  scenario works in its own {{TMP}}.

  @spec-4A @beyond-spec
  Scenario: bash runs the command with /bin/sh -c
    Beyond the SPEC: §4A says "Run one shell command via the runtime's process API"; which shell
    is not named. `/bin/sh -c` is the issue's choice and python's (NOTES #43).
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "echo \"shell=$0\""}
      """
    Then the result is not an error
    And the output matches:
      """
      ^shell=/bin/sh\s*$
      """

  @spec-4A @clause-4A.bash.combined-output
  Scenario: bash returns stdout and stderr combined in one output
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "echo to-stdout; echo to-stderr 1>&2; echo again-stdout"}
      """
    Then the result is not an error
    And the output contains "to-stdout"
    And the output contains "to-stderr"
    And the output contains "again-stdout"

  @spec-4A @partial-clause-4A.bash.workdir-default-cwd
  Scenario: bash runs in the given workdir
    Given a file "work/here/marker.txt" containing:
      """
      found-by-relative-path
      """
    And a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "cat marker.txt && pwd", "workdir": "{{TMP}}/work/here"}
      """
    Then the result is not an error
    And the output contains "found-by-relative-path"
    And the output contains "{{TMP}}/work/here"

  @spec-4A @clause-4A.bash.non-zero-exit @clause-4A.bash.combined-output
  Scenario: bash with a non-zero exit is an error whose output keeps the command output and the code
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "echo before-failing; exit 42"}
      """
    Then the result is an error
    And the output contains "before-failing"
    And the output contains "42"

  @spec-4A @beyond-spec
  Scenario: bash metadata carries the exit code, zero or not
    Beyond the SPEC: §4A puts the exit code in the output ("output includes the exit code",
    checked above) and never names a `metadata.exitCode`; §1 leaves `metadata` free-form. The
    reference and python 0.21 carry it (NOTES #333).
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "exit 5"}
      """
    Then the result matches:
      """
      {"$partial": true, "isError": true, "metadata": {"$partial": true, "exitCode": 5}}
      """
    When "bash" is executed with:
      """
      {"command": "true"}
      """
    Then the result matches:
      """
      {"$partial": true, "isError": false, "metadata": {"$partial": true, "exitCode": 0}}
      """

  @spec-4A @partial-clause-4A.bash.default-timeout
  Scenario: bash finishes a command that outlasts a short wait within the default timeout
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "sleep 1; echo slept"}
      """
    Then the result is not an error
    And the output contains "slept"

  @spec-4A @clause-4A.bash.timeout-kills
  Scenario: a bash timeout kills the child and is an error
    # §4A gives the timeout no words (NOTES #320: the @beyond-spec twin below checks them): a
    # message, the bound, and the positive control (a command that ends in time runs).
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "sleep 30", "timeout": 1000}
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    And the call took less than 10000 ms
    When "bash" is executed with:
      """
      {"command": "sleep 0.1; echo in-time", "timeout": 10000}
      """
    Then the result is not an error
    And the output contains "in-time"

  @spec-4A @beyond-spec
  Scenario: a bash timeout's error says it timed out
    Beyond the SPEC: §4A says "Timeout kills the child ⇒ `isError:true`" and gives no words
    (NOTES #320); the reference and python say the command timed out.
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "sleep 30", "timeout": 1000}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)time
      """
    When "bash" is executed with:
      """
      {"command": "sleep 0.1; echo in-time", "timeout": 10000}
      """
    Then the result is not an error
    And the output contains "in-time"

  @spec-4A @since-0.20.0 @clause-4A.bash.timeout-kills
  Scenario: a bash timeout is an error and kills the whole process group, backgrounded children too
    SPEC 0.16.0 §4A says "Timeout kills the child"; killing what the command backgrounded is
    python's since 0.20.0 (its process-group kill, ADR 0034), so this holds from 0.20.0.
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "echo started; sleep 300 & echo $! > '{{TMP}}/pid'; wait", "timeout": 1500}
      """
    Then the result is an error
    # The words are the port's (NOTES #320; *a bash timeout's error says it timed out*); the
    # pid file the command wrote shows it ran.
    And the output matches:
      """
      \S
      """
    And the process whose pid is in "pid" is gone

  @spec-4A @clause-4A.common.failure-is-result
  Scenario: bash without a command is an error result
    # The message's words are the port's (NOTES #320); the positive control: with a command
    # the same call runs.
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"workdir": "{{TMP}}"}
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    When "bash" is executed with:
      """
      {"command": "echo ran", "workdir": "{{TMP}}"}
      """
    Then the result is not an error
    And the output contains "ran"

  @spec-4A @beyond-spec
  Scenario: bash's error for a missing command names the field
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python name the missing `command`.
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"workdir": "{{TMP}}"}
      """
    Then the result is an error
    And the output contains "command"
    When "bash" is executed with:
      """
      {"command": "echo ran", "workdir": "{{TMP}}"}
      """
    Then the result is not an error
    And the output contains "ran"

  @spec-4A @partial-clause-4A.common.failure-is-result
  Scenario: bash with a workdir that does not exist is an error result and runs nothing
    # The message's words are the port's (NOTES #320: JS 0.16 says `bash: spawn /bin/sh
    # ENOENT`); the cause: the same command in a workdir that exists runs and writes its file.
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "echo ran > {{TMP}}/ran.txt", "workdir": "{{TMP}}/no/such/dir"}
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    And the file "ran.txt" does not exist
    When "bash" is executed with:
      """
      {"command": "echo ran > {{TMP}}/ran.txt", "workdir": "{{TMP}}"}
      """
    Then the result is not an error
    And the file "ran.txt" contains "ran"

  @spec-4A @beyond-spec
  Scenario: bash's error for a workdir that does not exist says what is missing
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python name the missing directory, JS 0.16 says
    `bash: spawn /bin/sh ENOENT`.
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "echo ran > {{TMP}}/ran.txt", "workdir": "{{TMP}}/no/such/dir"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)no such|not found|does not exist|workdir|directory
      """
    When "bash" is executed with:
      """
      {"command": "echo ran > {{TMP}}/ran.txt", "workdir": "{{TMP}}"}
      """
    Then the result is not an error
    And the file "ran.txt" contains "ran"

  @spec-4A @beyond-spec
  Scenario: bash with a command that is not a string is an error result
    Beyond the SPEC: §4A types `command` as a string but does not say what execute does with
    another value (NOTES #38, #74); the reference refuses it. The positive control: the same
    command as a string runs (NOTES #321).
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": ["echo", "hi"]}
      """
    Then the result is an error
    And the output contains "command"
    When "bash" is executed with:
      """
      {"command": "echo hi"}
      """
    Then the result is not an error
    And the output contains "hi"

  @spec-4A @beyond-spec
  Scenario: bash gives the command an empty stdin, so a command reading it ends at once
    Beyond the SPEC: §4A does not say what the command's stdin is (NOTES #133). The reference
    gives it /dev/null: a command that reads stdin sees end-of-file at once and never blocks
    on, or consumes, the host's own stdin (a driver's request stream).
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "cat; read -r line || echo \"stdin ended\"", "timeout": 2000}
      """
    Then the result is not an error
    And the output is "stdin ended\n"
    And the call took less than 1500 ms

  @spec-4A @beyond-spec @partial-clause-4A.bash.timeout-kills
  Scenario Outline: bash with a timeout of 0 ms always times out, however fast the command
    Beyond the SPEC: §4A gives `timeout` in ms and "timeout kills the child" but does not
    single out 0 (NOTES #134). The reference reads it literally, a budget already spent, as
    python's `communicate(timeout=0)` does: every run is a timed-out isError, even for a
    command that would finish at once (before, it raced the command and 2 in 40 timed out).
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "<command>", "timeout": <timeout>}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)timed?\s*out
      """
    # The positive control (NOTES #321): with a real budget the same command runs.
    When "bash" is executed with:
      """
      {"command": "<command>", "timeout": 10000}
      """
    Then the result is not an error

    Examples:
      | command | timeout |
      | true    | 0       |
      | echo hi | 0       |
      | true    | -5      |
