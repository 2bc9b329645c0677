@pin-0.16.0
Feature: Built-in bash — one shell command, combined output, exit codes, timeouts (SPEC §4A)

  §4A: `bash` runs one shell command (`/bin/sh -c`, as the Python port 0.21 does) in `workdir`
  (default cwd); output = combined stdout+stderr; a non-zero exit is `isError` with the exit
  code in the output; a `timeout` (ms, default 60000) kills the child ⇒ `isError`. Since SPEC
  0.20.0 (python 0.20.0) a timeout kills the command's whole process group, so what it
  backgrounded dies with it (`@since-0.20.0`). Message
  wordings are not fixed by §4A, so they are matched leniently. Each scenario works in its
  own {{TMP}}.

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

  @spec-4A @partial-clause-4A.bash.non-zero-exit
  Scenario: bash metadata carries the exit code, zero or not
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
    And the call took less than 10000 ms

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
    And the output matches:
      """
      (?i)timed?\s*out
      """
    And the process whose pid is in "pid" is gone

  @spec-4A @clause-4A.common.failure-is-result
  Scenario: bash without a command is an error result
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"workdir": "{{TMP}}"}
      """
    Then the result is an error
    And the output contains "command"

  @spec-4A @partial-clause-4A.common.failure-is-result
  Scenario: bash with a workdir that does not exist is an error result and runs nothing
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
    And the file "ran.txt" does not exist

  @spec-4A @beyond-spec
  Scenario: bash with a command that is not a string is an error result
    Beyond the SPEC: §4A types `command` as a string but does not say what execute does with
    another value (NOTES #38, #74); the reference refuses it.
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": ["echo", "hi"]}
      """
    Then the result is an error
    And the output contains "command"

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

    Examples:
      | command | timeout |
      | true    | 0       |
      | echo hi | 0       |
      | true    | -5      |
