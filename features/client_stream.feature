@pin-0.16.0
Feature: The §8 client's stream — events, the wire, the stateful id (SPEC §8 "Streaming")
  `client.stream(prompt, { toolkit, id? })` runs the same loop as `run()`, incrementally; the
  driver consumes the whole iterator and answers the events in order (PROTOCOL.md §5.16).
  The SPEC lists the event types but not how many text deltas a port cuts nor whether
  `usage` comes once or per turn, so the order is checked with runs of one type counted once,
  or as a subsequence, and `done` last (conformance/NOTES.md #90). The mock LLM cuts text and
  tool arguments into 5-character pieces.

  # ---------------------------------------------------------------- event order

  @spec-8 @clause-8.stream.event-text @clause-8.stream.done
  Scenario Outline: a text-only turn streams text deltas, then usage, then done (<style>)
    Given a mock LLM runs "<file>"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "hi"
    Then the run did not raise
    And the stream event types, repeats collapsed, are:
      """
      ["text", "usage", "done"]
      """
    And the text deltas join to "echo: hi (m-basic)"
    And there were several text deltas
    And the run text is "echo: hi (m-basic)"
    And the run result at "turns" is 1
    And the run result at "toolCallCount" is 0

    Examples:
      | style     | file                 |
      | openai    | basic-openai.json    |
      | anthropic | basic-anthropic.json |

  @spec-8 @clause-8.stream.event-tool-call @clause-8.stream.event-tool-result @clause-8.stream.event-text @clause-8.stream.done
  Scenario: an openai tool turn streams tool_call, tool_result, then the answer's text, and done last
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "weather in Paris?"
    Then the stream event types include, in this order:
      """
      ["tool_call", "tool_result", "text", "usage", "done"]
      """
    And the last stream event is of type "done"
    And the stream events of type "done" are:
      """
      [{"type": "done", "result": {"$match": "object"}}]
      """
    And the stream events of type "tool_call" are:
      """
      [{"type": "tool_call", "id": "call_w1", "name": "get_weather", "args": {"city": "Paris", "units": "metric"}}]
      """
    And the stream events of type "tool_result" are:
      """
      [{"type": "tool_result", "id": "call_w1", "name": "get_weather", "output": "sunny", "isError": false}]
      """
    And the text deltas join to "It is sunny."

  @spec-8 @clause-8.stream.event-tool-call @clause-8.stream.event-tool-result @clause-8.stream.event-text @clause-8.stream.done @partial-clause-8.stream.anthropic-wire
  Scenario: an anthropic tool turn streams its text, tool_call, tool_result, the answer, and done last
    basic-anthropic.json's first turn has text ("Let me look that up.") before its tool_use.
    Given a mock LLM runs "basic-anthropic.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "weather in Paris?"
    Then the stream event types include, in this order:
      """
      ["text", "tool_call", "tool_result", "text", "usage", "done"]
      """
    And the last stream event is of type "done"
    And the stream events of type "tool_call" are:
      """
      [{"type": "tool_call", "id": "toolu_w1", "name": "get_weather", "args": {"city": "Paris"}}]
      """
    And the stream events of type "tool_result" are:
      """
      [{"type": "tool_result", "id": "toolu_w1", "name": "get_weather", "output": "sunny", "isError": false}]
      """
    And the text deltas join to "Let me look that up.It is sunny."
    And the run text is "It is sunny."

  @spec-8 @clause-8.stream.event-tool-result
  Scenario: a failing tool streams an isError tool_result and the stream goes on
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"fail": "no weather today"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "weather in Paris?"
    Then the stream events of type "tool_result" are:
      """
      [{"type": "tool_result", "id": "call_w1", "name": "get_weather", "output": "no weather today", "isError": true}]
      """
    And the run text is "It is no weather today."

  @spec-8 @clause-8.stream.event-tool-call @clause-8.stream.event-tool-result @clause-8.stream.done @clause-8.loop.execute-and-append
  Scenario: several streamed tool calls each get a tool_call and a tool_result event
    tool-loop.json asks for one lookup, then two (arguments cut into pieces), then answers.
    The second turn's two calls may run concurrently (§7D, §10), so each type's events are
    compared in any order (NOTES #413); the transcript keeps the order (the run text).
    Given a mock LLM runs "tool-loop.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-loop", "apiKey": "test-key"}
      """
    When the client streams "go"
    Then the stream events of type "tool_call" are:
      """
      {"$unordered": [{"type": "tool_call", "id": {"$match": "string"}, "name": "lookup", "args": {"q": "first"}},
                      {"type": "tool_call", "id": {"$match": "string"}, "name": "lookup", "args": {"q": "second"}},
                      {"type": "tool_call", "id": {"$match": "string"}, "name": "lookup", "args": {"q": "third"}}]}
      """
    And the stream events of type "tool_result" are:
      """
      {"$unordered": [{"type": "tool_result", "id": {"$match": "string"}, "name": "lookup", "output": "{\"q\":\"first\"}", "isError": false},
                      {"type": "tool_result", "id": {"$match": "string"}, "name": "lookup", "output": "{\"q\":\"second\"}", "isError": false},
                      {"type": "tool_result", "id": {"$match": "string"}, "name": "lookup", "output": "{\"q\":\"third\"}", "isError": false}]}
      """
    And the run text is "done (3): {\"q\":\"first\"} | {\"q\":\"second\"} | {\"q\":\"third\"}"
    And the run result at "toolCallCount" is 3

  @spec-8 @clause-8.stream.event-usage
  Scenario: a one-turn openai stream's usage event carries the turn's token usage
    The mock sends the turn's usage once, in the last chunk (`include_usage`); the usage
    event's `usage` has the RunResult's keys. How many usage events a multi-turn stream has
    is a SPEC silence (conformance/NOTES.md #90), so one turn is checked.
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "hi"
    Then the stream events of type "usage" are:
      """
      [{"type": "usage", "usage": {"promptTokens": 12, "completionTokens": 7, "totalTokens": 19}}]
      """
    And the usage is 12 prompt, 7 completion and 19 total tokens

  @spec-8 @clause-8.stream.same-as-run
  Scenario: a stream runs the same loop, hooks, tools and telemetry as run
    The same client runs, then streams, the same prompt: each records the same hook calls
    and metric events in the same order, and ends in the same result.
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key",
       "hooks": {"beforeLLM": {"observe": true}, "afterLLM": {"observe": true}, "beforeTool": {"observe": true}, "afterTool": {"observe": true}},
       "onMetric": {"collect": true}}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is sunny."
    And the run result at "turns" is 2
    And the usage is 24 prompt, 14 completion and 38 total tokens
    And the tool calls are:
      """
      [{"name": "get_weather", "args": {"city": "Paris", "units": "metric"}, "output": "sunny", "isError": false, "$partial": true}]
      """
    And hookCalls at "" is:
      """
      [{"hook": "beforeLLM", "model": "m-basic", "$partial": true}, {"hook": "afterLLM", "model": "m-basic", "$partial": true},
       {"hook": "beforeTool", "name": "get_weather", "args": {"city": "Paris", "units": "metric"}, "id": "call_w1", "turn": {"$match": "number"}},
       {"hook": "afterTool", "name": "get_weather", "args": {"city": "Paris", "units": "metric"}, "result": {"output": "sunny", "isError": false, "$partial": true}, "id": "call_w1", "turn": {"$match": "number"}},
       {"hook": "beforeLLM", "model": "m-basic", "$partial": true}, {"hook": "afterLLM", "model": "m-basic", "$partial": true}]
      """
    And metricEvents at "" is:
      """
      [{"event": "llm", "model": "m-basic", "status": "ok", "promptTokens": 12, "completionTokens": 7, "$partial": true},
       {"event": "tool", "tool": "get_weather", "source": "native", "isError": false, "$partial": true},
       {"event": "llm", "model": "m-basic", "status": "ok", "promptTokens": 12, "completionTokens": 7, "$partial": true},
       {"event": "run", "model": "m-basic", "turns": 2, "toolCalls": 1, "totalTokens": 38, "$partial": true}]
      """
    When the client streams "weather in Paris?"
    Then the last stream event is of type "done"
    And the run text is "It is sunny."
    And the run result at "turns" is 2
    And the usage is 24 prompt, 14 completion and 38 total tokens
    And the tool calls are:
      """
      [{"name": "get_weather", "args": {"city": "Paris", "units": "metric"}, "output": "sunny", "isError": false, "$partial": true}]
      """
    And hookCalls at "" is:
      """
      [{"hook": "beforeLLM", "model": "m-basic", "$partial": true}, {"hook": "afterLLM", "model": "m-basic", "$partial": true},
       {"hook": "beforeTool", "name": "get_weather", "args": {"city": "Paris", "units": "metric"}, "id": "call_w1", "turn": {"$match": "number"}},
       {"hook": "afterTool", "name": "get_weather", "args": {"city": "Paris", "units": "metric"}, "result": {"output": "sunny", "isError": false, "$partial": true}, "id": "call_w1", "turn": {"$match": "number"}},
       {"hook": "beforeLLM", "model": "m-basic", "$partial": true}, {"hook": "afterLLM", "model": "m-basic", "$partial": true}]
      """
    And metricEvents at "" is:
      """
      [{"event": "llm", "model": "m-basic", "status": "ok", "promptTokens": 12, "completionTokens": 7, "$partial": true},
       {"event": "tool", "tool": "get_weather", "source": "native", "isError": false, "$partial": true},
       {"event": "llm", "model": "m-basic", "status": "ok", "promptTokens": 12, "completionTokens": 7, "$partial": true},
       {"event": "run", "model": "m-basic", "turns": 2, "toolCalls": 1, "totalTokens": 38, "$partial": true}]
      """

  # ---------------------------------------------------------------- the wire

  @spec-8 @clause-8.stream.openai-wire
  Scenario: every openai stream request asks for stream:true and include_usage
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "weather in Paris?"
    Then the LLM received 2 requests
    And every LLM request body at "stream" is true
    And every LLM request body at "stream_options.include_usage" is true
    And LLM request 1 path is "/chat/completions"

  @spec-8 @partial-clause-8.stream.anthropic-wire @clause-8.anthropic.wire
  Scenario: every anthropic stream request asks for stream:true
    Given a mock LLM runs "basic-anthropic.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "weather in Paris?"
    Then the LLM received 2 requests
    And every LLM request body at "stream" is true
    And LLM request 1 path is "/v1/messages"

  # ---------------------------------------------------------------- done.result

  @spec-8 @clause-8.stream.done @clause-8.run-result.usage-summed @clause-8.usage.openai-summed @clause-8.run-result.turns @clause-8.run-result.model
  Scenario: the done result sums openai usage over the streamed turns
    basic-openai.json: 12 prompt and 7 completion tokens per call; two calls.
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "weather in Paris?"
    Then the usage is 24 prompt, 14 completion and 38 total tokens
    And the run result at "turns" is 2
    And the run result at "toolCallCount" is 1
    And the run result at "model" is "m-basic"
    And the run result at "toolCalls[0]" is:
      """
      {"name": "get_weather", "args": {"city": "Paris", "units": "metric"}, "output": "sunny", "isError": false, "$partial": true}
      """

  @spec-8 @clause-8.stream.done @clause-8.run-result.usage-summed @clause-8.usage.mapping
  Scenario: the done result maps and sums anthropic usage over the streamed turns
    basic-anthropic.json: 21 input and 9 output tokens per call; two calls. The stream's
    message_start also carries an output count (1, as Anthropic sends); message_delta's is
    the turn's, so the sum stays 18.
    Given a mock LLM runs "basic-anthropic.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "weather in Paris?"
    Then the run result at "usage.promptTokens" is 42
    And the run result at "usage.completionTokens" is 18
    And the run result at "turns" is 2

  # ---------------------------------------------------------------- the stateful id

  @spec-8 @clause-8.stream.id-stateful
  Scenario Outline: a stream with an id continues that thread's transcript (<style>)
    Given a mock LLM runs "<file>"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "hi" with:
      """
      {"id": "thread-1"}
      """
    And the client streams "again" with:
      """
      {"id": "thread-1"}
      """
    Then the run text is "echo: again (m-basic)"
    And the LLM received 2 requests
    And LLM request 2 body at "messages" contains "echo: hi (m-basic)"
    And LLM request 2 body at "messages[-1].role" is "user"
    And LLM request 2 body at "messages[-1]" contains "again"

    Examples:
      | style     | file                 |
      | openai    | basic-openai.json    |
      | anthropic | basic-anthropic.json |

  @spec-8 @clause-8.stream.id-stateful @partial-clause-8.stream.no-id-stateless
  Scenario: streams under different ids, or none, do not share a transcript
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "hi"
    And the client streams "hello" with:
      """
      {"id": "thread-1"}
      """
    And the client streams "again" with:
      """
      {"id": "thread-2"}
      """
    Then the run text is "echo: again (m-basic)"
    And the LLM received 3 requests
    And LLM request 2 body at "messages" does not contain "echo: hi"
    And LLM request 3 body at "messages" does not contain "echo: hi"
    And LLM request 3 body at "messages" does not contain "hello"

  @spec-8 @clause-8.stream.id-stateful @clause-8.ask.with-id
  Scenario: a streamed thread is saved to the store, so ask with the same id continues it
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "hi" with:
      """
      {"id": "thread-1"}
      """
    And the client asks "again" in thread "thread-1"
    Then the run text is "echo: again (m-basic)"
    And LLM request 2 body at "messages" contains "echo: hi (m-basic)"

  @spec-8 @clause-8.stream.id-stateful @clause-8.memory.store-option
  Scenario: a stream with an id loads the transcript the client's store holds
    The host store (PROTOCOL.md §7 "store") holds thread-1 from the start.
    Given a mock LLM runs "basic-anthropic.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m-basic", "apiKey": "test-key",
       "store": {"seeded": {"thread-1": [{"role": "user", "content": "my name is Ada"}, {"role": "assistant", "content": "noted"}]}}}
      """
    When the client streams "again" with:
      """
      {"id": "thread-1"}
      """
    Then the run text is "echo: again (m-basic)"
    And LLM request 1 body at "messages" contains "my name is Ada"
    And LLM request 1 body at "messages" contains "noted"

  @spec-8 @clause-8.stream.no-id-stateless
  Scenario: streams without an id are stateless: the second does not carry the first
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "first-ping"
    And the client streams "second-ping"
    Then the run text is "echo: second-ping (m-basic)"
    And the LLM received 2 requests
    And LLM request 2 body at "messages" does not contain "first-ping"
    And LLM request 2 body at "messages" is:
      """
      {"$oneOf": [
        [{"role": "user", "content": "second-ping"}],
        [{"role": "system", "$partial": true}, {"role": "user", "content": "second-ping"}]
      ]}
      """

  # ---------------------------------------------------------------- hooks on the stream

  @spec-8 @clause-8.hooks.before-llm @clause-8.hooks.after-tool @clause-8.hooks.before-tool-short-circuit @partial-clause-8.stream.same-as-run
  Scenario: the hooks fire on a stream as on a run
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key",
       "hooks": {"beforeLLM": {"observe": true}, "afterLLM": {"observe": true}, "beforeTool": {"observe": true}, "afterTool": {"prefix": "[checked] "}}}
      """
    When the client streams "weather in Paris?"
    Then the run text is "It is [checked] sunny."
    And hookCalls has 2 entries with "hook" equal to "beforeLLM"
    And hookCalls has 2 entries with "hook" equal to "afterLLM"
    And hookCalls has 1 entries with "hook" equal to "beforeTool"
    And hookCalls has 1 entries with "hook" equal to "afterTool"
    And hookCalls has 4 entries with "model" equal to "m-basic"
    And LLM request 2 body at "messages[-1]" is:
      """
      {"role": "tool", "tool_call_id": "call_w1", "content": "[checked] sunny"}
      """
    And the run result at "toolCalls[0].output" is "[checked] sunny"

  @spec-8 @clause-8.hooks.before-tool-short-circuit @partial-clause-8.stream.same-as-run
  Scenario: a beforeTool result short-circuits the tool on a stream too
    Given a mock LLM runs "basic-anthropic.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"fail": "the real tool ran"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m-basic", "apiKey": "test-key",
       "hooks": {"beforeTool": {"result": {"output": "dry run", "isError": false}}}}
      """
    When the client streams "weather in Paris?"
    Then the run text is "It is dry run."
    And LLM request 2 body at "messages" does not contain "the real tool ran"
    And the run result at "toolCalls[0].output" is "dry run"
