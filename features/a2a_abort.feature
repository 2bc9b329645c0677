@pin-0.17.0
Feature: A2A agents, outbound: an abort wherever it lands (SPEC §7A, the text after 0.16.0)
  SPEC 0.17.0's §7A cancels a task wherever the `ctx` abort is observed — between polls,
  mid-`SendMessage`, mid-`GetTask` — and re-checks the abort on every error and exit path
  before reporting a transport error (0.16.0 only stopped "before the next `GetTask`"). The
  abort is `execute`'s `abortAfterMs` (PROTOCOL.md §5.4). Each agent is a mock A2A agent
  (mock-servers/scenarios/a2a) started by the harness; the `stall-*` agents hold each answer
  of one method back 2000 ms (`stallMs`), so the abort lands while that request is in flight.

  @spec-7A @clause-7A.map.abort-anywhere @partial-clause-7A.map.metadata
  Scenario Outline: an abort observed <where> is "A2A task … canceled" with metadata.state "canceled"
    The agent holds every <method> answer back 2000 ms; the call's abort signal fires <abort> ms
    after the call starts, while that request is in flight (or, for the never-ending task,
    between two polls). The rows that need the task first abort at 1500 ms (NOTES #431): on a
    busy machine a local agent's SendMessage answer was seen to take over 300 ms, and an
    abort before it is the first row's case, not theirs.
    §7A cancels wherever the abort is observed; how soon a port notices it is its own (§8
    "ports differ only in abort latency", NOTES #395), so only the outcome is checked here
    and the @beyond-spec twin below times it. The positive control runs the same
    agents without the abort to completion, so a held GetTask that answers "completed" and
    still ends canceled shows the abort, not the agent. Whether an abort that lands before
    SendMessage answered names a task id (there is none yet) is open (NOTES #390): that row's
    id may be empty or absent.
    Given a mock A2A agent runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "<tool>" is executed, aborted after <abort> ms, with:
      """
      {"task": "anything"}
      """
    Then the result matches:
      """
      {"output": {"$regex": "<output>"}, "isError": true,
       "metadata": {"state": "canceled", "agent": {"$match": "string"}, "polls": {"$match": "number"},
                    "$partial": true}}
      """

    Examples:
      | where           | method      | file            | tool                      | abort | output                     |
      | mid-SendMessage | SendMessage | stall-send.json | Slow_Intake_intake        | 300   | ^A2A task [^ ]* ?canceled$ |
      | mid-GetTask     | GetTask     | stall-get.json  | Slow_Status_status        | 1500  | ^A2A task [^ ]+ canceled$  |
      | between polls   | GetTask     | forever.json    | Archive_Indexer_index     | 1500  | ^A2A task [^ ]+ canceled$  |

  @spec-7A @beyond-spec @serial
  Scenario Outline: an abort that lands <where> ends the call at once, not when the held answer comes
    Beyond the SPEC: §7A says an abort observed mid-request is a cancel but not how soon it is
    observed, and §8 lets ports differ in abort latency (NOTES #395). The reference stops the
    in-flight request at the abort: the call ends well before the 2000 ms the agent holds its
    answer (300 ms for the harness and the protocol on top of the abort's 300 ms, and more for
    a busy machine).
    Given a mock A2A agent runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "<tool>" is executed, aborted after 300 ms, with:
      """
      {"task": "anything"}
      """
    Then the result matches:
      """
      {"output": {"$regex": "canceled$"}, "isError": true, "metadata": {"state": "canceled", "$partial": true}}
      """
    And the call took less than 1500 ms

    Examples:
      | where           | file            | tool               |
      | mid-SendMessage | stall-send.json | Slow_Intake_intake |
      | mid-GetTask     | stall-get.json  | Slow_Status_status |

  @spec-7A @partial-clause-7A.map.completed @partial-clause-7A.map.metadata
  Scenario Outline: without the abort, an agent that holds its <method> answers back still completes
    The positive control of the abort scenarios above: the same agents, the same call, no
    abort; the held answer comes after 2000 ms and the task completes.
    Given a mock A2A agent runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "<tool>" is executed with:
      """
      {"task": "anything"}
      """
    Then the result matches:
      """
      {"output": "<output>", "isError": false, "metadata": {"state": "completed", "$partial": true}}
      """

    Examples:
      | method      | file            | tool               | output        |
      | SendMessage | stall-send.json | Slow_Intake_intake | accepted late |
      | GetTask     | stall-get.json  | Slow_Status_status | reported late |

  @spec-7A @clause-7A.map.abort-rechecked-before-transport-error @partial-clause-7A.map.abort-anywhere
  Scenario: an abort that lands while a failing request is in flight is a cancel, not the transport's error
    The agent holds SendMessage 2000 ms and then answers HTTP 500; the abort fires at 300 ms.
    Whether the port stops the request at the abort or waits for its failure, §7A re-checks
    the abort before reporting a transport error, so the result is the cancel and carries none
    of the failure's words. The cause: without the abort the same call is the HTTP error
    (next scenario). The id is open here too (NOTES #390).
    Given a mock A2A agent runs "stall-send-500.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "Slow_Failing_Intake_intake" is executed, aborted after 300 ms, with:
      """
      {"task": "anything"}
      """
    Then the result matches:
      """
      {"output": {"$regex": "^A2A task [^ ]* ?canceled$"}, "isError": true,
       "metadata": {"state": "canceled", "$partial": true}}
      """
    And the output does not contain "500"

  @spec-7A @partial-clause-7A.execute.reuses-http @partial-clause-7A.map.abort-rechecked-before-transport-error
  Scenario: without the abort, the same held request that fails is an error result, not a cancel
    The positive control of the scenario above: no abort, so the HTTP 500 is what the call
    reports (its words are the port's: only that it is no cancel is checked).
    Given a mock A2A agent runs "stall-send-500.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "Slow_Failing_Intake_intake" is executed with:
      """
      {"task": "anything"}
      """
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": true, "metadata": {"$partial": true, "agent": {"$match": "string"}}}
      """
    And the output does not contain "canceled"
