@pin-0.16.0 @preview
Feature: Relay calls in the loop and durable resume — a SPEC preview (§10 addenda)
  The SPEC marks relay tools and the answer-carrying entry points "golang only — a preview":
  these scenarios are `@preview` (run with `--include-preview`). A port without relay tools
  answers `unsupported` for the `relayTools` build option, and one without durable resume for
  `run_with_answer` / `ask_with_answer` (PROTOCOL.md §5.22), so they are skipped there.
  relay.json sends each tool call's `arguments` text verbatim (odd spacing kept), so the raw
  text is told apart from a re-serialised object; `after: {{toolResults}}` (` | `) answers
  once tool results are present. Resuming steps take the last run's `messages` and `pending`.
  The toolkit: `echo` (a host tool) and the relay tools `lookup` and `fetch`.

  @spec-10 @clause-10.relay.all-calls-one-request @clause-10.relay.kind-tool-call @clause-10.relay.loop-stamps-id
  Scenario: without waitFor, all of a turn's relay calls ride the one pending request, in order
    Each entry is pinned: the provider's call id (stamped by the loop), the name, the parsed
    input and the RAW arguments text exactly as the provider sent it.
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key"}
      """
    When the client runs "pair"
    Then the run did not raise
    And the run result at "status" is "pending"
    And the run result at "pending.kind" is "tool_call"
    And the run result at "pending.data.calls" is:
      """
      [{"id": "call_r1", "name": "lookup", "input": {"q": "tides"}, "arguments": "{ \"q\" :  \"tides\" }"},
       {"id": "call_r2", "name": "fetch", "input": {"url": "https://x.test/a", "n": 2},
        "arguments": "{\"url\":\"https://x.test/a\",   \"n\": 2}"}]
      """
    And the LLM received 1 requests

  @spec-10 @clause-10.relay.all-calls-one-request @clause-10.run-result.pending-iff
  Scenario: a turn mixing a host tool and relay calls surfaces only the relay calls and halts at the first
    `echo` runs (it precedes the first relay call); the halt appends the first relay call's
    placeholder and nothing for the later relay call (first-in-order).
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key"}
      """
    When the client runs "mixed"
    Then the run result at "status" is "pending"
    And the run result at "pending.data.calls" is:
      """
      [{"id": "call_r1", "name": "lookup", "input": {"q": "moon"}, "arguments": "{\"q\": \"moon\"}"},
       {"id": "call_r2", "name": "fetch", "input": {"url": "https://x.test/b"}, "arguments": "{\"url\": \"https://x.test/b\"}"}]
      """
    And the run result at "messages[-2]" is:
      """
      {"role": "tool", "tool_call_id": "call_e1", "content": "{\"text\":\"hi\"}"}
      """
    And the run result at "messages[-1]" is:
      """
      {"role": "tool", "tool_call_id": "call_r1", "content": {"$match": "string"}}
      """

  @spec-10 @clause-10.relay.resolution @clause-10.relay.all-calls-one-request @partial-clause-10.relay.declined
  Scenario: with waitFor, one waitFor call answers every relay call of the turn by id
    The results come in another order than the calls: each is matched by its `id`, and an
    `isError` result reaches the model as an error result while the loop continues.
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key",
       "waitFor": {"answer": {"ok": true, "data": {"results": [
         {"id": "call_r2", "output": "fetch failed", "isError": true},
         {"id": "call_r1", "output": "high tide at noon", "isError": false}]}}}}
      """
    When the client runs "pair"
    Then the run did not raise
    And the run result at "status" is "done"
    And the run text is "after: high tide at noon | fetch failed"
    And waitForCalls has 1 entries
    And waitForCalls at "[0].data.calls[1].id" is "call_r2"
    And the run result at "toolCalls[0].isError" is false
    And the run result at "toolCalls[1].isError" is true
    And the LLM received 2 requests

  @spec-10 @clause-10.relay.shorthand
  Scenario: a single-call relay may be answered with the shorthand data.output / data.isError
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key",
       "waitFor": {"answer": {"ok": true, "data": {"output": "sunny all day", "isError": false}}}}
      """
    When the client runs "single"
    Then the run text is "after: sunny all day"
    And the run result at "toolCalls[0].isError" is false
    And waitForCalls at "[0].data.calls" is:
      """
      [{"id": "call_s1", "name": "lookup", "input": {"q": "sun"}, "arguments": "{\"q\":\"sun\" }"}]
      """

  @spec-10 @clause-10.relay.resolution @partial-clause-10.relay.declined
  Scenario: ok:false feeds back error results for the relay calls and the loop continues
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key",
       "waitFor": {"answer": {"ok": false, "reason": "declined"}}}
      """
    When the client runs "pair"
    Then the run did not raise
    And the run result at "status" is "done"
    And the run result at "toolCalls[0].isError" is true
    And the run result at "toolCalls[1].isError" is true
    And the LLM received 2 requests
    And LLM request 2 body at "messages[-1].tool_call_id" is "call_r2"

  @spec-10 @partial-clause-10.not-error.metric @partial-clause-10.relay.not-tool-error @partial-clause-10.relay.no-error-metrics
  Scenario: a relay suspension's tool events are pending, never errors
    One `tool` event per relayed call; nothing runs when the answer arrives.
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key",
       "waitFor": {"answer": {"ok": true, "data": {"results": [
         {"id": "call_r1", "output": "a", "isError": false}, {"id": "call_r2", "output": "b", "isError": false}]}}},
       "onMetric": {"collect": true}}
      """
    When the client runs "pair"
    Then metricEvents has 2 entries with "event" equal to "tool"
    And metricEvents has 2 entries with "pending" equal to true
    And metricEvents has 0 entries with "isError" equal to true

  @spec-10 @clause-10.resume.fills-every-slot @clause-10.resume.placeholder-replaced @clause-10.resume.no-new-user-turn @clause-10.resume.never-entered-filled
  Scenario: run_with_answer replaces the placeholder, fills every slot and adds no user turn
    The resumed request's transcript is exact: the system prompt, if the port sends one (with
    no systemPrompt and no described skill §8 Loop 1 may give none), the user turn, the halted
    assistant turn as the provider sent it (raw arguments), then one tool result per call, in
    call order.
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key"}
      """
    When the client runs "pair"
    And the client resumes the run with the answer:
      """
      {"ok": true, "data": {"results": [{"id": "call_r1", "output": "high", "isError": false},
                                        {"id": "call_r2", "output": "page", "isError": false}]}}
      """
    Then the run did not raise
    And the run result at "status" is "done"
    And the run text is "after: high | page"
    And the LLM received 2 requests
    And LLM request 2 body at "messages" is:
      """
      {"$oneOf": [
        [{"role": "system", "content": {"$match": "string"}},
         {"role": "user", "content": "pair"},
         {"role": "assistant", "content": {"$oneOf": [null, ""]}, "tool_calls": [
           {"id": "call_r1", "type": "function", "function": {"name": "lookup", "arguments": "{ \"q\" :  \"tides\" }"}},
           {"id": "call_r2", "type": "function", "function": {"name": "fetch", "arguments": "{\"url\":\"https://x.test/a\",   \"n\": 2}"}}]},
         {"role": "tool", "tool_call_id": "call_r1", "content": "high"},
         {"role": "tool", "tool_call_id": "call_r2", "content": "page"}],
        [{"role": "user", "content": "pair"},
         {"role": "assistant", "content": {"$oneOf": [null, ""]}, "tool_calls": [
           {"id": "call_r1", "type": "function", "function": {"name": "lookup", "arguments": "{ \"q\" :  \"tides\" }"}},
           {"id": "call_r2", "type": "function", "function": {"name": "fetch", "arguments": "{\"url\":\"https://x.test/a\",   \"n\": 2}"}}]},
         {"role": "tool", "tool_call_id": "call_r1", "content": "high"},
         {"role": "tool", "tool_call_id": "call_r2", "content": "page"}]]}
      """

  @spec-10 @clause-10.resume.fills-every-slot @clause-10.resume.placeholder-replaced @clause-10.resume.never-entered-filled
  Scenario: a resume keeps the host tool's result and fills the relay slots around it
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key"}
      """
    When the client runs "mixed"
    And the client resumes the run with the answer:
      """
      {"ok": true, "data": {"results": [{"id": "call_r1", "output": "full moon", "isError": false},
                                        {"id": "call_r2", "output": "page b", "isError": false}]}}
      """
    Then the run text is "after: {\"text\":\"hi\"} | full moon | page b"
    And LLM request 2 body at "messages[-3]" is:
      """
      {"role": "tool", "tool_call_id": "call_e1", "content": "{\"text\":\"hi\"}"}
      """
    And LLM request 2 body at "messages[-2]" is:
      """
      {"role": "tool", "tool_call_id": "call_r1", "content": "full moon"}
      """
    And LLM request 2 body at "messages[-1]" is:
      """
      {"role": "tool", "tool_call_id": "call_r2", "content": "page b"}
      """
    And LLM request 2 body at "messages[-4].role" is "assistant"
    And LLM request 2 body at "messages[-5]" is {"role": "user", "content": "mixed"}

  @spec-10 @clause-10.resume.must-echo-id
  Scenario: an answer whose id does not echo pending.id is an error, not a silent continue
    §10 makes the mismatch "an **error**" and gives it no words (NOTES #320: the @beyond-spec
    twin below checks that it names the stale id). The mock gets no request from the refused
    resume; the same halt resumed with the right id goes on.
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key"}
      """
    When the client runs "pair"
    And the client resumes the run with the answer:
      """
      {"id": "stale-answer-7", "ok": true, "data": {"results": [{"id": "call_r1", "output": "x", "isError": false},
                                                                {"id": "call_r2", "output": "y", "isError": false}]}}
      """
    Then the run raised an error mentioning ""
    And the LLM received 1 requests
    When the client runs "pair"
    And the client resumes the run with the answer:
      """
      {"ok": true, "data": {"results": [{"id": "call_r1", "output": "x", "isError": false},
                                        {"id": "call_r2", "output": "y", "isError": false}]}}
      """
    Then the run did not raise
    And the run text is "after: x | y"
    And the LLM received 3 requests

  @spec-10 @beyond-spec
  Scenario: the error for an answer whose id does not echo pending.id names the stale id
    Beyond the SPEC: §10 says a mismatch "is an **error**" and gives it no words (NOTES #320,
    #252); the reference's error names the answer's id.
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key"}
      """
    When the client runs "pair"
    And the client resumes the run with the answer:
      """
      {"id": "stale-answer-7", "ok": true, "data": {"results": [{"id": "call_r1", "output": "x", "isError": false},
                                                                {"id": "call_r2", "output": "y", "isError": false}]}}
      """
    Then the run raised an error mentioning "stale-answer-7"
    And the LLM received 1 requests

  @spec-10 @clause-10.resume.missing-result-error @clause-10.resume.fills-every-slot
  Scenario: a relayed call the answer gives no result for gets an explicit error tool_result
    On the Anthropic wire a tool result carries `is_error`, so the error is visible there.
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m-r", "apiKey": "test-key"}
      """
    When the client runs "pair"
    And the client resumes the run with the answer:
      """
      {"ok": true, "data": {"results": [{"id": "call_r1", "output": "high", "isError": false}]}}
      """
    Then the run did not raise
    And the LLM received 2 requests
    And LLM request 2 body at "messages[-1]" is:
      """
      {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "call_r1", "content": "high"},
        {"type": "tool_result", "tool_use_id": "call_r2", "content": {"$match": "string"}, "is_error": true}]}
      """
    And the run result at "text" matches "^after: high [|] "

  @spec-10 @clause-10.resume.no-new-user-turn @partial-clause-10.resume.fills-every-slot
  Scenario: resume works with a fresh client given only the persisted history, pending and answer
    Client A halts; a newly created client B (nothing shared but the plain data) resumes.
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key"}
      """
    When the client runs "pair"
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key"}
      """
    When the client resumes the run with the answer:
      """
      {"ok": true, "data": {"results": [{"id": "call_r1", "output": "one", "isError": false},
                                        {"id": "call_r2", "output": "two", "isError": false}]}}
      """
    Then the run did not raise
    And the run text is "after: one | two"
    And LLM request 2 body at "messages[-4]" is {"role": "user", "content": "pair"}
    And LLM request 2 body at "messages[-1]" is {"role": "tool", "tool_call_id": "call_r2", "content": "two"}

  @spec-10 @clause-10.resume.no-new-user-turn @partial-clause-10.resume.placeholder-replaced
  Scenario: ask_with_answer loads the halted thread from the store and saves the resumed one
    Given a mock LLM runs "relay.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "fetch", "description": "Host fetch."}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-r", "apiKey": "test-key"}
      """
    When the client asks "pair" in thread "t-relay"
    And the client resumes thread "t-relay" with the answer:
      """
      {"ok": true, "data": {"results": [{"id": "call_r1", "output": "one", "isError": false},
                                        {"id": "call_r2", "output": "two", "isError": false}]}}
      """
    Then the run did not raise
    And the run text is "after: one | two"
    When the client's store is read at "t-relay"
    Then the stored messages are:
      """
      {"$oneOf": [
        [{"role": "system", "content": {"$match": "string"}},
         {"role": "user", "content": "pair"},
         {"role": "assistant", "content": {"$oneOf": [null, ""]}, "tool_calls": {"$match": "array"}},
         {"role": "tool", "tool_call_id": "call_r1", "content": "one"},
         {"role": "tool", "tool_call_id": "call_r2", "content": "two"},
         {"role": "assistant", "content": "after: one | two"}],
        [{"role": "user", "content": "pair"},
         {"role": "assistant", "content": {"$oneOf": [null, ""]}, "tool_calls": {"$match": "array"}},
         {"role": "tool", "tool_call_id": "call_r1", "content": "one"},
         {"role": "tool", "tool_call_id": "call_r2", "content": "two"},
         {"role": "assistant", "content": "after: one | two"}]]}
      """

  @spec-10 @partial-clause-10.resume.placeholder-replaced
  Scenario: run_with_answer re-executes a halted host tool with Context.answer, replacing its placeholder
    The non-relay durable path: the `suspend` tool answers `answer.data` when re-executed with it.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "input", "prompt": "Which book?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "one"
    And the client resumes the run with the answer:
      """
      {"ok": true, "data": {"title": "Dune"}}
      """
    Then the run did not raise
    And the run text is "after: {\"title\":\"Dune\"}"
    And LLM request 2 body at "messages" is:
      """
      {"$oneOf": [
        [{"role": "system", "content": {"$match": "string"}},
         {"role": "user", "content": "one"},
         {"role": "assistant", "content": {"$oneOf": [null, ""]}, "tool_calls": {"$match": "array"}},
         {"role": "tool", "tool_call_id": "call_g1", "content": "{\"title\":\"Dune\"}"}],
        [{"role": "user", "content": "one"},
         {"role": "assistant", "content": {"$oneOf": [null, ""]}, "tool_calls": {"$match": "array"}},
         {"role": "tool", "tool_call_id": "call_g1", "content": "{\"title\":\"Dune\"}"}]]}
      """
