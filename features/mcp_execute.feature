@pin-0.16.0
Feature: executing MCP tools (SPEC §2 execute, §0.4)

  Background:
    Given the toolkit options:
      """
      {"builtins": false, "mcpConfig": {"mcpServers": {"mock": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/basic.json"],
        "timeout": 1500}}}}
      """
    And the toolkit is built

  @spec-2 @clause-2.execute.call-tool
  Scenario: arguments reach the server and its text comes back
    When "mock_echo" is executed with:
      """
      {"text": "hello, server"}
      """
    Then the output is "hello, server"
    And the result is not an error

  @spec-2 @clause-2.execute.joined-text @partial-clause-0.mcp-execute.structured-content
  Scenario: several text parts are joined in order; non-text parts are not text
    When "mock_list_colors" is executed
    Then the result matches:
      """
      {"output": {"$regex": "^red\\s+green\\s+blue$"}, "isError": false, "$partial": true}
      """

  @spec-2 @beyond-spec
  Scenario: several text parts are joined with newlines; non-text parts are not text
    Beyond the SPEC: §0.4/§2 say "joined text" without a separator; the reference and both
    published ports join with "\n" (NOTES #49).
    When "mock_list_colors" is executed
    Then the result matches:
      """
      {"output": "red\ngreen\nblue", "isError": false, "$partial": true}
      """

  @spec-2 @clause-2.execute.structured-content @partial-clause-0.mcp-execute.structured-content
  Scenario: structuredContent wins over the text parts, as compact JSON
    §0.4 gives `JSON.stringify(structuredContent)`: compact JSON of the value. The order of an
    object's keys is the host language's (a port without an ordered map cannot keep the
    server's), so the value is compared as JSON (NOTES #416); the twin below, `@beyond-spec`,
    pins the server's order. The text part says "3", so the structured value shows it won.
    When "mock_add" is executed with:
      """
      {"a": 1, "b": 2}
      """
    Then the output parses as JSON matching:
      """
      {"sum": 3, "operands": [1, 2]}
      """
    And the output matches:
      """
      ^\S+$
      """
    And the result is not an error

  @spec-2 @beyond-spec
  Scenario: structuredContent keeps the server's key order
    Beyond the SPEC: §0.4 gives `JSON.stringify(structuredContent)`, which in JavaScript keeps
    the parsed object's key order; a port whose language has no ordered map cannot, and the
    SPEC states no order (NOTES #416). The reference keeps the server's (`sum` before
    `operands`).
    When "mock_add" is executed with:
      """
      {"a": 1, "b": 2}
      """
    Then the output is:
      """
      {"sum":3,"operands":[1,2]}
      """

  @spec-2 @clause-2.execute.is-error @clause-0.mcp-execute.is-error
  Scenario: an isError result is an error carrying the server's text
    When "mock_divide" is executed with:
      """
      {"a": 1, "b": 0}
      """
    Then the output is "division by zero"
    And the result is an error

  @spec-2 @clause-2.execute.is-error @clause-0.mcp-execute.is-error
  Scenario: an isError result carries every error text, in order
    When "mock_fail_twice" is executed
    Then the output matches:
      """
      ^first problem\s+second problem$
      """
    And the result is an error

  @spec-2 @beyond-spec
  Scenario: several error texts are joined by a blank line, blank parts dropped
    Beyond the SPEC: §0.4 says "error w/ joined text" without a separator; the reference and both
    published ports join the non-blank parts with a blank line (NOTES #49).
    When "mock_fail_twice" is executed
    Then the output is "first problem\n\nsecond problem"
    And the result is an error

  @spec-2 @beyond-spec
  Scenario: an error with no text still says it failed
    Beyond the SPEC: §0.4 says "error w/ joined text", which is empty here; the reference and both
    published ports say "MCP tool returned an error".
    When "mock_fail_silently" is executed
    Then the result matches:
      """
      {"output": "MCP tool returned an error", "isError": true, "$partial": true}
      """

  @spec-2 @since-0.17.0
  Scenario: an embedded text resource is text the model reads
    SPEC 0.16.0 §0.4/§2 join only text parts (and `structuredContent`); an embedded text
    resource joins the output in python since 0.17.0 (its `content.py`, "§0.4"), so this holds
    from 0.17.0.
    When "mock_read_note" is executed
    Then the output is "inside the note"

  @spec-2 @partial-clause-1.tool-result.metadata-free-form
  Scenario: every MCP result's metadata names its server
    When "mock_echo" is executed with:
      """
      {"text": "x"}
      """
    Then the result matches:
      """
      {"output": "x", "isError": false, "metadata": {"server": "mock", "$partial": true}}
      """

  @spec-2
  Scenario: a call slower than the server's timeout is an error result, not a hang
    # slow_echo answers after 5 s; the server's timeout is 1.5 s. The metadata shows the
    # error came from the MCP call, not from an unknown-tool answer.
    When "mock_slow_echo" is executed with:
      """
      {"text": "late"}
      """
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": true, "metadata": {"server": "mock", "$partial": true}}
      """
    And the output does not contain "late"

  @spec-2
  Scenario: a server that dies during a call gives an error result, and later calls too
    When "mock_crash" is executed
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": true, "metadata": {"server": "mock", "$partial": true}}
      """
    When "mock_echo" is executed with:
      """
      {"text": "anyone there?"}
      """
    Then the result is an error

  @spec-0
  Scenario: an unknown tool name is an error result
    # The words are the port's (NOTES #24, #320: the @beyond-spec twin below checks that they
    # name the tool); the positive control: the server's own tool runs.
    When "mock_no_such_tool" is executed
    Then the result is an error
    And the output matches:
      """
      \S
      """
    When "mock_echo" is executed with:
      """
      {"text": "still here"}
      """
    Then the result is not an error
    And the output is "still here"

  @spec-0 @beyond-spec
  Scenario: the error for an unknown MCP tool name names it
    Beyond the SPEC: an unknown name has no words in the SPEC (NOTES #24, #320); the reference
    and python name it.
    When "mock_no_such_tool" is executed
    Then the result is an error
    And the output contains "mock_no_such_tool"
