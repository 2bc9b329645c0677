@pin-0.16.0
Feature: Built-in question — asking the human is a §10 suspension (SPEC §4A, §10)

  §4A: the first call returns `pending({kind:"question", prompt:<rendered>, data:{questions}})`;
  re-executed with `ctx.answer` it returns `ok(<JSON of answer.data>)`. `<rendered>` = each
  question's text in order, `" (options: a, b, c)"` appended when it has non-empty `options`,
  joined by `"\n"`, no trailing newline, `header` not rendered — byte-identical across ports,
  so it is pinned. The answer's JSON is compared parsed (spacing differs across languages).
  Malformed `questions` cannot be put to a human: an `isError` result that does not suspend.

  @spec-4A @spec-10
  @clause-4A.question.suspends @clause-4A.question.rendered-order @clause-4A.question.rendered-options
  @clause-4A.question.rendered-join @clause-4A.question.header-not-rendered @clause-4A.question.byte-identical
  @clause-10.pending.is-error-true @partial-clause-4A.question.first-call-pending
  Scenario: question renders options, skips empty options and headers, joins with newlines
    Given a toolkit built with no options
    When "question" is executed with:
      """
      {"questions": [
        {"question": "Deploy where?", "header": "Target", "options": ["staging", "prod, eu", "prod"]},
        {"question": "Any notes?", "options": []},
        {"question": "Pick toppings", "options": ["cheese"], "multiple": true}
      ]}
      """
    Then the result suspends with a "question" request
    And the result matches:
      """
      {"$partial": true, "isError": true,
       "metadata": {"$partial": true, "pending": {"$partial": true, "id": {"$match": "string"}, "kind": "question",
         "prompt": "Deploy where? (options: staging, prod, eu, prod)\nAny notes?\nPick toppings (options: cheese)"}}}
      """

  @spec-4A @spec-10
  @partial-clause-4A.question.first-call-pending @partial-clause-4A.question.header-not-rendered
  Scenario: question carries the questions verbatim in the request data
    Given a toolkit built with no options
    When "question" is executed with:
      """
      {"questions": [{"question": "Size?", "header": "Shirt", "options": ["S", "M"], "multiple": false},
                     {"question": "Name on it?"}]}
      """
    Then the result suspends with a "question" request
    And the result matches:
      """
      {"$partial": true,
       "metadata": {"$partial": true, "pending": {"$partial": true, "kind": "question",
         "data": {"questions": [{"question": "Size?", "header": "Shirt", "options": ["S", "M"], "multiple": false},
                                {"question": "Name on it?"}]}}}}
      """

  @spec-4A @spec-10 @partial-clause-4A.question.rendered-options @partial-clause-4A.question.rendered-join
  Scenario: a single question without options renders as its bare text
    Given a toolkit built with no options
    When "question" is executed with:
      """
      {"questions": [{"question": "Proceed with the migration?"}]}
      """
    Then the result suspends with a "question" request
    And the result matches:
      """
      {"$partial": true, "isError": true,
       "metadata": {"$partial": true, "pending": {"$partial": true, "kind": "question",
         "prompt": "Proceed with the migration?"}}}
      """

  @spec-4A @spec-10 @clause-4A.question.retry-returns-answer-data @clause-10.question.forwards-verbatim
  Scenario: question re-executed with the answer returns the JSON of answer.data, nested values intact
    Given a toolkit built with no options
    When "question" is executed with:
      """
      {"questions": [{"question": "Deploy where?", "options": ["staging", "prod"]}, {"question": "Notes?"}]}
      """
    And the same call is executed again with the answer:
      """
      {"ok": true, "data": {"answers": [["prod"], ["ship it — «now»"]], "count": 2, "final": true, "extra": null}}
      """
    Then the result is not an error
    And the output parses as JSON matching:
      """
      {"answers": [["prod"], ["ship it — «now»"]], "count": 2, "final": true, "extra": null}
      """

  @spec-4A @spec-10 @beyond-spec
  Scenario: question without questions is an error result, not a suspension
    Beyond the SPEC: §4A gives the tool's input schema (required fields, types) but not what
    execute does with input that breaks it (NOTES #38); the reference refuses it with an isError
    result.
    Given a toolkit built with no options
    When "question" is executed with:
      """
      {}
      """
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": true, "metadata": {"$absent": true}}
      """
    And the output contains "questions"
    # The positive control (NOTES #321): with questions the same call suspends.
    When "question" is executed with:
      """
      {"questions": [{"question": "Deploy where?"}]}
      """
    Then the result suspends with a "question" request

  @spec-4A @spec-10 @beyond-spec
  Scenario: question with questions that are not an array is an error result, not a suspension
    Beyond the SPEC: §4A gives the tool's input schema (required fields, types) but not what
    execute does with input that breaks it (NOTES #38); the reference refuses it with an isError
    result.
    Given a toolkit built with no options
    When "question" is executed with:
      """
      {"questions": "Deploy where?"}
      """
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": true, "metadata": {"$absent": true}}
      """
    And the output contains "questions"
    # The positive control (NOTES #321): as an array of questions the same text suspends.
    When "question" is executed with:
      """
      {"questions": [{"question": "Deploy where?"}]}
      """
    Then the result suspends with a "question" request

  @spec-4A @spec-10 @beyond-spec
  Scenario: question with an item lacking its question text is an error result, not a suspension
    Beyond the SPEC: §4A gives the tool's input schema (required fields, types) but not what
    execute does with input that breaks it (NOTES #38); the reference refuses it with an isError
    result.
    Given a toolkit built with no options
    When "question" is executed with:
      """
      {"questions": [{"header": "No text", "options": ["a", "b"]}]}
      """
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": true, "metadata": {"$absent": true}}
      """
    And the output contains "question"
    # The positive control (NOTES #321): with its question text the same item suspends, so a
    # port that refuses every question (its message naming the tool) fails here.
    When "question" is executed with:
      """
      {"questions": [{"question": "Pick one", "header": "No text", "options": ["a", "b"]}]}
      """
    Then the result suspends with a "question" request
