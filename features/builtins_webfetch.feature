@pin-0.16.0
Feature: Built-in webfetch — HTTP GET a URL (SPEC §4A)

  §4A: `webfetch` takes `url:string`, `format?:"text"|"markdown"|"html"` (default markdown) and
  `timeout?:number` (seconds, default 30); it does an HTTP GET of `url` and returns the body as
  text, markdown or html; a non-2xx status ⇒ isError with `HTTP <status>`; every failure is an
  isError ToolResult (§1, §4A). The SPEC fixes the html output (the body) but not how text or
  markdown are derived from it, so those scenarios only check that the words survive and the
  tags do not; one more checks, leniently, that markdown has Markdown's forms (NOTES #141). Every scenario fetches from its own local server ({{HTTP}}), never the internet.

  @spec-4A @partial-clause-4A.webfetch.get-body
  Scenario: webfetch with format "html" returns the body verbatim
    Given an HTTP server answers:
      """
      {"GET /page": {"status": 200, "contentType": "text/html",
                     "body": "<html><body><h1>Title</h1>\n<p>Hello <b>world</b> &amp; more</p></body></html>"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/page", "format": "html"}
      """
    Then the result is not an error
    And the output is:
      """
      <html><body><h1>Title</h1>
      <p>Hello <b>world</b> &amp; more</p></body></html>
      """

  @spec-4A @lenient @partial-clause-4A.webfetch.get-body
  Scenario: webfetch with format "text" returns the words without the tags
    Given an HTTP server answers:
      """
      {"GET /page": {"status": 200, "contentType": "text/html",
                     "body": "<html><body><h1>Title</h1>\n<p>Hello <b>world</b></p></body></html>"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/page", "format": "text"}
      """
    Then the result is not an error
    And the output contains "Title"
    And the output contains "Hello"
    And the output contains "world"
    And the output does not contain "<h1>"
    And the output does not contain "<b>"
    And the output does not contain "<html>"

  @spec-4A @lenient @partial-clause-4A.webfetch.get-body
  Scenario: webfetch with format "markdown" returns the words without the tags
    Given an HTTP server answers:
      """
      {"GET /page": {"status": 200, "contentType": "text/html",
                     "body": "<html><body><h1>Title</h1>\n<p>Hello <b>world</b></p></body></html>"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/page", "format": "markdown"}
      """
    Then the result is not an error
    And the output contains "Title"
    And the output contains "Hello"
    And the output contains "world"
    And the output does not contain "<h1>"
    And the output does not contain "<b>"
    And the output does not contain "<html>"

  @spec-4A @lenient @partial-clause-4A.webfetch.get-body
  Scenario: webfetch with format "markdown" keeps headings, links, list items and spacing
    # §4A returns the body "as markdown": Markdown's own forms, leniently (NOTES #141). The
    # heading is an ATX `#` line, the link keeps its target, each list item is its own bullet
    # line, and block boundaries are not run together ("Main TitlePara").
    Given an HTTP server answers:
      """
      {"GET /doc": {"status": 200, "contentType": "text/html",
                    "body": "<html><head><title>T</title></head><body><h1>Main Title</h1><p>Para with a <a href=\"https://example.test/docs\">link</a>.</p><ul><li>first item</li><li>second item</li></ul></body></html>"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/doc", "format": "markdown"}
      """
    Then the result is not an error
    And the output matches:
      """
      (?m)^#\s+Main Title\s*$
      """
    And the output matches:
      """
      \[link\]\(https://example\.test/docs\)
      """
    And the output matches:
      """
      (?m)^\s*[-*+]\s+first item\s*$
      """
    And the output matches:
      """
      (?m)^\s*[-*+]\s+second item\s*$
      """
    And the output does not contain "TitlePara"
    And the output does not contain "<a "

  @spec-4A @lenient @partial-clause-4A.webfetch.default-format
  Scenario: webfetch without a format converts as markdown does (the default)
    Given an HTTP server answers:
      """
      {"GET /page": {"status": 200, "contentType": "text/html",
                     "body": "<html><body><h1>Title</h1>\n<p>Hello <b>world</b></p></body></html>"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/page"}
      """
    Then the result is not an error
    And the output contains "Title"
    And the output contains "Hello"
    And the output contains "world"
    And the output does not contain "<h1>"
    And the output does not contain "<b>"
    And the output does not contain "<html>"

  @spec-4A @partial-clause-4A.webfetch.non-2xx @partial-clause-4A.webfetch.get-body
  Scenario: webfetch treats any 2xx status as success, not only 200
    Given an HTTP server answers:
      """
      {"GET /accepted": {"status": 203, "contentType": "text/plain", "body": "partial info"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/accepted", "format": "html"}
      """
    Then the result is not an error
    And the output is "partial info"

  @spec-4A @clause-4A.webfetch.non-2xx
  Scenario: webfetch of a 404 is an isError naming the status
    Given an HTTP server answers:
      """
      {"GET /gone": {"status": 404, "contentType": "text/html", "body": "<h1>Not Found</h1>"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/gone"}
      """
    Then the result is an error
    And the output contains "HTTP 404"

  @spec-4A @clause-4A.webfetch.non-2xx
  Scenario: webfetch of a 500 is an isError naming the status
    Given an HTTP server answers:
      """
      {"GET /boom": {"status": 500, "contentType": "text/plain", "body": "internal error"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/boom", "format": "html"}
      """
    Then the result is an error
    And the output contains "HTTP 500"

  @spec-4A @partial-clause-4A.webfetch.default-timeout
  Scenario: webfetch gives up after its timeout in seconds with an isError
    # The answer comes after 3 s, inside the driver's 5 s bound: a port that ignored `timeout`
    # would return "late" as a success. The words are the port's (NOTES #320: JS 0.16 says
    # `webfetch: This operation was aborted`; the @beyond-spec twin below checks them); the
    # positive control: the same server's fast page is fetched.
    Given an HTTP server answers:
      """
      {"GET /slow": {"status": 200, "contentType": "text/plain", "body": "late", "delayMs": 3000},
       "GET /fast": {"status": 200, "contentType": "text/plain", "body": "in time"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/slow", "format": "html", "timeout": 1}
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    And the output does not contain "late"
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/fast", "format": "html", "timeout": 3}
      """
    Then the result is not an error
    And the output is "in time"

  @spec-4A @beyond-spec
  Scenario: webfetch's error after its timeout says it timed out
    Beyond the SPEC: §4A gives `timeout` in seconds and makes a failure `ToolResult{isError:true,
    output:<message>}` with no words (NOTES #320); the reference and python say it timed out,
    JS 0.16 says `webfetch: This operation was aborted`.
    Given an HTTP server answers:
      """
      {"GET /slow": {"status": 200, "contentType": "text/plain", "body": "late", "delayMs": 3000},
       "GET /fast": {"status": 200, "contentType": "text/plain", "body": "in time"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/slow", "format": "html", "timeout": 1}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)time|deadline
      """
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/fast", "format": "html", "timeout": 3}
      """
    Then the result is not an error

  @spec-4A @partial-clause-4A.common.failure-is-result
  Scenario: webfetch without a url is an isError
    # The message's words are the port's (NOTES #320); the positive control: with a url the
    # same call fetches.
    Given an HTTP server answers:
      """
      {"GET /page": {"status": 200, "contentType": "text/plain", "body": "fetched"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"format": "html"}
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/page", "format": "html"}
      """
    Then the result is not an error
    And the output is "fetched"

  @spec-4A @beyond-spec
  Scenario: webfetch's error for a missing url names the field
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python name the missing `url`.
    Given an HTTP server answers:
      """
      {"GET /page": {"status": 200, "contentType": "text/plain", "body": "fetched"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"format": "html"}
      """
    Then the result is an error
    And the output contains "url"
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/page", "format": "html"}
      """
    Then the result is not an error

  @spec-4A @beyond-spec
  Scenario: webfetch with a format outside text, markdown and html is an isError
    Beyond the SPEC: §4A enumerates format text|markdown|html but not what another value does
    (NOTES #38); the reference refuses it, the python port falls back to markdown. The
    positive control: the same page in html is fetched (NOTES #321).
    Given an HTTP server answers:
      """
      {"GET /page": {"status": 200, "contentType": "text/html", "body": "<p>Hello</p>"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/page", "format": "pdf"}
      """
    Then the result is an error
    And the output contains "format"
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/page", "format": "html"}
      """
    Then the result is not an error
    And the output is "<p>Hello</p>"

  @spec-4A @partial-clause-4A.common.failure-is-result
  Scenario: webfetch of a port nobody listens on is an isError, not a crash
    # The message's words are the port's (NOTES #320: JS 0.16 says `webfetch: fetch failed`;
    # the @beyond-spec twin below checks them); the positive control: a server that listens
    # is fetched.
    Given an HTTP server answers:
      """
      {"GET /page": {"status": 200, "contentType": "text/plain", "body": "listening"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "http://127.0.0.1:9/", "timeout": 3}
      """
    Then the result is an error
    And the output matches:
      """
      \S
      """
    And the output does not contain "HTTP 200"
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/page", "format": "html", "timeout": 3}
      """
    Then the result is not an error
    And the output is "listening"

  @spec-4A @beyond-spec
  Scenario: webfetch's error for a port nobody listens on says the connection failed
    Beyond the SPEC: §4A makes a failure `ToolResult{isError:true, output:<message>}` and gives
    no words (NOTES #320); the reference and python say the connection was refused or name the
    address, JS 0.16 says `webfetch: fetch failed`.
    Given an HTTP server answers:
      """
      {"GET /page": {"status": 200, "contentType": "text/plain", "body": "listening"}}
      """
    And a toolkit built with no options
    When "webfetch" is executed with:
      """
      {"url": "http://127.0.0.1:9/", "timeout": 3}
      """
    Then the result is an error
    And the output matches:
      """
      (?i)connect|refused|127\.0\.0\.1
      """
    When "webfetch" is executed with:
      """
      {"url": "{{HTTP}}/page", "format": "html", "timeout": 3}
      """
    Then the result is not an error
