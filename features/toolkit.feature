@pin-0.16.0
Feature: Toolkit assembly, precedence, filters and failure isolation (SPEC §4, §0.3, §0.11; seeds 001 and 003)

  @spec-4
  @clause-4.assembly.deterministic @clause-4.toolkit.custom-by-default @clause-4.create.extra-tools
  @clause-4.builtins.on-by-default @clause-0.builtins.on-by-default @partial-clause-4.assembly.source-order
  @partial-clause-4.toolkit.tools @partial-clause-0.builtins.names
  Scenario: tools() lists the builtins in §4A order, then extra tools in their given order
    Builds without any skill source, so a port without skill discovery still meets this check;
    the skill tool is optional without one (NOTES #1), so it is dropped by name. `names` sorts
    by code point: "Zulu" before every lower-case name.
    Given a toolkit built with:
      """
      {"disableTools": ["skill"],
       "extraTools": [{"name": "zzz", "behaviour": {"text": "z"}}, {"name": "aaa", "behaviour": {"text": "a"}},
                      {"name": "Zulu", "behaviour": {"text": "Z"}}]}
      """
    Then the tool names are:
      """
      ["bash", "read", "write", "edit", "grep", "glob", "webfetch", "question", "apply_patch", "todowrite", "zzz", "aaa", "Zulu"]
      """
    And the sorted tool names are:
      """
      ["Zulu", "aaa", "apply_patch", "bash", "edit", "glob", "grep", "question", "read", "todowrite", "webfetch", "write", "zzz"]
      """

  @spec-4
  @clause-4.assembly.deterministic @partial-clause-4.assembly.source-order
  @partial-clause-4.toolkit.tools @partial-clause-4.create.skills-dir
  Scenario: tools() assembles skill, then the builtins in §4A order, then extra tools
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic",
       "extraTools": [{"name": "zzz", "behaviour": {"text": "z"}}, {"name": "aaa", "behaviour": {"text": "a"}}]}
      """
    Then the tool names are:
      """
      ["skill", "bash", "read", "write", "edit", "grep", "glob", "webfetch", "question", "apply_patch", "todowrite", "zzz", "aaa"]
      """
    And the sorted tool names are:
      """
      ["aaa", "apply_patch", "bash", "edit", "glob", "grep", "question", "read", "skill", "todowrite", "webfetch", "write", "zzz"]
      """

  @spec-4
  @clause-4.assembly.extra-shadows-builtin @clause-4.toolkit.execute-routes
  @partial-clause-4.assembly.net-effect
  Scenario: an extra tool shadows the builtin of the same name and takes the extra tools' place
    Given a toolkit built with:
      """
      {"disableTools": ["skill"],
       "extraTools": [{"name": "bash", "description": "Sandboxed bash.", "behaviour": {"text": "sandboxed"}}]}
      """
    Then the tool names are:
      """
      ["read", "write", "edit", "grep", "glob", "webfetch", "question", "apply_patch", "todowrite", "bash"]
      """
    And the tool "bash" has source "native"
    When "bash" is executed with:
      """
      {"command": "echo hi"}
      """
    Then the output is "sandboxed"

  @spec-4 @seed-001-disagreement
  @partial-clause-4.assembly.dedupe-first-wins @partial-clause-4.toolkit.execute-routes
  Scenario: the skill tool beats an extra tool named "skill" (SPEC §4 first-wins, not seed 001's later-wins)
    Given a toolkit built with:
      """
      {"skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}],
       "extraTools": [{"name": "skill", "description": "Impostor.", "behaviour": {"text": "impostor"}}]}
      """
    Then the tool "skill" has source "skill"
    And the toolkit has 11 tools
    When "skill" is executed with:
      """
      {"name": "alpha"}
      """
    Then the output contains "<skill_content name=\"alpha\">"

  @spec-4 @partial-clause-4.assembly.dedupe-first-wins
  Scenario: among extra tools with one name the first wins
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "dup", "behaviour": {"text": "first"}}, {"name": "dup", "behaviour": {"text": "second"}}]}
      """
    When "dup" is executed
    Then the output is "first"

  @spec-4 @seed-003 @clause-2.sugar.disable-tools
  Scenario: disableTools drops final names across every source; unknown names are ignored
    Given a toolkit built with:
      """
      {"skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}], "disableTools": ["bash", "skill", "mine", "nosuch"],
       "extraTools": [{"name": "mine", "behaviour": {"text": "m"}}, {"name": "kept", "behaviour": {"text": "k"}}]}
      """
    Then the tool names are:
      """
      ["read", "write", "edit", "grep", "glob", "webfetch", "question", "apply_patch", "todowrite", "kept"]
      """

  @spec-4 @partial-clause-2.sugar.disable-tools
  Scenario: disabling a shadowed name removes both the builtin and the extra tool
    Given a toolkit built with:
      """
      {"extraTools": [{"name": "bash", "behaviour": {"text": "x"}}], "disableTools": ["bash"]}
      """
    Then the toolkit has no tool "bash"
    And the toolkit has the tool "read"

  @spec-4 @partial-clause-2.sugar.disable-tools
  Scenario: an empty disableTools list changes nothing
    Given a toolkit built with:
      """
      {"skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}], "disableTools": []}
      """
    Then the toolkit has 11 tools

  @spec-4 @lenient
  @clause-4.builtins.on-by-default @clause-0.builtins.on-by-default @partial-clause-0.builtins.names
  Scenario: without any skill source the toolkit still holds every builtin (the skill tool is optional here)
    Given a toolkit built with no options
    Then the tool names match:
      """
      {"$oneOf": [
        ["bash", "read", "write", "edit", "grep", "glob", "webfetch", "question", "apply_patch", "todowrite"],
        ["skill", "bash", "read", "write", "edit", "grep", "glob", "webfetch", "question", "apply_patch", "todowrite"]]}
      """

  @spec-4 @seed-001
  @partial-clause-4.toolkit.tools @partial-clause-4.builtins.per-tool-map @partial-clause-0.builtins.per-tool
  @partial-clause-4.create.builtins-per-tool
  Scenario: three sources in one flat namespace (seed 001 example 1)
    Given a toolkit built with:
      """
      {"skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}], "builtins": {"tools": {"bash": false}},
       "extraTools": [{"name": "mine", "source": "native", "behaviour": {"text": "ok"}}]}
      """
    Then the toolkit has the tool "skill"
    And the toolkit has the tool "read"
    And the toolkit has the tool "mine"
    And the toolkit has no tool "bash"
    And the status of "builtin" is "connected"

  @spec-4 @seed-001 @seed-001-disagreement
  @clause-3.skills-prompt.preamble-line-1 @clause-3.skills-prompt.preamble-line-2
  @clause-3.skills-prompt.list-heading @clause-3.s2.before-skill-tool @clause-2.sugar.disable-skills
  @partial-clause-0.skills-prompt.preamble-and-list @partial-clause-3.s1.dedupe-first-wins
  @partial-clause-4.create.skills-dir
  Scenario: shaping the catalog from a directory, data and a provider, minus a drop-list (seed 001 example 2)
    Given a toolkit built with:
      """
      {"builtins": false, "skillsDir": "{{FIXTURES}}/skills/basic",
       "skills": [{"name": "triage", "description": "Triage a bug report", "content": "1. Reproduce it."},
                  {"name": "legacy", "description": "Old way", "content": "old"}],
       "skillProvider": {"skills": [{"name": "release", "description": "Cut a release", "content": "1. Bump the version."}]},
       "disableSkills": ["legacy"]}
      """
    Then the skills prompt is:
      """
      Skills provide specialized instructions and workflows for specific tasks.
      Use the skill tool to load a skill when a task matches its description.

      ## Available Skills
      - **alpha**: First fixture skill.
      - **beta**: Second fixture skill.
      - **gamma**: Third fixture skill.
      - **release**: Cut a release
      - **triage**: Triage a bug report
      """
    When "skill" is executed with:
      """
      {"name": "legacy"}
      """
    Then the result is an error

  @spec-4 @seed-003
  @clause-4A.toggle.per-tool @partial-clause-4.builtins.per-tool-map @partial-clause-0.builtins.per-tool
  @partial-clause-4.create.builtins-per-tool
  Scenario: control 2 — turn individual builtins off with a tools map
    Given a toolkit built with:
      """
      {"builtins": {"tools": {"bash": false, "write": false}}}
      """
    Then the toolkit has no tool "bash"
    And the toolkit has no tool "write"
    And the toolkit has the tool "read"
    And the toolkit has the tool "apply_patch"

  @spec-4 @seed-003
  @partial-clause-4.builtins.per-tool-map @partial-clause-2.sugar.disable-tools
  @partial-clause-2.sugar.disable-skills
  Scenario: control 3 — drop tools and skills by name, together with a builtin toggle
    Given a toolkit built with:
      """
      {"builtins": {"tools": {"bash": false}}, "disableTools": ["hr_get_profile", "write"],
       "skills": [{"name": "deploy-prod", "description": "Ship it", "content": "x"},
                  {"name": "refunds", "description": "Refund orders", "content": "y"}],
       "disableSkills": ["deploy-prod"]}
      """
    Then the toolkit has no tool "bash"
    And the toolkit has no tool "write"
    And the toolkit has the tool "edit"
    And the skill catalog names are:
      """
      ["refunds"]
      """

  @spec-4 @seed-003 @partial-clause-3.s2.semantics @partial-clause-3.s2.before-skill-tool
  @partial-clause-3.s2.filter
  Scenario: control 4 — a per-agent skills allowlist from one shared catalog
    Given a toolkit built with:
      """
      {"skills": [{"name": "deploy-prod", "description": "Ship it", "content": "x"},
                  {"name": "refunds", "description": "Refund orders", "content": "y"}],
       "skillsFilter": {"refunds": true}}
      """
    Then the skill catalog names are:
      """
      ["refunds"]
      """
    And the skills prompt matches:
      """
      {"$regex": "## Available Skills\n- \\*\\*refunds\\*\\*: Refund orders$"}
      """

  @spec-4 @seed-001 @seed-only
  Scenario: a malformed MCP config file is an error entry and the toolkit still builds
    # Seed-only (NOTES #21): SPEC 0.16.0 isolates failed *servers* (§2 "A failed server is
    # isolated …, never fatal") and says nothing of a config text that does not parse; seed 001
    # promises an `:errors` entry under "<config>" "when `:mcp` itself could not be parsed". A
    # port failing this breaks the user's page, not a SPEC clause; the entry's wording is its own.
    Given a file "mcp.json" containing:
      """
      {"mcpServers": {"x": 
      """
    And a toolkit built with:
      """
      {"skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}], "mcpConfig": "{{TMP}}/mcp.json"}
      """
    Then there is an error for "<config>"
    And the toolkit has the tool "skill"
    And the toolkit has the tool "read"

  @spec-4 @spec-0.3
  @clause-0.mcp-config.disabled-skip @clause-2.behaviour.disabled-skipped @partial-clause-4.toolkit.mcp-status
  @partial-clause-4.create.mcp-config
  Scenario: disabled MCP servers are reported as disabled, never connected
    Given a toolkit built with:
      """
      {"mcpConfig": {"mcpServers": {
        "off": {"command": ["/nonexistent/server"], "disabled": true},
        "off2": {"url": "http://127.0.0.1:9/mcp", "enabled": false},
        "both": {"command": ["/nonexistent/server"], "enabled": true, "disabled": true}}}}
      """
    Then the status of "off" is "disabled"
    And the status of "off2" is "disabled"
    And the status of "both" is "disabled"
    And there are no errors

  @spec-4 @spec-0.3
  @clause-0.mcp-config.failure-isolated @clause-2.behaviour.failure-isolated
  @partial-clause-4.toolkit.mcp-status
  Scenario: an MCP server that cannot start is failed and isolated; the other sources load
    Given a toolkit built with:
      """
      {"skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}], "mcpConfig": {"mcpServers": {
        "broken": {"command": ["{{TMP}}/no-such-mcp-server"], "timeout": 2000},
        "off": {"command": ["{{TMP}}/no-such-mcp-server"], "enabled": false}}}}
      """
    Then the status of "broken" is "failed"
    And the status of "off" is "disabled"
    And the toolkit has 11 tools
    And the toolkit has the tool "skill"

  @spec-4 @spec-2
  @clause-2.config.reserved-keys-not-servers @partial-clause-2.config.reserved-keys
  @partial-clause-4.builtins.config-key @partial-clause-2.config.reserved-key-mcp-server
  Scenario: reserved sibling keys of a raw server map are not servers
    Given a toolkit built with:
      """
      {"mcpConfig": {"builtins": {"tools": {"bash": false}}, "agents": [], "a2a": {}, "mcpServer": {}}}
      """
    Then there is no status for "builtins"
    And there is no status for "agents"
    And there is no status for "a2a"
    And there is no status for "mcpServer"
    And the toolkit has no tool "bash"

  @spec-4 @spec-7A @clause-7A.resolve.failure-isolated
  Scenario: an unreachable agent contributes no tools and never breaks the build
    Given a toolkit built with:
      """
      {"skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}], "agents": [{"card": "http://127.0.0.1:9/.well-known/agent-card.json", "timeout": 2000}]}
      """
    Then the toolkit has 11 tools
    And the toolkit has the tool "read"

  @spec-4 @spec-7A @seed-001 @seed-only
  Scenario: an unreachable agent is reported as an error entry (seed 001 ":errors")
    # Seed 001 promises an `:errors` entry, not its words (NOTES #320: the @beyond-spec twin
    # below checks that the message names the address); the key is PROTOCOL.md's.
    Given a toolkit built with:
      """
      {"agents": [{"card": "http://127.0.0.1:9/.well-known/agent-card.json", "timeout": 2000}]}
      """
    Then there is an error for "agent:http://127.0.0.1:9/.well-known/agent-card.json"

  @spec-4 @spec-7A @beyond-spec
  Scenario: an unreachable agent's error entry names its address
    Beyond the SPEC: seed 001 promises an `:errors` entry for an unreachable agent card but not
    its words (NOTES #320); the reference's message names the address it could not reach.
    Given a toolkit built with:
      """
      {"agents": [{"card": "http://127.0.0.1:9/.well-known/agent-card.json", "timeout": 2000}]}
      """
    Then an error mentions "127.0.0.1:9"

  @spec-4 @clause-4.toolkit.close @clause-5.usage.close
  Scenario: closing a toolkit twice is harmless
    Given a toolkit built with no options
    When the toolkit is closed
    And the toolkit is closed
    Then the toolkit is no longer known to the port

  @spec-4 @seed-001
  @partial-clause-4.builtins.whole-source-off @partial-clause-0.builtins.global-toggle
  @partial-clause-4.toolkit.custom-by-default
  Scenario: the builtin source reports its status
    Given a toolkit built with:
      """
      {"builtins": false, "skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}]}
      """
    Then the status of "builtin" is "disabled"
    And the toolkit has the tool "skill"
    And the toolkit has no tool "read"
