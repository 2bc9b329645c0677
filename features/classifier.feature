@pin-0.17.0
Feature: typed decisions — the Classifier (SPEC §8B, after 0.17.0)

  A classifier takes a state and typed questions (noul, choice, score) under the caller's keys
  and answers a Decision. `classifier` and `evaluate` (PROTOCOL.md §5.29–§5.30) drive the port's
  own classifier; the `systemone` style posts to the mock LLM (`{{LLM}}/systemone`), which
  records every body as sent (`classifier.json`, made with the judge fixtures by
  conformance/fixtures/judge/make.py). The judge fixtures write the question keys unsorted on
  purpose and carry the canonical `model` + `questions` bytes, derived twice from the SPEC's
  rules. `state` is outside the byte claim: no scenario pins its bytes. Every client here uses
  `"retryBaseMs": 1` unless the scenario is about backoff.

  # ---------------------------------------------------------------- the canonical request

  @spec-8B @clause-8B.backends.systemone-one-post @clause-8B.canonical.byte-identical @clause-8B.canonical.keys-sorted-ascii @clause-8B.canonical.compact-separators @clause-8B.evaluate.questions-keyed @clause-8B.options.model @clause-8B.create.style-default @since-0.18.0
  Scenario: the base fixture is posted once to {baseUrl}/systemone in its canonical bytes
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-base", "retryBaseMs": 1}
      """
    When the classifier evaluates the judge fixture "base"
    Then the evaluation did not raise
    And the LLM received 1 request
    And LLM request 1 path is "/systemone"
    And LLM request 1 carries the canonical bytes of the judge fixture "base"

  @spec-8B @clause-8B.canonical.byte-identical @clause-8B.canonical.keys-sorted-ascii @clause-8B.canonical.arrays-never-reordered @clause-8B.canonical.raw-characters @clause-8B.canonical.absent-not-empty @clause-8B.noul.criteria-absent-vs-empty @clause-8B.question.noul-shape @since-0.18.0
  Scenario: the hardened fixture keeps its rubric order, its raw characters and absent-versus-empty criteria
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    ASCII order across digits, upper and lower case (`10_alpha` < `Alpha` < `beta` < `café`),
    a rubric written out of alphabetical order, `<>&'`, a quotation mark, a backslash, unicode
    text and a non-ASCII key, a noul with no criteria beside one with both cases empty.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-hardened", "retryBaseMs": 1}
      """
    When the classifier evaluates the judge fixture "hardened"
    Then the evaluation did not raise
    And LLM request 1 carries the canonical bytes of the judge fixture "hardened"
    And LLM request 1 body text contains "<b>Tom & \"Jerry\"</b> it's"
    And LLM request 1 body text contains "naïve café"
    And LLM request 1 body text does not contain "\u00"

  @spec-8B @clause-8B.canonical.byte-identical @clause-8B.canonical.keys-sorted-ascii @since-0.18.0
  Scenario: a criteria map of more than 32 options is sorted whole
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-wide", "retryBaseMs": 1}
      """
    When the classifier evaluates the judge fixture "wide"
    Then the evaluation did not raise
    And LLM request 1 carries the canonical bytes of the judge fixture "wide"

  @spec-8B @clause-8B.canonical.state-verbatim @clause-8B.evaluate.state-any @since-0.18.0
  Scenario Outline: the state travels as the host gave it (<kind>)
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Its bytes are outside the claim; what is checked is that it arrives as this value.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-state", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": <state>, "questions": {"q": {"type": "noul", "instructions": "Is it late?"}}}
      """
    Then the evaluation did not raise
    And LLM request 1 body at "state" is:
      """
      <state>
      """

    Examples:
      | kind      | state                              |
      | a string  | "the user asked for a refund"      |
      | an object | {"hp": 3, "pos": [1, 2]}           |
      | an array  | ["turn 1", {"said": "hello"}]      |

  # ---------------------------------------------------------------- the decision

  @spec-8B @clause-8B.decision.shape @clause-8B.decision.one-answer-per-question @clause-8B.answer.noul-shape @clause-8B.answer.choice-shape @clause-8B.answer.score-shape @clause-8B.noul.no-confidence @clause-8B.score.between-levels @clause-8B.options.decision-model-echo @clause-8B.calibrated.systemone-true @clause-8B.noul.probability @since-0.18.0
  Scenario: the base fixture's decision comes back typed, under the caller's keys
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The mock answers `jev-base-1.13.0`: the decision echoes the model that answered. A noul
    answer is one number; the score 1.21 falls between levels.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-base", "retryBaseMs": 1}
      """
    When the classifier evaluates the judge fixture "base"
    Then the decision at "model" is "jev-base-1.13.0"
    And the decision at "calibrated" is true
    And the decision at "answers.route" is:
      """
      {"type": "choice", "choice": "billing", "probabilities": {"billing": 0.91, "support": 0.09}, "confidence": 0.8, "nearUniform": false}
      """
    And the decision at "answers.urgent" is:
      """
      {"type": "noul", "noul": 0.12}
      """
    And the decision at "answers.quality" is:
      """
      {"type": "score", "score": 1.21, "probabilities": {"0": 0.05, "1": 0.69, "2": 0.26}, "legend": {"0": "unreadable", "1": "vague", "2": "clear"}, "confidence": 0.64}
      """

  @spec-8B @clause-8B.answer.noul-shape @clause-8B.score.between-levels @since-0.18.0
  Scenario: numbers are decoded as written: an integer 0, 1.21 and 0.000016716
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-numbers", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"s": {"type": "score", "instructions": "Yes?", "criteria": ["no", "yes"]}, "n": {"type": "noul", "instructions": "No?"}}}
      """
    Then the decision at "answers.n.noul" is 0
    And the decision at "answers.s.score" is 1.21
    And the decision at "answers.s.probabilities.0" is 0.000016716
    And the decision at "answers.s.probabilities.1" is 0.999983284

  @spec-8B @clause-8B.canonical.keys-sorted-ascii @clause-8B.decision.one-answer-per-question @clause-8B.choice.selected-offered @since-0.18.0
  Scenario: a decision over the hardened fixture answers under every caller key, the non-ASCII one included
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-hardened", "retryBaseMs": 1}
      """
    When the classifier evaluates the judge fixture "hardened"
    Then the decision at "answers.café.choice" is "émile"
    And the decision at "answers.Alpha.legend" is:
      """
      {"0": "poor", "1": "excellent", "2": "fair", "3": "good"}
      """
    And the decision at "answers.10_alpha.noul" is 0.5

  @spec-8B @clause-8B.choice.probability-every-option @clause-8B.near-uniform.every-choice @since-0.18.0
  Scenario: a probability map of more than 32 options comes back whole
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-wide", "retryBaseMs": 1}
      """
    When the classifier evaluates the judge fixture "wide"
    Then the decision at "answers.pick.choice" is "opt_007"
    And the decision at "answers.pick.probabilities.opt_007" is 0.6
    And the decision at "answers.pick.probabilities.opt_039" is 0.010256
    And the decision at "answers.pick.probabilities.opt_000" is 0.010256
    And the decision at "answers.pick.nearUniform" is false

  # ---------------------------------------------------------------- calibrated

  @spec-8B @clause-8B.calibrated.every-decision @clause-8B.calibrated.absent-true @clause-8B.calibrated.only-false @since-0.18.0
  Scenario Outline: calibrated <wire> on the wire decodes as <decoded>
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-cal-<wire>", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Calibrated?"}}}
      """
    Then the decision at "calibrated" is <decoded>

    Examples:
      | wire   | decoded |
      | absent | true    |
      | null   | true    |
      | false  | false   |

  # ---------------------------------------------------------------- nearUniform

  @spec-8B @clause-8B.near-uniform.formula @clause-8B.near-uniform.inclusive @clause-8B.near-uniform.computed-not-read @clause-8B.near-uniform.double-precision @since-0.18.0
  Scenario Outline: nearUniform on three options <side> 0.05 off the uniform 1/3 is <near>
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Deviations of 0.04 and 0.06 (never within 1e-9 of the tolerance); the wire carries no
    `nearUniform`, so the port computes it. An absolute tolerance: a relative 5% of 1/3 would
    put 0.04 outside.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-near-<model>", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"c": {"type": "choice", "instructions": "Which?", "criteria": {"a": "go left", "b": "go right", "c": "stay"}}}}
      """
    Then the decision at "answers.c.nearUniform" is <near>

    Examples:
      | side   | model | near  |
      | within | in    | true  |
      | beyond | out   | false |

  @spec-8B @clause-8B.near-uniform.as-returned @clause-8B.near-uniform.no-sort-renormalise-round @since-0.18.0
  Scenario: nearUniform reads the probabilities in the order returned and as returned
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The map comes back as `b` 0.52, `a` 0.48: 0.02 off 1/2 whatever the order.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-near-unsorted", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"c": {"type": "choice", "instructions": "Which?", "criteria": {"a": "go left", "b": "go right"}}}}
      """
    Then the decision at "answers.c.nearUniform" is true
    And the decision at "answers.c.probabilities" is:
      """
      {"b": 0.52, "a": 0.48}
      """

  @spec-8B @clause-8B.near-uniform.single-option-true @since-0.18.0
  Scenario: a single option is near-uniform
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-near-one", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"c": {"type": "choice", "instructions": "Only one way", "criteria": {"only": "the one road there is"}}}}
      """
    Then the decision at "answers.c.nearUniform" is true

  @spec-8B @clause-8B.near-uniform.inclusive @clause-8B.near-uniform.formula @clause-8B.near-uniform.double-precision @since-0.18.0
  Scenario Outline: a deviation of <deviation> on eight options is <near>: exactly the tolerance is inside
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The SPEC says a deviation of exactly 0.05 is near-uniform. With eight options 1/n is
    0.125 exactly, and 0.125 − 0.075 gives exactly the double nearest 0.05 (the subtraction
    is exact), as it gives exactly 0.05 in decimal arithmetic: the row sits on the boundary
    in either, so only an exclusive `<` turns it false. The 0.051 row is its control. A
    recorded (`static`) answer, so the numbers are the suite's own.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"style": "static", "baseUrl": "{{LLM}}", "model": "jev-recorded", "decisions": [
        {"state": {}, "questions": {"c": {"type": "choice", "instructions": "Which?", "criteria": {"a": "one", "b": "two", "c": "three", "d": "four", "e": "five", "f": "six", "g": "seven", "h": "eight"}}},
         "response": {"model": "jev-recorded", "answers": {"c": {"type": "choice", "choice": "b", "probabilities": {"a": <low>, "b": <high>, "c": 0.125, "d": 0.125, "e": 0.125, "f": 0.125, "g": 0.125, "h": 0.125}, "confidence": 0.5}}}}
      ]}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"c": {"type": "choice", "instructions": "Which?", "criteria": {"a": "one", "b": "two", "c": "three", "d": "four", "e": "five", "f": "six", "g": "seven", "h": "eight"}}}}
      """
    Then the evaluation did not raise
    And the decision at "answers.c.probabilities.a" is <low>
    And the decision at "answers.c.nearUniform" is <near>
    And the LLM received 0 requests

    Examples:
      | deviation | low   | high  | near  |
      | 0.05      | 0.075 | 0.175 | true  |
      | 0.051     | 0.074 | 0.176 | false |

  @spec-8B @clause-8B.near-uniform.computed-not-read @since-0.18.0
  Scenario: a nearUniform the backend's body carries is never what the decision reports
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    A recorded body (`response` is the backend's body, PROTOCOL.md §5.29) says the opposite of
    the numbers for both answers: `far` (0.9 / 0.1) claims `true`, `flat` (0.5 / 0.5) claims
    `false`. Computed from the probabilities, `far` is false and `flat` is true.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"style": "static", "baseUrl": "{{LLM}}", "model": "jev-recorded", "decisions": [
        {"state": {}, "questions": {"far": {"type": "choice", "instructions": "Go?", "criteria": {"go": "move on", "stop": "stay put"}}, "flat": {"type": "choice", "instructions": "Side?", "criteria": {"left": "the left bank", "right": "the right bank"}}},
         "response": {"model": "jev-recorded", "answers": {
           "far": {"type": "choice", "choice": "go", "probabilities": {"go": 0.9, "stop": 0.1}, "confidence": 0.9, "nearUniform": true},
           "flat": {"type": "choice", "choice": "left", "probabilities": {"left": 0.5, "right": 0.5}, "confidence": 0.2, "nearUniform": false}}}}
      ]}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"far": {"type": "choice", "instructions": "Go?", "criteria": {"go": "move on", "stop": "stay put"}}, "flat": {"type": "choice", "instructions": "Side?", "criteria": {"left": "the left bank", "right": "the right bank"}}}}
      """
    Then the evaluation did not raise
    And the decision at "answers.far.nearUniform" is false
    And the decision at "answers.flat.nearUniform" is true
    And the LLM received 0 requests

  @spec-8B @partial-clause-8B.near-uniform.as-returned @since-0.18.0
  Scenario: an offered option missing from the map is read by either reading of n
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Three options offered, two returned at 0.5 each. Counted as 0 among the three offered
    options the missing one is 1/3 off (not near-uniform); read as "the entries of the map",
    n = 2 and the map is flat (near-uniform). The SPEC says both (NOTES #404): either value
    passes, a missing `nearUniform` does not.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-near-missing", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"c": {"type": "choice", "instructions": "Which?", "criteria": {"a": "go left", "b": "go right", "c": "stay"}}}}
      """
    Then the decision at "answers.c.nearUniform" is:
      """
      {"$oneOf": [true, false]}
      """

  # ---------------------------------------------------------------- limits

  @spec-8B @clause-8B.limits.client-side @clause-8B.limits.error-names-key @clause-8B.question.choice-shape @since-0.18.0
  Scenario: 256 options are refused before any request, naming the question key and the limit
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-256", "retryBaseMs": 1}
      """
    When the classifier evaluates the judge fixture "wide256"
    Then the evaluation raised an error mentioning "pick"
    And the evaluation raised an error mentioning "255"
    And the LLM received 0 requests

  @spec-8B @clause-8B.limits.client-side @clause-8B.question.choice-shape @since-0.18.0
  Scenario: 255 options go through
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The positive control of the refusal above.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-255", "retryBaseMs": 1}
      """
    When the classifier evaluates the judge fixture "wide255"
    Then the evaluation did not raise
    And the LLM received 1 request
    And LLM request 1 carries the canonical bytes of the judge fixture "wide255"
    And the decision at "answers.pick.choice" is "opt_007"

  @spec-8B @clause-8B.limits.client-side @clause-8B.limits.error-names-key @clause-8B.question.score-shape @clause-8B.score.ordered-rubric @since-0.18.0
  Scenario Outline: a rubric of <n> levels is refused before any request, naming the key and the limit
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-levels", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"ok": {"type": "noul", "instructions": "Fine?"}, "rubric_<n>": {"type": "score", "instructions": "Rate it", "criteria": <levels>}}}
      """
    Then the evaluation raised an error mentioning "rubric_<n>"
    And the evaluation raised an error mentioning "<limit>"
    And the LLM received 0 requests

    Examples:
      | n  | limit | levels                                                                   |
      | 1  | 2     | ["only"]                                                                 |
      | 11 | 10    | ["l0","l1","l2","l3","l4","l5","l6","l7","l8","l9","l10"]                 |

  @spec-8B @clause-8B.limits.client-side @clause-8B.question.score-shape @since-0.18.0
  Scenario Outline: a rubric of <n> levels goes through
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-levels", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "score", "instructions": "Rate it", "criteria": <levels>}}}
      """
    Then the evaluation did not raise
    And the LLM received 1 request
    And LLM request 1 body at "questions.q.criteria" is:
      """
      <levels>
      """

    Examples:
      | n  | levels                                                     |
      | 2  | ["low","high"]                                             |
      | 10 | ["l0","l1","l2","l3","l4","l5","l6","l7","l8","l9"]         |

  @spec-8B @clause-8B.limits.backend-400-intact @clause-8B.failures.limit-cause-intact @since-0.18.0
  Scenario: a backend's own limit error reaches the caller with its cause intact
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-limit", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Too many?"}}}
      """
    Then the evaluation raised an error mentioning "Too many choices. Must have at most 255 choices."
    And the LLM received 1 request

  # ---------------------------------------------------------------- degenerate criteria

  @spec-8B @clause-8B.degenerate.detect @clause-8B.degenerate.one-warning-event @clause-8B.degenerate.warning-field-not-error @clause-8B.options.on-metric @clause-8B.degenerate.all-empty @clause-8B.degenerate.value-equals-key @clause-8B.degenerate.all-identical @since-0.18.0
  Scenario Outline: degenerate criteria (<rule>) are reported once, naming the key, as a warning
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-degenerate", "retryBaseMs": 1, "onMetric": {"collect": true}}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"fine": {"type": "choice", "instructions": "Go?", "criteria": {"go": "move on to the next step", "stop": "stay where you are"}}, "lazy": {"type": "choice", "instructions": "Which?", "criteria": <criteria>}}}
      """
    Then the evaluation did not raise
    And metricEvents has 1 entries with "event" equal to "classifier.warning"
    And the classifier.warning event names "lazy" and carries no error

    Examples:
      | rule            | criteria                                           |
      | all empty       | {"left": "", "right": "", "up": ""}                |
      | equal to keys   | {"left": "left", "right": "right"}                 |
      | all identical   | {"left": "a direction", "right": "a direction"}    |

  @spec-8B @clause-8B.degenerate.request-identical @clause-8B.degenerate.detect @since-0.18.0
  Scenario: a degenerate question is sent byte-unchanged
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The same question twice, on two classifiers: the first warns, the second is created
    without `onMetric`; both requests carry the same canonical bytes.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-degenerate", "retryBaseMs": 1, "onMetric": {"collect": true}}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"lazy": {"type": "choice", "instructions": "Which?", "criteria": {"right": "right", "left": "left"}}}}
      """
    Then metricEvents has 1 entries with "event" equal to "classifier.warning"
    And LLM request 1 body at "questions" is:
      """
      {"lazy": {"type": "choice", "instructions": "Which?", "criteria": {"right": "right", "left": "left"}}}
      """
    And LLM request 1 body text contains ""criteria":{"left":"left","right":"right"}"

  @spec-8B @clause-8B.degenerate.once-per-key @since-0.18.0
  Scenario: a second evaluation on the same classifier does not warn again
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-degenerate", "retryBaseMs": 1, "onMetric": {"collect": true}}
      """
    When the classifier evaluates:
      """
      {"state": {"turn": 1}, "questions": {"lazy": {"type": "choice", "instructions": "Which?", "criteria": {"left": "", "right": ""}}}}
      """
    Then metricEvents has 1 entries with "event" equal to "classifier.warning"
    When the classifier evaluates:
      """
      {"state": {"turn": 2}, "questions": {"lazy": {"type": "choice", "instructions": "Which?", "criteria": {"left": "", "right": ""}}}}
      """
    Then the evaluation did not raise
    And metricEvents has 0 entries with "event" equal to "classifier.warning"
    And metricEvents has 1 entries with "event" equal to "classifier.evaluate"

  @spec-8B @clause-8B.degenerate.single-option-not-reported @since-0.18.0
  Scenario: a single-option choice is never reported, whatever its description
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The evaluate event is the positive control: the sink is installed and heard this call.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-degenerate", "retryBaseMs": 1, "onMetric": {"collect": true}}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"one": {"type": "choice", "instructions": "Only?", "criteria": {"only": "only"}}, "blank": {"type": "choice", "instructions": "Blank?", "criteria": {"x": ""}}}}
      """
    Then the evaluation did not raise
    And metricEvents has 0 entries with "event" equal to "classifier.warning"
    And metricEvents has 1 entries with "event" equal to "classifier.evaluate"

  # ---------------------------------------------------------------- backends

  @spec-8B @clause-8B.backends.static @clause-8B.backends.static-no-network @clause-8B.options.decisions @clause-8B.options.decisions-core @clause-8B.options.style @since-0.18.0
  Scenario: the static style answers the recorded decision for a matching request, with no network
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"style": "static", "baseUrl": "{{LLM}}", "model": "jev-recorded", "decisions": [
        {"state": {"ticket": "refund"}, "questions": {"route": {"type": "choice", "instructions": "Who?", "criteria": {"support": "a bug report", "billing": "money matters"}}},
         "response": {"model": "jev-recorded", "answers": {"route": {"type": "choice", "choice": "billing", "probabilities": {"billing": 0.7, "support": 0.3}, "confidence": 0.9}}, "usage": {"input_tokens": 10, "output_tokens": 1}}}
      ]}
      """
    When the classifier evaluates:
      """
      {"state": {"ticket": "refund"}, "questions": {"route": {"type": "choice", "instructions": "Who?", "criteria": {"billing": "money matters", "support": "a bug report"}}}}
      """
    Then the evaluation did not raise
    And the decision at "answers.route.choice" is "billing"
    And the decision at "answers.route.nearUniform" is false
    And the decision at "calibrated" is true
    And the LLM received 0 requests

  @spec-8B @clause-8B.options.decisions-unmatched-error @clause-8B.backends.static-no-network @since-0.18.0
  Scenario: an unmatched static request is an error naming the key, never a live call
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The recorded corpus answers `route`; the evaluation asks `escalate`. Which key the error
    names is open (the question key or the recorded request's, NOTES #404): either passes.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"style": "static", "baseUrl": "{{LLM}}", "model": "jev-recorded", "decisions": [
        {"state": {}, "questions": {"route": {"type": "noul", "instructions": "Billing?"}},
         "response": {"model": "jev-recorded", "answers": {"route": {"type": "noul", "noul": 0.9}}}}
      ]}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"escalate": {"type": "noul", "instructions": "Escalate?"}}}
      """
    Then the evaluation raised an error mentioning "escalate" or "route"
    And the LLM received 0 requests

  @spec-8B @clause-8B.backends.custom @clause-8B.options.evaluate @since-0.18.0
  Scenario: the custom style calls the host's function and ignores every wire option
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"style": "custom", "baseUrl": "{{LLM}}", "model": "jev-custom", "retries": 3, "requestParams": {"x": 1},
       "evaluate": {"decision": {"model": "rules-engine", "answers": {"q": {"type": "noul", "noul": 0.3}}, "calibrated": false}}}
      """
    When the classifier evaluates:
      """
      {"state": {"k": "v"}, "questions": {"q": {"type": "noul", "instructions": "Rule?"}}}
      """
    Then the evaluation did not raise
    And the decision at "answers.q.noul" is 0.3
    And the decision at "model" is "rules-engine"
    And evaluateCalls has 1 entries
    And evaluateCalls at "[0].state" is:
      """
      {"k": "v"}
      """
    And evaluateCalls at "[0].questions.q.instructions" is "Rule?"
    And the LLM received 0 requests

  @spec-8B @clause-8B.backends.llm-one-call @clause-8B.options.client @clause-8B.calibrated.llm-false @clause-8B.evaluate.not-independent-uncalibrated @since-0.18.0
  Scenario: the llm style runs one call on a §8 client, with no tools, and is not calibrated
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The mock's chat reply answers under `q1`, the caller's key, which is also the first
    stand-in id of a port that keeps caller keys from the model (NOTES #404). An empty tool
    list is omitted (§8 "empty-tools omission").
    Given a mock LLM runs "classifier.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "chat-judge", "apiKey": "test-key", "retryBaseMs": 1}
      """
    And a classifier created with:
      """
      {"style": "llm", "client": "c1", "model": "chat-judge"}
      """
    When the classifier evaluates:
      """
      {"state": {"said": "cancel my plan"}, "questions": {"q1": {"type": "noul", "instructions": "Does the user want to leave?"}}}
      """
    Then the evaluation did not raise
    And the decision at "answers.q1.noul" is 0.75
    And the decision at "calibrated" is false
    And the LLM received 1 request
    And LLM request 1 path is "/chat/completions"
    And LLM request 1 body has nothing at "tools"

  # ---------------------------------------------------------------- retries and failures

  @spec-8B @clause-8B.options.retry-set @clause-8B.failures.error-tiers @since-0.18.0
  Scenario Outline: a <status> on /systemone is retried and the evaluation then succeeds
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-once-<status>", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Again?"}}}
      """
    Then the evaluation did not raise
    And the LLM received 2 requests
    And the decision at "answers.q.noul" is 0.25

    Examples:
      | status |
      | 408    |
      | 429    |
      | 500    |
      | 502    |
      | 503    |
      | 504    |
      | 529    |

  @spec-8B @clause-8B.options.retry-set @clause-8B.failures.error-tiers @since-0.18.0
  Scenario: a dropped connection is a network error and is retried
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-drop-once", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Again?"}}}
      """
    Then the evaluation did not raise
    And the LLM received 2 requests

  @spec-8B @clause-8B.options.retry-set @clause-8B.failures.error-tiers @since-0.18.0
  Scenario Outline: a <status> on /systemone is terminal: one request, then raised
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The default `retries` stays; a port that retried would send three requests.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-always-<status>", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Again?"}}}
      """
    Then the evaluation raised an error mentioning ""
    And the LLM received 1 request

    Examples:
      | status |
      | 501    |
      | 505    |
      | 520    |

  @spec-8B @clause-8B.options.retry-set @since-0.18.0
  Scenario: retryableStatuses adds 520 to the set
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-once-520", "retryBaseMs": 1, "retryableStatuses": [520]}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Again?"}}}
      """
    Then the evaluation did not raise
    And the LLM received 2 requests

  @spec-8B @clause-8B.options.retry-set @since-0.18.0
  Scenario: retryableStatuses never removes: 429 stays retried beside an added 520
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-once-429", "retryBaseMs": 1, "retryableStatuses": [520]}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Again?"}}}
      """
    Then the evaluation did not raise
    And the LLM received 2 requests

  @spec-8B @clause-8B.options.retry-reuses-client-classifier @since-0.18.0
  Scenario: onError decides each attempt: "fail" stops a retryable 503 at once
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-always-503", "retryBaseMs": 1, "onError": {"answer": "fail"}}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Again?"}}}
      """
    Then the evaluation raised an error mentioning ""
    And the LLM received 1 request
    And onErrorCalls has 1 entries
    And onErrorCalls at "[0].status" is 503
    And onErrorCalls at "[0].retryable" is true
    And onErrorCalls at "[0].attempt" is 0

  @spec-8B @clause-8B.options.retry-reuses-client-classifier @since-0.18.0
  Scenario: onError "retry" is bounded by retries
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-always-501", "retryBaseMs": 1, "retries": 2, "onError": {"answer": "retry"}}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Again?"}}}
      """
    Then the evaluation raised an error mentioning ""
    And the LLM received 3 requests
    And onErrorCalls at "[0].retryable" is false

  @spec-8B @clause-8B.options.retry-reuses-client-classifier @clause-8B.options.retry-base-ms-backoff @since-0.18.0
  Scenario: a Retry-After of 1 second wins over a 1 ms backoff
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-retry-after", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Again?"}}}
      """
    Then the evaluation did not raise
    And the LLM received 2 requests
    And the elapsed time is at least 950 ms

  @spec-8B @clause-8B.options.retry-base-ms-default @since-0.18.0
  Scenario: a retryBaseMs of 0 backs off on the default 500 ms
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    One retry after a 503 waits the default base, 500 ms, at least.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-once-503", "retryBaseMs": 0}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Again?"}}}
      """
    Then the evaluation did not raise
    And the LLM received 2 requests
    And the elapsed time is at least 450 ms

  @spec-8B @clause-8B.create.model-default @since-0.18.0
  Scenario: with no model the request names jev-latest
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "retryBaseMs": 1}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Which model?"}}}
      """
    Then the evaluation did not raise
    And LLM request 1 body at "model" is "jev-latest"

  @spec-8B @clause-8B.options.retry-base-ms-backoff @since-0.18.0
  Scenario: the backoff is retryBaseMs times 2^attempt
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Two retries on a 400 ms base wait 400 + 800 ms at least (no jitter shortens them).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-always-503", "retryBaseMs": 400, "retries": 2}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Again?"}}}
      """
    Then the evaluation raised an error mentioning ""
    And the LLM received 3 requests
    And the elapsed time is at least 1150 ms

  @spec-8B @clause-8B.options.timeout @since-0.18.0
  Scenario: timeout bounds one request
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The mock answers after 3 s; three attempts of 300 ms each raise long before one answer.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-slow", "retryBaseMs": 1, "timeoutMs": 300}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Slow?"}}}
      """
    Then the evaluation raised an error mentioning ""
    And the elapsed time is below 2900 ms

  # ---------------------------------------------------------------- secrets and shaping

  @spec-8B @clause-8B.secrets.call-time @clause-8B.options.api-key-env @clause-8B.create.api-key-env-default @since-0.18.0
  Scenario: apiKeyEnv names the variable the credential is read from, at call time
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The port's environment holds the suite's canary key in `OPENAI_API_KEY`; the mock redacts
    the header it records, so what is checked is that a bearer credential was sent.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-auth", "retryBaseMs": 1, "apiKeyEnv": "OPENAI_API_KEY"}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Who?"}}}
      """
    Then the evaluation did not raise
    And LLM request 1 header "authorization" is "<redacted>"

  @spec-8B @clause-8B.secrets.never-appear @clause-8B.options.headers @clause-8B.create.headers-never-logged @since-0.18.0
  Scenario: neither the credential nor an expanded header value appears in an error or an event
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Every answer is checked for the canary key; the mock fails every attempt so the error,
    the onError infos and the metric events all have a chance to carry it.
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-always-401", "retryBaseMs": 1, "apiKeyEnv": "OPENAI_API_KEY",
       "headers": {"X-Judge-Token": "${OPENAI_API_KEY}"}, "onMetric": {"collect": true}, "onError": {"answer": "retry"}}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Secret?"}}}
      """
    Then the evaluation raised an error mentioning "401"
    And the evaluate answer does not mention the secret
    And the LLM received at most 3 requests

  @spec-8B @clause-8B.options.request-params @since-0.18.0
  Scenario: requestParams are merged into the body, then bodyTransform sees the merged body
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-shape", "retryBaseMs": 1, "requestParams": {"route_tag": "gateway-7"},
       "bodyTransform": {"copy": {"route_tag": "seen_tag"}}}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Shaped?"}}}
      """
    Then the evaluation did not raise
    And LLM request 1 body at "route_tag" is "gateway-7"
    And LLM request 1 body at "seen_tag" is "gateway-7"

  @spec-8B @clause-8B.options.on-metric @since-0.18.0
  Scenario: a successful evaluate emits one classifier.evaluate event with no error
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-metric", "retryBaseMs": 1, "onMetric": {"collect": true}}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Counted?"}}}
      """
    Then metricEvents has 1 entries with "event" equal to "classifier.evaluate"
    And metricEvents at "[-1]" is:
      """
      {"$partial": true, "event": "classifier.evaluate", "error": {"$absent": true}}
      """

  @spec-8B @clause-8B.options.on-metric @since-0.18.0
  Scenario: a failed evaluate emits a classifier.evaluate event carrying its error
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    Given a mock LLM runs "classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-always-501", "retryBaseMs": 1, "onMetric": {"collect": true}}
      """
    When the classifier evaluates:
      """
      {"state": {}, "questions": {"q": {"type": "noul", "instructions": "Counted?"}}}
      """
    Then metricEvents has 1 entries with "event" equal to "classifier.evaluate"
    And metricEvents at "[-1].error" is:
      """
      {"$match": "string"}
      """

  @spec-8B @clause-8B.absence.byte-identical @since-0.18.0
  Scenario: building a classifier changes no request the client loop makes
    Holds from 0.18.0, read off python: its first release with a classifier (NOTES #403).
    The same run before and after a classifier is built (a static one, which sends nothing).
    Given a mock LLM runs "classifier.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "chat-plain", "apiKey": "test-key", "retryBaseMs": 1}
      """
    When the client runs "same words"
    And a classifier created with:
      """
      {"style": "static", "model": "jev-recorded", "decisions": []}
      """
    And the client runs "same words"
    Then the LLM received 2 requests
    And LLM request 2 body is the same as LLM request 1 body
