@pin-0.16.0
Feature: Built-in todowrite — validate, render and echo the todo list (SPEC §4A)

  §4A: `todowrite` replaces the session todo list with `todos` (each `{id:string, text:string,
  completed:boolean}`); output = the rendered list; stateless in v1 (it echoes the list back).
  The rendering is not fixed by §4A: the Python port 0.21 writes `[ ] text` / `[x] text`, one
  per line, so scenarios check each todo's text, their order and a completed marker
  leniently. Todos that do not have the §4A shape are an `isError` result.

  @spec-4A @clause-4A.todowrite.rendered-output @partial-clause-4A.todowrite.stateless
  Scenario: todowrite renders every todo's text in the given order
    Given a toolkit built with no options
    When "todowrite" is executed with:
      """
      {"todos": [{"id": "1", "text": "Write the scenarios", "completed": true},
                 {"id": "2", "text": "Run them on every port", "completed": false},
                 {"id": "3", "text": "Classify the failures", "completed": false}]}
      """
    Then the result is not an error
    And the output matches:
      """
      (?s)Write the scenarios.*Run them on every port.*Classify the failures
      """

  @spec-4A @beyond-spec
  Scenario: todowrite shows which todos are completed
    Beyond the SPEC: §4A says "Output = the rendered list" without a rendering; the reference and
    both published ports mark todos `[x]` / `[ ]`.
    Given a toolkit built with no options
    When "todowrite" is executed with:
      """
      {"todos": [{"id": "a", "text": "Ship it", "completed": true}, {"id": "b", "text": "Celebrate", "completed": false}]}
      """
    Then the result is not an error
    And the output matches:
      """
      (?m)^\[x\] Ship it$
      """
    And the output matches:
      """
      (?m)^\[ \] Celebrate$
      """

  @spec-4A @partial-clause-4A.todowrite.rendered-output @partial-clause-4A.todowrite.stateless
  Scenario: todowrite keeps the todos' text verbatim
    Given a toolkit built with no options
    When "todowrite" is executed with:
      """
      {"todos": [{"id": "u", "text": "Übersetzen: «Grüße» — 100% [done?]", "completed": false}]}
      """
    Then the result is not an error
    And the output contains "Übersetzen: «Grüße» — 100% [done?]"

  @spec-4A @partial-clause-4A.todowrite.replace-list
  Scenario: todowrite with an empty list is not an error
    Given a toolkit built with no options
    When "todowrite" is executed with:
      """
      {"todos": []}
      """
    Then the result is not an error

  @spec-4A @beyond-spec
  Scenario: todowrite without todos is an error result
    Beyond the SPEC: §4A gives the tool's input schema (required fields, types) but not what
    execute does with input that breaks it (NOTES #38); the reference refuses it with an isError
    result.
    Given a toolkit built with no options
    When "todowrite" is executed with:
      """
      {}
      """
    Then the result is an error
    And the output contains "todos"
    # The positive control (NOTES #321): with todos the same call renders them.
    When "todowrite" is executed with:
      """
      {"todos": [{"id": "1", "text": "buy milk", "completed": false}]}
      """
    Then the result is not an error
    And the output contains "buy milk"

  @spec-4A @beyond-spec
  Scenario: todowrite with todos that are not an array is an error result
    Beyond the SPEC: §4A gives the tool's input schema (required fields, types) but not what
    execute does with input that breaks it (NOTES #38); the reference refuses it with an isError
    result.
    Given a toolkit built with no options
    When "todowrite" is executed with:
      """
      {"todos": "buy milk"}
      """
    Then the result is an error
    And the output contains "todos"
    # The positive control (NOTES #321): as a list of todos the same text renders.
    When "todowrite" is executed with:
      """
      {"todos": [{"id": "1", "text": "buy milk", "completed": false}]}
      """
    Then the result is not an error
    And the output contains "buy milk"

  @spec-4A @beyond-spec
  Scenario Outline: todowrite with a todo of the wrong shape is an error result
    Beyond the SPEC: §4A gives the tool's input schema (required fields, types) but not what
    execute does with input that breaks it (NOTES #38); the reference refuses it with an isError
    result.
    Given a toolkit built with no options
    When "todowrite" is executed with:
      """
      {"todos": [{"id": "1", "text": "fine", "completed": false}, <todo>]}
      """
    Then the result is an error
    And the output contains "todo"
    # The positive control (NOTES #321): without the ill-shaped todo the same list renders, so
    # a port that refuses every list (its message naming the tool) fails here.
    When "todowrite" is executed with:
      """
      {"todos": [{"id": "1", "text": "fine", "completed": false}]}
      """
    Then the result is not an error
    And the output contains "fine"

    Examples:
      | todo                                            |
      | {"id": "2", "text": "no completed flag"}        |
      | {"id": "2", "text": "flag is text", "completed": "yes"} |
      | {"text": "no id", "completed": false}           |
      | {"id": "2", "completed": true}                  |
      | "just a string"                                 |
