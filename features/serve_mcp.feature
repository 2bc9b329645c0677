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
    becomes a part (§2) and a block after the text (§7C), which the next scenario checks.
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

  @spec-7C @partial-clause-7C.tools-call.text-then-part-blocks @partial-clause-7C.tools-call.image-block
  Scenario: an MCP server's text parts and image reach the gateway's client as one text block, then the image
    The scenario above as the text after 0.16.0 has it: the toolkit joins the server's text
    parts into one output and takes its image as a part (§2, verbatim base64); the gateway
    sends that output as the text block, then the image block (§7C).
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
    Then the MCP answer at "content[0].type" is "text"
    And the MCP answer's first text is the output of the last execution
    And the MCP answer at "content[1]" is:
      """
      {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "$partial": true}
      """
    And the MCP answer has nothing at "content[2]"

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

  @spec-7C @clause-7C.tools-call.image-block @partial-clause-7C.tools-call.text-then-part-blocks
  Scenario: a result's image part follows the text as an MCP image block
    The tool is the `parts` behaviour (PROTOCOL.md §7): the port's own ToolResult with parts.
    The MCP client reads `content`: the output's text block, then the image as MCP's
    `{type:"image", data, mimeType}` (MCP's optional `annotations`/`_meta` left open).
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "shot", "behaviour": {"parts": {
        "output": "screenshot, 1x1 png",
        "parts": [{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}]}}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "shot"
    Then the MCP call result is not an error
    And the MCP answer at "content" is:
      """
      [{"type": "text", "text": "screenshot, 1x1 png"},
       {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "$partial": true}]
      """

  @spec-7C @clause-7C.tools-call.audio-block @partial-clause-7C.tools-call.text-then-part-blocks
  Scenario: a result's audio part follows the text as an MCP audio block
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "clip", "behaviour": {"parts": {
        "output": "a short clip",
        "parts": [{"type": "audio", "mimeType": "audio/mpeg", "data": "SUQz"}]}}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "clip"
    Then the MCP call result is not an error
    And the MCP answer at "content" is:
      """
      [{"type": "text", "text": "a short clip"},
       {"type": "audio", "data": "SUQz", "mimeType": "audio/mpeg", "$partial": true}]
      """

  @spec-7C @clause-7C.tools-call.file-data-embedded-resource @partial-clause-7C.tools-call.text-then-part-blocks
  Scenario: a result's file part with data follows the text as an MCP embedded resource
    The resource carries the part's bytes as `blob` and its `mimeType`. MCP requires the
    resource a `uri`, which a file part does not have: what the port puts there is open
    (NOTES #392), so only that it is a string is checked.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "doc", "behaviour": {"parts": {
        "output": "the report, 1 page",
        "parts": [{"type": "file", "mimeType": "application/pdf", "data": "JVBERi0xLjQK", "name": "report.pdf"}]}}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "doc"
    Then the MCP call result is not an error
    And the MCP answer at "content" is:
      """
      [{"type": "text", "text": "the report, 1 page"},
       {"type": "resource", "$partial": true,
        "resource": {"uri": {"$match": "string"}, "mimeType": "application/pdf", "blob": "JVBERi0xLjQK",
                     "$partial": true}}]
      """

  @spec-7C @clause-7C.tools-call.file-url-resource-link @partial-clause-7C.tools-call.text-then-part-blocks
  Scenario: a result's file part with a url follows the text as an MCP resource_link
    The link's `uri` is the part's `url`. MCP requires a link a `name`, which a file part
    may lack: what the port puts there is open (NOTES #391), so only that it is a string is
    checked; the `mimeType` is the part's.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "link", "behaviour": {"parts": {
        "output": "the report is online",
        "parts": [{"type": "file", "mimeType": "application/pdf", "url": "https://example.test/docs/report.pdf"}]}}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "link"
    Then the MCP call result is not an error
    And the MCP answer at "content" is:
      """
      [{"type": "text", "text": "the report is online"},
       {"type": "resource_link", "uri": "https://example.test/docs/report.pdf", "name": {"$match": "string"},
        "mimeType": "application/pdf", "$partial": true}]
      """

  @spec-7C @clause-7C.tools-call.text-then-part-blocks
  Scenario: the text block comes first, then one block per non-text part in the parts' order
    Four parts of the four kinds, in an order that is neither the SPEC's list nor sorted:
    `content` is the text, then audio, resource_link, image, embedded resource, in that order
    (each block read only for its kind and payload; #391 and #392 leave the link's name and
    the resource's uri open).
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "mixed", "behaviour": {"parts": {
        "output": "four attachments",
        "parts": [{"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="},
                  {"type": "file", "mimeType": "application/pdf", "url": "https://example.test/a.pdf"},
                  {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
                  {"type": "file", "mimeType": "application/pdf", "data": "JVBERi0xLjQK"}]}}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "mixed"
    Then the MCP call result is not an error
    And the MCP answer at "content" is:
      """
      [{"type": "text", "text": "four attachments"},
       {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav", "$partial": true},
       {"type": "resource_link", "uri": "https://example.test/a.pdf", "$partial": true},
       {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "$partial": true},
       {"type": "resource", "resource": {"blob": "JVBERi0xLjQK", "$partial": true}, "$partial": true}]
      """

  @spec-7C @clause-7C.tools-call.single-text-part @partial-clause-7C.tools-call.text-then-part-blocks
  Scenario: a result without parts is still exactly one text block, beside a tool whose result has parts
    The same served toolkit answers a text-only tool with exactly one text block (no block
    for parts it does not have), and the tool with an image part with two: the parts mapping
    adds blocks only for parts.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "plain", "behaviour": {"text": "only words"}},
        {"name": "shot", "behaviour": {"parts": {"output": "a picture",
          "parts": [{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}]}}}]}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When an MCP client connects to "s1"
    And the MCP client calls "plain"
    Then the MCP call result is not an error
    And the MCP answer at "content" is [{"type": "text", "text": "only words"}]
    When the MCP client calls "shot"
    Then the MCP answer at "content" is:
      """
      [{"type": "text", "text": "a picture"},
       {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "$partial": true}]
      """
