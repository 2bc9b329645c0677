@pin-0.16.0
Feature: The §8 in-process client — a host generate function instead of an endpoint (SPEC §8 "In-process models")
  A client built around `generate(request) -> { content } | { toolCalls }` (PROTOCOL.md §7
  "generate": a script, one step per call) takes no baseUrl, apiKey or style: there is no
  wire, so no mock LLM runs here. Every `generate` request comes back in `generateCalls`;
  its messages are OpenAI-shaped.

  @spec-8 @clause-8.in-process.no-wire @partial-clause-8.in-process.constructor @clause-8.run-result.model
  Scenario: generate's content is the run's text, without any endpoint
    Given a client created with:
      """
      {"model": "m-local", "generate": {"script": [{"content": "hello from the local model"}]}}
      """
    When the client runs "hi"
    Then the run text is "hello from the local model"
    And the run result at "turns" is 1
    And the run result at "model" is "m-local"
    And generateCalls has 1 entries
    And generateCalls at "[0].messages[-1]" is:
      """
      {"role": "user", "content": "hi"}
      """

  @spec-8 @clause-8.in-process.no-wire @clause-8.loop.system-message @partial-clause-8.in-process.constructor @partial-clause-8.in-process.openai-shaped
  Scenario: the generate request carries an OpenAI-shaped system message
    Given a client created with:
      """
      {"model": "m-local", "systemPrompt": "Be brief.", "generate": {"script": [{"content": "ok"}]}}
      """
    When the client runs "hi"
    Then the run text is "ok"
    And generateCalls at "[0].messages[0].role" is "system"
    And generateCalls at "[0].messages[0].content" is:
      """
      {"$regex": "^Be brief\\."}
      """

  @spec-8 @clause-8.in-process.no-wire @clause-8.in-process.derives-envelope @clause-8.loop.execute-and-append @clause-8.in-process.generate-shape @clause-8.in-process.openai-shaped
  Scenario Outline: toolCalls run the tool and the next request carries OpenAI tool messages (arguments as <form>)
    The library encodes object arguments itself and passes a string as it is; either way
    the tool receives the object.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"model": "m-local", "generate": {"script": [
        {"toolCalls": [{"id": "tc-1", "name": "lookup", "arguments": <arguments>}]},
        {"content": "looked it up"}]}}
      """
    When the client runs "find x"
    Then the run text is "looked it up"
    And the tool calls are:
      """
      [{"name": "lookup", "args": {"q": "x"}, "output": "{\"q\":\"x\"}", "isError": false, "$partial": true}]
      """
    And generateCalls has 2 entries
    And generateCalls at "[1].messages[-1]" is:
      """
      {"role": "tool", "tool_call_id": "tc-1", "content": "{\"q\":\"x\"}", "$partial": true}
      """
    And generateCalls at "[1].messages[-2].role" is "assistant"
    And generateCalls at "[1].messages[-2].tool_calls[0].id" is "tc-1"
    And generateCalls at "[1].messages[-2].tool_calls[0].function.name" is "lookup"
    And generateCalls at "[1].messages[-2].tool_calls[0].function.arguments" is:
      """
      <sent>
      """

    Examples:
      | form     | arguments          | sent                    |
      | object   | {"q": "x"}         | {"$json": {"q": "x"}}   |
      | a string | "{\\"q\\":\\"x\\"}"    | "{\\"q\\":\\"x\\"}"         |

  @spec-8 @clause-8.in-process.derives-envelope @clause-8.hooks.after-llm @partial-clause-8.in-process.constructor
  Scenario: the library builds the choices envelope and derives finish_reason
    afterLLM receives the payload the library built around each generate answer.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"model": "m-local", "hooks": {"afterLLM": {"observe": true}}, "generate": {"script": [
        {"toolCalls": [{"id": "tc-1", "name": "lookup", "arguments": {"q": "x"}}]},
        {"content": "done"}]}}
      """
    When the client runs "find x"
    Then the run text is "done"
    And hookCalls has 2 entries
    And hookCalls at "[0].response.choices[0].finish_reason" is "tool_calls"
    And hookCalls at "[0].response.choices[0].message.tool_calls[0].function.name" is "lookup"
    And hookCalls at "[1].response.choices[0].finish_reason" is "stop"
    And hookCalls at "[1].response.choices[0].message.content" is "done"

  @spec-8 @clause-8.run-result.usage-summed @clause-8.in-process.derives-envelope @clause-8.in-process.generate-shape @clause-8.run-result.turns
  Scenario: usage from the script is summed across turns
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"model": "m-local", "generate": {"script": [
        {"toolCalls": [{"id": "tc-1", "name": "lookup", "arguments": {"q": "x"}}], "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}},
        {"content": "done", "usage": {"prompt_tokens": 7, "completion_tokens": 4, "total_tokens": 11}}]}}
      """
    When the client runs "find x"
    Then the run text is "done"
    And the usage is 10 prompt, 6 completion and 16 total tokens
    And the run result at "turns" is 2

  @spec-8 @clause-8.run-result.usage-summed @partial-clause-8.in-process.generate-shape
  Scenario: a generate answer without usage adds no tokens: the usage is all zeros
    §8 "generate … (+ optional `usage`)"; RunResult's `usage` is not optional and is "summed
    across turns", so answers that carry none sum to zero (not an absent usage).
    Given a client created with:
      """
      {"model": "m-local", "generate": {"script": [{"content": "no usage here"}]}}
      """
    When the client runs "hi"
    Then the run text is "no usage here"
    And the usage is 0 prompt, 0 completion and 0 total tokens

  @spec-8 @clause-8.in-process.final-failures
  Scenario: a generate failure is final by default: generate is called once
    No `retries` option: §8 "Failures are final by default", so the failure surfaces after the
    one call. The raise's words are the port's (NOTES #320: the @beyond-spec twin below checks
    that it carries the host's own message).
    Given a client created with:
      """
      {"model": "m-local", "generate": {"script": [{"fail": "local model crashed"}]}}
      """
    When the client runs "hi"
    Then the run raised an error mentioning ""
    And generateCalls has 1 entries

  @spec-8 @beyond-spec
  Scenario: a generate failure surfaces the host's own message
    Beyond the SPEC: §8 makes in-process failures "final by default" and does not say the raise
    carries what `generate` threw (NOTES #320); the reference's error holds it.
    Given a client created with:
      """
      {"model": "m-local", "generate": {"script": [{"fail": "local model crashed"}]}}
      """
    When the client runs "hi"
    Then the run raised an error mentioning "local model crashed"
    And generateCalls has 1 entries

  @spec-8 @beyond-spec @partial-clause-8.in-process.final-failures
  Scenario: a generate failure is final even with retries
    Beyond the SPEC: §8 says in-process failures are final "by default"; whether a `retries`
    the host set on purpose is honoured is open. The reference never retries a generate (no
    wire, nothing transient); a port whose in-process default is 0 retries and that honours an
    explicit `retries: 2` calls generate three times.
    Given a client created with:
      """
      {"model": "m-local", "retries": 2, "retryBaseMs": 1, "generate": {"script": [{"fail": "local model crashed"}]}}
      """
    When the client runs "hi"
    # Only the retries are this scenario's point: the words are checked by *a generate failure
    # surfaces the host's own message* (NOTES #320).
    Then the run raised an error mentioning ""
    And generateCalls has 1 entries

  @spec-8 @clause-8.in-process.final-failures
  Scenario: a generate failure after a tool turn stops the run
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"model": "m-local", "generate": {"script": [
        {"toolCalls": [{"id": "tc-1", "name": "lookup", "arguments": {"q": "x"}}]},
        {"fail": "out of memory"}]}}
      """
    When the client runs "find x"
    # The words are the port's (NOTES #320; *a generate failure surfaces the host's own
    # message*); the cause: the tool turn ran, the second generate failed and was not retried.
    Then the run raised an error mentioning ""
    And generateCalls has 2 entries

  @spec-8 @clause-8.in-process.stream-raises
  Scenario: streaming an in-process client raises and yields no answer
    The SPEC gives the error no wording, so only that the stream raised is checked (an
    empty "mentioning"), with no text and no done event before it.
    Given a client created with:
      """
      {"model": "m-local", "generate": {"script": [{"content": "hello"}]}}
      """
    When the client streams "hi"
    Then the stream events of type "done" are:
      """
      []
      """
    And the stream events of type "text" are:
      """
      []
      """
    And the run raised an error mentioning ""
