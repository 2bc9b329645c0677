@pin-0.16.0
Feature: Serving a toolkit as an A2A agent — the inbound `serve` A2A profile (SPEC §7B)
  The harness serves a built toolkit (`serve`, PROTOCOL.md §5.23) on loopback and is the A2A
  peer itself: it reads the agent card, posts JSON-RPC to `POST /`, and polls `GetTask` until
  the task leaves `submitted`/`working` (bounded at 15 s). The client that fulfils tasks talks
  to a mock LLM (serve.json: `echo: <text>`; `fail…` ⇒ HTTP 400; `slow…` ⇒ 800 ms late;
  `use echo…` ⇒ one `echo` tool call; `suspend…` ⇒ a `gate` tool call). `{{SERVE:s1}}` is the
  handle's URL without its trailing `/`; `{{TASK:n}}` the task id the n-th SendMessage answered.
  JSON-RPC errors are checked with their cause: the code, no `result`, and the request's id
  echoed (NOTES #262).

  Background:
    Given a mock LLM runs "serve.json"

  @spec-7B @clause-7B.serve.absent-404 @partial-clause-7B.serve.a2a-opt-in
  Scenario Outline: without the a2a profile no A2A route answers (GET <path>)
    The positive control serves the same toolkit with `a2a: {}` in the same scenario.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "off" with:
      """
      {}
      """
    And the toolkit is served as "on" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer gets "<path>" from "off"
    Then the A2A status is 404
    When the A2A peer gets "/.well-known/agent-card.json" from "on"
    Then the A2A status is 200

    Examples:
      | path                         |
      | /.well-known/agent-card.json |
      | /                            |

  @spec-7B @clause-7B.serve.absent-404 @partial-clause-7B.serve.a2a-opt-in
  Scenario: without the a2a profile a JSON-RPC SendMessage gets 404, and no task runs
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"mcp": {"name": "gateway"}}
      """
    When the A2A peer sends the message "hello"
    Then the A2A status is 404
    And the LLM received 0 requests

  @spec-7B @clause-7B.card.route @clause-7B.card.defaults @clause-7B.card.url
  @partial-clause-7B.card.provider-optional @partial-clause-7B.serve.handle
  @clause-7B.card.body-identity @clause-7B.card.capabilities @clause-7B.card.default-modes
  @partial-clause-7B.card.body-skills-url @partial-clause-7B.serve.no-streaming-push-auth
  Scenario: the agent card with every default is exactly the SPEC's card
    `a2a: {}` and a toolkit without skills: no `provider`, no skills, `url` = base + `/`.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {}}
      """
    When the A2A peer gets "/.well-known/agent-card.json"
    Then the A2A status is 200
    And the A2A answer at "" is:
      """
      {"name": "toolnexus-agent", "description": "", "version": "0.1.0", "protocolVersion": "0.3.0",
       "capabilities": {"streaming": false, "pushNotifications": false},
       "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
       "skills": [], "url": "{{SERVE:s1}}/"}
      """

  @spec-7B @clause-7B.card.provider-optional @partial-clause-7B.card.route
  @clause-7B.card.capabilities @clause-7B.card.default-modes @partial-clause-7B.config.shape
  Scenario: the card takes name, description, version and provider from the a2a profile
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Helper", "description": "Answers questions", "version": "2.3.4",
        "provider": {"organization": "Acme", "url": "https://acme.test"}}}
      """
    When the A2A peer gets "/.well-known/agent-card.json"
    Then the A2A answer at "name" is "Helper"
    And the A2A answer at "description" is "Answers questions"
    And the A2A answer at "version" is "2.3.4"
    And the A2A answer at "provider" is {"organization": "Acme", "url": "https://acme.test"}
    And the A2A answer at "protocolVersion" is "0.3.0"
    And the A2A answer at "url" is "{{SERVE:s1}}/"
    And the A2A answer at "capabilities" is {"streaming": false, "pushNotifications": false}
    And the A2A answer at "defaultInputModes" is ["text"]
    And the A2A answer at "defaultOutputModes" is ["text"]

  @spec-7B @clause-7B.card.skills-from-skill-source @partial-clause-4.create.skills-dir
  @clause-7B.card.body-skills-url
  Scenario: the card's skills are the SkillSource's skills with their SKILL.md descriptions, never raw tools
    The toolkit has a native tool and the `skill` tool besides the three skills; only skills
    are advertised. The SPEC fixes no order (NOTES #263).
    Given a toolkit built with:
      """
      {"builtins": false, "skillsDir": "{{FIXTURES}}/skills/basic",
       "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer gets "/.well-known/agent-card.json"
    Then the A2A answer at "skills" is:
      """
      {"$unordered": [
        {"id": "alpha", "name": "alpha", "description": "First fixture skill."},
        {"id": "beta", "name": "beta", "description": "Second fixture skill."},
        {"id": "gamma", "name": "gamma", "description": "Third fixture skill."}]}
      """
    And the A2A answer at "url" is "{{SERVE:s1}}/"

  @spec-7B @clause-7B.card.skills-from-skill-source @partial-clause-7B.config.shape
  Scenario: a2a.skills filters the card's skills; a name that is no skill is ignored
    Given a toolkit built with:
      """
      {"builtins": false, "skills": [{"name": "alpha", "description": "First fixture skill.", "content": "A."},
         {"name": "beta", "description": "Second fixture skill.", "content": "B."},
         {"name": "gamma", "description": "Third fixture skill.", "content": "C."}],
       "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"skills": ["gamma", "no-such-skill", "echo", "beta"]}}
      """
    When the A2A peer gets "/.well-known/agent-card.json"
    Then the A2A status is 200
    And the A2A answer at "skills" is:
      """
      {"$unordered": [
        {"id": "beta", "name": "beta", "description": "Second fixture skill."},
        {"id": "gamma", "name": "gamma", "description": "Third fixture skill."}]}
      """

  @spec-7B @clause-7B.config.shape @partial-clause-7B.card.skills-from-skill-source
  @partial-clause-7B.card.provider-optional @partial-clause-7B.store.all-through-store
  Scenario: every A2AConfig field takes effect in one profile
    `name`, `description`, `version` and `provider` reach the card, `skills` filters its skills,
    and the host `store` object sees the task.
    Given a toolkit built with:
      """
      {"builtins": false, "skills": [{"name": "alpha", "description": "First fixture skill.", "content": "A."},
         {"name": "beta", "description": "Second fixture skill.", "content": "B."}],
       "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Full", "description": "Every field", "version": "4.5.6",
        "provider": {"organization": "Acme", "url": "https://acme.test"}, "skills": ["beta"],
        "store": {"recording": true}}}
      """
    When the A2A peer gets "/.well-known/agent-card.json"
    Then the A2A status is 200
    And the A2A answer at "" is:
      """
      {"name": "Full", "description": "Every field", "version": "4.5.6", "protocolVersion": "0.3.0",
       "provider": {"organization": "Acme", "url": "https://acme.test"},
       "capabilities": {"streaming": false, "pushNotifications": false},
       "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
       "skills": [{"id": "beta", "name": "beta", "description": "Second fixture skill."}],
       "url": "{{SERVE:s1}}/", "$partial": true}
      """
    When the A2A peer sends the message "keep this"
    And the A2A peer polls the task until it leaves submitted/working
    And the serve records are read
    Then the A2A answer at "result.artifacts[0].parts[0].text" is "echo: keep this"
    And storeCalls at "[0]" is {"op": "save", "id": "{{TASK:1}}", "state": "submitted"}
    And storeCalls has 1 entries with "state" equal to "completed"

  @spec-7B @partial-clause-7B.card.skills-from-skill-source
  Scenario: a skill whose name is outside [a-zA-Z0-9_-] keeps its name on the card; its id is the name or its sanitized form
    §7B says `id=name=`SKILL.md name; §7C calls §7B skill ids "re-sanitized". Both readings
    pass for the id (the reference, python and rust-crate keep it verbatim); the name is the
    SKILL.md name.
    Given a toolkit built with:
      """
      {"builtins": false, "skills": [{"name": "release notes.v2", "description": "Writes release notes.", "content": "R."}],
       "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer gets "/.well-known/agent-card.json"
    Then the A2A status is 200
    And the A2A answer at "skills" is:
      """
      [{"id": {"$oneOf": ["release notes.v2", "release_notes_v2"]}, "name": "release notes.v2",
        "description": "Writes release notes."}]
      """

  @spec-7B @partial-clause-7B.send-message.submitted @partial-clause-7B.send-message.async-fulfilment
  @clause-7B.rpc.post-root
  Scenario: SendMessage answers the submitted task at once, before the slow model has answered
    The model answers 800 ms late, so a port that waited for the run could not say `submitted`.
    `{{TASK:1}}` is bound from this very answer's `result.id`, so the id is checked where another
    answer carries it: the `GetTask` answers for that id name the same task. The `<uuid>` shape
    is not checked: the harness turns the id into the placeholder before comparing.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer sends the message "slow please"
    Then the A2A status is 200
    And the A2A answer at "jsonrpc" is "2.0"
    And the A2A answer at "id" is 1
    And the A2A answer at "result.status.state" is "submitted"
    When the A2A peer polls the task until it leaves submitted/working
    Then the A2A answer at "result.id" is "{{TASK:1}}"
    And the A2A answer at "result.status.state" is "completed"
    And the A2A answer at "result.artifacts[0].parts" is [{"kind": "text", "text": "slow: slow please"}]

  @spec-7B @clause-7B.send-message.async-fulfilment @partial-clause-7B.serve.handle
  Scenario: a fulfilled task is completed with one artifact holding the run's text
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer sends the message "hello there"
    And the A2A peer polls the task until it leaves submitted/working
    Then the A2A answer at "result.id" is "{{TASK:1}}"
    And the A2A answer at "result.status.state" is "completed"
    And the A2A answer at "result.artifacts" is:
      """
      [{"artifactId": {"$match": "string"}, "parts": [{"kind": "text", "text": "echo: hello there"}], "$partial": true}]
      """
    And LLM request 1 body at "messages[-1]" is {"role": "user", "content": "hello there"}

  @spec-7B @partial-clause-7B.send-message.async-fulfilment @partial-clause-7B.on-task.terminal
  Scenario: a message with several text parts is one task holding every part's text, in order
    §7B "`params.message.parts[].text` = the task" names no separator: the parts may be joined
    with nothing (the reference, python and rust-crate), a space or a newline. onTask only tells
    when the run is over.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}, "onTask": true}
      """
    When the A2A peer calls "SendMessage" with:
      """
      {"message": {"role": "user", "kind": "message", "messageId": "msg-parts",
        "parts": [{"kind": "text", "text": "alpha"}, {"kind": "text", "text": "beta"}]}}
      """
    Then the A2A answer at "result.status.state" is "submitted"
    When the serve records are read once onTask has 1 entries
    Then the LLM received 1 request
    And LLM request 1 body at "messages[-1].role" is "user"
    And LLM request 1 body at "messages[-1].content" matches "^alpha\s*beta$"

  @spec-7B @clause-7B.send-message.async-fulfilment
  Scenario: the task runs the client loop over the served toolkit's tools
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer sends the message "use echo, please"
    And the A2A peer polls the task until it leaves submitted/working
    Then the A2A answer at "result.status.state" is "completed"
    And the A2A answer at "result.artifacts[0].parts[0].text" is "after: {\"text\":\"hi\"}"
    And the LLM received 2 requests

  @spec-7B @clause-7B.send-message.failed @clause-7B.send-message.never-crashes
  Scenario: a run that throws fails the task with the error as an agent message; the server stays up
    The model answers HTTP 400 (outside §8's retry set, so one request, NOTES #419); §7B's `text:<error>` is the run's
    error, whose words are the port's: the carrier is pinned and the text is not empty (NOTES
    #264, #320; the @beyond-spec twin below checks that it names the status). The next task
    completes.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer sends the message "fail now"
    And the A2A peer polls the task until it leaves submitted/working
    Then the A2A answer at "result.status.state" is "failed"
    And the A2A answer at "result.status.message.role" is "agent"
    And the A2A answer at "result.status.message.parts[0].kind" is "text"
    And the A2A answer at "result.status.message.parts[0].text" is:
      """
      {"$regex": "\\S"}
      """
    And the A2A answer has nothing at "result.artifacts[0]"
    And the LLM received 1 request
    When the A2A peer sends the message "still there?"
    And the A2A peer polls the task until it leaves submitted/working
    Then the A2A answer at "result.status.state" is "completed"
    And the A2A answer at "result.artifacts[0].parts[0].text" is "echo: still there?"

  @spec-7B @beyond-spec
  Scenario: a failed task's text names the model's HTTP status
    Beyond the SPEC: §7B puts the run's `<error>` in the failed task's message, and §8 gives
    that error no words (NOTES #264, #320); the reference's names the HTTP status.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer sends the message "fail now"
    And the A2A peer polls the task until it leaves submitted/working
    Then the A2A answer at "result.status.state" is "failed"
    And the A2A answer at "result.status.message.parts[0].text" contains "400"

  @spec-7B @clause-7B.send-message.failed @clause-7B.send-message.never-crashes
  Scenario: a client whose model endpoint refuses connections fails the task, not the server
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "http://127.0.0.1:9/v1", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer sends the message "anyone?"
    And the A2A peer polls the task until it leaves submitted/working
    Then the A2A answer at "result.status.state" is "failed"
    And the A2A answer at "result.status.message" is:
      """
      {"role": "agent", "parts": [{"kind": "text", "text": {"$match": "string"}}], "$partial": true}
      """
    When the A2A peer gets "/.well-known/agent-card.json"
    Then the A2A status is 200

  @spec-7B @clause-7B.get-task.unknown-id
  Scenario: GetTask of an unknown id is the JSON-RPC error -32001; a known id is the task
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer asks for the task "no-such-task"
    Then the A2A answer is the JSON-RPC error -32001
    When the A2A peer sends the message "hi"
    And the A2A peer asks for the task
    Then the A2A answer at "result.id" is "{{TASK:1}}"
    And the A2A answer has nothing at "error"

  @spec-7B @clause-7B.rpc.error-codes
  Scenario: an unknown JSON-RPC method is -32601; SendMessage on the same endpoint works
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer calls "tasks/frobnicate" with:
      """
      {"id": "x"}
      """
    Then the A2A answer is the JSON-RPC error -32601
    When the A2A peer sends the message "hi"
    Then the A2A answer at "result.status.state" is "submitted"

  @spec-7B @clause-7B.rpc.error-codes
  Scenario Outline: a body that is not JSON is the parse error -32700 (<case>)
    A parse error cannot know the request's id: it is answered with `id: null`.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer posts the raw body:
      """
      <body>
      """
    Then the A2A answer is the JSON-RPC error -32700
    And the LLM received 0 requests

    Examples:
      | case         | body                                          |
      | truncated    | {"jsonrpc": "2.0", "id": 1, "method": "SendM |
      | not JSON     | hello, agent                                  |

  @spec-7B @spec-8 @clause-8.a2a.context-id
  Scenario: messages with the same contextId are one conversation: the second turn sees the first
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer sends the message "remember: blue" in context "ctx-1"
    And the A2A peer polls the task until it leaves submitted/working
    And the A2A peer sends the message "which colour?" in context "ctx-1"
    And the A2A peer polls the task until it leaves submitted/working
    Then the A2A answer at "result.artifacts[0].parts[0].text" is "echo: which colour?"
    And the LLM received 2 requests
    And LLM request 2 body at "messages[-1]" is {"role": "user", "content": "which colour?"}
    And LLM request 2 body at "messages" contains "remember: blue"
    And LLM request 2 body at "messages" contains "echo: remember: blue"

  @spec-7B @spec-8 @clause-8.a2a.context-id
  Scenario: the conversation of a contextId lands in the client's ConversationStore under that id
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer sends the message "note this" in context "thread-7"
    And the A2A peer polls the task until it leaves submitted/working
    And the client's store is read at "thread-7"
    Then the stored messages end with:
      """
      [{"role": "user", "content": "note this", "$partial": true},
       {"role": "assistant", "content": "echo: note this", "$partial": true}]
      """

  @spec-7B @spec-8 @partial-clause-8.a2a.context-id @clause-8.a2a.no-context-id
  Scenario: without a contextId every message is stateless; other contextIds are other conversations
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer sends the message "first words"
    And the A2A peer polls the task until it leaves submitted/working
    And the A2A peer sends the message "second words"
    And the A2A peer polls the task until it leaves submitted/working
    And the A2A peer sends the message "third words" in context "ctx-a"
    And the A2A peer polls the task until it leaves submitted/working
    And the A2A peer sends the message "fourth words" in context "ctx-b"
    And the A2A peer polls the task until it leaves submitted/working
    Then the LLM received 4 requests
    And LLM request 2 body at "messages[-1].content" is "second words"
    And LLM request 2 body at "messages" does not contain "first words"
    And LLM request 4 body at "messages[-1].content" is "fourth words"
    And LLM request 4 body at "messages" does not contain "third words"
    And LLM request 4 body at "messages" does not contain "first words"

  @spec-7B @spec-10 @clause-10.a2a.input-required
  Scenario: a run that halts pending surfaces input-required carrying the prompt, never completed
    The client has no `waitFor`, so the `gate` suspension halts the run (`status: "pending"`).
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "gate", "behaviour": {"suspend": {"kind": "input", "prompt": "Which book?"}}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer sends the message "suspend for a book"
    And the A2A peer polls the task until it leaves submitted/working
    Then the A2A answer at "result.status.state" is "input-required"
    And the A2A answer at "result.status.message.parts" contains "Which book?"
    When the A2A peer asks for the task
    Then the A2A answer at "result.status.state" is "input-required"

  @spec-7B @clause-7B.on-task.terminal
  Scenario: onTask fires on completion with the run's telemetry
    The SPEC leaves `task` open (the Task or its text): only its presence is checked (NOTES #265).
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}, "onTask": true}
      """
    When the A2A peer sends the message "use echo now"
    And the A2A peer polls the task until it leaves submitted/working
    And the serve records are read once onTask has 1 entries
    Then onTask has 1 entries
    And onTask at "[0].id" is "{{TASK:1}}"
    And onTask at "[0].state" is "completed"
    And onTask at "[0].task" is {"$match": "any"}
    And onTask at "[0].result.text" is "after: {\"text\":\"hi\"}"
    And onTask at "[0].result.usage" is {"promptTokens": 24, "completionTokens": 14, "totalTokens": 38}
    And onTask at "[0].result.toolCallCount" is 1
    And onTask at "[0].result.turns" is 2

  @spec-7B @clause-7B.on-task.terminal
  Scenario: onTask fires once per terminal task, failed ones included
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}, "onTask": true}
      """
    When the A2A peer sends the message "fail hard"
    And the A2A peer polls the task until it leaves submitted/working
    And the A2A peer sends the message "then fine"
    And the A2A peer polls the task until it leaves submitted/working
    And the serve records are read once onTask has 2 entries
    Then onTask has 2 entries
    And onTask has 1 entries with "state" equal to "failed"
    And onTask has 1 entries with "state" equal to "completed"
    And onTask has 1 entries with "id" equal to "{{TASK:1}}"
    And onTask has 1 entries with "id" equal to "{{TASK:2}}"

  @spec-7B @partial-clause-7B.store.resolve @partial-clause-7B.config.shape
  Scenario: a "file:<dir>" store writes the task as <id>.json
    Given a directory "tasks"
    And a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"store": "file:{{TMP}}/tasks"}}
      """
    When the A2A peer sends the message "keep me"
    And the A2A peer polls the task until it leaves submitted/working
    Then the A2A answer at "result.status.state" is "completed"
    And the task file is in "tasks"

  @spec-7B @partial-clause-7B.store.resolve @partial-clause-7B.serve.handle
  Scenario: the "memory" store serves tasks like the default
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"store": "memory"}}
      """
    When the A2A peer sends the message "in memory"
    And the A2A peer polls the task until it leaves submitted/working
    Then the A2A answer at "result.artifacts[0].parts[0].text" is "echo: in memory"

  @spec-7B @clause-7B.store.all-through-store @partial-clause-7B.store.resolve
  @clause-7B.store.interface @partial-clause-7B.send-message.submitted
  Scenario: a host store object sees every task write, in order, and the reads of GetTask
    Saves: `submitted`, `working`, `completed` (other saves in between are allowed: NOTES #266).
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"store": {"recording": true}}}
      """
    When the A2A peer sends the message "store me"
    And the A2A peer polls the task until it leaves submitted/working
    And the A2A peer asks for the task
    And the A2A peer asks for the task "unknown-task"
    And the serve records are read
    Then storeCalls at "[0]" is {"op": "save", "id": "{{TASK:1}}", "state": "submitted"}
    And storeCalls has 1 entries with "state" equal to "working"
    And storeCalls has 1 entries with "state" equal to "completed"
    And storeCalls at "[-2]" is {"op": "get", "id": "{{TASK:1}}"}
    And storeCalls at "[-1]" is {"op": "get", "id": "unknown-task"}

  @spec-7B @partial-clause-7B.store.all-through-store
  Scenario: a failed task's failure is saved through the store too
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"store": {"recording": true}}}
      """
    When the A2A peer sends the message "fail please"
    And the A2A peer polls the task until it leaves submitted/working
    And the serve records are read
    Then storeCalls has 1 entries with "state" equal to "failed"
    And storeCalls has 0 entries with "state" equal to "completed"

  @spec-7B @spec-2 @partial-clause-7B.serve.a2a-opt-in @partial-clause-2.config.reserved-keys-not-servers
  Scenario Outline: a config file's top-level a2a block is the A2A profile and no MCP server (<form>)
    Given a file "mcp.json" containing:
      """
      <config>
      """
    And a toolkit built with:
      """
      {"builtins": false, "mcpConfig": "{{TMP}}/mcp.json", "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {}
      """
    Then there is no status for "a2a"
    And there are no errors
    And the toolkit has the tool "echo"
    And the toolkit has no tool "a2a_name"
    When the A2A peer gets "/.well-known/agent-card.json"
    Then the A2A status is 200
    And the A2A answer at "name" is "From the file"
    And the A2A answer at "version" is "9.9.9"

    Examples:
      | form           | config                                                                    |
      | raw server map | {"a2a": {"name": "From the file", "version": "9.9.9"}}                    |
      | wrapper        | {"mcpServers": {}, "a2a": {"name": "From the file", "version": "9.9.9"}} |

  @spec-7B @partial-clause-7B.serve.handle
  Scenario: a stopped handle refuses connections
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer gets "/.well-known/agent-card.json"
    Then the A2A status is 200
    When "s1" is stopped
    Then "s1" refuses connections

  @spec-7B @partial-clause-7B.send-message.submitted
  Scenario: every SendMessage creates a fresh task; an earlier task stays readable
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]}
      """
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m-serve", "apiKey": "k"}
      """
    And the toolkit is served as "s1" with:
      """
      {"a2a": {"name": "Served"}}
      """
    When the A2A peer sends the message "one"
    And the A2A peer polls the task until it leaves submitted/working
    And the A2A peer sends the message "two"
    And the A2A peer polls the task until it leaves submitted/working
    And the A2A peer asks for the task "{{TASK:1}}"
    Then the A2A answer at "result.id" is "{{TASK:1}}"
    And the A2A answer at "result.artifacts[0].parts[0].text" is "echo: one"
    When the A2A peer asks for the task "{{TASK:2}}"
    Then the A2A answer at "result.artifacts[0].parts[0].text" is "echo: two"
