@pin-0.16.0
Feature: The shared agent fixtures, run as scenarios (SPEC §7D)
  SPEC §7D: "conformance = identical per-handle transition traces against the shared
  `examples/subagent-*` fixtures on a virtual clock". Each scenario loads one shared fixture
  as it is: the mock LLM plays its `mockLLM` scripts (`mock llm --fixture`), its registry and
  tools become the port's agent runtime (PROTOCOL.md §5.27; the tools' prose is mapped to the
  behaviour catalogue by a fixed table, and a prose the table does not know fails the
  scenario), and every key of its `expect` block is checked by a fixed checker (an unknown key
  fails). A transition list compares exactly, in order, per handle; an expected `→closed`
  matches any `X→closed` (the fixtures write it both ways, NOTES #291).

  # ---------------------------------------------------------------- subagent-fanout (S1/S2)

  @spec-7D @clause-7D.conformance.traces @clause-7D.ids.deterministic @clause-7D.task.shape
  @clause-7D.task.one-tool-message @clause-7D.states.transitions @clause-7D.task.parallel
  Scenario: fan-out: two parallel task calls, children closed after their task, usage rolled up
    Given the shared agent fixture "{{EXAMPLES}}/subagent-fanout/fixture.json"
    When its run is driven
    Then its "expect" block holds

  # ---------------------------------------------------------------- subagent-budgets (S7)

  @spec-7D @clause-7D.spawn.budget-carve @clause-7D.budget.live-walk @clause-7D.budget.incomplete
  Scenario: budgets: carve at spawn, maxChildren, the live ancestor walk and maxTurns are loud
    Given the shared agent fixture "{{EXAMPLES}}/subagent-budgets/fixture.json"
    When its steps are driven

  # ---------------------------------------------------------------- subagent-lifecycle (S5/S6/S8/S9)

  @spec-7D @clause-7D.rails.coalesced @clause-7D.rails.provenance @partial-clause-7D.rails.unsolicited-at-idle
  @partial-clause-7D.wake.drains-inbox
  Scenario: lifecycle coalescedDrain: two posts and three ticks enter as one turn of three items
    Given the shared agent fixture "{{EXAMPLES}}/subagent-lifecycle/fixture.json"
    When its scenario "coalescedDrain" is driven
    Then its "scenarios.coalescedDrain.expect" block holds

  @spec-7D @clause-7D.gates.inbox @clause-7D.post.no-transition
  Scenario: lifecycle inboxGate: the post past inboxCap is refused at once, naming the full inbox
    Given the shared agent fixture "{{EXAMPLES}}/subagent-lifecycle/fixture.json"
    When its scenario "inboxGate" is driven
    Then the agent trace at "transitions" is:
      """
      {}
      """

  @spec-7D @clause-7D.wake.fifo-queue @clause-7D.wake.atomic-admission
  Scenario: lifecycle concurrencyGate: the second child's wake queues and is dequeued by slot transfer
    Given the shared agent fixture "{{EXAMPLES}}/subagent-lifecycle/fixture.json"
    When its scenario "concurrencyGate" is driven
    Then its "scenarios.concurrencyGate.expect" block holds

  @spec-7D @clause-7D.gates.turn
  Scenario: lifecycle turnGate: one LLM call at a time, and the delegating parent does not deadlock
    Given the shared agent fixture "{{EXAMPLES}}/subagent-lifecycle/fixture.json"
    When its scenario "turnGate" is driven
    Then its "scenarios.turnGate.expect" block holds

  @spec-7D @clause-7D.interrupt.restores-inbox @clause-7D.cancellation.identical-outcome
  @partial-clause-7D.interrupt.drain-transactional
  Scenario: lifecycle interrupt: the turn is aborted, not killed, and the drained item is restored
    Given the shared agent fixture "{{EXAMPLES}}/subagent-lifecycle/fixture.json"
    When its scenario "interrupt" is driven
    Then its "scenarios.interrupt.expect" block holds

  @spec-7D @clause-7D.close.leaf-first @clause-7D.lifecycle.on-spawn-close @clause-7D.close.stop-all
  Scenario: lifecycle closeCascade: close(root) closes leaf-first and a late post is refused as closed
    Given the shared agent fixture "{{EXAMPLES}}/subagent-lifecycle/fixture.json"
    When its scenario "closeCascade" is driven
    Then its "scenarios.closeCascade.expect" block holds

  # ---------------------------------------------------------------- subagent-escalation (S3)

  @spec-7D @clause-7D.escalation.as-tool @clause-7D.resume.two-shapes
  Scenario: escalation: the child's approval is answered inline by the parent's waitFor
    Given the shared agent fixture "{{EXAMPLES}}/subagent-escalation/fixture.json"
    When its run is driven
    Then its "expect" block holds

  # ---------------------------------------------------------------- subagent-durable-resume (S4)

  @spec-7D @clause-7D.escalation.deepest-resume @clause-7D.escalation.reattach @clause-7D.resume.rewind
  @clause-7D.resume.two-shapes @clause-7D.states.suspended-only-via-answer @clause-10.escalation.data-path @partial-clause-10.escalation.data-path-subtree
  @partial-clause-7D.escalation.reattach-required @partial-clause-7D.escalation.nearest-one-hop
  Scenario: durable resume: pending at the root with data.path, resumed at the leaf, the parent reattaches
    Given the shared agent fixture "{{EXAMPLES}}/subagent-durable-resume/fixture.json"
    When its run is driven
    Then its "phase1_expect" block holds
    When it is resumed with its answer
    Then its "phase2_expect" block holds
