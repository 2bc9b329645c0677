@pin-0.16.0
Feature: HTTP / REST tools (SPEC §7, §0.9)
  An HTTP tool is declared as an extra tool with an `http` block (PROTOCOL.md §7); the port
  builds it with its own `httpTool`. Every endpoint here is a local HTTP server.

  @spec-7
  @clause-7.http.returns-body @clause-7.http.url-placeholders @clause-7.http.2xx
  @partial-clause-7.http.method @partial-clause-7.http.placeholder-substitution
  @partial-clause-0.http.url-substitution @partial-clause-0.http.non-2xx
  Scenario: a GET fills {placeholders} from the arguments and returns the body and its status
    Given an HTTP server answers:
      """
      {"GET /users/42": {"status": 200, "body": "{\"id\":42,\"name\":\"Ada\"}", "contentType": "application/json"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_user", "description": "Fetch a user",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "http": {"method": "GET", "url": "{{HTTP}}/users/{id}"}}]}
      """
    Then the tool "get_user" has source "http"
    When "get_user" is executed with:
      """
      {"id": "42"}
      """
    Then the result matches:
      """
      {"output": "{\"id\":42,\"name\":\"Ada\"}", "isError": false, "metadata": {"status": 200, "$partial": true}}
      """
    And the HTTP server's last request matches:
      """
      {"method": "GET", "path": "/users/42", "query": {}, "$partial": true}
      """

  @spec-7 @partial-clause-0.tool.shape @partial-clause-1.tool.source-values
  Scenario: the tool keeps its declared name, description and input schema
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_user", "description": "Fetch a user",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "http": {"method": "GET", "url": "http://127.0.0.1:9/users/{id}"}}]}
      """
    Then the tool "get_user" matches:
      """
      {"name": "get_user", "description": "Fetch a user", "source": "http",
       "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}
      """

  @spec-7
  @clause-7.http.placeholder-substitution @partial-clause-7.http.body-default-json
  @partial-clause-7.http.method
  Scenario: a placeholder's argument is removed from the JSON body; the rest is the body
    Given an HTTP server answers:
      """
      {"POST /projects/p1/issues": {"status": 201, "body": "created"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "new_issue",
        "http": {"method": "POST", "url": "{{HTTP}}/projects/{project}/issues"}}]}
      """
    When "new_issue" is executed with:
      """
      {"project": "p1", "title": "Broken link", "labels": ["docs"]}
      """
    Then the output is "created"
    And the result is not an error
    And the HTTP server's last request matches:
      """
      {"method": "POST", "path": "/projects/p1/issues",
       "json": {"title": "Broken link", "labels": ["docs"]},
       "headers": {"content-type": {"$regex": "^application/json"}, "$partial": true}, "$partial": true}
      """

  @spec-7 @partial-clause-7.http.placeholder-substitution
  Scenario: a placeholder value reaches the server intact, as one path segment
    §7 fills `{name}` from the argument but gives no encoding (NOTES #61, #415): the value
    must reach the server whole and its `/` must not split the path. Any escape that decodes
    back to the value passes (a character may be escaped or not where that keeps its meaning;
    the space may be `%20` or a form-style `+`); the twin below, `@beyond-spec`, pins the
    reference's exact encoding.
    Given an HTTP server answers:
      """
      {"GET /files/a%20b%2Fc.txt": {"status": 200, "body": "ok"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_file", "http": {"url": "{{HTTP}}/files/{name}"}}]}
      """
    When "get_file" is executed with:
      """
      {"name": "a b/c.txt"}
      """
    Then the HTTP server's last request matches:
      """
      {"method": "GET", "path": {"$regex": "^/files/(a|%61)(%20|\\+)(b|%62)%2[Ff](c|%63)(\\.|%2[Ee])(t|%74)(x|%78)(t|%74)$"},
       "$partial": true}
      """

  @spec-7 @beyond-spec @partial-clause-7.http.placeholder-substitution
  Scenario: placeholder values are percent-encoded into the path
    Beyond the SPEC: §7 fills placeholders from the arguments but never says how a value is
    encoded (NOTES #61); the reference percent-encodes it as one path segment, everything but
    the unreserved characters escaped, `/` and the space included (as Python's
    `quote(…, safe="")`).
    Given an HTTP server answers:
      """
      {"GET /files/a%20b%2Fc.txt": {"status": 200, "body": "ok"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_file", "http": {"url": "{{HTTP}}/files/{name}"}}]}
      """
    When "get_file" is executed with:
      """
      {"name": "a b/c.txt"}
      """
    Then the output is "ok"

  @spec-7 @beyond-spec @partial-clause-7.http.placeholder-substitution
  Scenario: a placeholder named like an argument with a hyphen is substituted and consumed
    Beyond the SPEC: §7 substitutes `{name}` placeholders "from matching args" but never says
    which characters a name may hold; an argument named `user-id` is a valid JSON-Schema
    property, and the reference takes any name without braces or white space (NOTES #121).
    Given an HTTP server answers:
      """
      {"GET /u/7": {"status": 200, "body": "user seven"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "get_user",
        "inputSchema": {"type": "object", "properties": {"user-id": {"type": "string"}}, "required": ["user-id"]},
        "http": {"url": "{{HTTP}}/u/{user-id}"}}]}
      """
    When "get_user" is executed with:
      """
      {"user-id": "7"}
      """
    Then the output is "user seven"
    And the HTTP server's last request matches:
      """
      {"method": "GET", "path": "/u/7", "query": {}, "$partial": true}
      """

  @spec-7 @clause-7.http.query @partial-clause-7.http.body-default-json
  Scenario: named query arguments go to the query string, the rest to the body
    Given an HTTP server answers:
      """
      {"POST /search": {"status": 200, "body": "found"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "search",
        "http": {"method": "POST", "url": "{{HTTP}}/search", "query": ["page", "q"]}}]}
      """
    When "search" is executed with:
      """
      {"q": "rust & tokio", "page": 2, "filter": {"lang": "en"}}
      """
    Then the output is "found"
    And the HTTP server's last request matches:
      """
      {"query": {"q": "rust & tokio", "page": "2"}, "json": {"filter": {"lang": "en"}}, "$partial": true}
      """

  @spec-7 @clause-7.http.returns-body
  Scenario: a GET sends every remaining argument in the query string and no body
    Given an HTTP server answers:
      """
      {"GET /weather": {"status": 200, "body": "sunny"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "weather", "http": {"url": "{{HTTP}}/weather"}}]}
      """
    When "weather" is executed with:
      """
      {"city": "Paris", "units": "metric"}
      """
    Then the output is "sunny"
    And the HTTP server's last request matches:
      """
      {"method": "GET", "query": {"city": "Paris", "units": "metric"}, "body": "", "$partial": true}
      """

  @spec-7 @partial-clause-7.http.body-default-json
  Scenario: a form body is urlencoded
    Given an HTTP server answers:
      """
      {"POST /login": {"status": 200, "body": "welcome"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "login",
        "http": {"method": "POST", "url": "{{HTTP}}/login", "body": "form"}}]}
      """
    When "login" is executed with:
      """
      {"user": "ada lovelace", "remember": "yes"}
      """
    Then the output is "welcome"
    And the HTTP server's last request matches:
      """
      {"body": {"$regex": "^(user=ada(\\+|%20)lovelace&remember=yes|remember=yes&user=ada(\\+|%20)lovelace)$"},
       "headers": {"content-type": {"$regex": "^application/x-www-form-urlencoded"}, "$partial": true}, "$partial": true}
      """

  @spec-7 @clause-7.http.2xx @partial-clause-7.http.body-default-json @partial-clause-7.http.method
  Scenario: a raw body sends the "body" argument as it is
    Given an HTTP server answers:
      """
      {"PUT /notes/1": {"status": 204}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "put_note",
        "http": {"method": "PUT", "url": "{{HTTP}}/notes/{id}", "body": "raw"}}]}
      """
    When "put_note" is executed with:
      """
      {"id": "1", "body": "<note>hello</note>"}
      """
    Then the result matches:
      """
      {"output": "", "isError": false, "metadata": {"status": 204, "$partial": true}}
      """
    And the HTTP server's last request matches:
      """
      {"method": "PUT", "body": "<note>hello</note>", "$partial": true}
      """

  @spec-7 @clause-7.http.non-2xx @clause-0.http.non-2xx
  Scenario Outline: a <status> answer is an error "HTTP <status>: <body>"
    Given an HTTP server answers:
      """
      {"GET /thing": {"status": <status>, "body": "<body>"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "thing", "http": {"url": "{{HTTP}}/thing"}}]}
      """
    When "thing" is executed
    Then the output is "HTTP <status>: <body>"
    And the result is an error

    Examples:
      | status | body              |
      | 404    | no such thing     |
      | 500    | internal error    |
      | 301    | moved permanently |

  @spec-7
  @clause-7.http.headers-env @clause-7.http.header-expansion
  @partial-clause-7.http.never-log-headers @partial-clause-0.http.url-substitution
  Scenario: header values expand ${ENV} from the environment and are never reported
    Given an HTTP server answers:
      """
      {"GET /me": {"status": 200, "body": "you"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "me",
        "http": {"url": "{{HTTP}}/me", "headers": {"Authorization": "Bearer ${TOOLNEXUS_CONFORMANCE_SECRET}", "X-Static": "plain"}}}]}
      """
    When "me" is executed
    Then the output is "you"
    And the HTTP server's last request matches:
      """
      {"headers": {"authorization": "Bearer {{SECRET}}", "x-static": "plain", "$partial": true}, "$partial": true}
      """
    And nothing the port reported mentions the secret

  @spec-7 @beyond-spec
  Scenario: a server that echoes the expanded header back does not leak it through the result
    Beyond the SPEC: §7 says header values are never logged; a response body the server echoes
    back is a tool result, not a log. The reference redacts expanded values from results too
    (NOTES #57).
    Given an HTTP server answers:
      """
      {"GET /me": {"status": 401, "body": "invalid token {{SECRET}}"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "me",
        "http": {"url": "{{HTTP}}/me", "headers": {"Authorization": "${TOOLNEXUS_CONFORMANCE_SECRET}"}}}]}
      """
    When "me" is executed
    Then the result is an error
    And the output contains "HTTP 401: invalid token"
    And nothing the port reported mentions the secret

  @spec-7 @partial-clause-7.http.header-expansion
  Scenario: an unset variable expands to nothing
    Given an HTTP server answers:
      """
      {"GET /me": {"status": 200, "body": "you"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "me",
        "http": {"url": "{{HTTP}}/me", "headers": {"X-Key": "k-${TNX_SURELY_UNSET_VARIABLE}-k"}}}]}
      """
    When "me" is executed
    Then the HTTP server's last request matches:
      """
      {"headers": {"x-key": "k--k", "$partial": true}, "$partial": true}
      """

  @spec-7 @partial-clause-7.http.result-mode
  Scenario: resultMode "text" (the default) returns the body as it is
    Given an HTTP server answers:
      """
      {"GET /data": {"status": 200, "body": "{ \"a\" : [1, 2] }", "contentType": "application/json"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "data", "http": {"url": "{{HTTP}}/data", "resultMode": "text"}}]}
      """
    When "data" is executed
    Then the output is:
      """
      { "a" : [1, 2] }
      """

  @spec-7 @partial-clause-7.http.result-mode
  Scenario: resultMode "status+text" returns the status and the body text
    Given an HTTP server answers:
      """
      {"GET /data": {"status": 200, "body": "{ \"a\" : [1, 2] }", "contentType": "application/json"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "data", "http": {"url": "{{HTTP}}/data", "resultMode": "status+text"}}]}
      """
    When "data" is executed
    Then the output contains "200"
    And the output contains "{ \"a\" : [1, 2] }"
    And the result matches:
      """
      {"output": {"$match": "string"}, "isError": false, "metadata": {"status": 200, "$partial": true}}
      """

  @spec-7 @beyond-spec
  Scenario: resultMode "status+text" puts the status on the first line
    Beyond the SPEC: §7 names the mode `"status+text"` but not its layout; the reference and both
    published ports put the status on the first line and the body after it.
    Given an HTTP server answers:
      """
      {"GET /data": {"status": 200, "body": "{ \"a\" : [1, 2] }", "contentType": "application/json"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "data", "http": {"url": "{{HTTP}}/data", "resultMode": "status+text"}}]}
      """
    When "data" is executed
    Then the output is:
      """
      200
      { "a" : [1, 2] }
      """
    And the result matches:
      """
      {"output": {"$match": "string"}, "isError": false, "metadata": {"status": 200, "$partial": true}}
      """

  @spec-7 @partial-clause-7.http.result-mode
  Scenario: resultMode "json" returns the body as JSON text
    Given an HTTP server answers:
      """
      {"GET /data": {"status": 200, "body": "{ \"a\" : [1, 2] }", "contentType": "application/json"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "data", "http": {"url": "{{HTTP}}/data", "resultMode": "json"}}]}
      """
    When "data" is executed
    Then the output parses as JSON matching:
      """
      {"a": [1, 2]}
      """

  @spec-7 @beyond-spec
  Scenario: resultMode "json" re-serialises a JSON body
    Beyond the SPEC: §7 names the mode `"json"` but not whether the body is passed through or
    re-serialised; the reference and both published ports parse and re-serialise it.
    Given an HTTP server answers:
      """
      {"GET /data": {"status": 200, "body": "{ \"a\" : [1, 2] }", "contentType": "application/json"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "data", "http": {"url": "{{HTTP}}/data", "resultMode": "json"}}]}
      """
    When "data" is executed
    Then the output parses as JSON matching:
      """
      {"a": [1, 2]}
      """
    And the output does not contain " : "

  @spec-7 @partial-clause-7.http.default-timeout
  Scenario: a request slower than the tool's timeout is an error, not a hang
    Given an HTTP server answers:
      """
      {"GET /slow": {"status": 200, "body": "late", "delayMs": 3000}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "slow", "http": {"url": "{{HTTP}}/slow", "timeout": 300}}]}
      """
    When "slow" is executed
    Then the result is an error
    And the output does not contain "late"
    And the call took less than 2500 ms

  @spec-7
  Scenario: nobody listening is an error result
    # The positive control: the same kind of tool against a live server succeeds, so a port
    # whose every HTTP tool fails does not pass.
    Given an HTTP server answers:
      """
      {"GET /x": {"status": 200, "body": "up"}}
      """
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "down", "http": {"url": "http://127.0.0.1:9/x", "timeout": 2000}},
                                         {"name": "up", "http": {"url": "{{HTTP}}/x", "timeout": 2000}}]}
      """
    When "up" is executed
    Then the result is not an error
    And the output is "up"
    When "down" is executed
    Then the result is an error
    And the output matches:
      """
      \S
      """

  @spec-4 @clause-4.assembly.extra-shadows-builtin
  Scenario: an HTTP tool is an extra tool: it shadows the builtin of its name
    Given a toolkit built with:
      """
      {"extraTools": [{"name": "webfetch", "description": "Company proxy fetch", "http": {"url": "http://127.0.0.1:9/fetch"}}]}
      """
    Then the tool "webfetch" has source "http"
