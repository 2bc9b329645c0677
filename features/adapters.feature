@pin-0.16.0
Feature: Provider adapters — schema only, one order (SPEC §0.7, §4 "Adapter mapping")

  Background:
    Given a toolkit built with:
      """
      {"skillsDir": "{{EXAMPLES}}/skills"}
      """

  @spec-0.7 @shared-examples
  Scenario Outline: each adapter's array for the default toolkit matches its reviewed snapshot
    Then the "<format>" adapter output matches snapshot "adapter-<format>-default" ignoring builtin descriptions

    Examples:
      | format    |
      | openai    |
      | anthropic |
      | gemini    |

  @spec-0.7 @shared-examples
  Scenario: the three adapters list the tools in the same order as tools()
    Then the three adapters list the tools in the toolkit's order

  @spec-0.7
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

  @spec-0.7
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

  @spec-0.7
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
  Scenario: adapters follow precedence, so a shadowing extra tool appears where tools() puts it
    Given a toolkit built with:
      """
      {"skillsDir": "{{FIXTURES}}/skills/basic", "extraTools": [{"name": "bash", "description": "Mine.", "behaviour": {"text": "x"}}]}
      """
    Then the three adapters list the tools in the toolkit's order
    And the "anthropic" adapter output matches:
      """
      [{"$partial": true, "name": "skill"}, {"$partial": true, "name": "read"}, {"$partial": true, "name": "write"},
       {"$partial": true, "name": "edit"}, {"$partial": true, "name": "grep"}, {"$partial": true, "name": "glob"},
       {"$partial": true, "name": "webfetch"}, {"$partial": true, "name": "question"},
       {"$partial": true, "name": "apply_patch"}, {"$partial": true, "name": "todowrite"},
       {"name": "bash", "description": "Mine.", "input_schema": {"type": "object", "properties": {}}}]
      """

  @spec-0.7
  Scenario: the skill tool adapts with its pinned loader description
    Then the "openai" adapter output matches:
      """
      [{"type": "function", "function": {"$partial": true, "name": "skill", "description": {"$contains": "Load a specialized skill when the task at hand matches"}}},
       {"$match": "object"}, {"$match": "object"}, {"$match": "object"}, {"$match": "object"}, {"$match": "object"},
       {"$match": "object"}, {"$match": "object"}, {"$match": "object"}, {"$match": "object"}, {"$match": "object"}]
      """
