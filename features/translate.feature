@pin-0.16.0
Feature: Single-turn translation — translate (SPEC §11)
  `translate` is the §8 client used as a wire-format translator: OpenAI shapes in, exactly one
  provider call, OpenAI shapes out, nothing executed. The port's own client talks to the mock
  LLM (`{{LLM}}`, mock-servers/scenarios/llm/translate.json, which answers per model); what
  the port sent is read back from the mock's recording, and what it answered from the
  `translate` command's `result` (PROTOCOL.md §5.21).

  # ---------------------------------------------------------------- outbound: the result

  @spec-11 @clause-11.outbound.finish-mapping @clause-11.result.finish-reason-values @clause-11.result.raw
  @partial-clause-0.translate.result-shape
  Scenario: a text answer comes back as text, finishReason "stop", the call's usage and model
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "t-text", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "hello"}]}
      """
    Then the run text is "plain answer"
    And the finish reason is "stop"
    And the run result at "toolCalls" is []
    And the usage is 31 prompt, 4 completion and 35 total tokens
    And the run result at "model" is "t-text"
    And the translate result's raw, when present, at "id" is "chatcmpl-mock-1"
    And the LLM received 1 request

  @spec-11 @clause-11.translate.no-execution @clause-11.outbound.provider-order @clause-11.outbound.arguments-string @clause-11.outbound.finish-tool-calls
  @partial-clause-0.translate.result-shape @partial-clause-0.translate.single-call
  Scenario: openai tool calls come back in provider order, none dropped, after exactly one call
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "t-three-calls", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "call three tools"}]}
      """
    Then the run result at "toolCalls" is:
      """
      [{"id": "call_z", "name": "zeta", "arguments": {"$match": "string"}},
       {"id": "call_a", "name": "alpha", "arguments": {"$match": "string"}},
       {"id": "call_m", "name": "mid", "arguments": {"$match": "string"}}]
      """
    And every translated tool call's arguments is a JSON string
    And translated tool call 2 arguments parse to:
      """
      {"b": [1, 2], "c": "x"}
      """
    And the finish reason is "tool_calls"
    And the run text is "Calling three."
    And the LLM received 1 request

  @spec-11 @clause-11.outbound.provider-order @clause-11.outbound.arguments-string @clause-11.outbound.finish-tool-calls
  @clause-11.translate.one-call
  Scenario: anthropic tool_use blocks come back as OpenAI tool calls whose arguments are JSON strings
    The Anthropic answer carries `input` objects; §11 returns them as JSON strings.
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-three-calls", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "call three tools"}]}
      """
    Then the run result at "toolCalls" is:
      """
      [{"id": "call_z", "name": "zeta", "arguments": {"$match": "string"}},
       {"id": "call_a", "name": "alpha", "arguments": {"$match": "string"}},
       {"id": "call_m", "name": "mid", "arguments": {"$match": "string"}}]
      """
    And every translated tool call's arguments is a JSON string
    And translated tool call 1 arguments parse to:
      """
      {"a": 1}
      """
    And translated tool call 3 arguments parse to:
      """
      {"nested": {"k": "v"}}
      """
    And the finish reason is "tool_calls"
    And the run text is "Calling three."
    And the LLM received 1 request

  @spec-11 @clause-11.outbound.finish-tool-calls @clause-11.result.finish-reason-values @partial-clause-0.translate.finish-reason
  Scenario Outline: a turn with a tool call is "tool_calls" even when the <style> provider said "stop"
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "t-calls-stop", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "look it up"}]}
      """
    Then the finish reason is "tool_calls"
    And the run result at "toolCalls[0].name" is "lookup"

    Examples:
      | style     |
      | openai    |
      | anthropic |

  @spec-11 @clause-11.outbound.finish-mapping @clause-11.result.finish-reason-values @partial-clause-0.translate.finish-reason
  Scenario Outline: the <style> provider's "<said>" maps to finishReason "<reason>"
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "<model>", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "go"}]}
      """
    Then the finish reason is "<reason>"
    And the run result at "toolCalls" is []

    Examples:
      | style     | model            | said           | reason         |
      | openai    | t-length         | length         | length         |
      | anthropic | t-max-tokens     | max_tokens     | length         |
      | openai    | t-content-filter | content_filter | content_filter |
      | openai    | t-refusal        | refusal        | content_filter |
      | openai    | t-max-tokens     | max_tokens     | length         |
      | anthropic | t-refusal        | refusal        | content_filter |
      | anthropic | t-other          | stop_sequence  | stop           |
      | anthropic | t-text           | end_turn       | stop           |

  # ---------------------------------------------------------------- inbound: anthropic blocks

  @spec-11 @clause-11.inbound.tool-use-blocks @clause-11.inbound.tool-result-block @clause-0.translate.inbound-tool-calls
  Scenario: an assistant's tool_calls become tool_use blocks with parsed input, a tool result a tool_result block
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-text", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [
        {"role": "user", "content": "weather in Paris?"},
        {"role": "assistant", "content": null, "tool_calls": [
          {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\",\"days\":[1,2]}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}]}
      """
    Then the run did not raise
    And LLM request 1 body at "messages[1].role" is "assistant"
    And LLM request 1 body at "messages[1].content" is:
      """
      [{"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris", "days": [1, 2]}}]
      """
    And LLM request 1 body at "messages[2].role" is "user"
    And LLM request 1 body at "messages[2].content[0].type" is "tool_result"
    And LLM request 1 body at "messages[2].content[0].tool_use_id" is "call_1"
    And LLM request 1 body at "messages[2].content[0].content" contains "sunny"

  @spec-11 @clause-11.inbound.object-arguments @clause-11.inbound.tool-use-blocks
  Scenario: arguments supplied as an object are accepted and sent as the tool_use input
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-text", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": null, "tool_calls": [
          {"id": "call_o", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
        {"role": "tool", "tool_call_id": "call_o", "content": "snow"}]}
      """
    Then the run did not raise
    And LLM request 1 body at "messages[1].content[0].input" is:
      """
      {"city": "Oslo"}
      """

  @spec-11 @clause-11.inbound.object-arguments
  Scenario: the openai style also accepts arguments supplied as an object
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "t-text", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": null, "tool_calls": [
          {"id": "call_o", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
        {"role": "tool", "tool_call_id": "call_o", "content": "snow"}]}
      """
    Then the run text is "plain answer"
    And the LLM received 1 request

  @spec-11 @clause-11.inbound.merge-one-user-turn @clause-11.inbound.tool-result-block
  @partial-clause-0.translate.inbound-tool-results-merged
  Scenario: consecutive tool results merge into ONE user turn of tool_result blocks
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-text", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [
        {"role": "user", "content": "two cities"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
          {"id": "call_p", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
          {"id": "call_t", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Tokyo\"}"}}]},
        {"role": "tool", "tool_call_id": "call_p", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_t", "content": "rain"}]}
      """
    Then the run did not raise
    And LLM request 1 body at "messages[2].role" is "user"
    And LLM request 1 body at "messages[2].content[0].tool_use_id" is "call_p"
    And LLM request 1 body at "messages[2].content[1].tool_use_id" is "call_t"
    And LLM request 1 body has nothing at "messages[3]"

  @spec-11 @clause-11.inbound.system-hoisted @partial-clause-0.translate.inbound-tool-results-merged
  Scenario: system and developer messages are hoisted into the Anthropic system field
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-text", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [
        {"role": "system", "content": "Be terse."},
        {"role": "developer", "content": "Answer in French."},
        {"role": "user", "content": "hi"}]}
      """
    Then the run did not raise
    And LLM request 1 body at "system" contains "Be terse."
    And LLM request 1 body at "system" contains "Answer in French."
    And LLM request 1 body at "messages" is:
      """
      [{"role": "user", "content": {"$match": "any"}}]
      """
    And LLM request 1 body at "messages" contains "hi"
    And LLM request 1 body at "messages" does not contain "Be terse."

  @spec-11 @clause-11.inbound.system-hoisted @clause-11.request.system-override
  Scenario: an explicit request.system overrides the hoisted system messages
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-text", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"system": "You are the override.",
       "messages": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "hi"}]}
      """
    Then the run did not raise
    And LLM request 1 body at "system" is "You are the override."
    And LLM request 1 body at "messages" does not contain "Be terse."

  @spec-11 @clause-11.request.system-override
  Scenario: on the openai style request.system overrides the client's system prompt
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "t-text", "apiKey": "test-key", "systemPrompt": "You are the client default."}
      """
    When the client translates:
      """
      {"system": "You are the request's.", "messages": [{"role": "user", "content": "hi"}]}
      """
    Then the run did not raise
    And LLM request 1 body at "messages" contains "You are the request's."
    And LLM request 1 body at "messages" does not contain "You are the client default."

  @spec-11 @clause-11.inbound.content-parts-flattened
  Scenario: a content given as an array of text parts is flattened to text
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-text", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [
        {"role": "system", "content": [{"type": "text", "text": "Be "}, {"type": "text", "text": "brief."}]},
        {"role": "user", "content": [{"type": "text", "text": "Hello "}, {"type": "text", "text": "world"}]}]}
      """
    Then the run did not raise
    And LLM request 1 body at "messages[0].content" contains "Hello world"
    And LLM request 1 body at "system" contains "Be brief."

  # ---------------------------------------------------------------- request: declarations, limits

  @spec-11 @clause-11.translate.toolkit-first @clause-11.request.tools-verbatim @partial-clause-0.translate.verbatim-request
  Scenario: toolkit declarations come first, then the caller's tools verbatim
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "extraTools": [
        {"name": "tk_tool", "description": "From the toolkit.", "behaviour": {"fail": "tk_tool must never run"}}]}
      """
    And a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "t-text", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "hi"}],
       "tools": [{"type": "function", "function": {"name": "caller_tool", "description": "The caller's.", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}]}
      """
    Then the run did not raise
    And LLM request 1 body at "tools[0].function.name" is "tk_tool"
    And LLM request 1 body at "tools[1]" is:
      """
      {"type": "function", "function": {"name": "caller_tool", "description": "The caller's.", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}
      """
    And LLM request 1 body has nothing at "tools[2]"

  @spec-11 @clause-11.request.tool-choice-verbatim @partial-clause-0.translate.verbatim-request
  Scenario Outline: the openai toolChoice is sent verbatim (<choice>)
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "t-text", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "hi"}],
       "tools": [{"type": "function", "function": {"name": "caller_tool", "parameters": {"type": "object", "properties": {}}}}],
       "toolChoice": <choice>}
      """
    Then the run did not raise
    And LLM request 1 body at "tool_choice" is <choice>

    Examples:
      | choice                                                      |
      | "required"                                                  |
      | {"type": "function", "function": {"name": "caller_tool"}}   |

  @spec-11 @clause-11.request.max-tokens-default
  Scenario Outline: anthropic maxTokens <given> sends max_tokens <sent>
    SPEC §8 Gap 1 names the anthropic default: 4096.
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-text", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "hi"}] <field>}
      """
    Then the run did not raise
    And LLM request 1 body at "max_tokens" is <sent>

    Examples:
      | given  | field              | sent |
      | absent |                    | 4096 |
      | 0      | , "maxTokens": 0   | 4096 |
      | 256    | , "maxTokens": 256 | 256  |

  # ---------------------------------------------------------------- nothing executes; hooks

  @spec-11 @clause-11.translate.no-execution @partial-clause-0.translate.verbatim-request @partial-clause-0.translate.single-call
  @clause-11.request.toolkit-declared @partial-clause-11.translate.toolkit-never-run @partial-clause-11.translate.no-loop-no-state
  Scenario: a toolkit's tools are declared, never executed, even when the model calls them
    `ping_http` would GET the local HTTP server and `boom` would fail loudly, if either ran.
    Given an HTTP server answers:
      """
      {"GET /ping": {"body": "pong"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "extraTools": [
        {"name": "ping_http", "http": {"method": "GET", "url": "{{HTTP}}/ping"}},
        {"name": "boom", "behaviour": {"fail": "boom ran"}}]}
      """
    And a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "t-call-toolkit", "apiKey": "test-key", "onMetric": {"collect": true}}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "use your tools"}]}
      """
    Then the run result at "toolCalls[0].name" is "ping_http"
    And the run result at "toolCalls[1].name" is "boom"
    And the finish reason is "tool_calls"
    And the HTTP server received no request
    And the LLM received 1 request
    And LLM request 1 body at "tools[0].function.name" is "ping_http"
    And LLM request 1 body at "tools[1].function.name" is "boom"
    And metricEvents has 0 entries with "event" equal to "tool"

  @spec-11 @clause-11.translate.toolkit-never-run @clause-11.request.toolkit-declared
  Scenario: with the builtins on, a toolkit is still only declared: nothing executes, no builtins:false needed
    `ping_http` would GET the local HTTP server and `boom` would fail loudly, if either ran. The
    toolkit keeps its default builtins, declared beside them; the model calls the two tools.
    Given an HTTP server answers:
      """
      {"GET /ping": {"body": "pong"}}
      """
    And a toolkit built with:
      """
      {"extraTools": [
        {"name": "ping_http", "http": {"method": "GET", "url": "{{HTTP}}/ping"}},
        {"name": "boom", "behaviour": {"fail": "boom ran"}}]}
      """
    And a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "t-call-toolkit", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "use your tools"}]}
      """
    Then the run result at "toolCalls[0].name" is "ping_http"
    And the run result at "toolCalls[1].name" is "boom"
    And the finish reason is "tool_calls"
    And the HTTP server received no request
    And the LLM received 1 request
    And LLM request 1 body at "tools" contains "ping_http"
    And LLM request 1 body at "tools" contains "bash"

  @spec-11 @clause-11.shared.hooks-once @clause-11.shared.no-tool-hooks @clause-0.translate.hooks-once
  Scenario: beforeLLM and afterLLM fire exactly once; tool hooks never fire
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "extraTools": [
        {"name": "ping_http", "behaviour": {"fail": "ping_http ran"}},
        {"name": "boom", "behaviour": {"fail": "boom ran"}}]}
      """
    And a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-call-toolkit", "apiKey": "test-key",
       "hooks": {"beforeLLM": {"observe": true}, "afterLLM": {"observe": true},
                 "beforeTool": {"observe": true}, "afterTool": {"observe": true}}}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "use your tools"}]}
      """
    Then the run result at "toolCalls[0].name" is "ping_http"
    And the run result at "toolCalls[1].name" is "boom"
    And hookCalls has 2 entries
    And hookCalls has 1 entries with "hook" equal to "beforeLLM"
    And hookCalls has 1 entries with "hook" equal to "afterLLM"
    And hookCalls has 0 entries with "hook" equal to "beforeTool"
    And hookCalls has 0 entries with "hook" equal to "afterTool"

  # ---------------------------------------------------------------- shared infrastructure

  @spec-11 @clause-11.shared.retries-metrics
  Scenario: a retryable failure is retried as in the loop, and the answer after it returned
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "t-retry", "apiKey": "test-key", "retries": 1, "retryBaseMs": 1}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "again"}]}
      """
    Then the run text is "echo: again (t-retry)"
    And the LLM received 2 requests

  @spec-11 @clause-11.shared.retries-metrics
  Scenario: a provider failure that is not retried surfaces at once
    # The raised error's words are the port's (NOTES #320: the @beyond-spec twin below checks
    # that it names the status); one request: the provider's 400 is outside §8's retry set,
    # which translate shares (NOTES #419).
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-fail", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "hi"}]}
      """
    Then the run raised an error mentioning ""
    And the LLM received 1 request

  @spec-11 @beyond-spec
  Scenario: a provider failure that is not retried surfaces at once, naming its status
    Beyond the SPEC: §11 shares the loop's retries (§8), and neither gives a raised error's
    words (NOTES #320); the reference's error names the provider's HTTP status.
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-fail", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "hi"}]}
      """
    Then the run raised an error mentioning "400"
    And the LLM received 1 request

  @spec-11 @clause-11.shared.retries-metrics
  Scenario: requestParams are merged into the translate body as into the loop's
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "t-text", "apiKey": "test-key",
       "requestParams": {"temperature": 0.25, "max_tokens": 77}}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "hi"}]}
      """
    Then the run did not raise
    And LLM request 1 body at "temperature" is 0.25
    And LLM request 1 body at "max_tokens" is 77

  @spec-11 @clause-11.shared.retries-metrics
  Scenario: the one provider call emits one llm metric event with its tokens
    Given a mock LLM runs "translate.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "t-text", "apiKey": "test-key", "onMetric": {"collect": true}}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "hi"}]}
      """
    Then the run did not raise
    And metricEvents has 1 entries with "event" equal to "llm"
    And metricEvents has 1 entries with "status" equal to "ok"
    And metricEvents has 1 entries with "promptTokens" equal to 31
    And metricEvents has 1 entries with "completionTokens" equal to 4
    And metricEvents has 1 entries with "model" equal to "t-text"
