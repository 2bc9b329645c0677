@pin-0.17.0
Feature: MCP results' non-text content becomes ToolResult.parts (SPEC §2 execute, §0.4, §1B)

  An MCP `tools/call` result's non-text entries become `ToolResult.parts` on every branch
  (plain text, `structuredContent`, `isError`), collected before either short-circuit: an image
  or audio entry as that part with the server's base64 verbatim, a `resource_link` as a file
  part by `url`, a `resource` blob as a file part by `data`; a `resource` text is output, not a
  part. A text-only result has no `parts` key; a result with no text entries describes its
  parts in its output. The server is mock-servers/scenarios/parts.json. Every scenario here holds from SPEC 0.17.0: its clauses
  (the newest text's index) arrive there.

  Background:
    Given the toolkit options:
      """
      {"builtins": false, "mcpConfig": {"mcpServers": {"parts": {
        "command": ["{{BIN}}", "mock", "mcp", "--transport", "stdio", "--scenario", "{{MOCKS}}/parts.json"],
        "timeout": 3000}}}}
      """
    And the toolkit is built

  @spec-2 @clause-2.execute.parts-every-branch @clause-2.execute.parts-before-short-circuits @clause-2.execute.part-image @clause-2.execute.part-audio @clause-0.mcp-execute.non-text-parts
  Scenario Outline: an <kind> entry becomes a part on the <branch> branch
    Holds from SPEC 0.17.0 (§2: parts on every branch, collected before the short-circuits);
    the image's and the audio's base64 is the server's, verbatim.
    When "parts_<kind>_<branch>" is executed
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": <error>, "$partial": true,
       "parts": [{"type": "<kind>", "mimeType": "<mime>", "data": "<data>", "$partial": true}]}
      """

    Examples:
      | kind  | branch     | error | mime      | data             |
      | image | plain      | false | image/png | iVBORw0KGgo=     |
      | image | structured | false | image/png | iVBORw0KGgo=     |
      | image | error      | true  | image/png | iVBORw0KGgo=     |
      | audio | plain      | false | audio/wav | UklGRiQAAABXQVZF |
      | audio | structured | false | audio/wav | UklGRiQAAABXQVZF |
      | audio | error      | true  | audio/wav | UklGRiQAAABXQVZF |

  @spec-2 @clause-2.execute.parts-every-branch @clause-2.execute.parts-before-short-circuits @clause-2.execute.part-resource-link
  Scenario Outline: a resource_link becomes a file part by url on the <branch> branch
    Holds from SPEC 0.17.0 (§2: `resource_link` ⇒ `{type:"file", url: <uri>, mimeType?, name?}`);
    the optional keys are not pinned.
    When "parts_link_<branch>" is executed
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": <error>, "$partial": true,
       "parts": [{"type": "file", "url": "https://example.test/report.pdf", "data": {"$absent": true}, "$partial": true}]}
      """

    Examples:
      | branch     | error |
      | plain      | false |
      | structured | false |
      | error      | true  |

  @spec-2 @clause-2.execute.parts-every-branch @clause-2.execute.parts-before-short-circuits @clause-2.execute.part-resource-blob
  Scenario Outline: a resource blob becomes a file part by data on the <branch> branch
    Holds from SPEC 0.17.0 (§2: `resource` w/ `blob` ⇒ `{type:"file", mimeType, data: <blob>,
    name?: <uri>}`); the optional name is not pinned.
    When "parts_blob_<branch>" is executed
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": <error>, "$partial": true,
       "parts": [{"type": "file", "mimeType": "application/pdf", "data": "JVBERi0xLjQK", "url": {"$absent": true}, "$partial": true}]}
      """

    Examples:
      | branch     | error |
      | plain      | false |
      | structured | false |
      | error      | true  |

  @spec-2 @clause-2.execute.part-resource-text @clause-0.mcp-execute.non-text-parts
  Scenario: a resource's text is appended to the output, not made a part
    Holds from SPEC 0.17.0 (§2: `resource` w/ `text` ⇒ appended to `output` (not a part)).
    The cause, if it fails: the text is lost or becomes a part; the server's text entry comes
    first (how the two are joined is not pinned, NOTES #49).
    When "parts_note_plain" is executed
    Then the result matches:
      """
      {"output": {"$regex": "^here it is\\s*inside the note$"}, "isError": false, "parts": {"$absent": true}, "$partial": true}
      """

  @spec-2 @clause-2.execute.part-resource-text
  Scenario Outline: a resource's text is never a part on the <branch> branch
    Holds from SPEC 0.17.0 (§2: a `resource` text is "not a part"); whether it joins a
    structured or error output is open (NOTES #350), so the output is not checked.
    When "parts_note_<branch>" is executed
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": <error>, "parts": {"$absent": true}, "$partial": true}
      """

    Examples:
      | branch     | error |
      | structured | false |
      | error      | true  |

  @spec-2 @clause-2.execute.text-only-no-parts-key @clause-1.tool-result.parts-optional
  Scenario: a text-only result has no parts key
    Holds from SPEC 0.17.0 (§2: "A text-only result yields no `parts` key at all"); the
    positive control: the same server's image result on the plain branch carries one.
    When "parts_text_only" is executed
    Then the result matches:
      """
      {"output": {"$regex": "^just\\s+text$"}, "isError": false, "parts": {"$absent": true}, "$partial": true}
      """
    When "parts_image_plain" is executed
    Then the result matches:
      """
      {"output": "here it is", "isError": false, "parts": [{"$match": "object"}], "$partial": true}
      """

  @spec-2 @clause-1.tool-result.output-required-with-parts @clause-1.tool-result.output-always-required
  Scenario: a result with parts keeps its text output
    Holds from SPEC 0.17.0 (§1: `output` stays required even when `parts` is present).
    When "parts_image_plain" is executed
    Then the result matches:
      """
      {"output": "here it is", "isError": false, "parts": [{"type": "image", "$partial": true}], "$partial": true}
      """

  @spec-2 @clause-1.part-strings.mcp-no-text-output @clause-1.part-strings.described-in-text
  Scenario: an image-only result's output describes the image
    Holds from SPEC 0.17.0 (§1B: an MCP result with no text entries takes the described form
    for `output`): the server's image is 8 bytes decoded.
    When "parts_image_only" is executed
    Then the result matches:
      """
      {"output": "image (image/png, 8 bytes)", "isError": false, "parts": [{"type": "image", "$partial": true}], "$partial": true}
      """

  @spec-2 @clause-1.part-strings.mcp-no-text-output @clause-1.part-strings.url-zero-bytes
  Scenario: a result without text describes each part on its own line, a url part as 0 bytes
    Holds from SPEC 0.17.0 (§1B: one line per part, joined with "\n"; a url part renders
    `<bytes>` as `0`).
    When "parts_media_only" is executed
    Then the output is:
      """
      image (image/png, 8 bytes)
      audio (audio/wav, 12 bytes)
      file (application/pdf, 0 bytes)
      """

  @spec-2 @clause-0.mcp-execute.non-text-parts @clause-0.mcp-execute.nothing-dropped @clause-2.execute.parts-every-branch
  Scenario: nothing is dropped: every non-text entry of one result becomes a part
    Holds from SPEC 0.17.0 (§0.4: "Nothing is dropped silently"). The order of the parts is
    not pinned; the text resource stays output.
    When "parts_all_kinds" is executed
    Then the result matches:
      """
      {"output": {"$regex": "^everything\\s*inside the note$"}, "isError": false, "$partial": true,
       "parts": {"$unordered": [
         {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo=", "$partial": true},
         {"type": "audio", "mimeType": "audio/wav", "data": "UklGRiQAAABXQVZF", "$partial": true},
         {"type": "file", "url": "https://example.test/report.pdf", "$partial": true},
         {"type": "file", "data": "JVBERi0xLjQK", "$partial": true}]}}
      """
