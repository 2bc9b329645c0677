@pin-0.16.0
Feature: MCP tools: names, paging, per-server filters, precedence (SPEC §2, §0.2, §0.11)

  @spec-2 @clause-2.behaviour.paginate
  Scenario: tools/list is followed through every nextCursor page, in listing order
    # paging.json serves t1..t5 two per page.
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "mcpConfig": {"mcpServers": {"pages": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/paging.json"]}}}}
      """
    Then the tool names are:
      """
      ["pages_t1", "pages_t2", "pages_t3", "pages_t4", "pages_t5"]
      """

  @spec-2
  @clause-2.behaviour.tool-name @clause-0.sanitize.mcp-tool-name @partial-clause-1.tool.name-sanitized
  @partial-clause-2.behaviour.sanitize-regex @partial-clause-0.sanitize.charset
  Scenario: the exposed name is sanitize(server) + "_" + sanitize(tool)
    Given a toolkit built with:
      """
      {"builtins": false, "mcpConfig": {"mcpServers": {"my server.v2": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/basic.json"]}}}}
      """
    Then the status of "my server.v2" is "connected"
    And the toolkit has the tool "my_server_v2_echo"
    And the toolkit has the tool "my_server_v2_list_colors"

  @spec-2 @partial-clause-0.tool.shape @partial-clause-1.tool.source-values
  Scenario: an MCP tool keeps the server's description and schema, with source "mcp"
    Given a toolkit built with:
      """
      {"builtins": false, "mcpConfig": {"mcpServers": {"mock": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/basic.json"]}}}}
      """
    Then the tool "mock_echo" matches:
      """
      {"name": "mock_echo", "description": "Echoes the text back", "source": "mcp",
       "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"],
                       "additionalProperties": {"$oneOf": [false, {"$absent": true}]}}}
      """

  @spec-2 @partial-clause-2.allowlist.semantics
  Scenario: tools of several servers: each server's tools stay together in listing order
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "mcpConfig": {"mcpServers": {
        "zeta": {"command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/paging.json"], "tools": {"t1": true, "t2": true}},
        "alpha": {"command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/slow.json"]}}}}
      """
    # Config order (zeta first) or server-name order (alpha first): the SPEC pins neither.
    Then the tool names match:
      """
      {"$oneOf": [["zeta_t1", "zeta_t2", "alpha_ping"], ["alpha_ping", "zeta_t1", "zeta_t2"]]}
      """

  @spec-2
  @clause-2.allowlist.original-name @clause-2.allowlist.before-sanitize
  @partial-clause-2.allowlist.semantics
  Scenario Outline: a per-server tools map (<kind>) applies to original names before prefixing
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "mcpConfig": {"mcpServers": {"pages": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/paging.json"],
        "tools": <map>}}}}
      """
    Then the tool names are:
      """
      <names>
      """

    Examples:
      | kind                    | map                                | names                                                   |
      | an allowlist            | {"t2": true, "t4": true}           | ["pages_t2", "pages_t4"]                       |
      | a drop-list             | {"t1": false, "t5": false}         | ["pages_t2", "pages_t3", "pages_t4"]           |
      | true wins over false    | {"t3": true, "t1": false}          | ["pages_t3"]                                   |
      | prefixed names no match | {"pages_t1": true, "t2": true}     | ["pages_t2"]                                   |
      | an empty map            | {}                                 | ["pages_t1", "pages_t2", "pages_t3", "pages_t4", "pages_t5"] |

  @spec-2 @partial-clause-2.allowlist.semantics
  Scenario: unknown names in a per-server tools map are ignored with a warning
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "mcpConfig": {"mcpServers": {"pages": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/paging.json"],
        "tools": {"t1": false, "no_such_tool": false}}}}}
      """
    Then the tool names are:
      """
      ["pages_t2", "pages_t3", "pages_t4", "pages_t5"]
      """
    # §2 says "warn" and gives no words (NOTES #320: the @beyond-spec twin below checks that
    # the warning names the unknown tool).
    And there is a warning

  @spec-2 @beyond-spec
  Scenario: the warning for unknown names in a per-server tools map names them
    Beyond the SPEC: §2 says "unknown ⇒ ignore+warn" and gives the warning no words (NOTES
    #59, #320); the reference names the unknown tool.
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "mcpConfig": {"mcpServers": {"pages": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/paging.json"],
        "tools": {"t1": false, "no_such_tool": false}}}}}
      """
    Then a warning mentions "no_such_tool"

  @spec-4 @partial-clause-4.assembly.dedupe-first-wins @partial-clause-4.assembly.net-effect
  Scenario: an MCP tool wins a name collision with an extra tool (§0.11 MCP precedence)
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "mock_echo", "source": "native", "behaviour": {"text": "native"}}],
       "mcpConfig": {"mcpServers": {"mock": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/basic.json"]}}}}
      """
    Then the tool "mock_echo" has source "mcp"
    When "mock_echo" is executed with:
      """
      {"text": "from the server"}
      """
    Then the output is "from the server"

  @spec-4 @partial-clause-2.sugar.disable-tools
  Scenario: disableTools removes MCP tools by their final exposed name
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["pages_t2", "t3", "skill"], "mcpConfig": {"mcpServers": {"pages": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/paging.json"]}}}}
      """
    Then the tool names are:
      """
      ["pages_t1", "pages_t3", "pages_t4", "pages_t5"]
      """

  @spec-4 @partial-clause-4.assembly.source-order
  Scenario: MCP tools come before the skill tool and the builtins, which stay on
    Given a toolkit built with:
      """
      {"skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}], "mcpConfig": {"mcpServers": {"pages": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/paging.json"],
        "tools": {"t1": true}}}}}
      """
    Then the tool names are:
      """
      ["pages_t1", "skill", "bash", "read", "write", "edit", "grep", "glob", "webfetch", "question", "apply_patch", "todowrite"]
      """
