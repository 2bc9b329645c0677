@pin-0.16.0
Feature: Agent homes: the directory is the agent, the memory tool, the heartbeat (SPEC §7E)
  The shared `examples/persona-agent` fixture: its `bootstrapDir` is written into a temporary
  home, the mock LLM plays its scripts (`m-echo-soul` lists the `## <file>` headings of the
  system prompt it received; `m-remember` saves a memory; `m-recall` and `m-heartbeat` answer
  by what the system prompt contains), and each scenario checks one of the fixture's `expect`
  keys (H1–H5), named in the scenario. The memory actions the fixture's scripts do not make
  run on agents.json (`m-mem-*` call the `memory` tool once, then answer `tool said: <its
  result>`). A registry def with `home` composes its soul from that directory at session
  start (spawn); `memory: true` gives it the `memory` tool (PROTOCOL.md §5.27).

  @spec-7E @clause-7E.home.file-order @clause-7E.home.files @clause-7E.home.absent-skipped
  Scenario: H1 the bootstrap files compose the soul in the fixed order, absent ones skipped
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And a file "{{TMP}}/ava/AGENTS.md" containing "Operate politely."
    And an agent runtime with:
      """
      {"registry": {"ava": {"does": "support persona", "model": "m-echo-soul", "home": "{{TMP}}/ava"}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "ava", "prompt": "who are you?"}
      """
    Then the agent answer at "result.text" is "sections:[AGENTS.md,SOUL.md,USER.md,HEARTBEAT.md,MEMORY.md]"

  @spec-7E @clause-7E.home.file-order
  Scenario: H1 the composed soul reaches a child's system prompt when the child's def has the home
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And an agent runtime with:
      """
      {"registry": {"ava": {"does": "support persona", "model": "m-echo-soul", "home": "{{TMP}}/ava"}}}
      """
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "ava"}
      """
    And the agent command "agent_spawn" is sent with:
      """
      {"parent": "root/ava.1", "def": "ava"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/ava.1/ava.1", "prompt": "who are you?"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/ava.1/ava.1"}
      """
    Then the agent answer at "result.text" is "sections:[SOUL.md,USER.md,HEARTBEAT.md,MEMORY.md]"
    And LLM request 1 body at "messages[0].content" contains "You are Ava"

  @spec-7E @partial-clause-7E.home.byte-cap @clause-7E.home.truncated-notice
  Scenario: H2 a file over 2 MB (2097152 bytes) is truncated with a notice; the file on disk is untouched
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And a file "{{TMP}}/ava/TOOLS.md" of 2097160 bytes of "t"
    And an agent runtime with:
      """
      {"registry": {"ava": {"does": "support persona", "model": "m-echo-soul", "home": "{{TMP}}/ava"}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "ava", "prompt": "who are you?"}
      """
    Then the agent answer at "result.text" is "sections:[SOUL.md,USER.md,TOOLS.md,HEARTBEAT.md,MEMORY.md]"
    When the agent command "agent_store_get" is sent with:
      """
      {"id": "root/ava.1"}
      """
    Then the agent answer at "messages[0].content" matches "(?i)truncat"
    And the file "{{TMP}}/ava/TOOLS.md" is 2097160 bytes long

  @spec-7E @beyond-spec @partial-clause-7E.home.truncated-notice
  Scenario: H2 the truncation notice names the file, in a paragraph of its own after the cut body
    Beyond the SPEC: §7E says "truncated with a notice" and fixes neither the notice's words nor
    its place. The reference names the file and starts the notice after a blank line, so a
    model reading the soul knows which file was cut; rust-crate 0.23 appends
    "[truncated: exceeds 2 MB bootstrap cap]" to the body's last line (NOTES #305).

    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And a file "{{TMP}}/ava/TOOLS.md" of 2097160 bytes of "t"
    And an agent runtime with:
      """
      {"registry": {"ava": {"does": "support persona", "model": "m-echo-soul", "home": "{{TMP}}/ava"}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "ava", "prompt": "who are you?"}
      """
    And the agent command "agent_store_get" is sent with:
      """
      {"id": "root/ava.1"}
      """
    Then the agent answer at "messages[0].content" matches "(?i)truncat[^\n]*TOOLS\.md"
    And the agent answer at "messages[0].content" matches "t\n\n[^\n]*(?i:truncat)"

  @spec-7E @clause-7E.home.byte-cap @clause-7E.home.truncated-notice
  Scenario: H2 the cap counts bytes, not characters: a file of 2097160 bytes in two-byte characters is truncated
    # Cause: TOOLS.md is 2097160 bytes but only 1048580 characters (`é` is two bytes in UTF-8),
    # far below 2097152: a cap counted in characters would keep it whole.
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And a file "{{TMP}}/ava/TOOLS.md" of 2097160 bytes of "é"
    And an agent runtime with:
      """
      {"registry": {"ava": {"does": "support persona", "model": "m-echo-soul", "home": "{{TMP}}/ava"}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "ava", "prompt": "who are you?"}
      """
    Then the agent answer at "result.text" is "sections:[SOUL.md,USER.md,TOOLS.md,HEARTBEAT.md,MEMORY.md]"
    When the agent command "agent_store_get" is sent with:
      """
      {"id": "root/ava.1"}
      """
    Then the agent answer at "messages[0].content" matches "(?i)truncat"
    And the file "{{TMP}}/ava/TOOLS.md" is 2097160 bytes long

  @spec-7E @clause-7E.memory.opt-in @clause-7E.memory.writes-disk @clause-7E.memory.target
  @clause-7E.memory.plain-success
  Scenario: H3/H4 memory add with target user appends to USER.md on disk and answers a plain success
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And an agent runtime with:
      """
      {"registry": {"ava": {"does": "support persona", "model": "m-remember", "home": "{{TMP}}/ava", "memory": true}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "ava", "prompt": "remember my coffee"}
      """
    Then the agent answer at "result.text" contains "saved: "
    And the file "{{TMP}}/ava/USER.md" contains "Prefers dark roast"
    And the file "{{TMP}}/ava/USER.md" contains "The user is Muthu"
    And the file "{{TMP}}/ava/MEMORY.md" does not contain "Prefers dark roast"
    And LLM request 2 body at "messages[-1].role" is "tool"
    And the agent trace at "transitions" is:
      """
      {"root/ava.1": ["idle→running", "running→idle"]}
      """

  @spec-7E @clause-7E.memory.opt-in @clause-7E.memory.omittable
  Scenario: without memory:true the persona has no memory tool, with it the tool is there
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And an agent runtime with:
      """
      {"registry": {"plain": {"does": "no memory", "model": "m-echo-soul", "home": "{{TMP}}/ava"},
                    "keeper": {"does": "has memory", "model": "m-echo-soul", "home": "{{TMP}}/ava", "memory": true}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "plain", "prompt": "hi"}
      """
    And the agent command "agent_run" is sent with:
      """
      {"entry": "keeper", "prompt": "hi"}
      """
    Then LLM request 1 body has nothing at "tools"
    And LLM request 2 body at "tools[0].function.name" is "memory"

  @spec-7E @clause-7E.memory.description-states
  Scenario: the memory tool's description tells the model that saved memory loads at the next session
    # §7E: "the tool description states this to the model" (that persisted memory loads at the
    # start of the next session, not into the current prompt); the words are the port's, so
    # only the SPEC's "next session" is looked for.
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And an agent runtime with:
      """
      {"registry": {"keeper": {"does": "has memory", "model": "m-echo-soul", "home": "{{TMP}}/ava", "memory": true}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "keeper", "prompt": "hi"}
      """
    Then LLM request 1 body at "tools[0].function.name" is "memory"
    And LLM request 1 body at "tools[0].function.description" matches "(?i)\bnext\W+(\w+\W+)?session"

  @spec-7E @clause-7E.memory.next-session @clause-7E.home.session-start
  Scenario: H4 a saved memory loads at the next session, never into the session that saved it
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And an agent runtime with:
      """
      {"registry": {"keeper": {"does": "saves", "model": "m-remember", "home": "{{TMP}}/ava", "memory": true},
                    "recall": {"does": "recalls", "model": "m-recall", "home": "{{TMP}}/ava"}}}
      """
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "recall"}
      """
    And the agent command "agent_run" is sent with:
      """
      {"entry": "keeper", "prompt": "remember my coffee"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/recall.1", "prompt": "what do I drink?"}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/recall.1"}
      """
    Then the agent answer at "result.text" is "no memory"
    When the agent command "agent_run" is sent with:
      """
      {"entry": "recall", "prompt": "what do I drink?"}
      """
    Then the agent answer at "handle" is "root/recall.2"
    And the agent answer at "result.text" is "I recall: dark roast"

  @spec-7E @clause-7E.memory.actions @clause-7E.memory.writes-disk @clause-7E.memory.target
  Scenario: memory replace swaps the substring in USER.md on disk
    Given a mock LLM runs "agents.json"
    And a file "{{TMP}}/home/USER.md" containing "The user is Muthu; timezone IST."
    And an agent runtime with:
      """
      {"registry": {"p": {"does": "edits", "model": "m-mem-replace", "home": "{{TMP}}/home", "memory": true}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "p", "prompt": "I moved"}
      """
    Then the agent answer at "result.text" matches "^tool said: "
    And the file "{{TMP}}/home/USER.md" contains "timezone CET"
    And the file "{{TMP}}/home/USER.md" does not contain "timezone IST"

  @spec-7E @clause-7E.memory.actions @clause-7E.memory.target
  Scenario: memory remove deletes the entry from MEMORY.md (target self by default)
    Given a mock LLM runs "agents.json"
    And a file "{{TMP}}/home/MEMORY.md" containing:
      """
      - Onboarded 2026-07.
      - Likes tea
      """
    And an agent runtime with:
      """
      {"registry": {"p": {"does": "edits", "model": "m-mem-remove", "home": "{{TMP}}/home", "memory": true}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "p", "prompt": "forget onboarding"}
      """
    Then the file "{{TMP}}/home/MEMORY.md" does not contain "Onboarded"
    And the file "{{TMP}}/home/MEMORY.md" contains "Likes tea"

  @spec-7E @clause-7E.memory.actions
  Scenario: memory add appends an entry to MEMORY.md, keeping what was there
    Given a mock LLM runs "agents.json"
    And a file "{{TMP}}/home/MEMORY.md" containing "- Onboarded 2026-07."
    And an agent runtime with:
      """
      {"registry": {"p": {"does": "edits", "model": "m-mem-add", "home": "{{TMP}}/home", "memory": true}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "p", "prompt": "I like tea"}
      """
    Then the file "{{TMP}}/home/MEMORY.md" contains "Onboarded 2026-07."
    And the file "{{TMP}}/home/MEMORY.md" contains "Likes tea"

  @spec-7E @clause-7E.memory.absent-substring
  Scenario: a replace whose substring is absent is a loud isError, and the file is unchanged
    §7E "A `replace`/`remove` whose substring is absent ⇒ loud `isError`" gives no words (NOTES
    #320: the @beyond-spec twin below checks that the result names the substring). The model
    (`m-mem-missing`) replaces "no such entry"; it answers `tool said: <the result>`. The
    positive control: `m-mem-remove` removes the entry that is there, in the same file.
    Given a mock LLM runs "agents.json"
    And a file "{{TMP}}/home/MEMORY.md" containing "- Onboarded 2026-07."
    And an agent runtime with:
      """
      {"registry": {"p": {"does": "edits", "model": "m-mem-missing", "home": "{{TMP}}/home", "memory": true},
                    "q": {"does": "edits", "model": "m-mem-remove", "home": "{{TMP}}/home", "memory": true}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "p", "prompt": "fix it"}
      """
    Then the agent answer at "result.text" matches "^tool said: \S"
    And LLM request 2 body at "messages[-1].role" is "tool"
    And the file "{{TMP}}/home/MEMORY.md" contains "- Onboarded 2026-07."
    And the file "{{TMP}}/home/MEMORY.md" does not contain "x"
    When the agent command "agent_run" is sent with:
      """
      {"entry": "q", "prompt": "forget onboarding"}
      """
    Then the file "{{TMP}}/home/MEMORY.md" does not contain "Onboarded"

  @spec-7E @beyond-spec
  Scenario: a replace whose substring is absent is a loud isError naming it, and the file is unchanged
    Beyond the SPEC: §7E "⇒ loud `isError`" gives the result no words (NOTES #320); the
    reference's names the substring it did not find.
    Given a mock LLM runs "agents.json"
    And a file "{{TMP}}/home/MEMORY.md" containing "- Onboarded 2026-07."
    And an agent runtime with:
      """
      {"registry": {"p": {"does": "edits", "model": "m-mem-missing", "home": "{{TMP}}/home", "memory": true}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "p", "prompt": "fix it"}
      """
    Then the agent answer at "result.text" contains "no such entry"
    And LLM request 2 body at "messages[-1].content" contains "no such entry"
    And the file "{{TMP}}/home/MEMORY.md" contains "- Onboarded 2026-07."
    And the file "{{TMP}}/home/MEMORY.md" does not contain "x"

  @spec-7E @partial-clause-7E.heartbeat.tick-inbox @clause-7E.heartbeat.virtual-clock
  @clause-7E.heartbeat.substantive-on-beat @partial-clause-7D.lifecycle.injectable-clock
  Scenario: H5 a due heartbeat speaks: the tick wakes the idle persona and the reply reaches onBeat
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And an agent runtime with:
      """
      {"registry": {"ava": {"does": "support persona", "model": "m-heartbeat", "home": "{{TMP}}/ava"}}}
      """
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "ava"}
      """
    And the agent command "agent_heartbeat" is sent with:
      """
      {"handle": "root/ava.1", "everyMs": 1000}
      """
    And the agent command "agent_clock" is sent with:
      """
      {"advanceMs": 999}
      """
    Then the agent trace at "transitions" is:
      """
      {}
      """
    When the agent command "agent_clock" is sent with:
      """
      {"advanceMs": 1}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/ava.1"}
      """
    Then the agent answer at "result.text" contains "3pm sync"
    And the agent trace at "beats" is:
      """
      [{"handle": "root/ava.1", "text": {"$contains": "3pm sync"}}]
      """

  @spec-7E @partial-clause-7E.heartbeat.tick-inbox @partial-clause-7E.heartbeat.virtual-clock
  Scenario: H5 a clock jump over ten billion intervals coalesces its ticks into one beat, answered at once
    # §7E: ticks "coalesce, so a slow beat can't pile up" (NOTES #302). A jump must cost what the
    # inbox holds, not one step per interval: a port that walks 10^10 intervals does not answer
    # `agent_clock` within the driver's bound.
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And an agent runtime with:
      """
      {"registry": {"ava": {"does": "support persona", "model": "m-heartbeat", "home": "{{TMP}}/ava"}}}
      """
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "ava"}
      """
    And the agent command "agent_heartbeat" is sent with:
      """
      {"handle": "root/ava.1", "everyMs": 1}
      """
    And the agent command "agent_clock" is sent with:
      """
      {"advanceMs": 10000000000}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/ava.1"}
      """
    Then the agent answer at "result.text" contains "3pm sync"
    And the agent trace at "beats" is:
      """
      [{"handle": "root/ava.1", "text": {"$contains": "3pm sync"}}]
      """

  @spec-7E @clause-7E.heartbeat.ok-silent @partial-clause-7E.heartbeat.substantive-on-beat
  Scenario: H5 a heartbeat with nothing due answers HEARTBEAT_OK and stays silent
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava" with its heartbeatNotDue HEARTBEAT.md
    And an agent runtime with:
      """
      {"registry": {"ava": {"does": "support persona", "model": "m-heartbeat", "home": "{{TMP}}/ava"}}}
      """
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "ava"}
      """
    And the agent command "agent_heartbeat" is sent with:
      """
      {"handle": "root/ava.1", "everyMs": 1000}
      """
    And the agent command "agent_clock" is sent with:
      """
      {"advanceMs": 1000}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/ava.1"}
      """
    Then the agent answer at "result.text" is "HEARTBEAT_OK"
    And the agent trace at "beats" is:
      """
      []
      """

  @spec-7E @clause-7E.heartbeat.tick-inbox @clause-7D.rails.coalesced
  Scenario: H5 ticks that fall due together coalesce into one turn
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava" with its heartbeatNotDue HEARTBEAT.md
    And an agent runtime with:
      """
      {"registry": {"ava": {"does": "support persona", "model": "m-heartbeat", "home": "{{TMP}}/ava"}}}
      """
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "ava"}
      """
    And the agent command "agent_heartbeat" is sent with:
      """
      {"handle": "root/ava.1", "everyMs": 1000}
      """
    And the agent command "agent_clock" is sent with:
      """
      {"advanceMs": 3000}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/ava.1"}
      """
    Then the transitions of "root/ava.1" are:
      """
      ["idle→running", "running→idle"]
      """
    And the LLM received 1 request

  @spec-7E @partial-clause-7E.heartbeat.wake-prompt
  Scenario: H5 the tick wakes the idle persona with a prompt to read HEARTBEAT.md and act, else reply HEARTBEAT_OK
    # §7E fixes what the prompt asks, not its words: it names the file and the reply token. The
    # soul names HEARTBEAT.md too (its `## HEARTBEAT.md` section), so the wake's own input, the
    # request's last message, is what is read.
    Given the shared agent fixture "{{EXAMPLES}}/persona-agent/fixture.json"
    And its bootstrapDir is written to "{{TMP}}/ava"
    And an agent runtime with:
      """
      {"registry": {"ava": {"does": "support persona", "model": "m-heartbeat", "home": "{{TMP}}/ava"}}}
      """
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "ava"}
      """
    And the agent command "agent_heartbeat" is sent with:
      """
      {"handle": "root/ava.1", "everyMs": 1000}
      """
    And the agent command "agent_clock" is sent with:
      """
      {"advanceMs": 1000}
      """
    And the agent command "agent_wait" is sent with:
      """
      {"handle": "root/ava.1"}
      """
    Then the LLM received 1 request
    And LLM request 1 body at "messages[-1].role" is "user"
    And LLM request 1 body at "messages[-1].content" contains "HEARTBEAT.md"
    And LLM request 1 body at "messages[-1].content" contains "HEARTBEAT_OK"

  @spec-7E @partial-clause-7E.heartbeat.wake-prompt @partial-clause-7E.heartbeat.tick-inbox
  Scenario: H5 a tick that falls due while the persona is running lands in its inbox and wakes nothing
    # §7E: the tick is posted to the agent's own inbox, and the wake comes only "when idle".
    # `m-slow` keeps the first turn running (the mock answers after 60 s; the runtime is closed
    # at the scenario's end).
    Given a mock LLM runs "agents.json"
    And a file "{{TMP}}/home/HEARTBEAT.md" containing "If it is time, remind about the 3pm sync."
    And an agent runtime with:
      """
      {"registry": {"p": {"does": "busy persona", "model": "m-slow", "home": "{{TMP}}/home"}}}
      """
    When the agent command "agent_spawn" is sent with:
      """
      {"parent": "root", "def": "p"}
      """
    And the agent command "agent_wake" is sent with:
      """
      {"handle": "root/p.1", "prompt": "work"}
      """
    And the agent command "agent_heartbeat" is sent with:
      """
      {"handle": "root/p.1", "everyMs": 1000}
      """
    And the agent command "agent_clock" is sent with:
      """
      {"advanceMs": 1000}
      """
    And the agent command "agent_inspect" is sent with:
      """
      {"handle": "root/p.1"}
      """
    Then the agent answer at "state" is "running"
    And the agent answer at "inboxLen" is 1
    And the transitions of "root/p.1" are:
      """
      ["idle→running"]
      """
