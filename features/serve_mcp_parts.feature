@pin-0.17.0
Feature: MCP server, inbound: a result's parts as MCP content blocks (SPEC §7C, the text after 0.16.0)
  SPEC 0.17.0's §7C maps a `ToolResult` to a `CallToolResult` as the `output`'s text block,
  followed by one MCP content block per non-text part in order: `image`→image, `audio`→audio,
  `file` with `data`→embedded resource, `file` with `url`→`resource_link`. The toolkit is
  served as in serve_mcp.feature and read by the harness's MCP client (rmcp); the tools are
  the `parts` behaviour (PROTOCOL.md §7), the port's own ToolResult with parts.

  @spec-7C @partial-clause-7C.tools-call.text-then-part-blocks @partial-clause-7C.tools-call.image-block
  Scenario: an MCP server's text parts and image reach the gateway's client as one text block, then the image
    serve_mcp.feature's multi-part scenario as the text after 0.16.0 has it: the toolkit joins the server's text
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
