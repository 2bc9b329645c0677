@pin-0.16.0
Feature: Core contract — sanitize, the Tool/ToolResult shape, native tools (SPEC §0, §1, §6)

  @spec-0.2 @clause-0.sanitize.charset
  Scenario Outline: sanitize replaces every character outside [a-zA-Z0-9_-] with "_"
    When this value is sanitized:
      """
      <input>
      """
    Then the sanitized value is "<output>"

    Examples:
      | input     | output    |
      | a.b c     | a_b_c     |
      | ok_-9     | ok_-9     |
      | a/b:c     | a_b_c     |
      | héllo     | h_llo     |
      | 1+1=2     | 1_1_2     |
      | ALL_CAPS  | ALL_CAPS  |
      | x@y#z!    | x_y_z_    |

  @spec-0.2 @clause-0.sanitize.charset
  Scenario Outline: sanitize replaces a character outside the BMP with one "_" per code point or per UTF-16 code unit
    # §0.2 gives the rule as a JS regex without the `u` flag, which replaces each UTF-16 code
    # unit (two per astral character); python's `re` and §0.2's prose replace each code point.
    # Both are faithful readings of the SPEC's code, so either passes (NOTES #27).
    When this value is sanitized:
      """
      <input>
      """
    Then the sanitized value is "<per_code_point>" or "<per_code_unit>"

    Examples:
      | input | per_code_point | per_code_unit |
      | a😀b  | a_b            | a__b          |
      | 🎉é😀 | ___            | _____         |

  @spec-1 @spec-0.1
  @partial-clause-0.tool.shape @partial-clause-1.tool.input-schema-object @partial-clause-1.tool.source-values
  @partial-clause-6.native.extra-tools-or-register
  Scenario: a tool's description carries name, description, inputSchema and source
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "mine", "description": "My tool.",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        "behaviour": {"text": "ok"}}]}
      """
    Then the tool "mine" matches:
      """
      {"name": "mine", "description": "My tool.",
       "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
       "source": "native"}
      """

  @spec-1 @spec-0.2 @clause-1.tool.name-sanitized @partial-clause-0.adapters.openai
  Scenario: an extra tool's name is sanitized to [a-zA-Z0-9_-] before it reaches the tool list and the adapters
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "my tool.v2", "description": "Mine.", "behaviour": {"text": "ran"}}]}
      """
    Then the tool names are:
      """
      ["my_tool_v2"]
      """
    And the "openai" adapter output matches:
      """
      [{"type": "function", "function": {"name": "my_tool_v2", "description": "Mine.", "$partial": true}}]
      """
    And the three adapters list the tools in the toolkit's order
    When "my_tool_v2" is executed
    Then the output is "ran"

  @spec-1
  @clause-0.tool-result.shape @clause-1.tool-result.output-string @clause-1.tool-result.is-error-boolean
  Scenario: a ToolResult without metadata has exactly the keys output and isError
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "fixed", "behaviour": {"text": "hello"}}]}
      """
    When "fixed" is executed
    Then the result matches:
      """
      {"output": "hello", "isError": false}
      """

  @spec-6
  @clause-6.native.string-return @partial-clause-0.native.string-return
  Scenario: a native function returning text is a successful result with that text
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    When "echo" is executed with:
      """
      {"a": 1}
      """
    Then the result is not an error
    And the output is "{\"a\":1}"

  @spec-6 @clause-6.native.error-return @partial-clause-0.native.string-return
  Scenario: a native function that throws is an isError result carrying the message
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "boom", "behaviour": {"fail": "it broke"}}]}
      """
    When "boom" is executed
    Then the result matches:
      """
      {"output": "it broke", "isError": true}
      """

  @spec-6 @beyond-spec
  Scenario: a tool that crashes unexpectedly still yields a ToolResult, never an exception
    Beyond the SPEC: §6 maps a thrown error of a `defineTool` tool and §4A keeps builtins from
    throwing, but no sentence makes `execute` contain the exception of a raw host `Tool`; the
    reference (and PROTOCOL.md's `panic` behaviour) does.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "crash", "behaviour": {"panic": "kaboom"}}]}
      """
    When "crash" is executed
    Then the result is an error
    And the output contains "kaboom"

  @spec-6 @partial-clause-1.tool.source-values @partial-clause-6.native.same-tool
  Scenario: a native tool keeps the source the host gave it
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [
        {"name": "n1", "behaviour": {"text": "x"}},
        {"name": "c1", "source": "custom", "behaviour": {"text": "x"}}]}
      """
    Then the tool "n1" has source "native"
    And the tool "c1" has source "custom"

  @spec-4
  Scenario: executing an unknown tool name is an isError result, not a failure of the call
    # §4 gives the failure no words (NOTES #24, #320: the @beyond-spec twin below checks that
    # they name the tool); the positive control: a known tool of the same toolkit runs.
    Given a toolkit built with no options
    When "no-such-tool" is executed
    Then the result is an error
    And the output matches:
      """
      \S
      """
    When "todowrite" is executed with:
      """
      {"todos": []}
      """
    Then the result is not an error

  @spec-4 @beyond-spec
  Scenario: the error for an unknown tool name names it
    Beyond the SPEC: §4's `execute(name, args, ctx?) -> ToolResult` gives an unknown name no
    words (NOTES #24, #320); the reference and python name it (`Unknown tool: NAME`).
    Given a toolkit built with no options
    When "no-such-tool" is executed
    Then the result is an error
    And the output contains "no-such-tool"

  @spec-1 @spec-10
  @clause-0.suspension.definition @clause-1.pending.metadata-pending @partial-clause-1.pending.request-shape
  @partial-clause-0.suspension.request-answer-keys
  Scenario: a suspension is a ToolResult whose metadata.pending is a Request with the pinned keys
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "approve", "behaviour":
        {"suspend": {"kind": "approval", "prompt": "Approve the trade?", "url": "https://example.test/approve"}}}]}
      """
    When "approve" is executed
    Then the result suspends with a "approval" request
    And the result matches:
      """
      {"output": {"$match": "string"}, "isError": true,
       "metadata": {"$partial": true, "pending": {"id": {"$match": "string"}, "kind": "approval",
         "prompt": "Approve the trade?", "url": "https://example.test/approve"}}}
      """

  @spec-1 @spec-10
  @partial-clause-1.context.answer-only-on-retry @partial-clause-1.pending.answer-shape
  @partial-clause-0.suspension.request-answer-keys
  Scenario: re-executing with Context.answer resolves the suspension with the answer's data
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "ask", "behaviour": {"suspend": {"kind": "input", "prompt": "Your name?"}}}]}
      """
    When "ask" is executed
    Then the result suspends with a "input" request
    When the same call is executed again with the answer:
      """
      {"ok": true, "data": {"name": "Ada"}}
      """
    Then the result is not an error
    And the output is "{\"name\":\"Ada\"}"
