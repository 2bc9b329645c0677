@pin-0.16.0
Feature: Built-in tools — selection, toggles and schemas (SPEC §4A, §0.11; seed select_builtins)

  @spec-4A @seed-000
  @clause-4A.toggle.whole-source @clause-4A.toggle.whole-off-wins @clause-4A.common.skill-not-in-set
  @clause-0.builtins.on-by-default @clause-0.builtins.global-toggle
  @clause-0.builtins.global-off-short-circuits @clause-4.builtins.on-by-default
  @clause-4.builtins.whole-source-off @clause-4.builtins.precedence
  @clause-4.builtins.whole-off-short-circuits @partial-clause-0.builtins.names
  @partial-clause-4A.common.memory-opt-in @partial-clause-4.builtins.per-tool-map
  Scenario Outline: select_builtins turns the whole source on or off
    When the builtins are selected with:
      """
      <config>
      """
    Then the selected builtin names are:
      """
      <names>
      """

    Examples: on
      | config                              | names                                                                                                 |
      | null                                | ["bash","read","write","edit","grep","glob","webfetch","question","apply_patch","todowrite"] |
      | true                                | ["bash","read","write","edit","grep","glob","webfetch","question","apply_patch","todowrite"] |
      | {}                                  | ["bash","read","write","edit","grep","glob","webfetch","question","apply_patch","todowrite"] |
      | {"tools": {"bash": true}}           | ["bash","read","write","edit","grep","glob","webfetch","question","apply_patch","todowrite"] |
      | {"disabled": false}                 | ["bash","read","write","edit","grep","glob","webfetch","question","apply_patch","todowrite"] |

    Examples: off
      | config                                  | names |
      | false                                   | []    |
      | {"disabled": true}                      | []    |
      | {"enabled": false}                      | []    |
      | {"disabled": true, "enabled": true}     | []    |
      | {"disabled": true, "tools": {"bash": true}} | [] |
      | {"enabled": false, "tools": {"read": true}} | [] |

  @spec-4A @seed-000
  @clause-4A.toggle.per-tool @clause-0.builtins.per-tool @clause-4.builtins.per-tool-map
  @clause-4.builtins.unknown-ignored
  Scenario Outline: a tools map only drops names from the all-on baseline
    When the builtins are selected with:
      """
      <config>
      """
    Then the selected builtin names are:
      """
      <names>
      """

    Examples:
      | config                                              | names                                                                                  |
      | {"tools": {"bash": false, "apply_patch": false}}    | ["read","write","edit","grep","glob","webfetch","question","todowrite"]                |
      | {"tools": {"bash": false, "not-a-real-tool": false}} | ["read","write","edit","grep","glob","webfetch","question","apply_patch","todowrite"] |
      | {"tools": {"bash": false, "webfetch": false}}       | ["read","write","edit","grep","glob","question","apply_patch","todowrite"]             |
      | {"tools": {"todowrite": false, "read": true}}       | ["bash","read","write","edit","grep","glob","webfetch","question","apply_patch"]       |
      | {"tools": {"nope": false}}                          | ["bash","read","write","edit","grep","glob","webfetch","question","apply_patch","todowrite"] |

  @spec-4A
  @clause-4A.common.identical-names-schemas @clause-0.builtins.names @clause-4A.bash.schema
  @clause-4A.read.schema @clause-4A.write.schema @clause-4A.edit.schema @clause-4A.grep.schema
  @clause-4A.glob.schema @clause-4A.webfetch.schema @clause-4A.question.schema @clause-4A.apply-patch.schema
  @clause-4A.todowrite.schema @partial-clause-4A.common.source-builtin @partial-clause-0.tool.shape
  @partial-clause-1.tool.input-schema-object @clause-4A.common.required-unless-optional
  Scenario: every builtin has source "builtin" and the §4A input schema (names, types, required)
    When the builtins are selected with:
      """
      null
      """
    Then the selected builtins match:
      """
      [
       {"$partial": true, "name": "bash", "source": "builtin", "description": {"$match": "string"},
        "inputSchema": {"$partial": true, "type": "object", "required": ["command"], "properties": {
          "command": {"$partial": true, "type": "string"}, "workdir": {"$partial": true, "type": "string"},
          "timeout": {"$partial": true, "type": "number"}, "description": {"$partial": true, "type": "string"}}}},
       {"$partial": true, "name": "read", "source": "builtin", "description": {"$match": "string"},
        "inputSchema": {"$partial": true, "type": "object", "required": ["path"], "properties": {
          "path": {"$partial": true, "type": "string"}, "offset": {"$partial": true, "type": "number"},
          "limit": {"$partial": true, "type": "number"}}}},
       {"$partial": true, "name": "write", "source": "builtin", "description": {"$match": "string"},
        "inputSchema": {"$partial": true, "type": "object", "required": ["path", "content"], "properties": {
          "path": {"$partial": true, "type": "string"}, "content": {"$partial": true, "type": "string"}}}},
       {"$partial": true, "name": "edit", "source": "builtin", "description": {"$match": "string"},
        "inputSchema": {"$partial": true, "type": "object", "required": ["path", "oldString", "newString"], "properties": {
          "path": {"$partial": true, "type": "string"}, "oldString": {"$partial": true, "type": "string"},
          "newString": {"$partial": true, "type": "string"}, "replaceAll": {"$partial": true, "type": "boolean"}}}},
       {"$partial": true, "name": "grep", "source": "builtin", "description": {"$match": "string"},
        "inputSchema": {"$partial": true, "type": "object", "required": ["pattern"], "properties": {
          "pattern": {"$partial": true, "type": "string"}, "path": {"$partial": true, "type": "string"},
          "include": {"$partial": true, "type": "string"}, "limit": {"$partial": true, "type": "number"}}}},
       {"$partial": true, "name": "glob", "source": "builtin", "description": {"$match": "string"},
        "inputSchema": {"$partial": true, "type": "object", "required": ["pattern"], "properties": {
          "pattern": {"$partial": true, "type": "string"}, "path": {"$partial": true, "type": "string"},
          "limit": {"$partial": true, "type": "number"}}}},
       {"$partial": true, "name": "webfetch", "source": "builtin", "description": {"$match": "string"},
        "inputSchema": {"$partial": true, "type": "object", "required": ["url"], "properties": {
          "url": {"$partial": true, "type": "string"},
          "format": {"$partial": true, "type": "string", "enum": ["text", "markdown", "html"]},
          "timeout": {"$partial": true, "type": "number"}}}},
       {"$partial": true, "name": "question", "source": "builtin", "description": {"$match": "string"},
        "inputSchema": {"$partial": true, "type": "object", "required": ["questions"], "properties": {
          "questions": {"$partial": true, "type": "array", "items": {"$partial": true, "type": "object",
            "required": ["question"], "properties": {
              "question": {"$partial": true, "type": "string"}, "header": {"$partial": true, "type": "string"},
              "options": {"$partial": true, "type": "array", "items": {"$partial": true, "type": "string"}},
              "multiple": {"$partial": true, "type": "boolean"}}}}}}},
       {"$partial": true, "name": "apply_patch", "source": "builtin", "description": {"$match": "string"},
        "inputSchema": {"$partial": true, "type": "object", "required": ["patchText"], "properties": {
          "patchText": {"$partial": true, "type": "string"}}}},
       {"$partial": true, "name": "todowrite", "source": "builtin", "description": {"$match": "string"},
        "inputSchema": {"$partial": true, "type": "object", "required": ["todos"], "properties": {
          "todos": {"$partial": true, "type": "array", "items": {"$partial": true, "type": "object",
            "required": ["id", "text", "completed"], "properties": {
              "id": {"$partial": true, "type": "string"}, "text": {"$partial": true, "type": "string"},
              "completed": {"$partial": true, "type": "boolean"}}}}}}}
      ]
      """

  @spec-4A @clause-4A.common.identical-names-schemas @clause-0.builtins.names
  Scenario: the ten builtin schemas match the reviewed snapshot
    When the builtins are selected with:
      """
      null
      """
    Then the selected builtins match snapshot "builtin-schemas" ignoring builtin descriptions

  @spec-4A @seed-000 @partial-clause-4A.bash.combined-output
  Scenario: bash runs "echo hi" and returns its output
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "echo hi"}
      """
    Then the result is not an error
    And the output matches:
      """
      ^\s*hi\s*$
      """

  @spec-4A @clause-4A.bash.non-zero-exit
  Scenario: bash with a non-zero exit is an error that states the exit code
    Given a toolkit built with no options
    When "bash" is executed with:
      """
      {"command": "exit 3"}
      """
    Then the result is an error
    And the output contains "3"

  @spec-4A @seed-000 @partial-clause-4A.read.utf8
  Scenario: read returns the text of a UTF-8 file
    Given a file "notes/mcp.json" containing:
      """
      {"mcpServers": {"x": {"command": ["true"]}}}
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/notes/mcp.json"}
      """
    Then the result is not an error
    And the output contains "mcpServers"

  @spec-4A @clause-4A.read.missing-file @partial-clause-4A.common.failure-is-result
  Scenario: read of a missing file is an isError result
    # §4A gives the failure no words (NOTES #320: the @beyond-spec twin below checks them);
    # the positive control: once the file exists, the same call reads it.
    Given a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/does-not-exist.txt"}
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    When "write" is executed with:
      """
      {"path": "{{TMP}}/does-not-exist.txt", "content": "exists now"}
      """
    And "read" is executed with:
      """
      {"path": "{{TMP}}/does-not-exist.txt"}
      """
    Then the result is not an error
    And the output contains "exists now"

  @spec-4A @beyond-spec
  Scenario: read's error for a missing file names the file or says it is missing
    Beyond the SPEC: §4A says "Missing file ⇒ `isError:true`" and gives no words (NOTES #320);
    the reference and python name the path or say "no such file".
    Given a file "here.txt" containing:
      """
      here
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/does-not-exist.txt"}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)does-not-exist|no such|not found
      """
    When "read" is executed with:
      """
      {"path": "{{TMP}}/here.txt"}
      """
    Then the result is not an error
    And the output contains "here"

  @spec-4A @spec-10
  @clause-4A.question.suspends @clause-4A.question.first-call-pending @clause-4A.question.rendered-order
  @clause-4A.question.rendered-join @clause-4A.question.header-not-rendered @clause-4A.question.byte-identical
  @clause-1.pending.metadata-pending @clause-10.pending.is-error-true
  @partial-clause-4A.question.rendered-options
  Scenario: question suspends with a kind "question" Request whose prompt is rendered byte-exactly
    Given a toolkit built with no options
    When "question" is executed with:
      """
      {"questions": [{"question": "Pick one", "options": ["a", "b"]}, {"question": "Why?", "header": "H"}]}
      """
    Then the result suspends with a "question" request
    And the result matches:
      """
      {"output": {"$match": "string"}, "isError": true,
       "metadata": {"$partial": true, "pending": {"$partial": true, "id": {"$match": "string"}, "kind": "question",
         "prompt": "Pick one (options: a, b)\nWhy?",
         "data": {"questions": [{"question": "Pick one", "options": ["a", "b"]}, {"question": "Why?", "header": "H"}]}}}}
      """

  @spec-4A @spec-10 @clause-4A.question.retry-returns-answer-data
  Scenario: question re-executed with the answer returns the JSON of answer.data
    Given a toolkit built with no options
    When "question" is executed with:
      """
      {"questions": [{"question": "Color?", "options": ["red", "blue"]}]}
      """
    And the same call is executed again with the answer:
      """
      {"ok": true, "data": {"answers": ["red"]}}
      """
    Then the result is not an error
    And the output parses as JSON matching:
      """
      {"answers": ["red"]}
      """

  @spec-4A @spec-0.11
  @clause-4A.toggle.whole-source @clause-4A.toggle.per-tool @clause-4A.safety.toggle-off-switch
  @clause-4A.common.skill-not-in-set @clause-4.builtins.whole-source-off @clause-4.create.builtins-per-tool
  @partial-clause-4.create.builtins-default-on
  Scenario Outline: the toolkit's builtins option gates the builtin source
    Given a toolkit built with:
      """
      {"builtins": <config>, "skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}]}
      """
    Then the toolkit has <count> tools

    Examples:
      | config                                     | count |
      | false                                      | 1     |
      | {"disabled": true}                         | 1     |
      | {"enabled": false}                         | 1     |
      | {"tools": {"bash": false, "write": false}} | 9     |
      | true                                       | 11    |

  @spec-4A @spec-0.11
  @clause-0.builtins.not-in-system-prompt @clause-4.builtins.on-by-default
  @partial-clause-4.builtins.schema-only
  Scenario: builtins reach the model only through the adapters, never the skills prompt
    Given a toolkit built with:
      """
      {"skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}]}
      """
    Then the toolkit has the tool "bash"
    And the skills prompt does not mention "bash"
    And the skills prompt does not mention "apply_patch"

  @spec-4A @spec-2 @clause-4.builtins.config-key @partial-clause-4A.toggle.per-tool
  Scenario: a top-level builtins key in a parsed config object toggles the source
    Given a toolkit built with:
      """
      {"mcpConfig": {"mcpServers": {}, "builtins": {"tools": {"bash": false}}}}
      """
    Then the toolkit has no tool "bash"
    And the toolkit has the tool "read"

  @spec-4A @spec-2 @partial-clause-4.builtins.config-key
  Scenario: the builtins option wins over a builtins key in the config object
    Given a toolkit built with:
      """
      {"builtins": true, "mcpConfig": {"mcpServers": {}, "builtins": false}}
      """
    Then the toolkit has the tool "bash"
    And the toolkit has the tool "read"

  @spec-4A @seed-000
  @clause-4A.toggle.per-tool @partial-clause-4.builtins.schema-only @partial-clause-4.adapter.anthropic
  @partial-clause-0.adapters.anthropic
  Scenario: the selected builtins adapt like any other tools (seed example 3)
    Given a toolkit built with:
      """
      {"builtins": {"tools": {"bash": false, "webfetch": false}}, "disableTools": ["skill"]}
      """
    Then the "anthropic" adapter output matches:
      """
      [{"name": "read", "description": {"$match": "string"}, "input_schema": {"$match": "object"}},
       {"name": "write", "description": {"$match": "string"}, "input_schema": {"$match": "object"}},
       {"name": "edit", "description": {"$match": "string"}, "input_schema": {"$match": "object"}},
       {"name": "grep", "description": {"$match": "string"}, "input_schema": {"$match": "object"}},
       {"name": "glob", "description": {"$match": "string"}, "input_schema": {"$match": "object"}},
       {"name": "question", "description": {"$match": "string"}, "input_schema": {"$match": "object"}},
       {"name": "apply_patch", "description": {"$match": "string"}, "input_schema": {"$match": "object"}},
       {"name": "todowrite", "description": {"$match": "string"}, "input_schema": {"$match": "object"}}]
      """

  @spec-4A @clause-4.builtins.precedence @partial-clause-4.builtins.per-tool-map
  @partial-clause-0.builtins.global-toggle @partial-clause-0.builtins.per-tool
  Scenario Outline: a non-boolean toggle inside the builtins object turns nothing off
    §4 "`disabled:true` wins, else `enabled:false` disables, else on"; a tool "mapped to
    `false` is dropped, `true` (or absent) stays on" on the all-on baseline: only the JSON
    booleans are toggles, so `"yes"`, `0`, `"false"` or `null` leave the baseline on (NOTES #186).
    When the builtins are selected with:
      """
      <config>
      """
    Then the selected builtin names are:
      """
      ["bash","read","write","edit","grep","glob","webfetch","question","apply_patch","todowrite"]
      """

    Examples:
      | config                                  |
      | {"disabled": "yes"}                     |
      | {"disabled": 1}                         |
      | {"enabled": 0}                          |
      | {"enabled": "false"}                    |
      | {"enabled": null}                       |
      | {"tools": {"bash": 0}}                  |
      | {"tools": {"bash": "false"}}            |
      | {"tools": {"bash": null}}               |

  @spec-4A @beyond-spec
  Scenario Outline: a builtins value that is neither a boolean nor an object leaves the source on
    Beyond the SPEC: §4 types the option `boolean | object`; the reference reads any other
    value as no toggle (all ten on, "else on"); python 0.21 raises AttributeError and
    rust-crate 0.23's typed `BuiltinsConfig` cannot hold it, so its driver refuses it
    (NOTES #186).

    When the builtins are selected with:
      """
      <config>
      """
    Then the selected builtin names are:
      """
      ["bash","read","write","edit","grep","glob","webfetch","question","apply_patch","todowrite"]
      """

    Examples:
      | config     |
      | "yes"      |
      | "false"    |
      | 0          |
      | ["bash"]   |
