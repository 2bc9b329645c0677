@pin-0.17.0
Feature: a suspension raised by a beforeTool hook — path B (SPEC §10 "Two ways to raise one", after 0.17.0)
  The newest text names two ways a suspension is raised: the tool's own result (path A), or a
  `beforeTool` hook short-circuiting with a result whose `metadata.pending` is a Request (path
  B). The loop tells them apart by nothing: the same check on the result decides, so path B
  halts `pending` with the hook's own Request, resolves through `waitFor`, skips `afterTool`
  and is counted pending, never an error. The guarded tool here fails loudly if it ever runs
  (`the gate ran`), so a port that reached it shows it.

  @spec-10 @clause-10.two-paths.path-b @clause-10.two-paths.hook-halts-pending @clause-10.two-paths.result-not-producer @clause-10.two-paths.same-check @clause-10.two-paths.tool-never-runs
  Scenario: a hook-raised suspension halts the run with the hook's own Request, the tool never reached
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"fail": "the gate ran"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key",
       "hooks": {"beforeTool": {"result": {"output": "Needs approval", "isError": true, "metadata": {"pending": {"id": "req-hook-1", "kind": "approval", "prompt": "Approve the book?", "data": {"item": "book"}}}}}, "afterTool": {"observe": true}}}
      """
    When the client runs "one"
    Then the run result at "status" is "pending"
    And the run result at "pending" is:
      """
      {"id": "req-hook-1", "kind": "approval", "prompt": "Approve the book?", "data": {"item": "book"}}
      """
    And the run result at "toolCalls" does not contain "the gate ran"
    And hookCalls has 1 entries with "hook" equal to "beforeTool"
    And hookCalls has 0 entries with "hook" equal to "afterTool"

  @spec-10 @clause-10.two-paths.after-tool-skip-metric @clause-10.two-paths.path-b
  Scenario: a hook-raised suspension's tool event is pending, not an error, and afterTool is skipped
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"fail": "the gate ran"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "onMetric": {"collect": true},
       "hooks": {"beforeTool": {"result": {"output": "Needs approval", "isError": true, "metadata": {"pending": {"id": "req-hook-2", "kind": "approval", "prompt": "Approve?"}}}}, "afterTool": {"observe": true}}}
      """
    When the client runs "one"
    Then metricEvents has 1 entries with "event" equal to "tool"
    And metricEvents has 1 entries with "pending" equal to true
    And metricEvents has 0 entries with "isError" equal to true
    And hookCalls has 0 entries with "hook" equal to "afterTool"

  @spec-10 @clause-10.two-paths.hook-resolved-via-wait-for @clause-10.two-paths.path-b
  Scenario: a hook-raised suspension is resolved through waitFor and the loop goes on
    waitFor receives the hook's Request once. The loop then re-enters the tool step with the
    Answer; whether the hook runs again there is open (NOTES #404): if it does not, the tool
    (echo) runs with the call's arguments; if it does, it suspends again and the call is
    `unresolved`. Either is accepted; a run that raised or halted is not.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key", "waitFor": {"answer": {"ok": true}},
       "hooks": {"beforeTool": {"result": {"output": "Needs approval", "isError": true, "metadata": {"pending": {"id": "req-hook-3", "kind": "approval", "prompt": "Approve?"}}}}}}
      """
    When the client runs "one"
    Then the run did not raise
    And the run result at "status" is "done"
    And waitForCalls at "[0]" is:
      """
      {"id": "req-hook-3", "kind": "approval", "prompt": "Approve?"}
      """
    And the run result at "text" is:
      """
      {"$regex": "^after: (\\{\"item\":\"book\"\\}|unresolved: Approve\\?)$"}
      """

  @spec-10 @clause-10.two-paths.path-a @clause-10.two-paths.same-check
  Scenario: a tool's own suspension (path A) halts the run the same way
    The positive twin of the hook-raised halt: the tool itself returns the pending result.
    Given a mock LLM runs "suspension.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "approval", "prompt": "Approve the book?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-s", "apiKey": "test-key"}
      """
    When the client runs "one"
    Then the run result at "status" is "pending"
    And the run result at "pending.kind" is "approval"
    And the run result at "pending.prompt" is "Approve the book?"
