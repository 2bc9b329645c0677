@pin-0.16.0
Feature: The §8 client's resilience — retries, Retry-After, onError, timeout and cancel (SPEC §8 "Resilience")
  The port's own §8 client runs against the mock LLM (`{{LLM}}`). `resilience.json` scripts per
  model a failure that happens once (`times: 1`) before the catch-all reply
  `recovered ({{model}})`, failures that never stop, a dropped connection and a slow reply;
  `retry-after-once.json` answers each `Retry-After` form once before the same catch-all.
  How often the client tried is read back from the mock's recording. Backoff and jitter are
  not pinned by the SPEC, so every client uses `"retryBaseMs": 1` unless the scenario is about
  backoff, and timing checks are generous bounds only. §8 gives a raised error no words: a
  scenario expecting a raise checks that the run raised and its cause (how many requests,
  what onError saw), and `@beyond-spec` twins check that the reference's error names the
  HTTP status (NOTES #320).

  # ---------------------------------------------------------------- the retryable set

  @spec-8 @clause-8.resilience.retry-statuses
  Scenario Outline: a <status> is retried and the run then succeeds
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "once-<status>", "apiKey": "test-key", "retryBaseMs": 1}
      """
    When the client runs "hi"
    Then the run did not raise
    And the run text is "recovered (once-<status>)"
    And the LLM received 2 requests

    Examples:
      | status |
      | 429    |
      | 500    |
      | 502    |
      | 503    |
      | 504    |

  @spec-8 @clause-8.resilience.retry-statuses
  Scenario Outline: a <status> is not retried: one request, then raised
    The client keeps the default `retries` (2), so a port that retried would send 3 requests.
    The raised error's words are the port's (NOTES #320: the @beyond-spec twin below checks
    that it names the status); the one request is the mock's <status>, met once.
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
      | 400    |
      | 401    |

  @spec-8 @beyond-spec
  Scenario Outline: a <status> is not retried: one request, and the error names the status
    Beyond the SPEC: §8 says which statuses are retried and gives the raised error no words
    (NOTES #320); the reference's error names the HTTP status.
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-<status>", "apiKey": "test-key", "retryBaseMs": 1}
      """
    When the client runs "hi"
    Then the run raised an error mentioning "<status>"
    And the LLM received 1 request

    Examples:
      | status |
      | 400    |
      | 401    |

  @spec-8 @clause-8.resilience.retry-statuses
  Scenario: a dropped connection (a network error) is retried
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "drop-once", "apiKey": "test-key", "retryBaseMs": 1}
      """
    When the client runs "hi"
    Then the run did not raise
    And the run text is "recovered (drop-once)"
    And the LLM received 2 requests

  @spec-8 @clause-8.resilience.defaults
  Scenario: retries default to 2: a persistent 503 is tried 3 times, then raised
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-503", "apiKey": "test-key", "retryBaseMs": 1}
      """
    When the client runs "hi"
    Then the run raised an error mentioning ""
    And the LLM received 3 requests

  @spec-8 @beyond-spec
  Scenario: a persistent 503 raised after its retries names the status
    Beyond the SPEC: §8 bounds the retries and gives the error raised after the last one no
    words (NOTES #320); the reference's error names the HTTP status.
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-503", "apiKey": "test-key", "retryBaseMs": 1}
      """
    When the client runs "hi"
    Then the run raised an error mentioning "503"
    And the LLM received 3 requests

  @spec-8 @clause-8.resilience.defaults
  Scenario Outline: retries bound the attempts (retries <retries> ⇒ <requests> requests)
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-503", "apiKey": "test-key", "retryBaseMs": 1, "retries": <retries>}
      """
    When the client runs "hi"
    # The words are the port's (NOTES #320; *a persistent 503 raised after its retries names
    # the status*).
    Then the run raised an error mentioning ""
    And the LLM received <requests> requests

    Examples:
      | retries | requests |
      | 0       | 1        |
      | 1       | 2        |
      | 3       | 4        |

  # ---------------------------------------------------------------- Retry-After

  @spec-8 @clause-8.retry-after.delay-seconds @partial-clause-8.retry-after.case-insensitive
  Scenario: Retry-After "1" (delay-seconds) is waited as one whole second
    `retryBaseMs` is 1, so only an honoured header explains a wait of about a second. The mock
    (hyper) sends the header name in lower case, `retry-after`: a port looking it up as
    `Retry-After` finds it only case-insensitively (the mock cannot choose another case).
    Given a mock LLM runs "retry-after-once.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "ra-digits", "apiKey": "test-key", "retryBaseMs": 1}
      """
    When the client runs "hi"
    Then the run did not raise
    And the run text is "recovered (ra-digits)"
    And the LLM received 2 requests
    And the elapsed time is at least 900 ms

  @spec-8 @clause-8.retry-after.delay-seconds @serial
  Scenario: Retry-After "0" means retry now, even with a large retryBaseMs
    Backoff would wait about `retryBaseMs` (3000 ms); `0` is honoured as "retry now".
    Given a mock LLM runs "retry-after-once.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "ra-zero", "apiKey": "test-key", "retryBaseMs": 3000}
      """
    When the client runs "hi"
    Then the run did not raise
    And the run text is "recovered (ra-zero)"
    And the LLM received 2 requests
    And the elapsed time is below 2000 ms

  @spec-8 @clause-8.retry-after.fallback @serial
  Scenario Outline: Retry-After <form> is not honoured: backoff, and the retry still happens
    With `retryBaseMs` 1, backoff is short; honouring the value would wait at least three seconds
    (`3.5`, `+3`), forever (a date in 2099, 2^31 s and more) or not at all (`-3`). The bound
    leaves a slow port on a loaded machine seconds of slack, and a port that honours `3.5`
    still answers within the driver timeout, so it fails on the bound. The SPEC's "never
    retries without delay" is not checked: its jitter is unpinned.
    Given a mock LLM runs "retry-after-once.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "ra-<form>", "apiKey": "test-key", "retryBaseMs": 1}
      """
    When the client runs "hi"
    Then the run did not raise
    And the run text is "recovered (ra-<form>)"
    And the LLM received 2 requests
    And the elapsed time is below 2500 ms

    Examples:
      | form         |
      | fractional   |
      | negative     |
      | plus         |
      | http-date    |
      | empty        |
      | garbage      |
      | out-of-range |
      | huge         |

  # ---------------------------------------------------------------- onError

  @spec-8 @partial-clause-8.on-error.info
  Scenario: onError gets {status, attempt (0-based), retryable} for a retryable failure
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "once-503", "apiKey": "test-key", "retryBaseMs": 1,
       "onError": {"answer": "retry"}}
      """
    When the client runs "hi"
    Then the run text is "recovered (once-503)"
    And onErrorCalls has 1 entries
    And onErrorCalls at "[0].status" is 503
    And onErrorCalls at "[0].attempt" is 0
    And onErrorCalls at "[0].retryable" is true

  @spec-8 @partial-clause-8.on-error.info
  Scenario: onError sees retryable false for a 400
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-400", "apiKey": "test-key", "retryBaseMs": 1,
       "onError": {"answer": "fail"}}
      """
    When the client runs "hi"
    # The words are the port's (NOTES #320; *a <status> is not retried: one request, and the
    # error names the status*); what onError saw is the cause.
    Then the run raised an error mentioning ""
    And the LLM received 1 request
    And onErrorCalls at "[0]" is:
      """
      {"status": 400, "attempt": 0, "retryable": false, "$partial": true}
      """

  @spec-8 @partial-clause-8.on-error.info
  Scenario: onError gets an error (not a status) and retryable true for a dropped connection
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "drop-once", "apiKey": "test-key", "retryBaseMs": 1,
       "onError": {"answer": "retry"}}
      """
    When the client runs "hi"
    Then the run text is "recovered (drop-once)"
    And onErrorCalls at "[0]" is:
      """
      {"error": {"$match": "string"}, "status": {"$absent": true}, "attempt": 0, "retryable": true}
      """

  @spec-8 @clause-8.on-error.bounded @partial-clause-8.on-error.info
  Scenario: attempts count up from 0 across retries
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-503", "apiKey": "test-key", "retryBaseMs": 1, "retries": 2,
       "onError": {"answer": "retry"}}
      """
    When the client runs "hi"
    Then the run raised an error mentioning ""
    And the LLM received 3 requests
    And onErrorCalls at "[0].attempt" is 0
    And onErrorCalls at "[1].attempt" is 1

  @spec-8 @clause-8.on-error.bounded @clause-8.on-error.no-suspend @partial-clause-8.on-error.no-suspend-tier
  Scenario: "fail" surfaces a retryable 503 at once, as a raise (never a pending result)
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-503", "apiKey": "test-key", "retryBaseMs": 1,
       "onError": {"answer": "fail"}}
      """
    When the client runs "hi"
    # The words are the port's (NOTES #320: the @beyond-spec twin below checks the status).
    Then the run raised an error mentioning ""
    And the LLM received 1 request
    And onErrorCalls has 1 entries

  @spec-8 @beyond-spec
  Scenario: the error that "fail" surfaces names the status
    Beyond the SPEC: §8 says `"fail"` "surfaces the error immediately" and gives it no words
    (NOTES #320); the reference's error names the HTTP status.
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-503", "apiKey": "test-key", "retryBaseMs": 1,
       "onError": {"answer": "fail"}}
      """
    When the client runs "hi"
    Then the run raised an error mentioning "503"
    And the LLM received 1 request
    And onErrorCalls has 1 entries

  @spec-8 @clause-8.on-error.no-suspend @partial-clause-8.on-error.no-suspend-tier
  Scenario: "fail" on a stream raises too, with no done event carrying a pending result
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "once-503", "apiKey": "test-key", "retryBaseMs": 1,
       "onError": {"answer": "fail"}}
      """
    When the client streams "hi"
    # The words are the port's (NOTES #320: the @beyond-spec twin below checks the status).
    Then the run raised an error mentioning ""
    And the LLM received 1 request
    And the stream event types are:
      """
      []
      """

  @spec-8 @beyond-spec
  Scenario: the error a stream raises on "fail" names the status
    Beyond the SPEC: §8 gives the error a failed stream raises no words (NOTES #320); the
    reference's error names the HTTP status.
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "once-503", "apiKey": "test-key", "retryBaseMs": 1,
       "onError": {"answer": "fail"}}
      """
    When the client streams "hi"
    Then the run raised an error mentioning "503"
    And the LLM received 1 request

  @spec-8 @clause-8.on-error.bounded
  Scenario: "retry" on a 400 is bounded by retries (retries + 1 requests)
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-400", "apiKey": "test-key", "retryBaseMs": 1, "retries": 2,
       "onError": {"answer": "retry"}}
      """
    When the client runs "hi"
    # The words are the port's (NOTES #320; *a <status> is not retried: one request, and the
    # error names the status*).
    Then the run raised an error mentioning ""
    And the LLM received 3 requests

  @spec-8 @clause-8.on-error.default
  Scenario Outline: without onError the default classifier decides (<model> ⇒ <requests> requests)
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "<model>", "apiKey": "test-key", "retryBaseMs": 1, "retries": 1}
      """
    When the client runs "hi"
    # The words are the port's (NOTES #320; the twins *a persistent 503 raised after its
    # retries names the status* and *a <status> is not retried: …, and the error names the
    # status* check them).
    Then the run raised an error mentioning ""
    And the LLM received <requests> requests

    Examples:
      | model      | status | requests |
      | always-503 | 503    | 2        |
      | always-400 | 400    | 1        |

  # ---------------------------------------------------------------- timeout and cancel

  @spec-8 @clause-8.resilience.aborts-not-retried @clause-8.on-error.aborts-bypass @serial @partial-clause-8.resilience.abort-in-flight @partial-clause-8.resilience.timeout-ms
  Scenario: timeoutMs aborts a slow reply; the abort is not retried and onError is not called
    The slow reply takes 2500 ms; the run must end near the 200 ms deadline. The SPEC does not
    word the error, so only the raise itself is checked.
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "slow", "apiKey": "test-key", "retryBaseMs": 1, "timeoutMs": 200,
       "onError": {"answer": "retry"}}
      """
    When the client runs "hi"
    Then the run raised an error mentioning ""
    And the elapsed time is below 2000 ms
    And the LLM received 1 request
    And onErrorCalls has 0 entries

  @spec-8 @clause-8.resilience.aborts-not-retried @clause-8.on-error.aborts-bypass @serial @partial-clause-8.resilience.abort-in-flight
  Scenario: an external cancel aborts a slow reply; not retried, onError not called
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "slow", "apiKey": "test-key", "retryBaseMs": 1,
       "onError": {"answer": "retry"}}
      """
    When the client runs "hi" with:
      """
      {"cancelAfterMs": 200}
      """
    Then the run raised an error mentioning ""
    And the elapsed time is below 2000 ms
    And the LLM received 1 request
    And onErrorCalls has 0 entries

  @spec-8 @clause-8.resilience.timeout-ms @serial
  Scenario: timeoutMs is a deadline for the whole run, not for each request
    Both LLM replies are immediate; the tool between them takes 1500 ms (or less, if the port
    hands the run's abort to the tool's context), far past the 300 ms deadline. A per-request
    timeout would let the second request through and answer; the whole-run deadline has
    passed by then, so the run raises (the SPEC gives the error no words).
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"awaitCancel": {"ms": 1500}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key", "timeoutMs": 300}
      """
    When the client runs "weather in Paris?"
    Then the run raised an error mentioning ""
    And the LLM received at most 2 requests
    And the elapsed time is below 3000 ms

  @spec-8 @partial-clause-8.resilience.timeout-ms
  Scenario: the same tool run under a deadline it fits in answers (positive control)
    Given a mock LLM runs "basic-openai.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_weather", "behaviour": {"awaitCancel": {"ms": 200}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key", "timeoutMs": 4000}
      """
    When the client runs "weather in Paris?"
    Then the run text is "It is not cancelled."
    And the LLM received 2 requests

  @spec-8 @clause-8.resilience.aborts-not-retried @partial-clause-8.resilience.timeout-ms
  Scenario: a timeout long enough lets the slow reply through (positive control)
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "slow", "apiKey": "test-key", "timeoutMs": 4500}
      """
    When the client runs "hi"
    Then the run text is "finally"
    And the elapsed time is at least 2400 ms
