@pin-0.16.0
Feature: The agent runtime's verbs, gates, budgets and task tool, clause by clause (SPEC §7D)
  What the shared fixtures leave implicit: each verb's refusals, each budget field, the task
  tool's description and errors, the store and the lifecycle callbacks. The port's runtime runs
  on the mock LLM (mock-servers/scenarios/llm/agents.json: per model, `m-slow` answers after
  60 s, `m-fail` always 500, `m-loop` calls `lookup` forever, `m-three` calls `lookup` until
  it has three results, `m-delegate` calls `task`, `m-ping`/`m-pong` hand a `task` to each
  other on every turn and `m-tick`/`m-tock` on their first, anything else echoes `echo: <last
  user text>`) and is driven through the `agent_*` commands (PROTOCOL.md §5.27). Handle ids are
  written out: the SPEC makes them deterministic. A refused verb answers data (`error`,
  `accepted:false`), so each refusal is checked together with what it names.

  Background:
    Given a mock LLM runs "agents.json"
    And an agent runtime with:
      """
      {"registry": {
         "echo":     {"does": "echoes", "model": "m-echo"},
         "slow":     {"does": "takes its time", "model": "m-slow"},
         "looper":   {"does": "never finishes", "model": "m-loop", "tools": ["lookup"]},
         "three":    {"does": "three lookups", "model": "m-three", "tools": ["lookup"]},
         "boss":     {"does": "delegates", "model": "m-delegate", "team": ["worker", "failer", "echo"]},
         "worker":   {"does": "does the work", "model": "m-echo"},
         "failer":   {"does": "always fails", "model": "m-fail"},
         "nester":   {"does": "nests", "model": "m-echo", "team": ["nester"], "budget": {"maxDepth": 1}},
         "ping":     {"does": "hands over to pong", "model": "m-ping", "team": ["pong"], "budget": {"maxDepth": 2}},
         "pong":     {"does": "hands over to ping", "model": "m-pong", "team": ["ping"], "budget": {"maxDepth": 2}},
         "tick":     {"does": "hands over to tock", "model": "m-tick", "team": ["tock"]},
         "tock":     {"does": "hands over to tick", "model": "m-tock", "team": ["tick"]}},
       "tools": [{"name": "lookup", "behaviour": {"template": "data({{q}})"}}],
       "options": {"inboxCap": 3, "shutdownMs": 200}}
      """

  # ---------------------------------------------------------------- the axiom

  @spec-7D @clause-7D.axiom.agent-is-tool @clause-7D.level1.surface
  Scenario: an agent is a tool: name, description = does, input {prompt}, source agent, final text plus metadata
    When the agent command "agent_execute" is sent with:
      """
      {"def": "echo", "args": {"prompt": "hello there"}}
      """
    Then the agent answer at "tool" is:
      """
      {"name": "echo", "description": "echoes", "source": "agent", "inputSchema": {"type": "object", "properties": {"prompt": {"type": "string", "$partial": true}}, "required": ["prompt"], "$partial": true}}
      """
    And the agent answer at "result.output" is "echo: hello there"
    And the agent answer at "result.isError" is false
    And the agent answer at "result.metadata" is:
      """
      {"agent": "echo", "turns": 1, "totalTokens": 40, "$partial": true}
      """

  @spec-7D @clause-7D.axiom.composition
  Scenario: an agent is its system prompt, a filtered view of the runtime's tools and the §8 loop
    # The runtime has two tools and `three` names one: its soul leads the first request, only
    # its own tool is offered, and the loop runs to the answer (three lookups, four model calls).
    Given an agent runtime with:
      """
      {"registry": {"three": {"does": "three lookups", "model": "m-three", "soul": "SOUL-OF-THREE", "tools": ["lookup"]}},
       "tools": [{"name": "lookup", "behaviour": {"template": "data({{q}})"}},
                 {"name": "unused", "behaviour": {"text": "never"}}]}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "three", "prompt": "go"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" is "done after 3 lookups"
    And the agent answer at "result.turns" is 4
    And the LLM received 4 requests
    And LLM request 1 body at "messages[0].role" is "system"
    And LLM request 1 body at "messages[0].content" contains "SOUL-OF-THREE"
    And LLM request 1 body at "tools" is:
      """
      [{"type": "function", "function": {"name": "lookup", "$partial": true}, "$partial": true}]
      """

  # ---------------------------------------------------------------- ids

  @spec-7D @clause-7D.ids.deterministic @clause-7D.spawn.new-handle
  Scenario: ids are parent-scoped and numbered per definition from 1
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "echo"}
      """
    Then the agent answer at "handle" is "root/echo.1"
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "echo"}
      """
    Then the agent answer at "handle" is "root/echo.2"
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "worker"}
      """
    Then the agent answer at "handle" is "root/worker.1"
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root/echo.2", "def": "worker"}
      """
    Then the agent answer at "handle" is "root/echo.2/worker.1"

  # ---------------------------------------------------------------- spawn caps

  @spec-7D @clause-7D.spawn.budget-carve @clause-7D.budget.shape
  Scenario: maxDepth is checked at spawn: a spawn one level too deep is refused
    # `nester` carries maxDepth 1: a handle may sit at most one level below root (NOTES #293).
    # §7D checks the caps at spawn and gives the refusal no words (NOTES #320: the @beyond-spec
    # twin below checks that it names maxDepth); the cause: the same def spawns under root.
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "nester"}
      """
    Then the agent answer at "handle" is "root/nester.1"
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root/nester.1", "def": "nester"}
      """
    Then the agent answer at "error.isError" is true
    And the agent answer at "error.output" matches "\S"
    And the agent answer has nothing at "handle"
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root/nester.1", "def": "worker"}
      """
    Then the agent answer at "error.isError" is true
    And the agent answer has nothing at "handle"

  @spec-7D @beyond-spec
  Scenario: maxDepth is checked at spawn and the refusal names it
    Beyond the SPEC: §7D checks `maxDepth` at spawn and gives the refusal no words (NOTES #320;
    a `limit` field naming the cap is §7D's only for a run's limit stop); the reference's
    refusal names the cap.
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "nester"}
      """
    Then the agent answer at "handle" is "root/nester.1"
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root/nester.1", "def": "nester"}
      """
    Then the agent answer at "error.isError" is true
    And the agent answer at "error.output" contains "maxDepth"
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root/nester.1", "def": "worker"}
      """
    Then the agent answer at "error.output" contains "maxDepth"

  @spec-7D @clause-7D.budget.incomplete @clause-7D.spawn.budget-carve
  Scenario: a delegation cycle under maxDepth ends incomplete with the limit named, in a bounded number of model calls
    # `ping` and `pong` are on each other's team and hand over on every turn. maxDepth 2 refuses
    # a third level at spawn, so the refusal is the deepest run's tool result, and the §8 default
    # of 10 turns ends every run: ping's run stops at its tenth turn, loud (NOTES #334). At most
    # 10 + 10 × 10 model calls (fewer where a re-invoked task reattaches to a settled child).
    When the agent command "agent_run" is sent with:
      """
      {"entry": "ping", "prompt": "go"}
      """
    Then the agent answer at "handle" is "root/ping.1"
    And the agent answer at "result.status" is "incomplete"
    And the agent answer at "result.limit" is "maxTurns"
    And the LLM received at most 110 requests
    # The cycle did recurse (pong ran below ping), and stopped at the cap: no third level has
    # a conversation (absent reads `null`, or `[]` where a port's store answers so).
    When the agent command "agent_store_get" is sent with:
      """
      {"id": "root/ping.1/pong.1"}
      """
    Then the agent answer at "messages[0].content" is "over to you"
    When the agent command "agent_store_get" is sent with:
      """
      {"id": "root/ping.1/pong.1/ping.1"}
      """
    Then the agent answer at "messages" is:
      """
      {"$oneOf": [null, []]}
      """

  @spec-7D @beyond-spec
  Scenario: a delegation cycle with no budget at all still ends, its depth capped by default
    Beyond the SPEC: §7D gives `maxDepth` no default, so `tick` ⇄ `tock`, each handing over on
    its first turn, with no budget, would recurse one level per model call without end. The
    reference defaults maxDepth to 3, as the published ports do (NOTES #334): the third level's
    hand-over is refused, it answers with that refusal, and each level above answers in turn:
    two model calls a level, six in all.
    When the agent command "agent_run" is sent with:
      """
      {"entry": "tick", "prompt": "go"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" contains "maxDepth"
    And the LLM received at most 6 requests
    When the agent command "agent_store_get" is sent with:
      """
      {"id": "root/tick.1/tock.1/tick.1"}
      """
    Then the agent answer at "messages[0].content" is "over to you"
    When the agent command "agent_store_get" is sent with:
      """
      {"id": "root/tick.1/tock.1/tick.1/tock.1"}
      """
    Then the agent answer at "messages" is:
      """
      {"$oneOf": [null, []]}
      """

  # ---------------------------------------------------------------- post

  @spec-7D @clause-7D.post.no-transition
  Scenario: a post appends to the inbox and changes no state
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "echo"}
      """
    And the agent command "agent_post" is sent with:
      """
      {"handle": "root/echo.1", "text": "hello", "from": "external", "channel": "webhook"}
      """
    Then the agent answer at "accepted" is true
    When the agent command "agent_inspect" is sent with:
      """
      {"handle": "root/echo.1"}
      """
    Then the agent answer at "state" is "idle"
    And the agent answer at "inboxLen" is 1
    And the agent trace at "transitions" is:
      """
      {}
      """

  @spec-7D @clause-7D.post.no-transition @clause-7D.gates.inbox
  Scenario: a post to a closed handle is refused
    §7D "after close ⇒ error result", with no words (NOTES #320: the @beyond-spec twin below
    checks that it says closed); the cause: the same handle took a post before its close.
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "echo"}
      """
    And the agent command "agent_post" is sent with:
      """
      {"handle": "root/echo.1", "text": "before"}
      """
    Then the agent answer at "accepted" is true
    When the agent command "agent_close" is sent with:
      """
      {"handle": "root/echo.1"}
      """
    And the agent command "agent_post" is sent with:
      """
      {"handle": "root/echo.1", "text": "after"}
      """
    Then the agent answer at "accepted" is false
    And the agent answer at "error" matches "\S"

  @spec-7D @beyond-spec
  Scenario: a post to a closed handle is refused, naming the closed handle
    Beyond the SPEC: §7D "after close ⇒ error result" gives the error no words (NOTES #320);
    the reference's says the handle is closed.
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "echo"}
      """
    And the agent command "agent_post" is sent with:
      """
      {"handle": "root/echo.1", "text": "before"}
      """
    Then the agent answer at "accepted" is true
    When the agent command "agent_close" is sent with:
      """
      {"handle": "root/echo.1"}
      """
    And the agent command "agent_post" is sent with:
      """
      {"handle": "root/echo.1", "text": "after"}
      """
    Then the agent answer at "accepted" is false
    And the agent answer at "error" contains "closed"

  # ---------------------------------------------------------------- wake

  @spec-7D @clause-7D.wake.atomic-admission @clause-7D.states.transitions @partial-clause-7D.wake.drains-inbox
  Scenario: wake flips idle to running at once; a second wake of the running handle starts no second run
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "slow"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/slow.1", "prompt": "take your time"}
      """
    Then the agent answer at "state" is "running"
    When the agent command "agent_wake" is sent with:
      """
      {"handle": "root/slow.1", "prompt": "again"}
      """
    # The SPEC leaves a wake of a running handle open (an error, or a no-op): what it must not
    # do is start a second run (NOTES #298).
    Then the transitions of "root/slow.1" are:
      """
      ["idle→running"]
      """

  # ---------------------------------------------------------------- wait

  @spec-7D @clause-7D.wait.next-or-last
  Scenario: wait on a settled handle answers its last result at once, every time
    When the agent command "agent_run" is sent with:
      """
      {"entry": "echo", "prompt": "first"}
      """
    Then the agent answer at "result.text" is "echo: first"
    When the agent command "agent_wait" is sent with:
      """
      {"handle": "root/echo.1"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" is "echo: first"
    When the agent command "agent_wait" is sent with:
      """
      {"handle": "root/echo.1"}
      """
    Then the agent answer at "result.text" is "echo: first"

  @spec-7D @clause-7D.wait.next-or-last @clause-7D.status.closed-vocabulary @partial-clause-7D.lifecycle.injectable-clock
  Scenario: a wait past its timeout answers status timeout while the child keeps running
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "slow"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/slow.1", "prompt": "take your time"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/slow.1", "timeoutMs": 100, "advanceMs": 100}
      """
    Then the agent answer at "result.status" is "timeout"
    And the agent answer at "result.isError" is true
    When the agent command "agent_inspect" is sent with:
      """
      {"handle": "root/slow.1"}
      """
    Then the agent answer at "state" is "running"

  # ---------------------------------------------------------------- interrupt

  @spec-7D @clause-7D.interrupt.restores-inbox @clause-7D.cancellation.identical-outcome
  @partial-clause-7D.interrupt.drain-transactional
  Scenario: interrupt aborts the running turn: idle, the waiter told interrupted, the drained item back
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "slow"}
      """
    And the agent command "agent_post" is sent with:
      """
      {"handle": "root/slow.1", "text": "for later"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/slow.1", "prompt": "work"}
      """
    And the agent command "agent_inspect" is sent with:
      """
      {"handle": "root/slow.1"}
      """
    Then the agent answer at "inboxLen" is 0
    When the agent command "agent_interrupt" is sent with:
      """
      {"handle": "root/slow.1"}
      """
    Then the agent answer at "state" is "idle"
    When the agent command "agent_wait" is sent with:
      """
      {"handle": "root/slow.1"}
      """
    Then the agent answer at "result.status" is "interrupted"
    When the agent command "agent_inspect" is sent with:
      """
      {"handle": "root/slow.1"}
      """
    Then the agent answer at "inboxLen" is 1
    And the agent answer at "inbox[0].text" is "for later"
    And the transitions of "root/slow.1" are:
      """
      ["idle→running", "running→idle"]
      """

  # ---------------------------------------------------------------- close

  @spec-7D @clause-7D.close.leaf-first @clause-7D.lifecycle.on-spawn-close @partial-clause-7D.lifecycle.injectable-clock
  Scenario: a graceful close of a running handle waits shutdownMs, then interrupts, then onClose and closed
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "slow"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/slow.1", "prompt": "work"}
      """
    And the agent command "agent_close" is sent with:
      """
      {"handle": "root/slow.1", "advanceMs": 200}
      """
    Then the agent answer at "state" is "closed"
    And the transitions of "root/slow.1" are:
      """
      ["idle→running", "running→idle", "idle→closed"]
      """
    And the agent trace at "onClose" is:
      """
      [{"handle": "root/slow.1", "reason": {"$oneOf": ["closed", "interrupted"]}}]
      """
    When the agent command "agent_inspect" is sent with:
      """
      {"handle": "root/slow.1"}
      """
    Then the agent answer at "state" is "closed"

  # ---------------------------------------------------------------- the unsolicited rail

  @spec-7D @partial-clause-7D.rails.unsolicited-at-idle @clause-7D.rails.coalesced @partial-clause-7D.wake.drains-inbox
  @partial-clause-7D.interrupt.drain-transactional
  Scenario: a post never enters a running turn; the next wake drains it as its own input
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "echo"}
      """
    And the agent command "agent_run" is sent with:
      """
      {"entry": "echo", "prompt": "no posts yet"}
      """
    Then the agent answer at "result.text" is "echo: no posts yet"
    When the agent command "agent_post" is sent with:
      """
      {"handle": "root/echo.2", "text": "late news", "from": "external", "channel": "webhook"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/echo.2"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/echo.2"}
      """
    Then the agent answer at "result.text" contains "late news"
    And the agent answer at "result.text" contains "webhook"
    When the agent command "agent_inspect" is sent with:
      """
      {"handle": "root/echo.2"}
      """
    Then the agent answer at "inboxLen" is 0

  @spec-7D @clause-7D.rails.provenance
  Scenario: every drained item renders its provenance; an external sender's item is marked untrusted
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "echo"}
      """
    And the agent command "agent_post" is sent with:
      """
      {"handle": "root/echo.1", "text": "payload-x", "from": "external", "channel": "webhook"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/echo.1", "prompt": "read your inbox"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/echo.1"}
      """
    Then the agent answer at "result.text" contains "payload-x"
    And the agent answer at "result.text" contains "external"
    And the agent answer at "result.text" contains "webhook"
    And the agent answer at "result.text" matches "(?i)untrusted"

  # ---------------------------------------------------------------- budgets

  @spec-7D @clause-7D.budget.incomplete @clause-7D.budget.shape
  Scenario: maxToolCalls stops the run loud: incomplete with the limit named, partial work kept
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "looper", "budget": {"maxToolCalls": 2}}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/looper.1", "prompt": "go"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/looper.1"}
      """
    Then the agent answer at "result.status" is "incomplete"
    And the agent answer at "result.limit" is "maxToolCalls"
    And the agent answer at "result.turns" is 2
    When the agent command "agent_store_get" is sent with:
      """
      {"id": "root/looper.1"}
      """
    Then the agent answer at "messages[-1].content" is "data(again)"

  @spec-7D @clause-7D.budget.incomplete @clause-7D.budget.shape
  Scenario: maxTokens on the handle stops the run loud with the limit named
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "looper", "budget": {"maxTokens": 100}}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/looper.1", "prompt": "go"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/looper.1"}
      """
    Then the agent answer at "result.status" is "incomplete"
    And the agent answer at "result.limit" is "maxTokens"
    And the agent answer at "result.usage.total_tokens" is 120

  @spec-7D @beyond-spec @partial-clause-7D.budget.incomplete @partial-clause-7D.budget.shape
  @partial-clause-7D.lifecycle.injectable-clock
  Scenario: maxWallMs on the virtual clock stops the run loud with the limit named
    Beyond the SPEC: §7D walks the budgets "before each turn", and a "turn" there is open (NOTES
    #418): one LLM round trip (the turn gate wraps only the LLM call) or one wake's run ("turn
    input = drain(inbox)"). The reference counts a run's wall time from its admission and checks
    it before each LLM call, so the never-ending looper stops once the virtual clock passes
    50 ms; a port that checks only at each wake never stops that run.
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "looper", "budget": {"maxWallMs": 50, "maxTurns": 100000}}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/looper.1", "prompt": "go"}
      """
    And the agent command "agent_clock" is sent with:
      """
      {"advanceMs": 50}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/looper.1"}
      """
    Then the agent answer at "result.status" is "incomplete"
    And the agent answer at "result.limit" is "maxWallMs"

  # ---------------------------------------------------------------- the task tool

  @spec-7D @clause-7D.task.team-description @clause-7D.lifecycle.name-sorted
  Scenario: the task tool advertises only the caller's team, sorted by name, from each does
    When the agent command "agent_run" is sent with:
      """
      {"entry": "boss", "prompt": "go"}
      """
    Then the agent answer at "result.text" is "saw: echo: sub-task"
    And LLM request 1 body at "tools[0].function.name" is "task"
    And LLM request 1 body at "tools[0].function.description" matches "(?s)echo.*echoes.*failer.*always fails.*worker.*does the work"
    And LLM request 1 body at "tools[0].function.description" does not contain "takes its time"

  @spec-7D @clause-7D.task.recursion-opt-in @clause-7D.task.one-tool-message @clause-7D.rails.solicited
  Scenario: a child gets no task tool unless its own definition has a team; the parent gains one tool message
    When the agent command "agent_run" is sent with:
      """
      {"entry": "boss", "prompt": "go"}
      """
    Then LLM request 2 body at "model" is "m-echo"
    And LLM request 2 body has nothing at "tools"
    When the agent command "agent_store_get" is sent with:
      """
      {"id": "root/boss.1"}
      """
    Then the agent answer at "messages[-2].role" is "tool"
    And the agent answer at "messages[-2].content" is "echo: sub-task"
    And the agent answer at "messages[-3].tool_calls[0].function.name" is "task"

  @spec-7D @clause-7D.task.shape
  Scenario: a task for an agent outside the team is an error result listing the team
    §7D "out-of-team targets ⇒ error listing team names" gives the content, not the words, the
    order or the separator (NOTES #299, #320: the @beyond-spec twin below checks the
    reference's). The model answers `saw: <the task result>`.
    When the agent command "agent_run" is sent with:
      """
      {"entry": "boss", "prompt": "stranger"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" matches "^saw: "
    And the agent answer at "result.text" contains "echo"
    And the agent answer at "result.text" contains "failer"
    And the agent answer at "result.text" contains "worker"

  @spec-7D @beyond-spec
  Scenario: the error for an agent outside the team names it and lists the team sorted, joined by ", "
    Beyond the SPEC: §7D says the error lists the team's names (NOTES #299, #320); the
    reference's also names the target and joins the sorted names with `, `.
    When the agent command "agent_run" is sent with:
      """
      {"entry": "boss", "prompt": "stranger"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" contains "stranger"
    And the agent answer at "result.text" contains "echo, failer, worker"

  @spec-7D @clause-7D.errors.boundary
  Scenario: a failed child crosses to its parent as an isError tool result, never an exception
    The parent's run goes on to its answer `saw: <the task result>`; the result's words are
    the port's (NOTES #320: the @beyond-spec twin below checks that they say error). The cause:
    the child (always HTTP 500) was closed, and its parent's model saw a non-empty result.
    When the agent command "agent_run" is sent with:
      """
      {"entry": "boss", "prompt": "failer"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" matches "^saw: \S"
    And the agent trace at "onClose" is:
      """
      [{"handle": "root/boss.1/failer.1", "reason": {"$oneOf": ["closed", "error"]}}]
      """

  @spec-7D @beyond-spec
  Scenario: a failed child's tool result says it is an error
    Beyond the SPEC: §7D makes a failed child "a uniform `isError` result" and gives its text no
    words (NOTES #299, #320); the reference's starts with the child's status, `error`.
    When the agent command "agent_run" is sent with:
      """
      {"entry": "boss", "prompt": "failer"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" contains "saw: "
    And the agent answer at "result.text" contains "error"

  @spec-7D @clause-7D.errors.retry-at-level
  Scenario: a failing model call is retried at the child's level; the parent's turns are not repeated
    # `failer`'s model always answers HTTP 500: the §8 default of 2 retries makes three calls, all
    # the child's. The parent makes its two calls (the task, then its answer after the error
    # result), and neither is repeated.
    When the agent command "agent_run" is sent with:
      """
      {"entry": "boss", "prompt": "failer"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" matches "^saw: \S"
    And the LLM received 5 requests
    And LLM request 1 body at "model" is "m-delegate"
    And LLM request 2 body at "model" is "m-fail"
    And LLM request 3 body at "model" is "m-fail"
    And LLM request 4 body at "model" is "m-fail"
    And LLM request 5 body at "model" is "m-delegate"

  # ---------------------------------------------------------------- store and lifecycle

  @spec-7D @clause-7D.lifecycle.one-store @clause-7D.lifecycle.store-readable @partial-clause-7D.close.not-loss
  Scenario: one store for all handles, read back by handle id, holding each handle's own transcript
    When the agent command "agent_run" is sent with:
      """
      {"entry": "boss", "prompt": "go"}
      """
    And the agent command "agent_store_get" is sent with:
      """
      {"id": "root/boss.1/worker.1"}
      """
    Then the agent answer at "messages[0]" is:
      """
      {"role": "user", "content": "sub-task"}
      """
    And the agent answer at "messages[-1].content" is "echo: sub-task"
    When the agent command "agent_store_get" is sent with:
      """
      {"id": "root/boss.1"}
      """
    Then the agent answer at "messages[0]" is:
      """
      {"role": "user", "content": "go"}
      """

  @spec-7D @clause-7D.lifecycle.on-spawn-close
  Scenario: onSpawn once per handle before its first turn, onClose with its reason, in order
    When the agent command "agent_run" is sent with:
      """
      {"entry": "boss", "prompt": "go"}
      """
    Then the agent trace at "onSpawn" is:
      """
      ["root/boss.1", "root/boss.1/worker.1"]
      """
    And the agent trace at "onClose" is:
      """
      [{"handle": "root/boss.1/worker.1", "reason": "closed"}]
      """

  @spec-7D @clause-7D.interrupt.suspended
  Scenario: interrupt on a suspended handle cancels its pending Request and leaves it idle
    Given the shared agent fixture "{{EXAMPLES}}/subagent-durable-resume/fixture.json"
    When its run is driven
    Then the agent answer at "result.status" is "pending"
    When the agent command "agent_interrupt" is sent with:
      """
      {"handle": "root/approverParent.1/asker.1"}
      """
    Then the agent answer at "state" is "idle"
    When the agent command "agent_inspect" is sent with:
      """
      {"handle": "root/approverParent.1/asker.1"}
      """
    Then the agent answer at "state" is "idle"
    And the agent answer at "pending" is null
    And the transitions of "root/approverParent.1/asker.1" are:
      """
      ["idle→running", "running→suspended", "suspended→idle"]
      """

  # ---------------------------------------------------------------- onBudget

  @spec-7D @clause-7D.budget.on-budget
  Scenario: onBudget answering stop: asked once with the limit, and the run ends incomplete
    Given an agent runtime with:
      """
      {"registry": {"three": {"does": "three lookups", "model": "m-three", "tools": ["lookup"], "budget": {"maxTurns": 2}}},
       "tools": [{"name": "lookup", "behaviour": {"template": "data({{q}})"}}],
       "options": {"onBudget": {"answer": "stop"}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "three", "prompt": "go"}
      """
    Then the agent answer at "result.status" is "incomplete"
    And the agent answer at "result.limit" is "maxTurns"
    And the agent trace at "onBudgetCalls" is:
      """
      [{"handle": "root/three.1", "limit": "maxTurns", "$partial": true}]
      """

  @spec-7D @clause-7D.budget.on-budget
  Scenario: onBudget answering extend: the limit grows and the run finishes done
    Given an agent runtime with:
      """
      {"registry": {"three": {"does": "three lookups", "model": "m-three", "tools": ["lookup"], "budget": {"maxTurns": 2}}},
       "tools": [{"name": "lookup", "behaviour": {"template": "data({{q}})"}}],
       "options": {"onBudget": {"answer": "extend"}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "three", "prompt": "go"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" is "done after 3 lookups"
    And the agent answer at "result.turns" is 4
    And the agent trace at "onBudgetCalls" is:
      """
      [{"handle": "root/three.1", "limit": "maxTurns", "$partial": true}]
      """

  # ---------------------------------------------------------------- gaps the bite run found

  @spec-7D @clause-7D.escalation.as-tool @partial-clause-7D.escalation.nearest-one-hop
  Scenario: the nearest interpreter answers: with waitFor on both parent and grandparent, the parent does
    Given an agent runtime with:
      """
      {"registry": {
         "gp":   {"does": "top", "model": "m-gp", "team": ["mid"], "waitFor": {"answer": {"ok": true, "data": {"by": "from-gp"}}}},
         "mid":  {"does": "middle", "model": "m-mid", "team": ["leaf"], "waitFor": {"answer": {"ok": true, "data": {"by": "from-mid"}}}},
         "leaf": {"does": "asks", "model": "m-gate", "tools": ["gate"]}},
       "tools": [{"name": "gate", "behaviour": {"suspend": {"kind": "approval", "prompt": "may I?"}}}]}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "gp", "prompt": "start"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" contains "from-mid"
    And the agent trace at "waitForCalls" is:
      """
      [{"handle": "root/gp.1/mid.1", "request": {"kind": "approval", "prompt": "may I?", "$partial": true}}]
      """
    And the transitions of "root/gp.1/mid.1/leaf.1" are:
      """
      ["idle→running", "running→suspended", "suspended→running", "running→idle", "→closed"]
      """
    And the transitions of "root/gp.1/mid.1" are:
      """
      ["idle→running", "running→idle", "→closed"]
      """

  @spec-7D @beyond-spec
  Scenario: an ancestor's post is trusted, a sibling's is marked untrusted
    Beyond the SPEC: §7D says non-ancestor senders "render inside an explicitly untrusted block"
    but fixes no wording; this checks the reference's reading that the word "untrusted" marks
    only such items (Python's inbox header names UNTRUSTED whatever the senders). NOTES #295.
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "boss"}
      """
    And the agent command "agent_spawn" is sent with:
      """
      {"parent": "root/boss.1", "def": "worker"}
      """
    And the agent command "agent_post" is sent with:
      """
      {"handle": "root/boss.1/worker.1", "text": "from-above", "from": "root/boss.1", "channel": "peer"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/boss.1/worker.1"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/boss.1/worker.1"}
      """
    Then the agent answer at "result.text" contains "from-above"
    And the agent answer at "result.text" does not match "(?i)untrusted"
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "echo"}
      """
    And the agent command "agent_post" is sent with:
      """
      {"handle": "root/boss.1/worker.1", "text": "from-aside", "from": "root/echo.1", "channel": "peer"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/boss.1/worker.1"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/boss.1/worker.1"}
      """
    Then the agent answer at "result.text" contains "from-aside"
    And the agent answer at "result.text" matches "(?i)untrusted"

  @spec-7D @clause-7D.interrupt.restores-inbox @partial-clause-7D.interrupt.drain-transactional
  Scenario: a turn that fails consumes nothing: its drained items are back in the inbox
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "failer"}
      """
    And the agent command "agent_post" is sent with:
      """
      {"handle": "root/failer.1", "text": "keep me"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/failer.1", "prompt": "try"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/failer.1"}
      """
    Then the agent answer at "result.status" is "error"
    And the agent answer at "result.isError" is true
    When the agent command "agent_inspect" is sent with:
      """
      {"handle": "root/failer.1"}
      """
    Then the agent answer at "state" is "idle"
    And the agent answer at "inbox[0].text" is "keep me"

  # ---------------------------------------------------------------- escalation: one hop at a time

  @spec-7D @partial-clause-7D.escalation.nearest-one-hop
  Scenario: the child's own waitFor answers its suspension: no ancestor is asked and no ancestor suspends
    # The leaf's own interpreter answers inside its run, so nothing escalates: no ancestor's
    # waitFor is called and its parent never enters `suspended` ("child's `waitFor` → else child
    # suspends"). Whether the leaf's own trace passes through `suspended→running` while its
    # waitFor answers (as an inline resume does, fixture S3) the SPEC leaves open, so the leaf's
    # transitions are not compared (conformance/NOTES.md #345).
    Given an agent runtime with:
      """
      {"registry": {
         "gp":   {"does": "top", "model": "m-gp", "team": ["mid"], "waitFor": {"answer": {"ok": true, "data": {"by": "from-gp"}}}},
         "mid":  {"does": "middle", "model": "m-mid", "team": ["leaf"], "waitFor": {"answer": {"ok": true, "data": {"by": "from-mid"}}}},
         "leaf": {"does": "asks", "model": "m-gate", "tools": ["gate"], "waitFor": {"answer": {"ok": true, "data": {"by": "from-leaf"}}}}},
       "tools": [{"name": "gate", "behaviour": {"suspend": {"kind": "approval", "prompt": "may I?"}}}]}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "gp", "prompt": "start"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" contains "from-leaf"
    And the agent trace at "waitForCalls" is:
      """
      [{"handle": "root/gp.1/mid.1/leaf.1", "request": {"kind": "approval", "prompt": "may I?", "$partial": true}}]
      """
    And the transitions of "root/gp.1/mid.1" are:
      """
      ["idle→running", "running→idle", "→closed"]
      """

  @spec-7D @partial-clause-7D.escalation.nearest-one-hop
  Scenario: with no nearer interpreter the Request climbs one hop at a time to the grandparent's waitFor, with data.path
    # Only `gp` has a waitFor. The leaf suspends and its Request rides mid's task result; mid has
    # no interpreter, so it suspends in turn and gp's task result carries the Request to gp's
    # waitFor, with `data.path` inside gp's subtree (§10 "Agent escalation addendum": each
    # relaying level stamps its own parent-prefixed path; the exact depth is not compared).
    Given an agent runtime with:
      """
      {"registry": {
         "gp":   {"does": "top", "model": "m-gp", "team": ["mid"], "waitFor": {"answer": {"ok": true, "data": {"by": "from-gp"}}}},
         "mid":  {"does": "middle", "model": "m-mid", "team": ["leaf"]},
         "leaf": {"does": "asks", "model": "m-gate", "tools": ["gate"]}},
       "tools": [{"name": "gate", "behaviour": {"suspend": {"kind": "approval", "prompt": "may I?"}}}]}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "gp", "prompt": "start"}
      """
    Then the agent answer at "result.status" is "done"
    And the agent answer at "result.text" contains "from-gp"
    And the agent trace at "waitForCalls" is:
      """
      [{"handle": "root/gp.1", "request": {"kind": "approval", "prompt": "may I?", "data": {"path": {"$match": "array"}, "$partial": true}, "$partial": true}}]
      """
    And the agent trace at "waitForCalls[0].request.data.path[0]" is:
      """
      "root"
      """
    And the agent trace at "waitForCalls[0].request.data.path[1]" is:
      """
      "gp.1"
      """
    And the transitions of "root/gp.1/mid.1/leaf.1" are:
      """
      ["idle→running", "running→suspended", "suspended→running", "running→idle", "→closed"]
      """
    And the transitions of "root/gp.1/mid.1" are:
      """
      ["idle→running", "running→suspended", "suspended→running", "running→idle", "→closed"]
      """
    And the transitions of "root/gp.1" are:
      """
      ["idle→running", "running→idle"]
      """

  @spec-7D @clause-7D.escalation.parked-zero-tokens @partial-clause-7D.escalation.deepest-resume
  Scenario: parked levels burn zero tokens: a day passes at the pending root with no model call, and the resume starts at the deepest level
    # No level has an interpreter: each level made one model call before the root came back
    # pending. A virtual day later nothing more was asked of the model: no call, no token (how
    # a pending child's usage rolls into its parent's before the task settles is not compared). The Answer then reaches the leaf first: the first model call after the
    # resume is the leaf's. How many calls the leaf's resume and the parent's replay take (the
    # leaf re-executing its pending tool, or replaying its turn from its pre-turn snapshot) the
    # SPEC leaves open, so only the order's start is compared (conformance/NOTES.md #345).
    Given the shared agent fixture "{{EXAMPLES}}/subagent-durable-resume/fixture.json"
    When its run is driven
    Then the agent answer at "result.status" is "pending"
    And the LLM received 2 requests
    When the agent command "agent_clock" is sent with:
      """
      {"advanceMs": 86400000}
      """
    Then the LLM received 2 requests
    When the agent command "agent_inspect" is sent with:
      """
      {"handle": "root/approverParent.1"}
      """
    Then the agent answer at "state" is "suspended"
    When it is resumed with its answer
    Then the agent answer at "result.status" is "done"
    And LLM request 3 body at "model" is "m-asker"
