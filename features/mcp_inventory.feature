@pin-0.16.0
Feature: MCP list-only inventory (SPEC §2 "Gap 6 — list-only inventory")

  @spec-2
  @clause-2.inventory.unfiltered-original-names @clause-2.inventory.status @clause-2.status.values
  @clause-2.behaviour.paginate @partial-clause-2.inventory.connect-list-disconnect
  Scenario: every enabled server's unfiltered tools under their original names, with statuses
    The crashing server is given its own `timeout`: the verdict must not hang on a port bounding
    tighter than §2's 30000 ms default (NOTES #414).
    When the MCP tools are listed with:
      """
      {"mcpServers": {
        "pages": {"command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/paging.json"], "tools": {"t1": true}},
        "off": {"command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/basic.json"], "disabled": true},
        "bad": {"command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/crash-at-initialize.json"], "timeout": 1000}}}
      """
    Then the MCP inventory matches:
      """
      {"statuses": {"pages": "connected", "off": "disabled", "bad": "failed"},
       "tools": {"pages": [
         {"name": "t1", "description": "Paged tool 1", "inputSchema": {"type": "object", "properties": {}, "$partial": true}},
         {"name": "t2", "description": "Paged tool 2", "inputSchema": {"type": "object", "properties": {}, "$partial": true}},
         {"name": "t3", "description": "Paged tool 3", "inputSchema": {"type": "object", "properties": {}, "$partial": true}},
         {"name": "t4", "description": "Paged tool 4", "inputSchema": {"type": "object", "properties": {}, "$partial": true}},
         {"name": "t5", "description": "Paged tool 5", "inputSchema": {"type": "object", "properties": {}, "$partial": true}}]},
       "errors": {"$match": "object"}}
      """

  @spec-2 @clause-2.inventory.connect-list-disconnect
  Scenario: listing leaves nothing running
    When the MCP tools are listed with:
      """
      {"mcpServers": {"sleepy": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/sleeper.json"],
        "environment": {"PID_FILE": "{{TMP}}/pid"}}}}
      """
    Then the MCP inventory matches:
      """
      {"statuses": {"sleepy": "connected"}, "tools": {"sleepy": [{"name": "ping", "$partial": true}]}, "errors": {}}
      """
    And the process whose pid is in "pid" is gone
