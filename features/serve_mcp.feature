@pin-0.16.0
Feature: Serving a toolkit as an MCP server — the inbound `serve` MCP profile (SPEC §7C)
  The harness serves a built toolkit (`serve`, PROTOCOL.md §5.23) with the `mcp` profile and
  connects its own rmcp client over streamable HTTP to `<url>/mcp`: `initialize`, `tools/list`,
  `tools/call`. No §8 client is created: the MCP client is the LLM host. `onCall` records and
  the `awaitCancel` tool's `toolCancels` come from `serve_records` (§5.25). The SPEC fixes no
  order for `tools/list`, so names are compared in any order (NOTES #270).

  @spec-7C @clause-7C.initialize.server-info @partial-clause-7C.config.defaults
  @partial-clause-7C.serve.streamable-http @partial-clause-7C.serve.no-client
  Scenario: initialize advertises the default serverInfo and the tools capability
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {}}
      """
    When an MCP client connects to "s1"
    Then the MCP server info at "serverInfo.name" is "toolnexus"
    And the MCP server info at "serverInfo.version" is "0.1.0"
    And the MCP server info at "capabilities.tools" is {"$match": "object"}

  @spec-7C @clause-7C.initialize.server-info @partial-clause-7C.config.defaults
  Scenario: initialize advertises the profile's name and version
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "my-gateway", "version": "3.1.4"}}
      """
    When an MCP client connects to "s1"
    Then the MCP server info at "serverInfo.name" is "my-gateway"
    And the MCP server info at "serverInfo.version" is "3.1.4"
    And the MCP server info at "capabilities.tools" is {"$match": "object"}

  @spec-7C @clause-7C.tools-list.entry-shape @clause-7C.tools-list.all-by-default
  @clause-7C.tools-list.input-schema
  Scenario: tools/list lists every toolkit tool with its description and inputSchema
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [
        {"name": "lookup", "description": "Looks a word up",
         "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "the word"}}, "required": ["q"]},
         "behaviour": {"echo": true}},
        {"name": "plain", "behaviour": {"text": "plain"}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {}}
      """
    When an MCP client connects to "s1"
    And the MCP client lists the tools
    Then the MCP server lists every toolkit tool as the toolkit does
    And the MCP tool "lookup" is listed as:
      """
      {"name": "lookup", "description": "Looks a word up",
       "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "the word"}}, "required": ["q"]},
       "$partial": true}
      """

  @spec-7C @clause-7C.tools-list.all-by-default @partial-clause-7C.tools-list.entry-shape
  @clause-7C.tools-list.input-schema
  Scenario: with builtins on, tools/list carries the builtins as the toolkit lists them
    Given a toolkit built with:
      """
      {"extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client lists the tools
    Then the MCP server lists every toolkit tool as the toolkit does

  @spec-7C @clause-7C.tools-list.name-verbatim
  Scenario: tool names go on the wire verbatim: mixed case, dashes, an MCP server prefix
    Given a mock MCP server over HTTP runs "basic.json"
    And a toolkit built with:
      """
      {"builtins": false, "mcpConfig": {"mcpServers": {"Web-Srv": {"url": "{{MCP_URL}}"}}},
       "extraTools": [{"name": "Mixed-Case_Tool", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"tools": ["Mixed-Case_Tool", "Web-Srv_echo"]}}
      """
    When an MCP client connects to "s1"
    And the MCP client lists the tools
    Then the MCP tool names are, in any order:
      """
      ["Mixed-Case_Tool", "Web-Srv_echo"]
      """
    When the MCP client calls "Mixed-Case_Tool" with:
      """
      {"v": 1}
      """
    Then the MCP answer at "content" is [{"type": "text", "text": "{\"v\":1}"}]

  @spec-7C @clause-7C.tools-list.filter
  Scenario: mcp.tools filters tools/list to exactly those names; unknown names are ignored
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [
        {"name": "alpha", "behaviour": {"text": "a"}},
        {"name": "beta", "behaviour": {"text": "b"}},
        {"name": "gamma", "behaviour": {"text": "c"}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"tools": ["gamma", "no_such_tool", "alpha"]}}
      """
    When an MCP client connects to "s1"
    And the MCP client lists the tools
    Then the MCP tool names are, in any order:
      """
      ["alpha", "gamma"]
      """

  @spec-7C @partial-clause-7C.tools-list.filter
  Scenario: a tool the filter leaves out cannot be called; an exposed one can
    §7C filters "the list"; whether a call to a tool left out of it is the unknown-name error
    (-32602, the reference) or an isError result is open. Either way the tool does not run:
    its output ("secret") never comes back.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [
        {"name": "shown", "behaviour": {"text": "visible"}},
        {"name": "hidden", "behaviour": {"text": "secret"}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"tools": ["shown"]}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "hidden"
    Then the MCP answer at "$" is:
      """
      {"$oneOf": [{"error": {"code": -32602, "$partial": true}},
                  {"isError": true, "$partial": true}]}
      """
    And the MCP answer does not mention "secret"
    When the MCP client calls "shown"
    Then the MCP answer at "content" is [{"type": "text", "text": "visible"}]

  @spec-7C @partial-clause-7C.tools-list.filter
  Scenario: an empty mcp.tools list exposes no tool
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"tools": []}}
      """
    When an MCP client connects to "s1"
    And the MCP client lists the tools
    Then the MCP tool names are, in any order:
      """
      []
      """

  @spec-7C @clause-7C.tools-call.single-text-part @partial-clause-7C.serve.no-client
  Scenario: tools/call runs the tool and answers its output as one text part
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "echo" with:
      """
      {"text": "héllo", "n": 2, "nested": {"ok": true}}
      """
    Then the MCP call result is not an error
    And the MCP answer at "content" is [{"type": "text", "text": "{\"text\":\"héllo\",\"n\":2,\"nested\":{\"ok\":true}}"}]

  @spec-7C @clause-7C.tools-call.single-text-part
  Scenario: a tool's error result propagates as isError with its text
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "boom", "behaviour": {"fail": "it broke"}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "boom"
    Then the MCP call result is an error
    And the MCP answer at "content" is [{"type": "text", "text": "it broke"}]

  @spec-7C @clause-7C.tools-call.throw-is-error
  Scenario: a tool that panics becomes isError with the error text, and the server keeps serving
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [
        {"name": "crash", "behaviour": {"panic": "kaboom"}},
        {"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "crash"
    Then the MCP call result is an error
    And the MCP answer at "content[0].type" is "text"
    And the MCP answer at "content[0].text" contains "kaboom"
    When the MCP client calls "echo" with:
      """
      {"after": "crash"}
      """
    Then the MCP call result is not an error
    And the MCP answer at "content[0].text" is "{\"after\":\"crash\"}"
    When the MCP client calls "crash"
    Then the MCP call result is an error

  @spec-7C @clause-7C.tools-call.unknown-tool
  Scenario: calling an unknown tool is InvalidParams (-32602); a known one still works
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "no_such_tool"
    Then the MCP answer is the error -32602
    When the MCP client calls "echo"
    Then the MCP answer at "content" is [{"type": "text", "text": "{}"}]

  @spec-7C @clause-7C.tools-call.no-metadata
  Scenario: a result's metadata stays off the MCP wire
    The `suspend` tool's result carries `metadata.pending`; the wire result has only content
    and isError (no `_meta`, no `structuredContent`, no `metadata`).
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "input", "prompt": "Which book?"}}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "gate"
    Then the MCP call result is an error
    And the MCP answer at "content" is [{"type": "text", "text": "Which book?"}]
    And the MCP answer has nothing at "metadata"
    And the MCP answer has nothing at "_meta"
    And the MCP answer has nothing at "structuredContent"
    And the MCP answer does not mention "pending"

  @spec-7C @clause-7C.on-call.shape
  Scenario: onCall records each tools/call with name, source, duration and isError
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [
        {"name": "echo", "behaviour": {"echo": true}},
        {"name": "boom", "behaviour": {"fail": "nope"}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}, "onCall": true}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "echo"
    And the MCP client calls "boom"
    And the serve records are read once onCall has 2 entries
    Then onCall has 2 entries
    And onCall at "[0]" is {"name": "echo", "source": "native", "ms": {"$match": "number"}, "isError": false}
    And onCall at "[1]" is {"name": "boom", "source": "native", "ms": {"$match": "number"}, "isError": true}

  @spec-7C @partial-clause-7C.on-call.shape @partial-clause-7C.tools-call.no-metadata
  Scenario: onCall is not asked for: nothing is recorded, and calls still work
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "echo"
    And the serve records are read
    Then the MCP call result is not an error
    And onCall has 0 entries

  @spec-7C @clause-7C.tools-call.ctx-cancellation
  Scenario: abandoning a call fires the tool's cancellation signal
    The control call runs to its end (`not cancelled`); the abandoned one is dropped after
    300 ms, long before its 8 s wait ends, and the tool sees the signal (NOTES #272).
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [
        {"name": "short_wait", "behaviour": {"awaitCancel": {"ms": 100}}},
        {"name": "long_wait", "behaviour": {"awaitCancel": {"ms": 8000}}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "short_wait"
    Then the MCP answer at "content" is [{"type": "text", "text": "not cancelled"}]
    When the MCP client calls "long_wait" and abandons it after 300 ms
    And the serve records are read once toolCancels has 2 entries
    Then toolCancels at "[0]" is {"name": "short_wait", "cancelled": false}
    And toolCancels at "[1]" is {"name": "long_wait", "cancelled": true}

  @spec-7C @clause-7C.serve.absent-no-surface
  Scenario Outline: an MCP-only serve answers 404 on every other path (GET <path>)
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When the A2A peer gets "<path>"
    Then the A2A status is 404
    When an MCP client connects to "s1"
    And the MCP client calls "echo"
    Then the MCP call result is not an error

    Examples:
      | path                         |
      | /.well-known/agent-card.json |
      | /                            |
      | /anything/else               |

  @spec-7C @clause-7C.serve.absent-no-surface @partial-clause-7C.serve.opt-in
  Scenario: an A2A-only serve mounts no /mcp
    Given a mock LLM runs "serve.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the MCP client posts the raw body:
      """
      {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "harness", "version": "1"}}}
      """
    Then the MCP answer has nothing at "result.serverInfo"
    And the MCP answer has nothing at "result.capabilities"
    When the A2A peer gets "/.well-known/agent-card.json"
    Then the A2A status is 200

  @spec-7C @partial-clause-7C.transport.stateless
  Scenario: a tools/call POST without a session or initialize is served (stateless transport)
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When the MCP client posts the raw body:
      """
      {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo", "arguments": {"raw": true}}}
      """
    Then the MCP status is 200
    And the MCP answer at "id" is 7
    And the MCP answer at "result.content" is [{"type": "text", "text": "{\"raw\":true}"}]

  @spec-7C @partial-clause-7C.transport.stateless
  Scenario: two MCP clients served at once each get their own answers
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "echo" with:
      """
      {"who": "first"}
      """
    Then the MCP answer at "content[0].text" is "{\"who\":\"first\"}"
    When an MCP client connects to "s1"
    And the MCP client calls "echo" with:
      """
      {"who": "second"}
      """
    Then the MCP answer at "content[0].text" is "{\"who\":\"second\"}"

  @spec-7C @spec-2 @clause-7C.serve.opt-in @partial-clause-2.config.reserved-keys-not-servers
  @partial-clause-2.config.reserved-key-mcp-server
  Scenario Outline: a config file's top-level mcpServer block is the MCP profile and no MCP server (<form>)
    Given a file "mcp.json" containing:
      """
      <config>
      """
    And a toolkit built with:
      """
      {"builtins": false, "mcpConfig": "{{TMP}}/mcp.json", "extraTools": [
        {"name": "alpha", "behaviour": {"text": "a"}}, {"name": "beta", "behaviour": {"text": "b"}}]}
      """
    And the toolkit is served as "s1"
    Then there is no status for "mcpServer"
    And there are no errors
    And the toolkit has the tool "beta"
    When an MCP client connects to "s1"
    Then the MCP server info at "serverInfo.name" is "from-file"
    And the MCP server info at "serverInfo.version" is "7.0.0"
    When the MCP client lists the tools
    Then the MCP tool names are, in any order:
      """
      ["beta"]
      """

    Examples:
      | form           | config                                                                                       |
      | raw server map | {"mcpServer": {"name": "from-file", "version": "7.0.0", "tools": ["beta"]}}                  |
      | wrapper        | {"mcpServers": {}, "mcpServer": {"name": "from-file", "version": "7.0.0", "tools": ["beta"]}} |

  @spec-7C @partial-clause-2.config.reserved-keys @partial-clause-2.config.reserved-key-mcp-server
  @clause-7C.serve.co-mounted
  Scenario: a config file with both reserved profile blocks serves both surfaces on one handle
    Given a mock LLM runs "serve.json"
    And a file "mcp.json" containing:
      """
      {"a2a": {"name": "Both"}, "mcpServer": {"name": "both-mcp"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "mcpConfig": "{{TMP}}/mcp.json", "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1"
    Then there is no status for "a2a"
    And there is no status for "mcpServer"
    When the A2A peer gets "/.well-known/agent-card.json"
    Then the A2A answer at "name" is "Both"
    When an MCP client connects to "s1"
    Then the MCP server info at "serverInfo.name" is "both-mcp"

  @spec-7C @partial-clause-7C.tools-list.all-by-default @partial-clause-7C.tools-call.single-text-part
  @partial-clause-7C.on-call.shape
  Scenario: the gateway re-exposes an MCP server's, a skill's, an HTTP and a native tool, each callable end to end
    Given a mock MCP server over HTTP runs "basic.json"
    And an HTTP server answers:
      """
      {"GET /ping": {"status": 200, "body": "pong from http"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "skills": [{"name": "beta", "description": "Second fixture skill.", "content": "Beta body."}],
       "mcpConfig": {"mcpServers": {"web": {"url": "{{MCP_URL}}"}}},
       "extraTools": [{"name": "local_echo", "behaviour": {"echo": true}},
                      {"name": "ping", "http": {"method": "GET", "url": "{{HTTP}}/ping"}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}, "onCall": true}
      """
    When an MCP client connects to "s1"
    And the MCP client lists the tools
    Then the MCP server lists every toolkit tool as the toolkit does
    When the MCP client calls "web_echo" with:
      """
      {"text": "through the gateway"}
      """
    Then the MCP answer at "content" is [{"type": "text", "text": "through the gateway"}]
    When the MCP client calls "skill" with:
      """
      {"name": "beta"}
      """
    Then the MCP call result is not an error
    And the MCP answer at "content[0].text" contains "Beta body."
    When the MCP client calls "ping"
    Then the MCP answer at "content[0].text" contains "pong from http"
    When the MCP client calls "local_echo" with:
      """
      {"x": 1}
      """
    Then the MCP answer at "content" is [{"type": "text", "text": "{\"x\":1}"}]
    When the serve records are read once onCall has 4 entries
    Then onCall has 1 entries with "source" equal to "mcp"
    And onCall has 1 entries with "source" equal to "skill"
    And onCall has 1 entries with "source" equal to "http"
    And onCall has 1 entries with "source" equal to "native"
    And onCall has 4 entries with "isError" equal to false

  @spec-7C @until-0.16.0 @partial-clause-7C.tools-call.single-text-part
  Scenario: an MCP server's multi-part result reaches the gateway's client as one text part
    The toolkit joins the server's text parts into one output (§2); the gateway sends that
    output as the single part. As SPEC 0.16.0 and earlier have it (§7C "`output` → a single
    `{type:"text", text}` content part"; §2 drops the image): from 0.17.0 the server's image
    becomes a part (§2) and a block after the text (§7C), which serve_mcp_parts.feature checks.
    Given a mock MCP server over HTTP runs "basic.json"
    And a toolkit built with:
      """
      {"builtins": false, "mcpConfig": {"mcpServers": {"web": {"url": "{{MCP_URL}}"}}}}
      """
    And "web_list_colors" is executed
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "web_list_colors"
    Then the MCP answer has nothing at "content[1]"
    And the MCP answer at "content[0].type" is "text"
    And the MCP answer's first text is the output of the last execution

  @spec-7C @partial-clause-7B.serve.handle
  Scenario: a stopped MCP handle refuses connections
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "echo"
    Then the MCP call result is not an error
    When "s1" is stopped
    Then "s1" refuses connections
