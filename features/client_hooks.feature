@pin-0.16.0
Feature: The §8 client hooks — beforeLLM, afterLLM, beforeTool, afterTool (SPEC §8 "Hooks")
  Hooks are host code, so each is named by a behaviour (PROTOCOL.md §7 "Client behaviours")
  and every invocation comes back in `hookCalls`. What the hooks change is read where the SPEC
  makes it observable: the next request the mock LLM recorded (`GET {{LLM}}/_mock/requests`)
  and the RunResult. The SPEC leaves the base of `turn` open, so turns are only compared
  with each other (conformance/NOTES.md #87).

  # ---------------------------------------------------------------- beforeLLM observes

  @spec-8 @clause-8.hooks.before-llm
  Scenario Outline: beforeLLM receives the model, the style's tools and the turn on every call (<style>)
    tool-loop.json makes three LLM calls (one lookup, then two, then the answer).
    Given a mock LLM runs "tool-loop.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-loop", "apiKey": "test-key", "hooks": {"beforeLLM": {"observe": true}}}
      """
    When the client runs "go"
    Then the run did not raise
    And hookCalls has 3 entries
    And hookCalls has 3 entries with "hook" equal to "beforeLLM"
    And hookCalls has 3 entries with "model" equal to "m-loop"
    And hookCalls has 3 entries with "<tool name>" equal to "lookup"
    And hookCalls values at "turn" strictly increase

    Examples:
      | style     | tool name              |
      | openai    | tools[0].function.name |
      | anthropic | tools[0].name          |

  @spec-8 @clause-8.hooks.before-llm
  Scenario: beforeLLM sees the transcript grow with the tool results (openai)
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key", "hooks": {"beforeLLM": {"observe": true}}}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is sunny."
    And hookCalls has 2 entries
    And hookCalls at "[0].messages[-1]" is:
      """
      {"role": "user", "content": "weather in Paris?"}
      """
    And hookCalls at "[1].messages[-1]" is:
      """
      {"role": "tool", "tool_call_id": "call_w1", "content": "sunny"}
      """

  # ---------------------------------------------------------------- beforeLLM replaces messages

  @spec-8 @clause-8.hooks.before-llm-replaces-transcript @clause-8.hooks.before-llm
  Scenario Outline: messages returned by beforeLLM replace the transcript for the rest of the run (<style>)
    The hook answers with the replacement on its first call only (PROTOCOL.md §7). The
    original prompt has no "weather", so only the replacement makes the mock call the tool;
    the second request must start with the replacement, not with the original prompt.
    Given a mock LLM runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key",
       "hooks": {"beforeLLM": {"replaceMessages": [{"role": "user", "content": "weather in Paris (compacted)"}]}}}
      """
    When the client runs "hello there"
    Then the run text is "It is sunny."
    And the LLM received 2 requests
    And LLM request 1 body at "messages" is:
      """
      [{"role": "user", "content": "weather in Paris (compacted)"}]
      """
    And LLM request 2 body at "messages[0]" is:
      """
      {"role": "user", "content": "weather in Paris (compacted)"}
      """
    And LLM request 2 body at "messages[1].role" is "assistant"
    And LLM request 2 body at "messages" does not contain "hello there"
    And LLM request 2 body at "messages" contains "sunny"

    Examples:
      | style     | file                 |
      | openai    | basic-openai.json    |
      | anthropic | basic-anthropic.json |

  # ---------------------------------------------------------------- beforeLLM swaps tools

  @spec-8 @clause-8.hooks.before-llm @clause-8.empty-tools.omitted
  Scenario Outline: beforeLLM returning no tools omits tools (and tool_choice) on every turn (<style>)
    Given a mock LLM runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key", "hooks": {"beforeLLM": {"keepTools": []}}}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is sunny."
    And the LLM received 2 requests
    And LLM request 1 body has nothing at "tools"
    And LLM request 1 body has nothing at "tool_choice"
    And LLM request 2 body has nothing at "tools"
    And LLM request 2 body has nothing at "tool_choice"
    And hookCalls at "[0].tools[0]" is:
      """
      {"$match": "object"}
      """

    Examples:
      | style     | file                 |
      | openai    | basic-openai.json    |
      | anthropic | basic-anthropic.json |

  @spec-8 @clause-8.hooks.before-llm @clause-8.loop.tool-schema-per-style
  Scenario Outline: beforeLLM keeping one tool sends only that tool (<style>)
    Given a mock LLM runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "extraTools": [{"name": "lookup", "behaviour": {"echo": true}},
                                         {"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key", "hooks": {"beforeLLM": {"keepTools": ["get_weather"]}}}
      """
    When the client runs "hi"
    Then the run text is "echo: hi (m-basic)"
    And LLM request 1 body at "<tool name>" is "get_weather"
    And LLM request 1 body has nothing at "tools[1]"
    And hookCalls at "[0].<tool name>" is "lookup"

    Examples:
      | style     | file                 | tool name              |
      | openai    | basic-openai.json    | tools[0].function.name |
      | anthropic | basic-anthropic.json | tools[0].name          |

  # ---------------------------------------------------------------- the route gate

  @spec-8 @clause-8.routing.route-gate @clause-8.hooks.before-llm
  Scenario Outline: a beforeLLM that raises is the route gate: no request is made (<verb>, <style>)
    Given a mock LLM runs "<file>"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "expensive-tier", "apiKey": "test-key", "hooks": {"beforeLLM": {"abort": "route denied by the gate"}}}
      """
    When the client <verb> "hi"
    # §8 "may abort the call (raise/error)" gives the raise no words (NOTES #320: the
    # @beyond-spec twin below checks that it carries the hook's message); the cause: the hook
    # ran once, saw the model, and no request was made.
    Then the run raised an error mentioning ""
    And the LLM received 0 requests
    And hookCalls has 1 entries
    And hookCalls at "[0].model" is "expensive-tier"

    Examples:
      | verb    | style     | file                 |
      | runs    | anthropic | basic-anthropic.json |
      | streams | openai    | basic-openai.json    |

  @spec-8 @beyond-spec
  Scenario Outline: the route gate's raise carries the hook's message (<verb>, <style>)
    Beyond the SPEC: §8 says the route gate "may abort the call (raise/error)" and does not say
    the raise carries the hook's own text (NOTES #320); the reference re-raises it.
    Given a mock LLM runs "<file>"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "expensive-tier", "apiKey": "test-key", "hooks": {"beforeLLM": {"abort": "route denied by the gate"}}}
      """
    When the client <verb> "hi"
    Then the run raised an error mentioning "route denied by the gate"
    And the LLM received 0 requests

    Examples:
      | verb    | style     | file                 |
      | runs    | anthropic | basic-anthropic.json |
      | streams | openai    | basic-openai.json    |

  # ---------------------------------------------------------------- afterLLM

  @spec-8 @clause-8.hooks.after-llm
  Scenario: afterLLM receives the raw openai payload, usage included, once per LLM call
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key", "hooks": {"afterLLM": {"observe": true}}}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is sunny."
    And hookCalls has 2 entries with "hook" equal to "afterLLM"
    And hookCalls has 2 entries with "model" equal to "m-basic"
    And hookCalls at "[0].response.usage" is:
      """
      {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}
      """
    And hookCalls at "[0].response.choices[0].message.tool_calls[0].id" is "call_w1"
    And hookCalls at "[1].response.choices[0].message.content" is "It is sunny."
    And hookCalls values at "turn" strictly increase

  @spec-8 @clause-8.hooks.after-llm
  Scenario: afterLLM receives the raw anthropic payload with its input/output usage
    Given a mock LLM runs "basic-anthropic.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m-basic", "apiKey": "test-key", "hooks": {"afterLLM": {"observe": true}}}
      """
    When the client runs "hi"
    Then the run text is "echo: hi (m-basic)"
    And hookCalls has 1 entries
    And hookCalls at "[0].response.usage" is:
      """
      {"input_tokens": 21, "output_tokens": 9, "$partial": true}
      """
    And hookCalls at "[0].response.content[0].text" is "echo: hi (m-basic)"

  # ---------------------------------------------------------------- beforeTool

  @spec-8 @clause-8.hooks.before-tool-short-circuit
  Scenario Outline: a beforeTool result short-circuits the tool (<style>)
    The real tool would fail with "the real tool ran"; the hook's result stands in for it,
    in RunResult.toolCalls and in what the model sees next.
    Given a mock LLM runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"fail": "the real tool ran"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key",
       "hooks": {"beforeTool": {"result": {"output": "cached: 18C", "isError": false}}}}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is cached: 18C."
    And the tool calls are:
      """
      [{"name": "get_weather", "args": <args>, "output": "cached: 18C", "isError": false, "$partial": true}]
      """
    And LLM request 2 body at "messages[-1]" contains "cached: 18C"
    And LLM request 2 body at "messages" does not contain "the real tool ran"
    And hookCalls has 1 entries
    And hookCalls at "[0]" is:
      """
      {"hook": "beforeTool", "name": "get_weather", "args": <args>, "id": "<id>", "turn": {"$match": "number"}}
      """

    Examples:
      | style     | file                 | args                                  | id       |
      | openai    | basic-openai.json    | {"city": "Paris", "units": "metric"}  | call_w1  |
      | anthropic | basic-anthropic.json | {"city": "Paris"}                     | toolu_w1 |

  @spec-8 @clause-8.hooks.before-tool-short-circuit
  Scenario: a beforeTool deny result is an isError call and the loop goes on
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key",
       "hooks": {"beforeTool": {"result": {"output": "denied by policy", "isError": true}}}}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is denied by policy."
    And the run result at "toolCalls[0].output" is "denied by policy"
    And the run result at "toolCalls[0].isError" is true
    And LLM request 2 body at "messages[-1]" is:
      """
      {"role": "tool", "tool_call_id": "call_w1", "content": "denied by policy"}
      """

  @spec-8 @clause-8.hooks.before-tool-short-circuit
  Scenario Outline: beforeTool args rewrite the call (<style>)
    The echo tool answers with the arguments it really ran with; tool-loop.json asks for
    "first", then "second" and "third", and answers with every result. "second" and "third"
    are one turn's calls, which may run concurrently (§7D, §10; NOTES #413): their hook calls
    are compared in any order, the first turn's call first.
    Given a mock LLM runs "tool-loop.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-loop", "apiKey": "test-key",
       "hooks": {"beforeTool": {"args": {"q": "rewritten"}}}}
      """
    When the client runs "go"
    Then the run text is "done (3): {\"q\":\"rewritten\"} | {\"q\":\"rewritten\"} | {\"q\":\"rewritten\"}"
    And the run result at "toolCalls[0].output" is "{\"q\":\"rewritten\"}"
    And LLM request 2 body at "messages[-1]" contains "rewritten"
    And hookCalls has 3 entries
    And hookCalls at "[0].args" is:
      """
      {"q": "first"}
      """
    And hookCalls at "" is:
      """
      {"$unordered": [{"hook": "beforeTool", "args": {"q": "first"}, "$partial": true},
                      {"hook": "beforeTool", "args": {"q": "second"}, "$partial": true},
                      {"hook": "beforeTool", "args": {"q": "third"}, "$partial": true}]}
      """

    Examples:
      | style     |
      | openai    |
      | anthropic |

  # ---------------------------------------------------------------- afterTool

  @spec-8 @clause-8.hooks.after-tool
  Scenario Outline: afterTool prefix transforms what the model sees and what toolCalls records (<style>)
    Given a mock LLM runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key", "hooks": {"afterTool": {"prefix": "[redacted] "}}}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is [redacted] sunny."
    And LLM request 2 body at "messages[-1]" contains "[redacted] sunny"
    And the run result at "toolCalls[0].output" is "[redacted] sunny"
    And the run result at "toolCalls[0].isError" is false
    And hookCalls has 1 entries
    And hookCalls at "[0]" is:
      """
      {"hook": "afterTool", "name": "get_weather", "args": <args>, "id": "<id>",
       "result": {"output": "sunny", "isError": false, "$partial": true}, "turn": {"$match": "number"}}
      """

    Examples:
      | style     | file                 | args                                  | id       |
      | openai    | basic-openai.json    | {"city": "Paris", "units": "metric"}  | call_w1  |
      | anthropic | basic-anthropic.json | {"city": "Paris"}                     | toolu_w1 |

  @spec-8 @clause-8.hooks.after-tool
  Scenario: an afterTool result replaces a failed tool's output
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"fail": "upstream down"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key",
       "hooks": {"afterTool": {"result": {"output": "weather unavailable", "isError": false}}}}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is weather unavailable."
    And the tool calls are:
      """
      [{"name": "get_weather", "args": {"city": "Paris", "units": "metric"}, "output": "weather unavailable", "isError": false, "$partial": true}]
      """
    And hookCalls at "[0].result" is:
      """
      {"output": "upstream down", "isError": true, "$partial": true}
      """
    And LLM request 2 body at "messages[-1]" is:
      """
      {"role": "tool", "tool_call_id": "call_w1", "content": "weather unavailable"}
      """

  @spec-8 @clause-8.hooks.before-tool-short-circuit @clause-8.hooks.after-tool @clause-8.hooks.before-llm
  Scenario: the four hooks fire in loop order within one run
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key",
       "hooks": {"beforeLLM": {"observe": true}, "afterLLM": {"observe": true}, "beforeTool": {"observe": true}, "afterTool": {"observe": true}}}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is sunny."
    And hookCalls has 6 entries
    And hookCalls at "[0].hook" is "beforeLLM"
    And hookCalls at "[1].hook" is "afterLLM"
    And hookCalls at "[2].hook" is "beforeTool"
    And hookCalls at "[3].hook" is "afterTool"
    And hookCalls at "[4].hook" is "beforeLLM"
    And hookCalls at "[5].hook" is "afterLLM"

  # ---------------------------------------------------------------- two entry points

  @spec-8 @clause-8.hooks.two-entry-points
  Scenario: hooks and onMetric see the same calls, in the same order, directly and through the agent runtime
    SPEC §8 "Two entry points, one semantics": the same hooks and onMetric, given once to a
    client and once to the §7D agent runtime (PROTOCOL.md §5.27, `options`), for the same run
    (agents.json's m-three calls lookup until it has three results, then answers). The runtime
    adds, renames, drops, reorders and aggregates nothing: both paths record the same entries,
    one per hook call and per event, in loop order. (That nothing is buffered is a matter of
    timing, which neither record shows.)
    Given a mock LLM runs "agents.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"text": "data"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-three", "apiKey": "test-key",
       "hooks": {"beforeLLM": {"observe": true}, "afterLLM": {"observe": true}, "beforeTool": {"observe": true}, "afterTool": {"observe": true}},
       "onMetric": {"collect": true}}
      """
    When the client runs "go"
    Then the run text is "done after 3 lookups"
    And hookCalls at "" is:
      """
      [{"hook": "beforeLLM", "model": "m-three", "$partial": true}, {"hook": "afterLLM", "model": "m-three", "$partial": true},
       {"hook": "beforeTool", "name": "lookup", "args": {"q": "n"}, "id": {"$match": "string"}, "turn": {"$match": "number"}},
       {"hook": "afterTool", "name": "lookup", "args": {"q": "n"}, "result": {"output": "data", "isError": false, "$partial": true}, "id": {"$match": "string"}, "turn": {"$match": "number"}},
       {"hook": "beforeLLM", "$partial": true}, {"hook": "afterLLM", "$partial": true},
       {"hook": "beforeTool", "$partial": true}, {"hook": "afterTool", "$partial": true},
       {"hook": "beforeLLM", "$partial": true}, {"hook": "afterLLM", "$partial": true},
       {"hook": "beforeTool", "$partial": true}, {"hook": "afterTool", "$partial": true},
       {"hook": "beforeLLM", "$partial": true}, {"hook": "afterLLM", "$partial": true}]
      """
    And metricEvents at "" is:
      """
      [{"event": "llm", "model": "m-three", "status": "ok", "$partial": true},
       {"event": "tool", "tool": "lookup", "isError": false, "$partial": true},
       {"event": "llm", "$partial": true}, {"event": "tool", "$partial": true},
       {"event": "llm", "$partial": true}, {"event": "tool", "$partial": true},
       {"event": "llm", "$partial": true},
       {"event": "run", "model": "m-three", "turns": 4, "toolCalls": 3, "$partial": true}]
      """
    Given an agent runtime with:
      """
      {"registry": {"three": {"does": "three lookups", "model": "m-three", "tools": ["lookup"]}},
       "tools": [{"name": "lookup", "behaviour": {"text": "data"}}],
       "options": {"hooks": {"beforeLLM": {"observe": true}, "afterLLM": {"observe": true}, "beforeTool": {"observe": true}, "afterTool": {"observe": true}},
                   "onMetric": {"collect": true}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "three", "prompt": "go"}
      """
    Then the agent answer at "result.text" is "done after 3 lookups"
    And the agent trace at "hookCalls" is:
      """
      [{"hook": "beforeLLM", "model": "m-three", "owner": "runtime", "$partial": true}, {"hook": "afterLLM", "model": "m-three", "owner": "runtime", "$partial": true},
       {"hook": "beforeTool", "name": "lookup", "args": {"q": "n"}, "id": {"$match": "string"}, "turn": {"$match": "number"}, "owner": "runtime"},
       {"hook": "afterTool", "name": "lookup", "args": {"q": "n"}, "result": {"output": "data", "isError": false, "$partial": true}, "id": {"$match": "string"}, "turn": {"$match": "number"}, "owner": "runtime"},
       {"hook": "beforeLLM", "$partial": true}, {"hook": "afterLLM", "$partial": true},
       {"hook": "beforeTool", "$partial": true}, {"hook": "afterTool", "$partial": true},
       {"hook": "beforeLLM", "$partial": true}, {"hook": "afterLLM", "$partial": true},
       {"hook": "beforeTool", "$partial": true}, {"hook": "afterTool", "$partial": true},
       {"hook": "beforeLLM", "$partial": true}, {"hook": "afterLLM", "$partial": true}]
      """
    And the agent trace at "metricEvents" is:
      """
      [{"event": "llm", "model": "m-three", "status": "ok", "owner": "runtime", "$partial": true},
       {"event": "tool", "tool": "lookup", "isError": false, "owner": "runtime", "$partial": true},
       {"event": "llm", "$partial": true}, {"event": "tool", "$partial": true},
       {"event": "llm", "$partial": true}, {"event": "tool", "$partial": true},
       {"event": "llm", "$partial": true},
       {"event": "run", "model": "m-three", "turns": 4, "toolCalls": 3, "owner": "runtime", "$partial": true}]
      """
