@pin-0.16.0
Feature: Context compaction — compactor(opts) as a pure messages → messages helper (SPEC §7F)
  One `compact` (PROTOCOL.md §5.26) runs the port's compactor once on a transcript the scenario
  builds, with host callbacks from a fixed catalogue: `summarize` answers a fixed text or the
  template "summarized <N> messages" (N = the older messages it got), and `countTokens`, when
  sent, counts a fixed number of tokens per message so a split is exact in every port.
  The first scenarios follow examples/compaction/fixture.json (C1–C4): its transcript is "a
  transcript of 30 tool turns after the system prompt …" (121 messages: per turn a user question,
  an assistant tool call, its tool result and an assistant answer), compacted with maxTokens
  2000, keepTail 800 and the default estimator. Estimators differ per port (the JSON text each
  port measures differs in its details), so under the default estimator no exact split is
  compared; the invariant "older + tail + system prompt = the whole input" is
  (conformance/NOTES.md #284–#289).

  # ---------------------------------------------------------------- the fixture (C1–C4)

  @spec-7F @clause-7F.shape.compacted-transcript @clause-7F.system.preserved @clause-7F.tool-pair.user-boundary
  Scenario: over maxTokens the older body becomes one summary, the system prompt stays and the tail starts at a user turn
    Given a transcript of 30 tool turns after the system prompt "You are Ava. SOUL."
    When the transcript is compacted with:
      """
      {"maxTokens": 2000, "keepTail": 800, "summarize": {"template": "summarized <N> messages"}}
      """
    Then the compactor returned a transcript smaller than the input
    And the compacted transcript starts with the input's system prompt, unchanged
    And the summary is a system message "[Summary of earlier conversation]\n" followed by the summarizer's answer
    And the summarizer was called once, with exactly the input between the system prompt and the retained tail
    And the first non-system message of the compacted transcript is a user message
    And the retained tail starts at a user message that carries no tool result
    And the compacted transcript is tool-pair safe
    And the compacted transcript has no system message after the summary

  @spec-7F @clause-7F.options.max-tokens-no-op
  Scenario: a transcript under maxTokens is left alone: the compactor returns nothing and summarizes nothing
    # Cause: 2 turns (9 messages) estimate far below 2000 tokens under any chars/4 estimator.
    Given a transcript of 2 tool turns after the system prompt "You are Ava. SOUL."
    When the transcript is compacted with:
      """
      {"maxTokens": 2000, "keepTail": 800, "summarize": {"template": "summarized <N> messages"}}
      """
    Then the compactor returned nothing

  @spec-7F @clause-7F.options.max-tokens-no-op
  Scenario: at exactly maxTokens the compactor is a no-op; one token over, it compacts
    # Cause: one token per message makes the 9-message transcript exactly 9 tokens.
    Given a transcript of 2 tool turns after the system prompt "SOUL"
    When the transcript is compacted with:
      """
      {"maxTokens": 9, "keepTail": 4, "countTokens": {"perMessage": 1}, "summarize": {"text": "S"}}
      """
    Then the compactor returned nothing
    When the transcript is compacted with:
      """
      {"maxTokens": 8, "keepTail": 4, "countTokens": {"perMessage": 1}, "summarize": {"text": "S"}}
      """
    Then the compactor returned a transcript smaller than the input
    And the retained tail is the last 4 input messages

  @spec-7F @clause-7F.options.flush-to-memory
  Scenario: flushToMemory adds a system reminder to save durable facts with the memory tool, before the tail
    Given a transcript of 30 tool turns after the system prompt "You are Ava. SOUL."
    When the transcript is compacted with:
      """
      {"maxTokens": 2000, "keepTail": 800, "flushToMemory": true, "summarize": {"template": "summarized <N> messages"}}
      """
    Then the compacted transcript starts with the input's system prompt, unchanged
    And the summary is a system message "[Summary of earlier conversation]\n" followed by the summarizer's answer
    And the compacted transcript has a flush reminder mentioning "memory" before the retained tail
    And the summarizer was called once, with exactly the input between the system prompt and the retained tail
    And the retained tail starts at a user message that carries no tool result

  @spec-7F @partial-clause-7F.options.count-tokens-default
  Scenario: the default estimator counts about a quarter of a message's characters
    # Cause: one 4,000-character message is about 1,000 tokens at chars/4: above 950, below 1,100.
    Given a transcript of the system prompt "SOUL" and a user message of 4000 characters
    When the transcript is compacted with:
      """
      {"maxTokens": 1100, "summarize": {"text": "S"}}
      """
    Then the compactor returned nothing
    When the transcript is compacted with:
      """
      {"maxTokens": 950, "summarize": {"text": "S"}}
      """
    Then the compactor returned a transcript smaller than the input

  # ---------------------------------------------------------------- where the tail starts

  @spec-7F @clause-7F.tool-pair.largest-tail @partial-clause-7F.tool-pair.openai-boundary
  Scenario: the tail is the largest one that fits keepTail and starts at a user turn
    # Cause: one token per message; 3 turns (13 messages); a user turn starts every 4th message.
    Given a transcript of 3 tool turns after the system prompt "SOUL"
    When the transcript is compacted with:
      """
      {"maxTokens": 10, "keepTail": 8, "countTokens": {"perMessage": 1}, "summarize": {"template": "summarized <N> messages"}}
      """
    Then the retained tail is the last 8 input messages
    And the summary is a system message "[Summary of earlier conversation]\n" followed by the summarizer's answer
    And the summarizer was called once, with exactly the input between the system prompt and the retained tail
    When the transcript is compacted with:
      """
      {"maxTokens": 10, "keepTail": 7, "countTokens": {"perMessage": 1}, "summarize": {"text": "S"}}
      """
    Then the retained tail is the last 4 input messages

  @spec-7F @clause-7F.tool-pair.largest-tail
  Scenario: when no user-turn tail fits keepTail, the tail extends to the most recent user turn (safety over size)
    # Cause: keepTail 2 is smaller than the last turn (4 messages), and a tail may not start mid-turn.
    Given a transcript of 3 tool turns after the system prompt "SOUL"
    When the transcript is compacted with:
      """
      {"maxTokens": 10, "keepTail": 2, "countTokens": {"perMessage": 1}, "summarize": {"text": "S"}}
      """
    Then the retained tail is the last 4 input messages
    And the compacted transcript is tool-pair safe
    And the summarizer was called once, with exactly the input between the system prompt and the retained tail

  @spec-7F @clause-7F.options.keep-tail-default
  Scenario: without keepTail the tail keeps maxTokens/2 tokens
    # Cause: one token per message, maxTokens 16 ⇒ keepTail 8: two turns. A default of maxTokens
    # would keep four turns, none (0) only the last one.
    Given a transcript of 5 tool turns after the system prompt "SOUL"
    When the transcript is compacted with:
      """
      {"maxTokens": 16, "countTokens": {"perMessage": 1}, "summarize": {"text": "S"}}
      """
    Then the retained tail is the last 8 input messages
    And the summarizer was called once, with exactly the input between the system prompt and the retained tail

  @spec-7F @clause-7F.tool-pair.anthropic-not-boundary @partial-clause-7F.tool-pair.openai-boundary
  Scenario: an anthropic user message carrying tool_result blocks is not a place to cut
    # Cause: keepTail 3 would fit the last tool_result message and the answer (2 messages), but
    # that user message belongs to the tool_use before it; the cut moves back to the question.
    Given a transcript of 3 tool turns in the anthropic shape
    When the transcript is compacted with:
      """
      {"maxTokens": 10, "keepTail": 3, "countTokens": {"perMessage": 1}, "summarize": {"text": "S"}}
      """
    Then the summary is a system message "[Summary of earlier conversation]\n" followed by the summarizer's answer
    And the retained tail is the last 4 input messages
    And the retained tail starts at a user message that carries no tool result
    And the compacted transcript is tool-pair safe
    And the summarizer was called once, with exactly the input between the system prompt and the retained tail

  @spec-7F @clause-7F.tool-pair.empty-tail
  Scenario: with no user turn after the first, the whole body is summarized and the tail is empty
    # Cause: the only user turn opens the body; everything after it is tool calls and results.
    Given a transcript:
      """
      [{"role": "system", "content": "SOUL"},
       {"role": "user", "content": "look up two things"},
       {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
       {"role": "tool", "tool_call_id": "c1", "content": "one"},
       {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
       {"role": "tool", "tool_call_id": "c2", "content": "two"},
       {"role": "assistant", "content": "done"}]
      """
    When the transcript is compacted with:
      """
      {"maxTokens": 4, "keepTail": 2, "countTokens": {"perMessage": 1}, "summarize": {"template": "summarized <N> messages"}}
      """
    Then the retained tail is empty
    And the compacted transcript starts with the input's system prompt, unchanged
    And the summary is a system message "[Summary of earlier conversation]\n" followed by the summarizer's answer
    And the summarizer was called once, with exactly the input between the system prompt and the retained tail
    And the compacted transcript is tool-pair safe

  # ---------------------------------------------------------------- on a bare client

  @spec-7F @clause-7F.compactor.bare-client @partial-clause-7F.compactor.rewrite-flows
  Scenario: on a bare client the compactor is the client's beforeLLM hook: the request and RunResult.messages carry the compacted transcript
    # The §8 client runs with the compactor as `hooks.beforeLLM` and no toolkit. The history is
    # a prior transcript as a run returns it (§8 "Conversation memory"), its system message
    # first; what a port sends for a history with none is open (NOTES #402, the @beyond-spec
    # twin below). One token per message: the system message, six history messages and the
    # prompt are 8 > 5; keepTail 3 keeps q2, a2 and the prompt (a tail starts at a user turn),
    # and the 4 before are summarized.
    Given a mock LLM runs "agents.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-echo", "apiKey": "test-key", "systemPrompt": "SOUL-VERBATIM",
       "hooks": {"beforeLLM": {"compactor": {"maxTokens": 5, "keepTail": 3, "countTokens": {"perMessage": 1}, "summarize": {"template": "summarized <N> messages"}}}}}
      """
    When the client runs "one more turn" with:
      """
      {"history": [
        {"role": "system", "content": "SOUL-VERBATIM"},
        {"role": "user", "content": "q0"}, {"role": "assistant", "content": "a0"},
        {"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2"}]}
      """
    Then the run did not raise
    And LLM request 1 body at "messages[0].role" is "system"
    And LLM request 1 body at "messages[0].content" matches "^SOUL-VERBATIM"
    And LLM request 1 body at "messages[1].role" is "system"
    And LLM request 1 body at "messages[1].content" contains "summarized 4 messages"
    And LLM request 1 body at "messages[2].content" is "q2"
    And LLM request 1 body at "messages[3].content" is "a2"
    And LLM request 1 body at "messages[4].content" is "one more turn"
    And LLM request 1 body has nothing at "messages[5]"
    And the run result at "messages[0].content" matches "^SOUL-VERBATIM"
    And the run result at "messages[1].content" contains "summarized 4 messages"
    And the run result at "messages[2].content" is "q2"
    And the run result at "messages[-1].content" is "echo: one more turn"
    And the run result has nothing at "messages[6]"

  @spec-7F @spec-8 @beyond-spec
  Scenario: on a bare client given a history without a system message, the systemPrompt still heads the request and the compactor keeps it
    Beyond the SPEC: §8 says a run with `history` continues that prior transcript, and a run's
    transcript carries its system message; whether a history without one gets the client's
    systemPrompt in front is not said (NOTES #88, #402). The reference puts it first (openai);
    the compactor then keeps it ahead of the summary.
    Given a mock LLM runs "agents.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-echo", "apiKey": "test-key", "systemPrompt": "SOUL-VERBATIM",
       "hooks": {"beforeLLM": {"compactor": {"maxTokens": 5, "keepTail": 3, "countTokens": {"perMessage": 1}, "summarize": {"template": "summarized <N> messages"}}}}}
      """
    When the client runs "one more turn" with:
      """
      {"history": [
        {"role": "user", "content": "q0"}, {"role": "assistant", "content": "a0"},
        {"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2"}]}
      """
    Then the run did not raise
    And LLM request 1 body at "messages[0].role" is "system"
    And LLM request 1 body at "messages[0].content" matches "^SOUL-VERBATIM"
    And LLM request 1 body at "messages[1].role" is "system"
    And LLM request 1 body at "messages[1].content" contains "summarized 4 messages"
    And LLM request 1 body at "messages[2].content" is "q2"
    And LLM request 1 body at "messages[3].content" is "a2"
    And LLM request 1 body at "messages[4].content" is "one more turn"
    And LLM request 1 body has nothing at "messages[5]"
    And the run result at "messages[1].content" contains "summarized 4 messages"
    And the run result at "messages[2].content" is "q2"
    And the run result at "messages[-1].content" is "echo: one more turn"
    And the run result has nothing at "messages[6]"

  @spec-7F @partial-clause-7F.compactor.rewrite-flows @partial-clause-7F.compactor.bare-client
  Scenario: on a bare client the ConversationStore keeps the compacted transcript of a thread
    # The thread's stored six messages are the history of `ask`; the compactor (as above) cuts
    # the first four, and what the store keeps is the compacted array: the summary right before
    # the retained tail, then the new turn.
    Given a mock LLM runs "agents.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-echo", "apiKey": "test-key", "systemPrompt": "SOUL-VERBATIM",
       "hooks": {"beforeLLM": {"compactor": {"maxTokens": 5, "keepTail": 3, "countTokens": {"perMessage": 1}, "summarize": {"template": "summarized <N> messages"}}}}}
      """
    And the client's store saves "t1":
      """
      [{"role": "user", "content": "q0"}, {"role": "assistant", "content": "a0"},
       {"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"},
       {"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2"}]
      """
    When the client asks "one more turn" in thread "t1"
    And the client's store is read at "t1"
    Then the stored messages end with:
      """
      [{"role": "system", "content": {"$contains": "summarized 4 messages"}},
       {"role": "user", "content": "q2"},
       {"role": "assistant", "content": "a2"},
       {"role": "user", "content": "one more turn"},
       {"role": "assistant", "content": "echo: one more turn"}]
      """
