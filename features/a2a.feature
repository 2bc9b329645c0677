@pin-0.16.0
Feature: A2A agents, outbound (SPEC §7A)
  Each agent is a mock A2A agent (mock-servers/scenarios/a2a) started by the harness;
  `{{A2A}}` is its base URL and its card is at `{{A2A}}/.well-known/agent-card.json`. The
  mock checks the client's wire shape strictly (literal `SendMessage`/`GetTask`, a user
  message with a `messageId` and a text part, `configuration.blocking: false`).

  @spec-7A
  @clause-7A.resolve.get-card @clause-7A.resolve.tool-name @clause-7A.resolve.source
  @clause-7A.api.create-toolkit-agents
  Scenario: one tool per card skill, named sanitize(card.name)_sanitize(skill.id ?? skill.name)
    Given a mock A2A agent runs "completes.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json"}]}
      """
    Then the toolkit has the tool "Research_Bot_summarize"
    And the toolkit has the tool "Research_Bot_Translate_text"
    And the tool "Research_Bot_summarize" has source "a2a"
    And there are no errors

  @spec-7A @clause-7A.resolve.input-schema
  Scenario: an agent tool takes one required string "task"
    Given a mock A2A agent runs "completes.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json"}]}
      """
    Then the tool "Research_Bot_summarize" matches:
      """
      {"name": "Research_Bot_summarize", "description": {"$match": "string"}, "source": "a2a",
       "inputSchema": {"type": "object", "properties": {"task": {"type": "string", "$partial": true}},
                       "required": ["task"], "$partial": true}}
      """

  @spec-7A
  @clause-7A.map.completed @clause-7A.wire.json-rpc-post @clause-7A.execute.method-names-literal
  @clause-7A.execute.non-blocking @clause-7A.execute.send-then-poll
  @partial-clause-7A.execute.send-message-body @partial-clause-7A.execute.get-task-body
  @partial-clause-7A.execute.message-parts @partial-clause-7A.wire.no-streaming
  @partial-clause-7A.resolve.endpoint
  Scenario: a completed task returns every artifact's text parts joined by newlines
    Given a mock A2A agent runs "completes.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "Research_Bot_summarize" is executed with:
      """
      {"task": "Summarize the release notes"}
      """
    Then the output is "line one\nline two"
    And the result is not an error

  @spec-7A @clause-7A.map.metadata @clause-7A.execute.send-then-poll @clause-7A.poll.task-states
  Scenario: every result carries {agent, taskId, state, polls, ms}
    Given a mock A2A agent runs "completes.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "Research_Bot_summarize" is executed with:
      """
      {"task": "Summarize"}
      """
    Then the result matches:
      """
      {"output": "line one\nline two", "isError": false,
       "metadata": {"agent": "Research Bot", "taskId": {"$regex": "."}, "state": "completed", "polls": 3,
                    "ms": {"$match": "number"}}}
      """

  @spec-7A @partial-clause-7A.execute.message-parts
  Scenario: the task text reaches the agent as a user message
    Given a mock A2A agent runs "echo.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "Echo_Agent_echo" is executed with:
      """
      {"task": "Bonjour, ça va ?"}
      """
    Then the output is "Bonjour, ça va ?"

  @spec-7A @clause-7A.map.completed-fallback
  Scenario: without artifacts the last agent message of the history is the output
    Given a mock A2A agent runs "history-only.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "Chat_Assistant_chat" is executed with:
      """
      {"task": "the question"}
      """
    Then the output is "final answer"

  @spec-7A
  @partial-clause-7A.map.failed-canceled @partial-clause-7A.map.metadata
  @partial-clause-7A.poll.task-states
  Scenario: a failed task is an error "A2A task <id> failed: <message>"
    Given a mock A2A agent runs "fails.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "Report_Generator_report" is executed with:
      """
      {"task": "Quarterly report"}
      """
    Then the result matches:
      """
      {"output": {"$regex": "^A2A task \\S+ failed: quota exceeded$"}, "isError": true,
       "metadata": {"state": "failed", "polls": 2, "$partial": true}}
      """

  @spec-7A
  @partial-clause-7A.map.failed-canceled @partial-clause-7A.map.metadata
  @partial-clause-7A.poll.task-states
  Scenario: a canceled task without a message is an error "A2A task <id> canceled"
    Given a mock A2A agent runs "canceled.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "Ticket_Triage_triage" is executed with:
      """
      {"task": "Triage ticket 7"}
      """
    Then the result matches:
      """
      {"output": {"$regex": "^A2A task \\S+ canceled$"}, "isError": true,
       "metadata": {"state": "canceled", "$partial": true}}
      """

  @spec-7A @clause-7A.map.timeout @partial-clause-7A.poll.order @partial-clause-7A.map.metadata @serial
  Scenario: a task that never ends times out within its bound plus one poll interval
    Given a mock A2A agent runs "forever.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "timeout": 1000, "pollEvery": 200}]}
      """
    When "Archive_Indexer_index" is executed with:
      """
      {"task": "Index everything"}
      """
    Then the result matches:
      """
      {"output": {"$regex": "^A2A task \\S+ timed out after 1000ms \\(state=working\\)$"}, "isError": true,
       "metadata": {"state": "working", "polls": {"$match": "number"}, "$partial": true}}
      """
    # §7A's loop checks the deadline before each sleep, so the call ends by the timeout plus
    # one poll interval (1000 + 200 ms); 300 ms more covers the harness and the protocol.
    And the call took less than 1500 ms

  @spec-7A @partial-clause-7A.resolve.endpoint
  Scenario: without card.url the JSON-RPC endpoint is the card URL's origin
    Given a mock A2A agent runs "no-url.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50}]}
      """
    When "Weather_Agent_forecast" is executed with:
      """
      {"task": "Paris tomorrow"}
      """
    Then the output is "via origin"

  @spec-7A @clause-7A.headers.env-expansion @partial-clause-7A.execute.reuses-http
  Scenario: agent headers expand ${ENV} and reach the agent; the value is never reported
    Given a mock A2A agent runs "secured.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50,
        "headers": {"Authorization": "Bearer ${TOOLNEXUS_CONFORMANCE_SECRET}"}}]}
      """
    When "Secure_Vault_Agent_vault" is executed with:
      """
      {"task": "open"}
      """
    Then the output is "secured ok"
    And nothing the port reported mentions the secret

  @spec-7A @partial-clause-7A.headers.env-expansion @partial-clause-7A.resolve.failure-isolated
  Scenario: a wrong expanded header leaves the agent without tools, and the value unreported
    # The error's words are the port's (NOTES #67, #320: the @beyond-spec twin below checks
    # that it names the 401); the cause: with the right header the same card gives its tool.
    Given a mock A2A agent runs "secured.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json",
        "headers": {"Authorization": "Bearer ${TOOLNEXUS_CONFORMANCE_SECRET}"}}]}
      """
    Then the toolkit has the tool "Secure_Vault_Agent_vault"
    Given a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json",
        "headers": {"Authorization": "Basic ${TOOLNEXUS_CONFORMANCE_SECRET}"}}]}
      """
    Then the toolkit has no tool "Secure_Vault_Agent_vault"
    And there is an error for "agent:{{A2A}}/.well-known/agent-card.json"
    And nothing the port reported mentions the secret

  @spec-7A @beyond-spec
  Scenario: the error for a card refused with 401 names the status
    Beyond the SPEC: §7A says "A failing agent is isolated (logged, no tools)" and gives the
    failure no words (NOTES #67, #320); the reference's entry names the HTTP status.
    Given a mock A2A agent runs "secured.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json",
        "headers": {"Authorization": "Basic ${TOOLNEXUS_CONFORMANCE_SECRET}"}}]}
      """
    Then the error for "agent:{{A2A}}/.well-known/agent-card.json" mentions "401"
    And nothing the port reported mentions the secret

  @spec-7A @clause-7A.resolve.failure-isolated
  Scenario Outline: an agent whose <problem> contributes no tools, never breaks the build
    Given a mock A2A agent runs "<file>"
    And a toolkit built with:
      """
      {"skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}], "agents": [{"card": "{{A2A}}/.well-known/agent-card.json"}]}
      """
    Then the toolkit has the tool "skill"
    And the toolkit has the tool "bash"
    And the tool names match:
      """
      ["skill", "bash", "read", "write", "edit", "grep", "glob", "webfetch", "question", "apply_patch", "todowrite"]
      """

    Examples:
      | problem                      | file                |
      | card answers 500             | card-500.json       |
      | card is not JSON             | card-malformed.json |

  @spec-7A @partial-clause-7A.resolve.failure-isolated
  Scenario Outline: a failing agent card is an error entry under "agent:" and the card URL (<problem>)
    # The entry's words are the port's (NOTES #67, #320: the @beyond-spec twin below checks
    # them); the positive control: a working agent beside it gives its tool.
    Given a mock A2A agent runs "<file>"
    And a mock A2A agent "good" runs "echo.json"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json"},
                                     {"card": "{{A2A:good}}/.well-known/agent-card.json"}]}
      """
    Then there is an error for "agent:{{A2A}}/.well-known/agent-card.json"
    And the toolkit has the tool "Echo_Agent_echo"

    Examples:
      | problem          | file                | mention |
      | card answers 500 | card-500.json       | 500     |
      | card is not JSON | card-malformed.json | agent   |

  @spec-7A @beyond-spec
  Scenario Outline: a failing agent card's error entry says why (<problem>)
    Beyond the SPEC: §7A says "A failing agent is isolated (logged, no tools)" and gives the
    failure no words (NOTES #67, #320); the reference's entry names the status or the agent.
    Given a mock A2A agent runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json"}]}
      """
    Then the error for "agent:{{A2A}}/.well-known/agent-card.json" mentions "<mention>"

    Examples:
      | problem          | file                | mention |
      | card answers 500 | card-500.json       | 500     |
      | card is not JSON | card-malformed.json | agent   |

  @spec-7A @partial-clause-7A.execute.reuses-http @partial-clause-7A.map.metadata
  Scenario Outline: a task whose JSON-RPC endpoint <problem> is an error result, not a panic
    Given a mock A2A agent runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "{{A2A}}/.well-known/agent-card.json", "timeout": 3000, "pollEvery": 50}]}
      """
    When "<tool>" is executed with:
      """
      {"task": "anything"}
      """
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": true, "metadata": {"$partial": true, "agent": {"$match": "string"}}}
      """

    Examples:
      | problem                    | file               | tool                       |
      | answers HTTP 500           | rpc-500.json       | Billing_Agent_ask          |
      | answers malformed JSON     | rpc-malformed.json | Inventory_Agent_ask        |
      | answers a JSON-RPC error   | rpc-error.json     | Calendar_Agent_ask         |

  @spec-7A @partial-clause-7A.config.enabled-precedence
  Scenario: a disabled agent is skipped without fetching its card
    Given a toolkit built with:
      """
      {"builtins": false, "agents": [{"card": "http://127.0.0.1:9/.well-known/agent-card.json", "disabled": true}]}
      """
    Then there are no errors
    And the tool names match:
      """
      {"$oneOf": [["skill"], []]}
      """

  @spec-7A
  @clause-7A.config.prefix-from-card @partial-clause-7A.config.agents-block
  @partial-clause-7A.config.enabled-precedence
  Scenario: the config file's agents block adds agents; its keys are only identifiers
    Given a mock A2A agent runs "echo.json"
    And a toolkit built with:
      """
      {"builtins": false, "mcpConfig": {"mcpServers": {}, "agents": {
        "whatever-id": {"card": "{{A2A}}/.well-known/agent-card.json", "pollEvery": 50},
        "off": {"card": "http://127.0.0.1:9/.well-known/agent-card.json", "enabled": false}}}}
      """
    Then the toolkit has the tool "Echo_Agent_echo"
    And the toolkit has no tool "whatever-id_echo"
    And there are no errors

  @spec-7A @clause-7A.config.agents-block @partial-clause-7A.headers.env-expansion
  @partial-clause-7A.config.enabled-precedence @serial
  Scenario: a config file's agents entries carry their own headers, timeout and pollEvery
    The `agents` block takes each option of `agent()`: the vault agent answers only with the
    expanded header, the never-ending task times out after its own 1000 ms, polled every 200 ms
    (so the call ends by the timeout plus one poll interval, and 300 ms for the harness), and the
    disabled entry is never fetched.
    Given a mock A2A agent "vault" runs "secured.json"
    And a mock A2A agent "slow" runs "forever.json"
    And a toolkit built with:
      """
      {"builtins": false, "mcpConfig": {"mcpServers": {}, "agents": {
        "vault": {"card": "{{A2A:vault}}/.well-known/agent-card.json", "pollEvery": 50, "enabled": true,
          "headers": {"Authorization": "Bearer ${TOOLNEXUS_CONFORMANCE_SECRET}"}},
        "slow": {"card": "{{A2A:slow}}/.well-known/agent-card.json", "timeout": 1000, "pollEvery": 200},
        "off": {"card": "http://127.0.0.1:9/.well-known/agent-card.json", "disabled": true}}}}
      """
    Then there are no errors
    When "Secure_Vault_Agent_vault" is executed with:
      """
      {"task": "open"}
      """
    Then the output is "secured ok"
    When "Archive_Indexer_index" is executed with:
      """
      {"task": "Index everything"}
      """
    Then the result matches:
      """
      {"output": {"$regex": "^A2A task \\S+ timed out after 1000ms \\(state=working\\)$"}, "isError": true,
       "metadata": {"state": "working", "$partial": true}}
      """
    And the call took less than 1500 ms
    And nothing the port reported mentions the secret

  @spec-4 @partial-clause-4.assembly.source-order
  Scenario: agent tools sit after the builtins and before extra tools
    Given a mock A2A agent runs "echo.json"
    And a toolkit built with:
      """
      {"builtins": {"tools": {"bash": false, "read": false, "write": false, "edit": false, "grep": false, "glob": false,
                              "webfetch": false, "question": false, "apply_patch": false}},
       "disableTools": ["skill"],
       "extraTools": [{"name": "zz_extra", "behaviour": {"text": "x"}}],
       "agents": [{"card": "{{A2A}}/.well-known/agent-card.json"}]}
      """
    Then the tool names are:
      """
      ["todowrite", "Echo_Agent_echo", "zz_extra"]
      """
