@pin-0.16.0
Feature: Provider adapters — schema only, one order (SPEC §0.7, §4 "Adapter mapping")

  @spec-0.7 @shared-examples
  @clause-0.adapters.openai @clause-0.adapters.anthropic @clause-0.adapters.gemini @clause-4.adapter.openai
  @clause-4.adapter.anthropic @clause-4.adapter.gemini @clause-3.skill-txt.verbatim @clause-3.skill-txt.line-1
  @clause-3.skill-txt.line-2 @clause-3.skill-txt.line-3 @clause-3.skill-tool.input-schema
  @clause-4.builtins.on-by-default @clause-0.builtins.on-by-default @partial-clause-0.builtins.names
  @partial-clause-4.assembly.source-order @partial-clause-0.contract.examples-match
  @partial-clause-5.usage.adapters @partial-clause-4.create.skills-dir
  Scenario Outline: each adapter's array for the default toolkit matches its reviewed snapshot
    Given a toolkit built with:
      """
      {"skillsDir": "{{EXAMPLES}}/skills"}
      """
    Then the "<format>" adapter output matches snapshot "adapter-<format>-default" ignoring builtin descriptions

    Examples:
      | format    |
      | openai    |
      | anthropic |
      | gemini    |

  @spec-0.7 @clause-0.adapters.openai @clause-0.adapters.anthropic @clause-0.adapters.gemini
  @clause-4.adapter.openai @clause-4.adapter.anthropic @clause-4.adapter.gemini
  @partial-clause-0.builtins.names @partial-clause-4.assembly.source-order
  Scenario Outline: each adapter's array for the builtins alone is the reviewed default snapshot without the skill tool
    Builds without a skill source, so a port without skill discovery still has every adapter
    checked; the skill tool is optional without one (NOTES #1), so it is dropped by name.
    Given a toolkit built with:
      """
      {"disableTools": ["skill"]}
      """
    Then the "<format>" adapter output matches snapshot "adapter-<format>-default" without the skill tool ignoring builtin descriptions

    Examples:
      | format    |
      | openai    |
      | anthropic |
      | gemini    |

  @spec-0.7 @clause-4.toolkit.adapter-names-match @partial-clause-4.adapter.gemini
  Scenario: the three adapters list the tools in the same order as tools()
    Builds without a skill source, so a port without skill discovery still meets this check.
    Given a toolkit built with:
      """
      {"extraTools": [{"name": "zzz", "behaviour": {"text": "z"}}, {"name": "Aaa", "behaviour": {"text": "a"}}]}
      """
    Then the three adapters list the tools in the toolkit's order

  @spec-0.7 @shared-examples @partial-clause-4.toolkit.adapter-names-match @partial-clause-4.adapter.gemini
  @partial-clause-4.create.skills-dir
  Scenario: the three adapters list the tools in the same order as tools() with the skill tool
    Given a toolkit built with:
      """
      {"skillsDir": "{{EXAMPLES}}/skills"}
      """
    Then the three adapters list the tools in the toolkit's order

  @spec-0.7 @clause-0.adapters.openai @clause-4.adapter.openai
  Scenario: OpenAI wraps each tool as a function with its schema as parameters
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "description": "Look a thing up.",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}, "behaviour": {"text": "x"}}],
       "disableTools": ["skill"]}
      """
    Then the "openai" adapter output matches:
      """
      [{"type": "function", "function": {"name": "lookup", "description": "Look a thing up.",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}]
      """

  @spec-0.7 @clause-0.adapters.anthropic @clause-4.adapter.anthropic
  Scenario: Anthropic maps each tool to name, description and input_schema
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "description": "Look a thing up.",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}, "behaviour": {"text": "x"}}],
       "disableTools": ["skill"]}
      """
    Then the "anthropic" adapter output matches:
      """
      [{"name": "lookup", "description": "Look a thing up.",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}]
      """

  @spec-0.7 @clause-0.adapters.gemini @clause-4.adapter.gemini
  Scenario: Gemini wraps every declaration in one element
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "extraTools": [
        {"name": "one", "description": "1", "behaviour": {"text": "x"}},
        {"name": "two", "description": "2", "behaviour": {"text": "x"}}]}
      """
    Then the "gemini" adapter output matches:
      """
      [{"functionDeclarations": [
        {"name": "one", "description": "1", "parameters": {"type": "object", "properties": {}}},
        {"name": "two", "description": "2", "parameters": {"type": "object", "properties": {}}}]}]
      """

  @spec-0.7
  @clause-4.toolkit.adapter-names-match @clause-4.assembly.extra-shadows-builtin
  @partial-clause-4.assembly.source-order @partial-clause-4.adapter.anthropic
  Scenario: adapters follow precedence, so a shadowing extra tool appears where tools() puts it
    Given a toolkit built with:
      """
      {"disableTools": ["skill"], "extraTools": [{"name": "bash", "description": "Mine.", "behaviour": {"text": "x"}}]}
      """
    Then the three adapters list the tools in the toolkit's order
    And the "anthropic" adapter output matches:
      """
      [{"$partial": true, "name": "read"}, {"$partial": true, "name": "write"},
       {"$partial": true, "name": "edit"}, {"$partial": true, "name": "grep"}, {"$partial": true, "name": "glob"},
       {"$partial": true, "name": "webfetch"}, {"$partial": true, "name": "question"},
       {"$partial": true, "name": "apply_patch"}, {"$partial": true, "name": "todowrite"},
       {"name": "bash", "description": "Mine.", "input_schema": {"type": "object", "properties": {}}}]
      """

  @spec-0.7 @partial-clause-3.skill-txt.line-1 @partial-clause-4.adapter.openai
  Scenario: the skill tool adapts with its pinned loader description
    Given a toolkit built with:
      """
      {"skills": [{"name": "alpha", "description": "First fixture skill.", "content": "Alpha body."}]}
      """
    Then the "openai" adapter output matches:
      """
      [{"type": "function", "function": {"$partial": true, "name": "skill", "description": {"$contains": "Load a specialized skill when the task at hand matches"}}},
       {"$match": "object"}, {"$match": "object"}, {"$match": "object"}, {"$match": "object"}, {"$match": "object"},
       {"$match": "object"}, {"$match": "object"}, {"$match": "object"}, {"$match": "object"}, {"$match": "object"}]
      """
