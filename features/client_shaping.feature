@pin-0.16.0
Feature: Shaping the §8 client's request body — requestParams, bodyTransform, empty tools, the model (SPEC §8 Gap 1, Gap 5, routing)
  `requestParams` is shallow-merged into every LLM body and wins on collision, except for
  the forbidden `messages`/`tools`/`stream`; `bodyTransform` (PROTOCOL.md §7: `set` adds or
  replaces keys, `copy` shows what it saw) gets the merged body last. Ordering: base body →
  beforeLLM → requestParams → bodyTransform → wire. What reached the wire is read back from
  the mock LLM's recording.

  # ---------------------------------------------------------------- requestParams

  @spec-8 @clause-8.request-params.wins @clause-8.request-params.merged-every-body
  Scenario Outline: requestParams win on collision and add keys, on every request (<style>)
    Given a mock LLM runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key",
       "requestParams": {"max_tokens": 123, "temperature": 0.2}}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is sunny."
    And the LLM received 2 requests
    And every LLM request body at "max_tokens" is 123
    And every LLM request body at "temperature" is 0.2
    And every LLM request body at "model" is "m-basic"

    Examples:
      | style     | file                 |
      | openai    | basic-openai.json    |
      | anthropic | basic-anthropic.json |

  @spec-8 @clause-8.request-params.forbidden-keys
  Scenario Outline: the forbidden requestParams keys messages, tools and stream are stripped (<style>)
    Had `stream` gone through, the mock would have answered SSE to a plain run; had
    `messages`, the mock would have echoed "injected".
    Given a mock LLM runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key",
       "requestParams": {"messages": [{"role": "user", "content": "injected"}], "tools": [], "stream": true, "temperature": 0.5}}
      """
    When the client runs "hi"
    Then the run text is "echo: hi (m-basic)"
    And LLM request 1 body at "messages" does not contain "injected"
    And LLM request 1 body at "messages[-1]" contains "hi"
    And LLM request 1 body at "<tool name>" is "get_weather"
    And LLM request 1 body at "temperature" is 0.5

    Examples:
      | style     | file                 | tool name              |
      | openai    | basic-openai.json    | tools[0].function.name |
      | anthropic | basic-anthropic.json | tools[0].name          |

  # ---------------------------------------------------------------- bodyTransform

  @spec-8 @clause-8.request-params.ordering
  Scenario: bodyTransform sees the body after the requestParams merge
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key",
       "requestParams": {"temperature": 0.3},
       "bodyTransform": {"copy": {"temperature": "x_seen_temperature", "model": "x_seen_model", "messages": "x_seen_messages"}}}
      """
    When the client runs "hi"
    Then the run text is "echo: hi (m-basic)"
    And LLM request 1 body at "x_seen_temperature" is 0.3
    And LLM request 1 body at "x_seen_model" is "m-basic"
    And LLM request 1 body at "x_seen_messages[-1]" is:
      """
      {"role": "user", "content": "hi"}
      """

  @spec-8 @clause-8.request-params.ordering
  Scenario Outline: keys bodyTransform sets reach the wire and override requestParams (<style>)
    Given a mock LLM runs "<file>"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key",
       "requestParams": {"max_tokens": 100},
       "bodyTransform": {"set": {"max_tokens": 77, "x_route": "cheap-tier"}}}
      """
    When the client runs "hi"
    Then the run text is "echo: hi (m-basic)"
    And LLM request 1 body at "max_tokens" is 77
    And LLM request 1 body at "x_route" is "cheap-tier"

    Examples:
      | style     | file                 |
      | openai    | basic-openai.json    |
      | anthropic | basic-anthropic.json |

  @spec-8 @clause-8.request-params.ordering @clause-8.empty-tools.omitted
  Scenario: bodyTransform sees the messages and tools beforeLLM returned
    The hook keeps no tools and replaces the transcript; the transform copies what it got.
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key",
       "hooks": {"beforeLLM": {"replaceMessages": [{"role": "user", "content": "compacted"}]}},
       "bodyTransform": {"copy": {"messages": "x_seen_messages", "tools": "x_seen_tools"}}}
      """
    When the client runs "hello there"
    Then the run text is "echo: compacted (m-basic)"
    And LLM request 1 body at "x_seen_messages" is:
      """
      [{"role": "user", "content": "compacted"}]
      """
    And LLM request 1 body at "x_seen_tools[0].function.name" is "get_weather"

  @spec-8 @clause-8.request-params.ordering @clause-8.empty-tools.omitted
  Scenario: after beforeLLM removes every tool, bodyTransform sees no tools
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key",
       "hooks": {"beforeLLM": {"keepTools": []}},
       "bodyTransform": {"copy": {"tools": "x_seen_tools", "tool_choice": "x_seen_tool_choice"}}}
      """
    When the client runs "hi"
    Then the run text is "echo: hi (m-basic)"
    And LLM request 1 body at "x_seen_tools" is null
    And LLM request 1 body at "x_seen_tool_choice" is null
    And LLM request 1 body has nothing at "tools"

  @spec-8 @clause-8.request-params.all-paths @clause-8.request-params.wins @partial-clause-8.request-params.merged-every-body
  Scenario Outline: requestParams and bodyTransform apply on every path (<verb>, <style>)
    Given a mock LLM runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key",
       "requestParams": {"temperature": 0.25},
       "bodyTransform": {"set": {"x_shaped": "yes"}}}
      """
    When the client <verb> "weather in Paris?"
    Then the run text is "It is sunny."
    And the LLM received 2 requests
    And every LLM request body at "temperature" is 0.25
    And every LLM request body at "x_shaped" is "yes"

    Examples:
      | verb    | style     | file                 |
      | runs    | openai    | basic-openai.json    |
      | runs    | anthropic | basic-anthropic.json |
      | streams | openai    | basic-openai.json    |
      | streams | anthropic | basic-anthropic.json |

  # ---------------------------------------------------------------- empty tools (Gap 5)

  @spec-8 @clause-8.empty-tools.omitted
  Scenario Outline: a toolkit with no tools at all sends no tools and no tool_choice (<verb>, <style>)
    The `skill` tool is always in a toolkit (SPEC §4), so it is disabled here (`disableTools`).
    Given a mock LLM runs "<file>"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client <verb> "hi"
    Then the run text is "echo: hi (m-basic)"
    And LLM request 1 body has nothing at "tools"
    And LLM request 1 body has nothing at "tool_choice"

    Examples:
      | verb    | style     | file                 |
      | runs    | openai    | basic-openai.json    |
      | runs    | anthropic | basic-anthropic.json |
      | streams | openai    | basic-openai.json    |
      | streams | anthropic | basic-anthropic.json |

  # ---------------------------------------------------------------- model faithfulness

  @spec-8 @clause-8.routing.model-verbatim
  Scenario Outline: a streamed multi-turn run sends the model id verbatim on every turn (<style>)
    Given a mock LLM runs "tool-loop.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "deepseek/deepseek-chat", "apiKey": "test-key"}
      """
    When the client streams "go"
    Then the LLM received 3 requests
    And every LLM request body at "model" is "deepseek/deepseek-chat"
    And the run result at "model" is "deepseek/deepseek-chat"

    Examples:
      | style     |
      | openai    |
      | anthropic |

  @spec-8 @clause-8.routing.model-verbatim @clause-8.routing.route-gate
  Scenario: the route gate sees the configured model on every turn, and so does the wire
    Given a mock LLM runs "tool-loop.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "moonshotai/kimi-k2", "apiKey": "test-key", "hooks": {"beforeLLM": {"observe": true}}}
      """
    When the client runs "go"
    Then hookCalls has 3 entries with "model" equal to "moonshotai/kimi-k2"
    And every LLM request body at "model" is "moonshotai/kimi-k2"

  @spec-8 @clause-8.routing.model-verbatim
  Scenario: the model id is kept verbatim when requestParams shape the body and the conversation goes on
    Given a mock LLM runs "basic-anthropic.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "deepseek/deepseek-chat", "apiKey": "test-key", "requestParams": {"temperature": 0}}
      """
    When the client holds a conversation:
      """
      [{"send": "one"}, {"send": "two"}]
      """
    Then the LLM received 2 requests
    And every LLM request body at "model" is "deepseek/deepseek-chat"
    And conversation step 2 at "result.text" is "echo: two (deepseek/deepseek-chat)"
