@pin-0.17.0
Feature: the §8 client's enumerated retry set and retryableStatuses (SPEC §8 "Resilience", after 0.17.0)
  The newest text names the retried statuses one by one (429, 500, 502, 503, 504, 529 and
  network errors): every other status is terminal by default, and `retryableStatuses` adds to
  the set without removing from it. `resilience.json` answers each `once-*` model's failure one
  time before the catch-all reply, and every `always-*` model's failure forever. The default
  `retries` (2) stays, so a port that retried a terminal status would send three requests.

  @spec-8 @clause-8.resilience.retry-statuses @clause-8.resilience.retry-enumerated-set @since-0.18.0
  Scenario: a 529 is retried and the run then succeeds
    Holds from 0.18.0, read off python: its first release with 529 and retryableStatuses (NOTES #403).
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "once-529", "apiKey": "test-key", "retryBaseMs": 1}
      """
    When the client runs "hi"
    Then the run did not raise
    And the run text is "recovered (once-529)"
    And the LLM received 2 requests

  @spec-8 @clause-8.resilience.set-exhaustive
  Scenario Outline: a <status> is terminal by default: one request, then raised
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-<status>", "apiKey": "test-key", "retryBaseMs": 1}
      """
    When the client runs "hi"
    Then the run raised an error mentioning ""
    And the LLM received 1 request

    Examples:
      | status |
      | 501    |
      | 505    |
      | 520    |

  @spec-8 @clause-8.resilience.retryable-statuses-option @clause-8.resilience.retryable-statuses-adds @since-0.18.0
  Scenario: retryableStatuses [520] makes a 520 retried
    Holds from 0.18.0, read off python: its first release with 529 and retryableStatuses (NOTES #403).
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "once-520", "apiKey": "test-key", "retryBaseMs": 1, "retryableStatuses": [520]}
      """
    When the client runs "hi"
    Then the run did not raise
    And the run text is "recovered (once-520)"
    And the LLM received 2 requests

  @spec-8 @clause-8.resilience.retryable-statuses-adds @since-0.18.0
  Scenario: retryableStatuses [520] leaves 429 retried
    Holds from 0.18.0, read off python: its first release with 529 and retryableStatuses (NOTES #403).
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "once-429", "apiKey": "test-key", "retryBaseMs": 1, "retryableStatuses": [520]}
      """
    When the client runs "hi"
    Then the run did not raise
    And the LLM received 2 requests

  @spec-8 @clause-8.on-error.info-enumerated-set @clause-8.resilience.retryable-statuses-default-only @since-0.18.0
  Scenario Outline: onError's retryable says whether <status> is in the set (<retryable>)
    Holds from 0.18.0, read off python: its first release with 529 and retryableStatuses (NOTES #403).
    onError answers "fail", so each run makes one attempt and records one info.
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "<model>", "apiKey": "test-key", "retryBaseMs": 1, "retryableStatuses": <added>, "onError": {"answer": "fail"}}
      """
    When the client runs "hi"
    Then the run raised an error mentioning ""
    And the LLM received 1 request
    And onErrorCalls has 1 entries
    And onErrorCalls at "[0].status" is <status>
    And onErrorCalls at "[0].retryable" is <retryable>

    Examples:
      | model      | status | added | retryable |
      | once-529   | 529    | []    | true      |
      | always-520 | 520    | []    | false     |
      | always-520 | 520    | [520] | true      |
      | always-501 | 501    | [520] | false     |

  @spec-8 @clause-8.resilience.retryable-statuses-default-only @since-0.18.0
  Scenario: onError "fail" has the final say over a status retryableStatuses added
    Holds from 0.18.0, read off python: its first release with 529 and retryableStatuses (NOTES #403).
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-520", "apiKey": "test-key", "retryBaseMs": 1, "retryableStatuses": [520], "onError": {"answer": "fail"}}
      """
    When the client runs "hi"
    Then the run raised an error mentioning ""
    And the LLM received 1 request
