@pin-0.16.0
Feature: The §10 suspension loop in the client — waitFor, retry once, durable halt (SPEC §10)
  Tools suspend with the `suspend` catalogue behaviour (PROTOCOL.md §7: a Request on the first
  call; on the re-execution with `ctx.answer` its `answer.data`, its arguments with `echoArgs`,
  or another suspension with `always`). The client's `waitFor` is a catalogue behaviour too,
  and every Request it receives comes back in `waitForCalls`. suspension.json picks the tool
  calls by the prompt and answers `after: <tool results>` once a tool result is present.

  @spec-10 @clause-10.loop.retry-once @partial-clause-10.loop.branches-on-ok
  @clause-0.suspension.wait-for-retry @clause-1.pending.client-calls-wait-for
  Scenario: an ok answer re-executes the tool with Context.answer and feeds that result back
    The `suspend` tool answers `answer.data` only when re-executed with `ctx.answer`.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "input", "prompt": "Which book?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true, "data": {"title": "Dune"}}}}
      """
    When the client runs "one"
    Then the run did not raise
    And the run text is "after: {\"title\":\"Dune\"}"
    And the run result at "status" is "done"
    And waitForCalls has 1 entries
    And LLM request 2 body at "messages[-1]" is:
      """
      {"role": "tool", "tool_call_id": "call_g1", "content": "{\"title\":\"Dune\"}"}
      """

  @spec-10 @clause-10.loop.retry-once
  Scenario: the re-execution gets the same arguments
    `echoArgs` makes the re-executed tool answer its own arguments (the authorization case: the
    answer's data is ignored, the world changed out of band).
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "authorization", "prompt": "Log in", "url": "https://login.test/a", "echoArgs": true}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true, "data": {"title": "Dune"}}}}
      """
    When the client runs "one"
    Then the run text is "after: {\"item\":\"book\"}"
    And the run result at "toolCalls[0].args" is {"item": "book"}

  @spec-10 @clause-10.loop.retry-once @partial-clause-10.not-error.metric
  Scenario: an ok answer re-executes the tool exactly once
    Two `tool` records: the suspension (pending) and the one re-execution.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "input", "prompt": "Which book?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true, "data": {"title": "Dune"}}}, "onMetric": {"collect": true}}
      """
    When the client runs "one"
    Then waitForCalls has 1 entries
    And metricEvents has 2 entries with "event" equal to "tool"
    And metricEvents has 1 entries with "pending" equal to true
    And the LLM received 2 requests

  @spec-10 @clause-10.keys.fixed @clause-10.request.id @clause-10.request.kind-open @clause-10.request.expires-at @partial-clause-10.request.data-schema
  Scenario: waitFor receives the tool's Request with the SPEC's keys
    Every optional key given, `kind` outside the SPEC's examples (the vocabulary is open).
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "trade-approval", "prompt": "Approve the trade?", "url": "https://x.test/approve", "data": {"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}, "expiresAt": "2030-01-01T00:00:00Z"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true}}}
      """
    When the client runs "one"
    Then waitForCalls at "[0]" is:
      """
      {"id": {"$regex": "^.+$"}, "kind": "trade-approval", "prompt": "Approve the trade?", "url": "https://x.test/approve", "data": {"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}, "expiresAt": "2030-01-01T00:00:00Z"}
      """
    And the run text is "after: null"

  @spec-10 @clause-10.keys.fixed
  Scenario: a Request's absent optional keys are omitted, not null
    The expectation is exact: a `url`, `data` or `expiresAt` key (even null) fails it.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "input", "prompt": "Which book?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true, "data": {"title": "Dune"}}}}
      """
    When the client runs "one"
    Then waitForCalls at "[0]" is:
      """
      {"id": {"$regex": "^.+$"}, "kind": "input", "prompt": "Which book?"}
      """

  @spec-10 @clause-10.loop.unresolved @partial-clause-0.suspension.not-ok-error
  Scenario: a retry that suspends again feeds back unresolved: <prompt> as an error
    `always` suspends even when re-executed with an answer.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve the trade?", "always": true}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true}}}
      """
    When the client runs "one"
    Then the run did not raise
    And the run text is "after: unresolved: Approve the trade?"
    And the run result at "toolCalls[0].isError" is true
    And the run result at "status" is "done"

  @spec-10 @clause-10.loop.unresolved
  Scenario: a second suspension never loops: one waitFor, one retry
    A loop that asks again would call `waitFor` twice and run the tool a third time.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve the trade?", "always": true}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true}}, "onMetric": {"collect": true}}
      """
    When the client runs "one"
    Then waitForCalls has 1 entries
    And metricEvents has 2 entries with "event" equal to "tool"
    And metricEvents has 2 entries with "pending" equal to true
    And the LLM received 2 requests

  @spec-10 @clause-10.loop.declined-expired @clause-10.loop.branches-on-ok @partial-clause-0.suspension.not-ok-error
  Scenario: ok:false feeds back declined/expired: <prompt> and the loop continues
    The model gets the error result and answers; the run ends done.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": false}}}
      """
    When the client runs "one"
    Then the run did not raise
    And the run text is "after: declined/expired: Approve?"
    And the run result at "toolCalls[0].isError" is true
    And the run result at "status" is "done"
    And the LLM received 2 requests

  @spec-10 @clause-10.loop.declined-expired @clause-10.answer.reason @clause-10.loop.branches-on-ok
  Scenario: a declined answer does not re-execute the tool, whatever its reason
    `reason` is advisory: ok:false with reason "expired" is the same branch.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": false, "reason": "expired"}}, "onMetric": {"collect": true}}
      """
    When the client runs "one"
    Then the run text is "after: declined/expired: Approve?"
    And metricEvents has 1 entries with "event" equal to "tool"
    And waitForCalls has 1 entries

  @spec-10 @clause-10.loop.branches-on-ok @partial-clause-10.answer.reason-only-not-ok
  Scenario: the loop branches on ok only: ok:true with a reason still re-executes
    A stray `reason` on an ok answer must not turn it into a decline.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "input", "prompt": "Which book?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true, "data": {"title": "Dune"}, "reason": "declined"}}}
      """
    When the client runs "one"
    Then the run text is "after: {\"title\":\"Dune\"}"

  @spec-10 @clause-10.loop.no-wait-for-halts @clause-10.run-result.pending-iff @clause-10.run-result.status
  @clause-0.suspension.no-wait-for-pending @clause-10.run-result.pending-meaning
  Scenario: without waitFor a suspension halts the run with status pending and the Request
    The run returns after one LLM call; the model never sees the suspension.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "authorization", "prompt": "Log in", "url": "https://login.test/a"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "one"
    Then the run did not raise
    And the run result at "status" is "pending"
    And the run result at "pending" is:
      """
      {"id": {"$regex": "^.+$"}, "kind": "authorization", "prompt": "Log in", "url": "https://login.test/a"}
      """
    And the LLM received 1 request

  @spec-10 @clause-10.loop.no-wait-for-halts @clause-0.suspension.no-wait-for-pending
  Scenario: without waitFor the run does not hang
    Bounded time: the halt is immediate; `timeoutMs` turns a hang into a raise.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "timeoutMs": 5000}
      """
    When the client runs "one"
    Then the run did not raise
    And the run result at "status" is "pending"
    And the elapsed time is below 4000 ms

  @spec-10 @clause-10.keys.fixed @clause-10.run-result.pending-iff
  Scenario: the pending Request carries every given key and omits the absent ones
    Exact: no null `url`/`data`/`expiresAt`.
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
    Then the run result at "pending" is:
      """
      {"id": {"$regex": "^.+$"}, "kind": "input", "prompt": "Which book?"}
      """

  @spec-10 @clause-10.run-result.status @clause-10.run-result.pending-iff @clause-10.run-result.limit
  Scenario: a run the model answers is done, with no pending and no limit
    The SPEC's plain case: no tool suspended, no limit stopped it.
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"text": "sunny"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is sunny."
    And the run result at "status" is "done"
    And the run result has nothing at "pending"
    And the run result has nothing at "limit"

  @spec-10 @clause-10.loop.durable-resume
  Scenario: a durable host takes the pending Request and later resumes by calling run again, also from a fresh client
    §10 rule 2: the halted run returns the Request as plain data; once the world has changed,
    the host calls `run` again, possibly in another process ("later call `run` again once the
    world has changed"; the SPEC gives that call no history, so it starts from the prompt).
    The change happens out-of-band (the login succeeded), which the behaviour catalogue shows by
    a second toolkit whose gate answers instead of suspending; a newly created client stands for
    the other process. The Request's keys are compared partly: that absent optional keys are
    omitted is the scenario "a Request's absent optional keys are omitted, not null".
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "authorization", "prompt": "Log in", "url": "https://login.test/a"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "one"
    Then the run result at "status" is "pending"
    And the run result at "pending" is:
      """
      {"id": {"$regex": "^.+$"}, "kind": "authorization", "prompt": "Log in", "url": "https://login.test/a", "$partial": true}
      """
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"text": "session ok"}}]}
      """
    When the client runs "one"
    Then the run did not raise
    And the run result at "status" is "done"
    And the run text is "after: session ok"
    And the run result has nothing at "pending"
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "one"
    Then the run result at "status" is "done"
    And the run text is "after: session ok"
    And the LLM received 5 requests

  @spec-10 @clause-10.run-result.limit @clause-10.run-result.pending-iff
  Scenario: a pending run names no limit
    `limit` is set only when the status is incomplete.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "one"
    Then the run result at "status" is "pending"
    And the run result has nothing at "limit"

  @spec-10 @clause-10.run-result.status @clause-10.run-result.limit @clause-10.run-result.incomplete-meaning
  Scenario: maxTurns used up is status incomplete with limit maxTurns
    §10: "incomplete" ⇒ a §7D limit stopped the run, named in `limit` ("maxTurns", …). The mock
    asks for a tool on every turn; the answer is ok, so the loop only stops at the limit
    (conformance/NOTES.md #200).
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "maxTurns": 2, "waitFor": {"answer": {"ok": true}}}
      """
    When the client runs "forever"
    Then the run did not raise
    And the LLM received 2 requests
    And the run result at "status" is "incomplete"
    And the run result at "limit" is "maxTurns"
    And the run result has nothing at "pending"

  @spec-10 @since-0.6.0 @until-0.9.5 @clause-8.loop.max-turns
  Scenario: maxTurns used up is status done under SPEC 0.6.0 to 0.9.5
    The scenario above, as the older SPEC texts have it. SPEC 0.6.0 to 0.9.5 give
    `status: "done" | "pending"` ("pending" ⇒ a tool suspended and no waitFor was set) and "Stop
    after `maxTurns`", so a run the limit stops is "done"; SPEC 0.10.0 added "incomplete" with
    `limit` (conformance/NOTES.md #344).
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "maxTurns": 2, "waitFor": {"answer": {"ok": true}}}
      """
    When the client runs "forever"
    Then the run did not raise
    And the LLM received 2 requests
    And the run result at "status" is "done"
    And the run result has nothing at "pending"

  @spec-10 @clause-10.escalation.placeholder-append
  Scenario Outline: a durable halt appends the halted tool's placeholder result to the transcript (<style>)
    The placeholder is a tool result whose content is the pending output (the prompt).
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "one"
    Then the run result at "status" is "pending"
    And the run result at "messages[-1]" is:
      """
      <placeholder>
      """

    Examples:
      | style     | placeholder |
      | openai    | {"role": "tool", "tool_call_id": "call_g1", "content": "Approve?"} |
      | anthropic | {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_g1", "content": "Approve?", "is_error": true}]} |

  @spec-10 @spec-8 @partial-clause-10.escalation.placeholder-append @partial-clause-8.ask.with-id
  Scenario: ask with an id that halts pending saves the halted transcript, its placeholder last
    §8 `ask` with an id "saves the updated RunResult.messages back under id"; §10 a durable halt
    appends the placeholder first. Whether the saved transcript starts with a system message is
    open (§8 Loop 1 with an empty skills prompt), so only its end is checked.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client asks "one" in thread "t-halt"
    Then the run result at "status" is "pending"
    When the client's store is read at "t-halt"
    Then the stored messages end with:
      """
      [{"role": "user", "content": "one"},
       {"role": "assistant", "tool_calls": [{"id": "call_g1", "$partial": true}], "$partial": true},
       {"role": "tool", "tool_call_id": "call_g1", "content": "Approve?"}]
      """

  @spec-10 @clause-10.concurrent.first-in-order
  Scenario: several suspensions in one turn without waitFor surface the first in tool-call order
    `gate` (First?) is called before `gate2` (Second?).
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "First?"}}}, {"name": "gate2", "behaviour": {"suspend": {"kind": "input", "prompt": "Second?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "two"
    Then the run result at "status" is "pending"
    And the run result at "pending.prompt" is "First?"
    And the run result at "pending.kind" is "approval"

  @spec-10 @clause-10.concurrent.first-in-order @clause-10.escalation.placeholder-append
  Scenario: the later suspensions leave no placeholder in the transcript
    Only the halted call's result follows the assistant turn.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "First?"}}}, {"name": "gate2", "behaviour": {"suspend": {"kind": "input", "prompt": "Second?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "two"
    Then the run result at "messages[-1].tool_call_id" is "call_g1"
    And the run result at "messages[-2].role" is "assistant"
    And the run result at "messages[-2].tool_calls[1].id" is "call_g2"

  @spec-10 @clause-10.concurrent.first-in-order @clause-10.escalation.placeholder-append
  Scenario: a call before the first suspension keeps its result; the halted one adds its placeholder
    `plain` (echo) runs before `gate`; `gate2`'s placeholder never enters.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "plain", "behaviour": {"echo": true}}, {"name": "gate", "behaviour": {"suspend": {"prompt": "First?"}}}, {"name": "gate2", "behaviour": {"suspend": {"prompt": "Second?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "mixed"
    Then the run result at "status" is "pending"
    And the run result at "pending.prompt" is "First?"
    And the run result at "messages[-2]" is:
      """
      {"role": "tool", "tool_call_id": "call_p1", "content": "{\"q\":1}"}
      """
    And the run result at "messages[-1]" is:
      """
      {"role": "tool", "tool_call_id": "call_g1", "content": "First?"}
      """

  @spec-10 @clause-10.concurrent.with-wait-for
  Scenario: with waitFor every suspension of the turn resolves inline, none lost
    Both answers reach the model, in tool-call order. The two suspensions are one turn's calls,
    which may run concurrently, so the waitFor calls are compared in any order (NOTES #413).
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "First?"}}}, {"name": "gate2", "behaviour": {"suspend": {"kind": "input", "prompt": "Second?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true, "data": {"title": "Dune"}}}}
      """
    When the client runs "two"
    Then the run did not raise
    And the run result at "status" is "done"
    And the run text is "after: {\"title\":\"Dune\"} | {\"title\":\"Dune\"}"
    And waitForCalls has 2 entries
    And waitForCalls at "" is:
      """
      {"$unordered": [{"prompt": "First?", "$partial": true}, {"prompt": "Second?", "$partial": true}]}
      """

  @spec-10 @clause-10.not-error.guard-raised @clause-10.pending.suspension-iff @partial-clause-10.escalation.placeholder-append
  Scenario: a beforeTool short-circuit with a pending result halts the run like a suspending tool
    The hook's result carries `metadata.pending`; the tool itself (echo) never suspends. The
    placeholder's content is "the pending output": the guard result's output or the Request's
    `prompt` (every shipped client writes the prompt; for a suspending tool the two are one).
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "hooks": {"beforeTool": {"result": {"output": "Login required: https://login.test/g", "isError": true, "metadata": {"pending": {"id": "req-guard", "kind": "authorization", "prompt": "Log in first", "url": "https://login.test/g"}}}}}}
      """
    When the client runs "one"
    Then the run result at "status" is "pending"
    And the run result at "pending" is:
      """
      {"id": "req-guard", "kind": "authorization", "prompt": "Log in first", "url": "https://login.test/g"}
      """
    And the run result at "messages[-1]" is:
      """
      {"role": "tool", "tool_call_id": "call_g1",
       "content": {"$oneOf": ["Login required: https://login.test/g", "Log in first"]}}
      """

  @spec-10 @clause-10.not-error.guard-raised @clause-10.not-error.metric
  Scenario: a guard-raised suspension's tool event is pending, not an error
    The guard's result has isError true; the event must still say isError false.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "hooks": {"beforeTool": {"result": {"output": "Login required: https://login.test/g", "isError": true, "metadata": {"pending": {"id": "req-guard", "kind": "authorization", "prompt": "Log in first", "url": "https://login.test/g"}}}}}, "onMetric": {"collect": true}}
      """
    When the client runs "one"
    Then metricEvents has 1 entries with "event" equal to "tool"
    And metricEvents has 1 entries with "pending" equal to true
    And metricEvents has 0 entries with "isError" equal to true

  @spec-10 @clause-10.not-error.guard-raised @clause-10.loop.retry-once
  Scenario: a guard-raised suspension resolves through waitFor and re-executes the tool with the same args
    Exactly like a tool: waitFor once, then the tool (echo) runs with the call's arguments.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "hooks": {"beforeTool": {"result": {"output": "Login required: https://login.test/g", "isError": true, "metadata": {"pending": {"id": "req-guard", "kind": "authorization", "prompt": "Log in first", "url": "https://login.test/g"}}}}}, "waitFor": {"answer": {"ok": true}}}
      """
    When the client runs "one"
    Then the run did not raise
    And waitForCalls has 1 entries
    And waitForCalls at "[0].id" is "req-guard"
    And the run text is "after: {\"item\":\"book\"}"

  @spec-10 @clause-10.not-error.metric @clause-10.pending.is-error-true @clause-10.not-error.distinct-state
  Scenario: a suspension's tool event has isError false and pending true
    The tool's own result is isError true (the suspension shape); the event is not an error.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "onMetric": {"collect": true}}
      """
    When the client runs "one"
    Then metricEvents at "[1].event" is "tool"
    And metricEvents at "[1].tool" is "gate"
    And metricEvents at "[1].isError" is false
    And metricEvents at "[1].pending" is true
    And the run result at "toolCalls[0].isError" is true

  @spec-10 @clause-10.not-error.metric
  Scenario: the resolved call's tool event carries no pending marker
    After waitFor the re-execution is a normal result.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "input", "prompt": "Which book?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true, "data": {"title": "Dune"}}}, "onMetric": {"collect": true}}
      """
    When the client runs "one"
    Then metricEvents has 1 entries with "pending" equal to true
    And metricEvents has 2 entries with "isError" equal to false

  @spec-10 @clause-10.not-error.after-tool
  Scenario: afterTool does not run on a suspension
    The placeholder stays unprefixed and the hook is never called.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "hooks": {"afterTool": {"prefix": "AFTER:"}}}
      """
    When the client runs "one"
    Then the run result at "status" is "pending"
    And hookCalls has 0 entries
    And the run result at "messages[-1].content" is "Approve?"

  @spec-10 @clause-10.not-error.after-tool
  Scenario: afterTool runs on the resolved result only
    One afterTool call, seeing the re-execution's output; its prefix reaches the model.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "input", "prompt": "Which book?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true, "data": {"title": "Dune"}}}, "hooks": {"afterTool": {"prefix": "AFTER:"}}}
      """
    When the client runs "one"
    Then hookCalls has 1 entries
    And hookCalls at "[0].result.output" is "{\"title\":\"Dune\"}"
    And the run text is "after: AFTER:{\"title\":\"Dune\"}"

  @spec-10 @clause-10.stream.pending-event @clause-10.stream.before-wait-for @clause-0.suspension.stream-event
  Scenario: stream emits a pending event with the Request before the resolved tool result
    The event precedes the tool_result of the re-executed call (waitFor runs between).
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "input", "prompt": "Which book?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true, "data": {"title": "Dune"}}}}
      """
    When the client streams "one"
    Then the run did not raise
    And the stream event types include, in this order:
      """
      ["tool_call", "pending", "tool_result", "done"]
      """
    And the stream events of type "pending" are:
      """
      [{"type": "pending", "request": {"id": {"$regex": "^.+$"}, "kind": "input", "prompt": "Which book?"}}]
      """
    And the stream events of type "tool_result" are:
      """
      [{"type": "tool_result", "id": "call_g1", "name": "gate", "output": "{\"title\":\"Dune\"}", "isError": false}]
      """

  @spec-10 @clause-10.stream.pending-event @clause-10.loop.no-wait-for-halts @clause-0.suspension.stream-event
  Scenario: without waitFor the stream emits pending, then done with status pending
    The request of the event is the run's `pending`.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"prompt": "Approve?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client streams "one"
    Then the run did not raise
    And the stream events of type "pending" are:
      """
      [{"type": "pending", "request": {"id": {"$regex": "^.+$"}, "kind": "approval", "prompt": "Approve?"}}]
      """
    And the last stream event is of type "done"
    And the run result at "status" is "pending"

  @spec-10 @clause-10.question.forwards-verbatim @partial-clause-10.loop.retry-once @partial-clause-10.question.producer @clause-10.question.resolution-is-answer
  Scenario: the question builtin asks through waitFor and the answer reaches the model
    kind question, the SPEC's rendered prompt; the tool forwards answer.data as JSON.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": {"question": true}, "disableTools": ["skill"]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true, "data": {"answers": ["red"]}}}}
      """
    When the client runs "ask"
    Then the run did not raise
    And waitForCalls at "[0].kind" is "question"
    And waitForCalls at "[0].prompt" is "Color? (options: red, blue)\nSize?"
    And the run result at "text" matches "^after: \{\"answers\": ?\[\"red\"\]\}$"

  @spec-10 @clause-10.question.forwards-verbatim @clause-10.loop.no-wait-for-halts @clause-4A.question.no-wait-for-halts @partial-clause-10.question.producer
  Scenario: the question builtin without waitFor halts the run with its question Request
    data.questions carries the questions as given.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": {"question": true}, "disableTools": ["skill"]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "ask"
    Then the run result at "status" is "pending"
    And the run result at "pending.kind" is "question"
    And the run result at "pending.data.questions" is:
      """
      [{"question": "Color?", "options": ["red", "blue"]}, {"question": "Size?"}]
      """

  @spec-10 @partial-clause-10.escalation.byte-identical-shapes
  Scenario: an MCP elicitation inside a run resolves through waitFor and the model gets the result
    The toolkit's waitFor answers the elicitation inline; the tool's result goes back to the model
    and the run is done (elicitation is not a suspension of the loop).
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "waitFor": {"answer": {"ok": true, "data": {"name": "Ada"}}}, "mcpConfig": {"mcpServers": {"form": {"command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/elicit.json"]}}}}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "elicit"
    Then the run did not raise
    And the run result at "status" is "done"
    And the run text is "after: {\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}"
