@pin-0.16.0
Feature: MCP elicitation bridge (SPEC §2 "Elicitation bridge", §10)
  elicit.json's tool `ask` sends elicitation/create (form mode, message "Your name?") during
  the call and answers with the client's ElicitResult as compact JSON.

  @spec-2
  @clause-2.elicitation.advertise-with-wait-for @clause-2.elicitation.form-mode
  @clause-2.elicitation.inline @partial-clause-2.elicitation.form-mode-all-ports
  @partial-clause-1.pending.request-shape @partial-clause-10.request.data-schema
  Scenario: form mode becomes one input Request carrying the requested schema
    Given a toolkit built with:
      """
      {"builtins": false, "waitFor": {"echoRequest": true}, "mcpConfig": {"mcpServers": {"form": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/elicit.json"]}}}}
      """
    When "form_ask" is executed
    Then the result is not an error
    And the output parses as JSON matching:
      """
      {"action": "accept", "content": {
        "id": {"$regex": "^.+$"}, "kind": "input", "prompt": "Your name?",
        "data": {"$json": {"schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}},
        "url": {"$absent": true}, "expiresAt": {"$absent": true}}}
      """

  @spec-2
  @clause-2.elicitation.ok-accept @clause-2.elicitation.not-ok-decline-cancel
  @clause-2.elicitation.inline
  Scenario Outline: an answer <answer> maps to the MCP action <action>
    Given a toolkit built with:
      """
      {"builtins": false, "waitFor": {"answer": <answer>}, "mcpConfig": {"mcpServers": {"form": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/elicit.json"]}}}}
      """
    When "form_ask" is executed
    Then the output parses as JSON matching:
      """
      <result>
      """

    Examples:
      | answer                                  | action  | result                                            |
      | {"ok": true, "data": {"name": "Ada"}}   | accept  | {"action": "accept", "content": {"name": "Ada"}}  |
      | {"ok": true}                            | accept  | {"action": "accept", "content": {}}               |
      | {"ok": false, "reason": "declined"}     | decline | {"action": "decline"}                             |
      | {"ok": false, "reason": "timeout"}      | cancel  | {"action": "cancel"}                              |
      | {"ok": false}                           | cancel  | {"action": "cancel"}                              |

  @spec-2 @clause-2.elicitation.no-wait-for-no-capability
  Scenario: without a waitFor the capability is not advertised, so the server does not elicit
    Given a toolkit built with:
      """
      {"builtins": false, "mcpConfig": {"mcpServers": {"form": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/elicit.json"]}}}}
      """
    When "form_ask" is executed
    Then the output is "client did not advertise elicitation"

  @spec-2 @partial-clause-2.elicitation.ok-accept @partial-clause-2.remote.streamable-http
  Scenario: elicitation works over streamable HTTP too
    Given a mock MCP server over HTTP runs "elicit.json"
    And a toolkit built with:
      """
      {"builtins": false, "waitFor": {"answer": {"ok": true, "data": {"name": "Grace"}}},
       "mcpConfig": {"mcpServers": {"web": {"url": "{{MCP_URL}}"}}}}
      """
    When "web_ask" is executed
    Then the output parses as JSON matching:
      """
      {"action": "accept", "content": {"name": "Grace"}}
      """
