@pin-0.16.0 @preview
Feature: Relay (declaration-only) tools — a SPEC preview (§10 addendum)
  The SPEC marks relay tools "golang only — a preview, NOT part of the §0 conformance
  contract": these scenarios are `@preview`, left out of `run` unless `--include-preview`,
  and a port without relay tools answers `unsupported` for the `relayTools` build option, so
  they are skipped there, never failed. The relay suspension loop (`data.calls` stamped by
  the loop, `data.results`, durable resume) is checked in relay_loop.feature.

  @spec-10 @clause-10.relay.collision-guard
  Scenario Outline: a relay tool named like a builtin fails the build, builtins <state>
    Given the toolkit options:
      """
      {"builtins": <builtins>, "disableTools": ["skill"],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "<name>", "description": "Host-side <name>."}]}
      """
    # §10 "construction **fails**" gives the error no words (NOTES #320): the @beyond-spec twin
    # below checks that it names the tool.
    When building the toolkit fails with an error mentioning ""
    # The positive control: the same declaration under a free name builds.
    Given a toolkit built with:
      """
      {"builtins": <builtins>, "disableTools": ["skill"],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "my_<name>", "description": "Host-side <name>."}]}
      """
    Then the toolkit has the tool "my_<name>"
    And the tool "my_<name>" has source "relay"

    Examples:
      | state                      | builtins                     | name        |
      | off                        | false                        | webfetch    |
      | off (object form)          | {"enabled": false}           | apply_patch |
      | on                         | true                         | todowrite   |
      | on, that one switched off  | {"tools": {"question": false}} | question  |

  @spec-10 @beyond-spec
  Scenario Outline: the collision refusal names the relay tool, builtins <state>
    Beyond the SPEC: §10 says toolkit construction "**fails**" on a collision and gives the
    error no words (NOTES #320, #241); the reference's names the colliding tool.
    Given the toolkit options:
      """
      {"builtins": <builtins>, "disableTools": ["skill"],
       "relayTools": [{"name": "lookup", "description": "Host lookup."},
                      {"name": "<name>", "description": "Host-side <name>."}]}
      """
    When building the toolkit fails with an error mentioning "<name>"

    Examples:
      | state                      | builtins                     | name        |
      | off                        | false                        | webfetch    |
      | off (object form)          | {"enabled": false}           | apply_patch |
      | on                         | true                         | todowrite   |
      | on, that one switched off  | {"tools": {"question": false}} | question  |

  @spec-10 @clause-10.relay.source
  Scenario: a relay tool is a normal Tool whose source is "relay"
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "relayTools": [{"name": "lookup", "description": "Look a thing up on the host.",
         "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}]}
      """
    Then the tool names are:
      """
      ["lookup"]
      """
    And the tool "lookup" matches:
      """
      {"name": "lookup", "description": "Look a thing up on the host.",
       "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
       "source": "relay"}
      """

  @spec-10 @clause-10.relay.declared-by-adapters
  Scenario: the adapters declare a relay tool like any other tool, after the extra tools
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}],
       "relayTools": [{"name": "lookup", "description": "Look a thing up on the host.",
         "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}]}
      """
    Then the "openai" adapter output matches:
      """
      [{"type": "function", "function": {"name": "echo", "description": "Echo.",
         "parameters": {"type": "object", "properties": {}}}},
       {"type": "function", "function": {"name": "lookup", "description": "Look a thing up on the host.",
         "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}]
      """
    And the "anthropic" adapter output matches:
      """
      [{"name": "echo", "description": "Echo.", "input_schema": {"type": "object", "properties": {}}},
       {"name": "lookup", "description": "Look a thing up on the host.",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}]
      """
    And the "gemini" adapter output matches:
      """
      [{"functionDeclarations": [
        {"name": "echo", "description": "Echo.", "parameters": {"type": "object", "properties": {}}},
        {"name": "lookup", "description": "Look a thing up on the host.",
         "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}]}]
      """

  @spec-10 @partial-clause-10.relay.absent-byte-identical
  Scenario: declaring no relay tool changes nothing the toolkit lists
    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "relayTools": [],
       "extraTools": [{"name": "echo", "description": "Echo.", "behaviour": {"echo": true}}]}
      """
    Then the tool names are:
      """
      ["echo"]
      """
    And the tool "echo" matches:
      """
      {"name": "echo", "description": "Echo.", "inputSchema": {"type": "object", "properties": {}}, "source": "native"}
      """
    And the "openai" adapter output matches:
      """
      [{"type": "function", "function": {"name": "echo", "description": "Echo.", "parameters": {"type": "object", "properties": {}}}}]
      """
    And the status of "builtin" is "disabled"
    And there are no errors

  @spec-10 @clause-10.relay.ordinary-overrides
  Scenario: an ordinary host tool may still override a builtin name next to relay tools
    Given a toolkit built with:
      """
      {"disableTools": ["skill"],
       "extraTools": [{"name": "read", "description": "The host's read.", "behaviour": {"text": "host read"}}],
       "relayTools": [{"name": "lookup", "description": "Host lookup."}]}
      """
    Then the toolkit has the tool "read"
    And the tool "read" has source "native"
    And the tool "lookup" has source "relay"
    And there are no errors
    When "read" is executed with:
      """
      {"path": "x"}
      """
    Then the output is "host read"
    And the result is not an error

  @spec-10 @partial-clause-10.relay.kind-tool-call
  Scenario: a relay tool executed directly suspends with a tool_call request carrying the call
    Executed outside the loop there is no provider call id to stamp (the SPEC: "The loop
    stamps id"), so the entry's id is only required to be a string here.

    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"],
       "relayTools": [{"name": "lookup", "description": "Host lookup.",
         "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}
      """
    When "lookup" is executed with:
      """
      {"q": "tides"}
      """
    Then the result suspends with a "tool_call" request
    And the result matches:
      """
      {"output": {"$match": "string"}, "isError": true,
       "metadata": {"pending": {"id": {"$match": "string"}, "kind": "tool_call", "prompt": {"$match": "string"},
         "data": {"calls": [{"id": {"$match": "string"}, "name": "lookup", "input": {"q": "tides"},
                             "arguments": {"$json": {"q": "tides"}}}]}}}}
      """

  @spec-10 @beyond-spec
  Scenario: a direct relay call retried with the host's answer returns the host's output
    Beyond the SPEC: the addendum resolves relay calls in the loop; retrying a direct call
    with the Answer (the §10 tool-level retry) is the reference's choice, taking the
    single-call shorthand data.output / data.isError as the result.

    Given a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "relayTools": [{"name": "lookup"}]}
      """
    When "lookup" is executed with:
      """
      {"q": "tides"}
      """
    And the same call is executed again with the answer:
      """
      {"ok": true, "data": {"output": "high at noon", "isError": false}}
      """
    Then the output is "high at noon"
    And the result is not an error
