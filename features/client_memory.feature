@pin-0.16.0
Feature: The §8 client's conversation memory — history, conversation, ask and the store (SPEC §8 "Conversation memory")
  The port's own §8 client runs against the mock LLM, whose catch-all reply is
  `echo: {{lastUserText}} ({{model}})` (basic-openai.json / basic-anthropic.json), so each
  answer names the prompt it answered. Whether a thread was continued is read from what the
  client sent (the mock's recording). The transcript is the port's, in the provider's shape:
  the SPEC does not say whether a system message is kept in it when there is no system prompt
  and no toolkit, so transcripts are compared with and without a leading one, and assistant
  messages leniently (`$partial`).

  # ---------------------------------------------------------------- run with history

  @spec-8 @clause-8.memory.history @clause-8.run-result.text @clause-8.run-result.messages
  Scenario Outline: run with history continues it, and RunResult.messages is the full updated transcript (<style>)
    Given a mock LLM runs "<file>"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client runs "what is my name?" with:
      """
      {"history": [{"role": "user", "content": "my name is Ada"}, {"role": "assistant", "content": "hello Ada"}]}
      """
    Then the run text is "echo: what is my name? (m-basic)"
    And LLM request 1 body at "messages[-3]" is:
      """
      {"role": "user", "content": "my name is Ada"}
      """
    And LLM request 1 body at "messages[-2]" is:
      """
      {"role": "assistant", "content": "hello Ada"}
      """
    And LLM request 1 body at "messages[-1].role" is "user"
    And LLM request 1 body at "messages[-1]" contains "what is my name?"
    And the run result at "messages[-4]" is:
      """
      {"role": "user", "content": "my name is Ada"}
      """
    And the run result at "messages[-3]" is:
      """
      {"role": "assistant", "content": "hello Ada"}
      """
    And the run result at "messages[-2].role" is "user"
    And the run result at "messages[-2]" contains "what is my name?"
    And the run result at "messages[-1].role" is "assistant"
    And the run result at "messages[-1]" contains "echo: what is my name? (m-basic)"

    Examples:
      | style     | file                 |
      | openai    | basic-openai.json    |
      | anthropic | basic-anthropic.json |

  @spec-8 @clause-8.memory.history
  Scenario: a run without history does not carry an earlier run's exchange (the primitive is stateless)
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client runs "one"
    And the client runs "two"
    Then the run text is "echo: two (m-basic)"
    And LLM request 2 body at "messages" is:
      """
      {"$oneOf": [
        [{"role": "user", "content": "two"}],
        [{"role": "system", "$partial": true}, {"role": "user", "content": "two"}]
      ]}
      """

  # ---------------------------------------------------------------- conversation

  @spec-8 @clause-8.memory.conversation
  Scenario: conversation send, send keeps the history; messages is the transcript
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client holds a conversation:
      """
      [{"send": "one"}, {"send": "two"}]
      """
    Then conversation step 1 at "result.text" is "echo: one (m-basic)"
    And conversation step 2 at "result.text" is "echo: two (m-basic)"
    And the LLM received 2 requests
    And LLM request 2 body at "messages" is:
      """
      {"$oneOf": [
        [{"role": "user", "content": "one"}, {"role": "assistant", "content": "echo: one (m-basic)", "$partial": true},
         {"role": "user", "content": "two"}],
        [{"role": "system", "$partial": true},
         {"role": "user", "content": "one"}, {"role": "assistant", "content": "echo: one (m-basic)", "$partial": true},
         {"role": "user", "content": "two"}]
      ]}
      """
    And the conversation transcript is:
      """
      {"$oneOf": [
        [{"role": "user", "content": "one"}, {"role": "assistant", "content": "echo: one (m-basic)", "$partial": true},
         {"role": "user", "content": "two"}, {"role": "assistant", "content": "echo: two (m-basic)", "$partial": true}],
        [{"role": "system", "$partial": true},
         {"role": "user", "content": "one"}, {"role": "assistant", "content": "echo: one (m-basic)", "$partial": true},
         {"role": "user", "content": "two"}, {"role": "assistant", "content": "echo: two (m-basic)", "$partial": true}]
      ]}
      """

  @spec-8 @clause-8.memory.conversation
  Scenario: conversation reset clears the history
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client holds a conversation:
      """
      [{"send": "one"}, {"reset": true}, {"send": "two"}]
      """
    Then conversation step 3 at "result.text" is "echo: two (m-basic)"
    And LLM request 2 body at "messages" is:
      """
      {"$oneOf": [
        [{"role": "user", "content": "two"}],
        [{"role": "system", "$partial": true}, {"role": "user", "content": "two"}]
      ]}
      """
    And the conversation transcript is:
      """
      {"$oneOf": [
        [{"role": "user", "content": "two"}, {"role": "assistant", "content": "echo: two (m-basic)", "$partial": true}],
        [{"role": "system", "$partial": true},
         {"role": "user", "content": "two"}, {"role": "assistant", "content": "echo: two (m-basic)", "$partial": true}]
      ]}
      """

  @spec-8 @clause-8.memory.conversation
  Scenario: a reset as the last step leaves an empty transcript
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client holds a conversation:
      """
      [{"send": "one"}, {"reset": true}]
      """
    Then the conversation transcript is:
      """
      []
      """

  # ---------------------------------------------------------------- ask and the store

  @spec-8 @clause-8.ask.with-id
  Scenario Outline: ask with the same id twice continues the thread (<style>)
    Given a mock LLM runs "<file>"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client asks "one" in thread "t1"
    And the client asks "two" in thread "t1"
    Then the run text is "echo: two (m-basic)"
    And the LLM received 2 requests
    And LLM request 2 body at "messages" contains "echo: one (m-basic)"
    And LLM request 2 body at "messages[-1].role" is "user"
    And LLM request 2 body at "messages[-1]" contains "two"
    And the run result at "messages[-1]" contains "echo: two (m-basic)"
    And the run result at "messages" contains "echo: one (m-basic)"

    Examples:
      | style     | file                 |
      | openai    | basic-openai.json    |
      | anthropic | basic-anthropic.json |

  @spec-8 @clause-8.ask.with-id
  Scenario: threads with different ids do not mix
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client asks "one" in thread "t1"
    And the client asks "two" in thread "t2"
    Then LLM request 2 body at "messages" is:
      """
      {"$oneOf": [
        [{"role": "user", "content": "two"}],
        [{"role": "system", "$partial": true}, {"role": "user", "content": "two"}]
      ]}
      """

  @spec-8 @clause-8.ask.without-id
  Scenario: ask without id is a stateless one-shot and leaves the store untouched
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client asks "one" in thread "t1"
    And the client asks "two"
    And the client asks "three"
    Then the run text is "echo: three (m-basic)"
    And LLM request 2 body at "messages" is:
      """
      {"$oneOf": [
        [{"role": "user", "content": "two"}],
        [{"role": "system", "$partial": true}, {"role": "user", "content": "two"}]
      ]}
      """
    And LLM request 3 body at "messages" is:
      """
      {"$oneOf": [
        [{"role": "user", "content": "three"}],
        [{"role": "system", "$partial": true}, {"role": "user", "content": "three"}]
      ]}
      """
    When the client's store is read at "t1"
    Then the stored messages are:
      """
      {"$oneOf": [
        [{"role": "user", "content": "one"}, {"role": "assistant", "content": "echo: one (m-basic)", "$partial": true}],
        [{"role": "system", "$partial": true},
         {"role": "user", "content": "one"}, {"role": "assistant", "content": "echo: one (m-basic)", "$partial": true}]
      ]}
      """

  @spec-8 @clause-8.ask.on-text @clause-8.ask.with-id
  Scenario: ask with onText in a thread: the deltas join to the text, the result is still a RunResult, the thread continues
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client asks "one" in thread "t1" with onText
    Then the text deltas join to "echo: one (m-basic)"
    And the run text is "echo: one (m-basic)"
    And the run result at "turns" is 1
    And the run result at "toolCallCount" is 0
    And the run result at "model" is "m-basic"
    And the run result at "messages[-1]" contains "echo: one (m-basic)"
    When the client asks "two" in thread "t1" with onText
    Then the text deltas join to "echo: two (m-basic)"
    And LLM request 2 body at "messages" contains "echo: one (m-basic)"

  @spec-8 @clause-8.ask.no-on-text
  Scenario: ask without onText does not stream; with onText it does (positive control)
    Whether a non-streaming body says `"stream": false` or leaves the key out is the port's.
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client asks "one"
    Then the run text is "echo: one (m-basic)"
    And LLM request 1 body at "" is:
      """
      {"$oneOf": [{"stream": false, "$partial": true}, {"stream": {"$absent": true}, "$partial": true}]}
      """
    When the client asks "two" with onText
    Then the text deltas join to "echo: two (m-basic)"
    And LLM request 2 body at "stream" is true

  @spec-8 @clause-8.memory.store-default
  Scenario: the default store is per client: a second client does not see the first one's thread
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client asks "one" in thread "t1"
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client's store is read at "t1"
    Then the store has nothing there
    When the client asks "two" in thread "t1"
    Then LLM request 2 body at "messages" is:
      """
      {"$oneOf": [
        [{"role": "user", "content": "two"}],
        [{"role": "system", "$partial": true}, {"role": "user", "content": "two"}]
      ]}
      """

  @spec-8 @clause-8.store-accessor.returns-store @clause-8.ask.with-id
  Scenario: store_get after ask returns the thread's transcript (the Gap 4 accessor reaches the default store)
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client asks "one" in thread "t1"
    And the client asks "two" in thread "t1"
    And the client's store is read at "t1"
    Then the stored messages are:
      """
      {"$oneOf": [
        [{"role": "user", "content": "one"}, {"role": "assistant", "content": "echo: one (m-basic)", "$partial": true},
         {"role": "user", "content": "two"}, {"role": "assistant", "content": "echo: two (m-basic)", "$partial": true}],
        [{"role": "system", "$partial": true},
         {"role": "user", "content": "one"}, {"role": "assistant", "content": "echo: one (m-basic)", "$partial": true},
         {"role": "user", "content": "two"}, {"role": "assistant", "content": "echo: two (m-basic)", "$partial": true}]
      ]}
      """

  @spec-8 @clause-8.memory.store-shape @clause-8.store-accessor.returns-store
  Scenario: the store has nothing under an id no one saved
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client's store is read at "never-used"
    Then the store has nothing there

  @spec-8 @clause-8.memory.store-shape @clause-8.ask.with-id @clause-8.memory.store-option
  Scenario: a host store (seeded) is the one ask loads from and saves to
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key",
       "store": {"seeded": {"t1": [{"role": "user", "content": "my name is Ada"}, {"role": "assistant", "content": "hello Ada"}]}}}
      """
    When the client asks "what is my name?" in thread "t1"
    Then the run text is "echo: what is my name? (m-basic)"
    And LLM request 1 body at "messages[-3]" is:
      """
      {"role": "user", "content": "my name is Ada"}
      """
    And LLM request 1 body at "messages[-2]" is:
      """
      {"role": "assistant", "content": "hello Ada"}
      """
    When the client's store is read at "t1"
    Then the stored messages are:
      """
      [{"role": "user", "content": "my name is Ada"}, {"role": "assistant", "content": "hello Ada"},
       {"role": "user", "content": "what is my name?"},
       {"role": "assistant", "content": "echo: what is my name? (m-basic)", "$partial": true}]
      """

  @spec-8 @clause-8.store-accessor.returns-store @clause-8.ask.with-id
  Scenario Outline: store_save through the accessor, then ask continues from the saved transcript (<style>)
    Given a mock LLM runs "<file>"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client's store saves "t9":
      """
      [{"role": "user", "content": "remember 7"}, {"role": "assistant", "content": "noted: 7"}]
      """
    And the client's store is read at "t9"
    Then the stored messages are:
      """
      [{"role": "user", "content": "remember 7"}, {"role": "assistant", "content": "noted: 7"}]
      """
    When the client asks "what number?" in thread "t9"
    Then the run text is "echo: what number? (m-basic)"
    And LLM request 1 body at "messages[-3]" is:
      """
      {"role": "user", "content": "remember 7"}
      """
    And LLM request 1 body at "messages[-2]" is:
      """
      {"role": "assistant", "content": "noted: 7"}
      """

    Examples:
      | style     | file                 |
      | openai    | basic-openai.json    |
      | anthropic | basic-anthropic.json |

  @spec-8 @clause-8.stream.id-stateful @clause-8.ask.with-id
  Scenario: a stream with an id shares the thread with ask
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client streams "one" with:
      """
      {"id": "t1"}
      """
    Then the run did not raise
    When the client asks "two" in thread "t1"
    Then the run text is "echo: two (m-basic)"
    And LLM request 2 body at "messages" contains "echo: one (m-basic)"
