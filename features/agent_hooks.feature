@pin-0.16.0
Feature: The §8 seams on an agent run: hooks and onMetric, def over runtime (SPEC §7D, §7F)
  The shared `examples/agent-hooks` fixture states its six scenarios (H1–H6) in prose, with no
  mock script, so each is written here as a scenario of its own, its expected values taken
  from the fixture's `expect`. Hooks and `onMetric` are the §7 client behaviours; every hook
  call the port makes is recorded with its `owner` (`runtime` or the def's name), and so is
  every metric event (PROTOCOL.md §5.27). The model echoes (`agents.json`); what reached the
  provider is read from the mock's recording.

  Background:
    Given a mock LLM runs "agents.json"

  @spec-7D @clause-7D.seams.verbatim @partial-clause-8.hooks.two-entry-points @partial-clause-7D.seams.same-semantics
  Scenario: H1 runtime hooks reach an agent turn: the beforeLLM rewrite is on the wire
    Given an agent runtime with:
      """
      {"registry": {"echo": {"does": "echoes", "model": "m-echo"}},
       "options": {"hooks": {"beforeLLM": {"appendMessage": {"role": "system", "content": "INJECTED-BY-HOOK"}}}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "echo", "prompt": "one turn"}
      """
    Then the agent answer at "result.status" is "done"
    And LLM request 1 body at "messages" contains "INJECTED-BY-HOOK"
    And the agent trace at "hookCalls[0]" is:
      """
      {"hook": "beforeLLM", "owner": "runtime", "$partial": true}
      """

  @spec-7D @clause-7D.seams.verbatim @partial-clause-8.hooks.two-entry-points @partial-clause-7D.seams.same-semantics
  Scenario: H2 runtime onMetric receives the §8 llm and run events of an agent turn
    Given an agent runtime with:
      """
      {"registry": {"echo": {"does": "echoes", "model": "m-echo"}},
       "options": {"onMetric": {"collect": true}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "echo", "prompt": "one turn"}
      """
    Then the agent trace at "metricEvents" is:
      """
      {"$unordered": [
        {"event": "llm", "model": "m-echo", "status": "ok", "owner": "runtime", "$partial": true},
        {"event": "run", "model": "m-echo", "owner": "runtime", "$partial": true}]}
      """

  @spec-7D @clause-7D.seams.def-over-runtime @clause-7D.seams.def-hooks-replace
  Scenario: H3 a def's hooks replace the runtime's for that agent only, never merged
    Given an agent runtime with:
      """
      {"registry": {"a": {"does": "has its own hooks", "model": "m-echo", "hooks": {"beforeLLM": {"observe": true}}},
                    "b": {"does": "inherits", "model": "m-echo-b"}},
       "options": {"hooks": {"beforeLLM": {"observe": true}}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "a", "prompt": "A runs one turn"}
      """
    And the agent command "agent_run" is sent with:
      """
      {"entry": "b", "prompt": "B runs one turn"}
      """
    Then the agent trace at "hookCalls" is:
      """
      {"$unordered": [{"hook": "beforeLLM", "owner": "a", "model": "m-echo", "$partial": true},
                      {"hook": "beforeLLM", "owner": "runtime", "model": "m-echo-b", "$partial": true}]}
      """

  @spec-7D @clause-7D.seams.independent @clause-7D.seams.def-over-runtime
  Scenario: H4 hooks and onMetric resolve independently: the def overrides hooks and inherits onMetric
    Given an agent runtime with:
      """
      {"registry": {"a": {"does": "overrides hooks only", "model": "m-echo", "hooks": {"beforeLLM": {"observe": true}}}},
       "options": {"hooks": {"beforeLLM": {"observe": true}}, "onMetric": {"collect": true}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "a", "prompt": "one turn"}
      """
    Then the agent trace at "hookCalls" is:
      """
      [{"hook": "beforeLLM", "owner": "a", "$partial": true}]
      """
    And the agent trace at "metricEvents" is:
      """
      {"$unordered": [{"event": "llm", "owner": "runtime", "$partial": true}, {"event": "run", "owner": "runtime", "$partial": true}]}
      """

  @spec-7D @spec-7F @clause-7F.compactor.before-llm-hook @clause-7F.system.preserved
  @clause-7D.seams.verbatim @clause-7F.compactor.no-loop-behavior @partial-clause-7F.compactor.agent-run
  Scenario: H5 a §7F compactor attached per agent compacts the agent's run; the soul survives verbatim
    Given an agent runtime with:
      """
      {"registry": {"persona": {"does": "remembers", "model": "m-echo", "soul": "SOUL-VERBATIM",
         "hooks": {"beforeLLM": {"compactor": {"maxTokens": 200, "keepTail": 80, "summarize": {"text": "SUMMARY-OF-HEAD"}}}}}}}
      """
    And the agent store holds "root/persona.1": a system message "SOUL-VERBATIM" and 40 user/assistant pairs of 200 characters
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "persona"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/persona.1", "prompt": "one more turn"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/persona.1"}
      """
    Then the agent answer at "result.status" is "done"
    And LLM request 1 body at "messages[0].content" is "SOUL-VERBATIM"
    And LLM request 1 body at "messages" contains "SUMMARY-OF-HEAD"
    And LLM request 1 body at "messages[-1].content" is "one more turn"
    And LLM request 1 body has nothing at "messages[40]"

  @spec-7D @spec-7F @clause-7F.compactor.agent-run
  Scenario: two agents in one runtime carry different compaction budgets: one compacts, the other keeps its whole transcript
    # Both stored transcripts are the H5 generator's (a system message and 40 pairs of 200
    # characters, about 4,000 tokens under any chars/4 estimate): over `tight`'s 200, far under
    # `roomy`'s 1,000,000. Each agent's own hooks decide.
    Given an agent runtime with:
      """
      {"registry": {
         "tight": {"does": "compacts", "model": "m-echo", "soul": "SOUL-VERBATIM",
           "hooks": {"beforeLLM": {"compactor": {"maxTokens": 200, "keepTail": 80, "summarize": {"text": "SUMMARY-OF-HEAD"}}}}},
         "roomy": {"does": "keeps it all", "model": "m-echo", "soul": "SOUL-VERBATIM",
           "hooks": {"beforeLLM": {"compactor": {"maxTokens": 1000000, "summarize": {"text": "SUMMARY-OF-HEAD"}}}}}}}
      """
    And the agent store holds "root/tight.1": a system message "SOUL-VERBATIM" and 40 user/assistant pairs of 200 characters
    And the agent store holds "root/roomy.1": a system message "SOUL-VERBATIM" and 40 user/assistant pairs of 200 characters
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "tight"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/tight.1", "prompt": "one more turn"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/tight.1"}
      """
    And the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "roomy"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/roomy.1", "prompt": "one more turn"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/roomy.1"}
      """
    Then the agent answer at "result.status" is "done"
    And LLM request 1 body at "messages" contains "SUMMARY-OF-HEAD"
    And LLM request 1 body has nothing at "messages[40]"
    And LLM request 2 body at "messages" does not contain "SUMMARY-OF-HEAD"
    And LLM request 2 body at "messages[0].content" is "SOUL-VERBATIM"
    And LLM request 2 body at "messages[80].content" contains "aaaa"
    And LLM request 2 body at "messages[-1].content" is "one more turn"

  @spec-7D @spec-7F @clause-7F.compactor.suspend-rewound @clause-7D.seams.compaction-rewound
  @clause-7D.resume.rewind
  Scenario: H6 a compacted turn that suspends is rewound whole: the store keeps all 81 pre-turn messages
    Given an agent runtime with:
      """
      {"registry": {"persona": {"does": "asks first", "model": "m-gate", "soul": "SOUL-VERBATIM", "tools": ["gate"],
         "hooks": {"beforeLLM": {"compactor": {"maxTokens": 200, "keepTail": 80, "summarize": {"text": "SUMMARY-OF-HEAD"}}}}}},
       "tools": [{"name": "gate", "behaviour": {"suspend": {"kind": "approval", "prompt": "may I?"}}}]}
      """
    And the agent store holds "root/persona.1": a system message "SOUL-VERBATIM" and 40 user/assistant pairs of 200 characters
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "persona"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/persona.1", "prompt": "one more turn"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/persona.1"}
      """
    Then the agent answer at "result.status" is "pending"
    And LLM request 1 body at "messages" contains "SUMMARY-OF-HEAD"
    When the agent command "agent_store_get" is sent with:
      """
      {"id": "root/persona.1"}
      """
    Then the agent answer at "messages[80].role" is "assistant"
    And the agent answer at "messages[80].content" contains "aaaa"
    And the agent answer at "messages[0].content" is "SOUL-VERBATIM"
    And the agent answer at "messages[1].content" contains "qqqq"
    And the agent answer has nothing at "messages[81]"

  @spec-7D @clause-7D.seams.unset-byte-identical @clause-7F.absent.byte-identical
  Scenario: unset seams leave a run byte-identical: the same run with and without an unrelated def's hooks
    Given an agent runtime with:
      """
      {"registry": {"echo": {"does": "echoes", "model": "m-echo"}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "echo", "prompt": "same bytes"}
      """
    Given an agent runtime with:
      """
      {"registry": {"echo": {"does": "echoes", "model": "m-echo"},
                    "other": {"does": "hooked", "model": "m-echo", "hooks": {"beforeLLM": {"appendMessage": {"role": "system", "content": "X"}}}}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "echo", "prompt": "same bytes"}
      """
    Then LLM request 2 body is the same as LLM request 1 body
    And the agent answer at "result.text" is "echo: same bytes"
    And the transitions of "root/echo.1" are:
      """
      ["idle→running", "running→idle"]
      """
