@pin-0.16.0
Feature: The §8 client's observability — onMetric events and the Prometheus text (SPEC §8 "Observability")
  The port's own §8 client runs against the mock LLM with `onMetric` collecting its records
  (answered in `metricEvents`, field names camelCased by the driver) or with `metrics()` read
  afterwards. `tool-loop.json` scripts three LLM calls (usage 10/5, 10/5, then 100/20) and three
  `lookup` tool calls; `metrics.json` scripts two tools called in turn (`zeta` then `alpha`),
  a model that answers once and then fails with 500, a 300 ms reply, and an echo.
  The metrics text is compared after the harness's duration normalisation (PROTOCOL.md §10:
  `…_sum` values read `<sum>`, finite bucket counts `<n>`, after checking they are cumulative).
  The SPEC pins the metric names, their order, the label names, the buckets, the escaping and
  the trailing newline, but no `# HELP` text: the texts are the published python port's
  (conformance/NOTES.md #110).

  # ---------------------------------------------------------------- onMetric events

  @spec-8 @clause-8.metrics.llm-event @clause-8.metrics.run-event
  Scenario: a plain run emits one llm event (model, ok, the mock's tokens) and then one run event
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key", "onMetric": {"collect": true}}
      """
    When the client runs "hi"
    Then metricEvents has 2 entries
    And metricEvents at "[0]" is:
      """
      {"event": "llm", "model": "m-basic", "status": "ok", "ms": {"$match": "number"},
       "promptTokens": 12, "completionTokens": 7, "$partial": true}
      """
    And metricEvents at "[1]" is:
      """
      {"event": "run", "model": "m-basic", "turns": 1, "toolCalls": 0, "totalTokens": 19, "ms": {"$match": "number"},
       "error": {"$absent": true}, "$partial": true}
      """

  @spec-8 @clause-8.metrics.llm-event @clause-8.metrics.tool-event @clause-8.metrics.run-event
  Scenario: a tool loop emits one llm event per call, one tool event per tool call and one run event
    Given a mock LLM runs "tool-loop.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-loop", "apiKey": "test-key", "onMetric": {"collect": true}}
      """
    When the client runs "go"
    Then the run text is "done (3): {\"q\":\"first\"} | {\"q\":\"second\"} | {\"q\":\"third\"}"
    And metricEvents has 7 entries
    And metricEvents has 3 entries with "event" equal to "llm"
    And metricEvents has 3 entries with "event" equal to "tool"
    And metricEvents has 1 entries with "event" equal to "run"
    And metricEvents has 3 entries with "tool" equal to "lookup"
    And metricEvents has 3 entries with "source" equal to "native"
    And metricEvents has 3 entries with "isError" equal to false
    And metricEvents has 3 entries with "status" equal to "ok"
    And metricEvents has 2 entries with "promptTokens" equal to 10
    And metricEvents has 1 entries with "promptTokens" equal to 100
    And metricEvents has 1 entries with "completionTokens" equal to 20
    And metricEvents at "[-1]" is:
      """
      {"event": "run", "model": "m-loop", "turns": 3, "toolCalls": 3, "totalTokens": 150, "ms": {"$match": "number"},
       "error": {"$absent": true}, "$partial": true}
      """

  @spec-8 @clause-8.metrics.tool-event
  Scenario: a failing tool's event has isError true
    Given a mock LLM runs "tool-loop.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"fail": "lookup broke"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-loop", "apiKey": "test-key", "onMetric": {"collect": true}}
      """
    When the client runs "go"
    Then the run did not raise
    And metricEvents has 3 entries with "isError" equal to true
    And metricEvents has 0 entries with "isError" equal to false

  @spec-8 @clause-8.metrics.run-event @clause-8.metrics.llm-event
  Scenario: a failed run emits an llm event with status error and a run event carrying the error
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-400", "apiKey": "test-key",
       "onMetric": {"collect": true}}
      """
    When the client runs "hi"
    # The raised error's words are the port's (NOTES #320; client_resilience's @beyond-spec
    # twins check that it names the status); the one request is the mock's 400, a status
    # outside §8's retry set, so every port sends exactly one (NOTES #419).
    Then the run raised an error mentioning ""
    And the LLM received 1 request
    And metricEvents has 1 entries with "status" equal to "error"
    And metricEvents has 0 entries with "status" equal to "ok"
    And metricEvents at "[-1]" is:
      """
      {"event": "run", "model": "always-400", "error": {"$match": "string"}, "$partial": true}
      """

  # ---------------------------------------------------------------- the Prometheus text

  @spec-8 @clause-8.prometheus.empty @clause-8.prometheus.order-help-type @clause-8.prometheus.metric-names @clause-8.prometheus.byte-identical
  Scenario: before any activity metrics() is the HELP/TYPE lines only, byte for byte
    The HELP texts are a SPEC silence (conformance/NOTES.md #110); the next scenario checks the
    same shape without them.
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client's metrics are read
    Then the metrics text matches snapshot "metrics-empty"

  @spec-8 @clause-8.prometheus.empty @clause-8.prometheus.order-help-type @clause-8.prometheus.metric-names @clause-8.prometheus.trailing-newline
  Scenario: before any activity metrics() has only a HELP and a TYPE line per metric, in the fixed order (any HELP text)
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client's metrics are read
    Then the metrics text matches "\A# HELP toolnexus_llm_requests_total [^\n]*\n# TYPE toolnexus_llm_requests_total counter\n# HELP toolnexus_llm_tokens_total [^\n]*\n# TYPE toolnexus_llm_tokens_total counter\n# HELP toolnexus_llm_request_duration_seconds [^\n]*\n# TYPE toolnexus_llm_request_duration_seconds histogram\n# HELP toolnexus_tool_calls_total [^\n]*\n# TYPE toolnexus_tool_calls_total counter\n# HELP toolnexus_tool_duration_seconds [^\n]*\n# TYPE toolnexus_tool_duration_seconds histogram\n# HELP toolnexus_run_errors_total [^\n]*\n# TYPE toolnexus_run_errors_total counter\n\z"

  @spec-8 @clause-8.prometheus.byte-identical @clause-8.prometheus.order-help-type @clause-8.prometheus.buckets @clause-8.prometheus.series-sorted @clause-8.prometheus.snake-case-labels @clause-8.prometheus.metric-names @clause-8.prometheus.histogram-series
  Scenario: after a scripted tool loop the whole metrics text is pinned
    Every line of the snapshot follows from the SPEC and tool-loop.json: 3 ok calls of m-loop,
    tokens 120 prompt / 30 completion (series sorted: `completion` before `prompt`), 3 native
    `lookup` calls, both histograms with the fixed buckets, `le` last among the labels, no run
    error. Counters render as integers.
    Given a mock LLM runs "tool-loop.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-loop", "apiKey": "test-key"}
      """
    When the client runs "go"
    And the client's metrics are read
    Then the metrics text matches snapshot "metrics-tool-loop"

  @spec-8 @clause-8.prometheus.series-sorted
  Scenario: series are sorted by their label string, not by when they appeared (tools zeta, then alpha)
    Given a mock LLM runs "metrics.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "zeta", "behaviour": {"text": "z"}}, {"name": "alpha", "behaviour": {"text": "a"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "two-tools", "apiKey": "test-key"}
      """
    When the client runs "go"
    And the client's metrics are read
    Then the run text is "done: z | a"
    And the metrics text matches "^toolnexus_tool_calls_total\{tool=\"alpha\",[^\n]*\} 1\ntoolnexus_tool_calls_total\{tool=\"zeta\",[^\n]*\} 1\n"
    And the metrics text matches "^toolnexus_tool_duration_seconds_count\{tool=\"alpha\"\} 1\n(?:[^\n]*\n)*toolnexus_tool_duration_seconds_bucket\{tool=\"zeta\",le=\"0.05\"\}"

  @spec-8 @clause-8.prometheus.series-sorted
  Scenario: series of one metric are sorted by label string (status error before ok, though ok came first)
    Given a mock LLM runs "metrics.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "ok-then-fail", "apiKey": "test-key"}
      """
    When the client runs "one"
    And the client runs "two"
    And the client's metrics are read
    # The second run met the mock's 400, which §8 never retries (its words are the port's,
    # NOTES #320, #419).
    Then the run raised an error mentioning ""
    And the LLM received 2 requests
    And the metrics text matches "^toolnexus_llm_requests_total\{model=\"ok-then-fail\",status=\"error\"\} 1\ntoolnexus_llm_requests_total\{model=\"ok-then-fail\",status=\"ok\"\} 1\n"

  @spec-8 @clause-8.prometheus.series-sorted @clause-8.prometheus.snake-case-labels
  Scenario: the tool calls of two tools render exactly (labels tool, source, is_error)
    Given a mock LLM runs "metrics.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "zeta", "behaviour": {"text": "z"}}, {"name": "alpha", "behaviour": {"text": "a"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "two-tools", "apiKey": "test-key"}
      """
    When the client runs "go"
    And the client's metrics are read
    Then the metrics text has the line "toolnexus_tool_calls_total{tool="alpha",source="native",is_error="false"} 1"
    And the metrics text has the line "toolnexus_tool_calls_total{tool="zeta",source="native",is_error="false"} 1"

  @spec-8 @clause-8.prometheus.escaping @clause-8.routing.model-verbatim
  Scenario: a model id with a quote, a backslash and a newline is sent verbatim and escaped in the label
    Given a mock LLM runs "metrics.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "a\"b\\c\nd", "apiKey": "test-key"}
      """
    When the client runs "hi"
    And the client's metrics are read
    Then LLM request 1 body at "model" is "a\"b\\c\nd"
    And the metrics text has the line "toolnexus_llm_requests_total{model="a\"b\\c\nd",status="ok"} 1"
    And the metrics text has the line "toolnexus_llm_request_duration_seconds_count{model="a\"b\\c\nd"} 1"

  @spec-8 @clause-8.prometheus.buckets @serial @clause-8.prometheus.histogram-series
  Scenario: a 300 ms reply lands in the 0.5 bucket, not in 0.1 or 0.25
    Given a mock LLM runs "metrics.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "slow300", "apiKey": "test-key"}
      """
    When the client runs "hi"
    And the client's metrics are read
    Then the run text is "slow"
    And the metrics text matches "^toolnexus_llm_request_duration_seconds_bucket\{model=\"slow300\",le=\"0.05\"\} 0$"
    And the metrics text matches "^toolnexus_llm_request_duration_seconds_bucket\{model=\"slow300\",le=\"0.1\"\} 0$"
    And the metrics text matches "^toolnexus_llm_request_duration_seconds_bucket\{model=\"slow300\",le=\"0.25\"\} 0$"
    And the metrics text matches "^toolnexus_llm_request_duration_seconds_bucket\{model=\"slow300\",le=\"0.5\"\} 1$"
    And the metrics text matches "^toolnexus_llm_request_duration_seconds_bucket\{model=\"slow300\",le=\"60\"\} 1$"
    And the metrics text matches "^toolnexus_llm_request_duration_seconds_bucket\{model=\"slow300\",le=\"\+Inf\"\} 1$"
    And the metrics text matches "^toolnexus_llm_request_duration_seconds_sum\{model=\"slow300\"\} 0\.[3-9][0-9]*$"

  @spec-8 @clause-8.prometheus.trailing-newline
  Scenario: after activity the text still ends with exactly one newline
    Given a mock LLM runs "basic-openai.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-basic", "apiKey": "test-key"}
      """
    When the client runs "hi"
    And the client's metrics are read
    Then the metrics text matches "[^\n]\n\z"

  @spec-8 @partial-clause-8.prometheus.metric-names
  Scenario: a failed run counts in run_errors_total and as an error request
    Given a mock LLM runs "resilience.json"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "always-400", "apiKey": "test-key"}
      """
    When the client runs "hi"
    And the client's metrics are read
    # The raised error's words are the port's (NOTES #320); the one request is the mock's 400,
    # which §8 never retries (NOTES #419).
    Then the run raised an error mentioning ""
    And the LLM received 1 request
    And the metrics text has the line "toolnexus_run_errors_total{model="always-400"} 1"
    And the metrics text has the line "toolnexus_llm_requests_total{model="always-400",status="error"} 1"

  @spec-8 @clause-8.prometheus.snake-case-labels
  Scenario: a failing tool counts under is_error="true"
    Given a mock LLM runs "tool-loop.json"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "lookup", "behaviour": {"fail": "lookup broke"}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-loop", "apiKey": "test-key"}
      """
    When the client runs "go"
    And the client's metrics are read
    Then the metrics text has the line "toolnexus_tool_calls_total{tool="lookup",source="native",is_error="true"} 3"
    And the metrics text has the line "toolnexus_tool_duration_seconds_count{tool="lookup"} 3"
