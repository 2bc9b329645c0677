//! Holds `conformance/protocol.schema.json` and the reference port to each other: every
//! request the harness sends and every response the in-process reference gives while running
//! all scenarios must validate, the examples in `conformance/PROTOCOL.md` must validate, and a
//! few broken messages must not (so the schema can fail).

use std::collections::BTreeMap;
use std::path::PathBuf;

use async_trait::async_trait;
use jsonschema::Validator;
use serde_json::{json, Value};

use toolnexus_harness::features;
use toolnexus_harness::inprocess::InProcessPort;
use toolnexus_harness::port::{Port, PortError};
use toolnexus_harness::runner::{self, Status};
use toolnexus_harness::scenario::Env;
use toolnexus_protocol::{decode_request, decode_response, Command, TypedResponse};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn schema() -> Value {
    let path = root().join("conformance").join("protocol.schema.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// A validator for one named entry point of the schema (`request`, `response`, `exchange`, ...).
fn validator(schema: &Value, def: &str) -> Validator {
    let mut entry = schema.clone();
    let Some(map) = entry.as_object_mut() else {
        panic!("the schema is not an object");
    };
    map.remove("oneOf");
    map.insert("$ref".into(), json!(format!("#/$defs/{def}")));
    jsonschema::draft202012::new(&entry)
        .unwrap_or_else(|e| panic!("schema entry point {def} does not compile: {e}"))
}

/// Every violation of `instance`, as `at <path>: <message>`.
fn violations(v: &Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("at `{}`: {e}", e.instance_path()))
        .collect()
}

/// Every command of protocol 1: the protocol crate's one list (its `Request` enum maps each
/// variant to one of these, exhaustively).
fn commands() -> Vec<&'static str> {
    Command::ALL.iter().map(|c| c.as_str()).collect()
}

struct Validators {
    request: Validator,
    response: Validator,
    exchange: Validator,
}

impl Validators {
    fn new() -> Self {
        let s = schema();
        Self {
            request: validator(&s, "request"),
            response: validator(&s, "response"),
            exchange: validator(&s, "exchange"),
        }
    }

    /// Violations of one request/response pair, each labelled with what broke.
    fn check(&self, request: &Value, response: &Value) -> Vec<String> {
        let mut out = Vec::new();
        let label = |what: &str, errs: Vec<String>| {
            errs.into_iter()
                .map(|e| format!("{what} {e}\n    request:  {request}\n    response: {response}"))
                .collect::<Vec<_>>()
        };
        out.extend(label("request", violations(&self.request, request)));
        out.extend(label("response", violations(&self.response, response)));
        let pair = json!({"request": request, "response": response});
        out.extend(label("exchange", violations(&self.exchange, &pair)));
        out
    }
}

/// Wraps the in-process reference, validating every message that crosses the boundary.
struct RecordingPort {
    inner: InProcessPort,
    validators: Validators,
    violations: Vec<String>,
    commands: BTreeMap<String, usize>,
    errors: BTreeMap<String, usize>,
    /// The next `seq`: the in-process port does not number requests, the subprocess port does.
    seq: u64,
}

impl RecordingPort {
    fn new() -> Self {
        Self {
            inner: InProcessPort::new(toolnexus_driver::ReferenceSession::new()),
            validators: Validators::new(),
            violations: Vec::new(),
            commands: BTreeMap::new(),
            errors: BTreeMap::new(),
            seq: 0,
        }
    }
}

#[async_trait]
impl Port for RecordingPort {
    async fn call(&mut self, mut request: Value) -> Result<Value, PortError> {
        // Numbered as the subprocess port numbers what it writes to a driver.
        if let Some(obj) = request.as_object_mut() {
            obj.entry("seq").or_insert_with(|| json!(self.seq));
            self.seq += 1;
        }
        let cmd = request
            .get("cmd")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string();
        if let Err(e) = decode_request(&request) {
            self.violations.push(format!(
                "request does not decode ({}): {request}",
                e.message
            ));
        }
        *self.commands.entry(cmd).or_default() += 1;
        let response = self.inner.call(request.clone()).await?;
        if let Some(kind) = response.pointer("/error/kind").and_then(Value::as_str) {
            *self.errors.entry(kind.to_string()).or_default() += 1;
        }
        let found = self.validators.check(&request, &response);
        self.violations.extend(found);
        Ok(response)
    }

    async fn ensure_ready(&mut self) -> Result<(), PortError> {
        self.inner.ensure_ready().await
    }

    /// Ends the session the way the subprocess port does: a `shutdown` request first.
    async fn shutdown(&mut self) {
        let _ = self.call(json!({"cmd": "shutdown"})).await;
        self.inner.shutdown().await;
    }
}

fn assert_no_violations(violations: &[String]) {
    for v in violations {
        eprintln!("schema violation: {v}");
    }
    assert!(
        violations.is_empty(),
        "{} schema violation(s); see above",
        violations.len()
    );
}

#[tokio::test]
async fn every_message_of_every_scenario_matches_the_schema() {
    // The secret scenarios need the canary in the environment, as the CLI's `main` puts it.
    toolnexus_harness::secret::ensure();
    let root = root();
    let (scenarios, errors) = features::load(&root.join("features"));
    assert!(
        errors.is_empty(),
        "feature files that do not parse: {errors:?}"
    );
    let env = Env::from_root(&root).with_mock_bin(env!("CARGO_BIN_EXE_toolnexus-conformance"));
    let mut port = RecordingPort::new();
    let report = runner::run(&mut port, &env, &scenarios, "reference", |_| {}).await;

    eprintln!("commands sent: {:?}", port.commands);
    eprintln!("error kinds answered: {:?}", port.errors);
    eprintln!("scenarios: {:?}", report.summary);
    for r in report
        .scenarios
        .iter()
        .filter(|r| r.status == Status::Failed)
    {
        eprintln!("scenario failed: {}: {}", r.name, r.message);
    }
    assert_no_violations(&port.violations);
    assert!(
        report.summary.failed == 0
            && report.summary.preview.failed == 0
            && report.summary.passed >= 80,
        "the recorded run should pass every scenario: {:?}",
        report.summary
    );
    for cmd in commands() {
        assert!(
            port.commands.contains_key(cmd),
            "the scenarios never sent `{cmd}`"
        );
    }
}

/// Answers the scenarios do not reach: every option key and each error kind.
#[tokio::test]
async fn reference_answers_outside_the_scenarios_match_the_schema() {
    let mut port = RecordingPort::new();
    let options = json!({
        "builtins": false,
        "extraTools": [
            {"name": "echo", "behaviour": {"echo": true}},
            {"name": "ask", "behaviour": {"suspend": {"kind": "input", "prompt": "Name?", "data": {"schema": {}},
                                                     "expiresAt": "2030-01-01T00:00:00Z"}}}],
        "skills": [{"name": "notes", "description": "Take notes", "content": "Write.", "resources": ["a.md"]}],
        "skillProvider": {"fail": "provider down"},
        "waitFor": {"answer": {"ok": false, "reason": "declined"}},
        "mcpConfig": {"mcpServers": {"off": {"command": "x", "disabled": true}}},
        "agents": [{"card": "https://agent.test/card.json"}],
        "skillsFilter": {"notes": true},
        "skillSampleLimit": 3,
        "disableSkills": ["other"],
        "disableTools": ["nothing"]
    });
    let requests = [
        json!({"cmd": "hello", "protocol": 1}),
        json!({"cmd": "build", "id": "tk1", "options": options}),
        json!({"cmd": "tools", "toolkit": "tk1"}),
        json!({"cmd": "execute", "toolkit": "tk1", "name": "echo", "args": {"z": 1, "a": "é"}}),
        json!({"cmd": "execute", "toolkit": "tk1", "name": "ask", "args": {}}),
        json!({"cmd": "execute", "toolkit": "tk1", "name": "ask", "args": {}, "context": {"answer": {"id": "req-1", "ok": true}}}),
        json!({"cmd": "list_skills", "options": {"skillProvider": {"fail": "provider down"}}}),
        json!({"cmd": "adapter", "toolkit": "tk1", "format": "gemini"}),
        json!({"cmd": "close", "toolkit": "tk1"}),
        json!({"cmd": "tools", "toolkit": "nope"}),
        json!({"cmd": "shutdown"}),
    ];
    for r in requests {
        port.call(r)
            .await
            .unwrap_or_else(|e| panic!("transport failure: {e}"));
    }
    assert_no_violations(&port.violations);
    assert_eq!(
        port.errors.get("unknown_toolkit"),
        Some(&1),
        "{:?}",
        port.errors
    );

    // Malformed requests (invalid by the schema on purpose): the answer is still the envelope.
    let envelope = validator(&schema(), "error_response");
    let malformed = [
        (
            json!({"cmd": "adapter", "toolkit": "tk1", "format": "cohere"}),
            "bad_request",
        ),
        (
            json!({"cmd": "build", "id": "tk2", "options": {"notAnOption": 1}}),
            "bad_request",
        ),
        (json!({"cmd": "execute", "toolkit": "tk1"}), "bad_request"),
        (json!({"toolkit": "tk1"}), "bad_request"),
        (
            json!({"cmd": "transmogrify", "toolkit": "tk1"}),
            "unsupported",
        ),
    ];
    let mut inner = InProcessPort::new(toolnexus_driver::ReferenceSession::new());
    let built = inner
        .call(json!({"cmd": "build", "id": "tk1", "options": {}}))
        .await;
    assert_eq!(
        built.ok().and_then(|b| b.get("ok").cloned()),
        Some(json!(true))
    );
    for (request, kind) in malformed {
        assert!(
            !port.validators.request.is_valid(&request),
            "should be an invalid request: {request}"
        );
        let response = inner
            .call(request.clone())
            .await
            .unwrap_or_else(|e| panic!("transport failure: {e}"));
        assert_no_violations(&violations(&envelope, &response));
        assert_eq!(
            response.pointer("/error/kind"),
            Some(&json!(kind)),
            "{request} ⇒ {response}"
        );
    }
}

/// One `> request` / `< response` pair from a fenced block of PROTOCOL.md.
struct Documented {
    line: usize,
    request: Value,
    response: Value,
    /// In a block fenced as ```` ```text invalid-request ````: the request is malformed on purpose.
    invalid_request: bool,
}

fn documented_exchanges(text: &str) -> Vec<Documented> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    let mut pending: Option<(usize, Value)> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if let Some(info) = line.trim_start().strip_prefix("```") {
            fence = if fence.is_some() {
                None
            } else {
                Some(info.to_string())
            };
            pending = None;
            continue;
        }
        let Some(info) = &fence else { continue };
        let parse = |json: &str| -> Value {
            serde_json::from_str(json)
                .unwrap_or_else(|e| panic!("PROTOCOL.md line {n} is not JSON ({e}): {json}"))
        };
        if let Some(rest) = line.strip_prefix("> ") {
            pending = Some((n, parse(rest)));
        } else if let Some(rest) = line.strip_prefix("< ") {
            let Some((at, request)) = pending.take() else {
                panic!("PROTOCOL.md line {n}: a response with no request before it");
            };
            out.push(Documented {
                line: at,
                request,
                response: parse(rest),
                invalid_request: info.contains("invalid-request"),
            });
        }
    }
    out
}

#[test]
fn the_examples_in_protocol_md_match_the_schema() {
    let path = root().join("conformance").join("PROTOCOL.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let exchanges = documented_exchanges(&text);
    let v = Validators::new();
    let envelope = validator(&schema(), "error_response");
    let mut found = Vec::new();
    let mut cmds = std::collections::BTreeSet::new();
    for d in &exchanges {
        let at = d.line;
        if d.invalid_request {
            assert!(
                !v.request.is_valid(&d.request),
                "PROTOCOL.md line {at}: marked invalid-request but valid"
            );
            found.extend(
                violations(&envelope, &d.response)
                    .into_iter()
                    .map(|e| format!("PROTOCOL.md line {at}: {e}")),
            );
            continue;
        }
        cmds.insert(d.request["cmd"].as_str().unwrap_or("?").to_string());
        // The examples leave `seq` out for brevity (PROTOCOL.md §2 says so); the harness
        // numbers every request it sends.
        let mut request = d.request.clone();
        if let Some(obj) = request.as_object_mut() {
            obj.entry("seq").or_insert(json!(1));
        }
        found.extend(
            v.check(&request, &d.response)
                .into_iter()
                .map(|e| format!("PROTOCOL.md line {at}: {e}")),
        );
    }
    assert_no_violations(&found);
    for cmd in commands() {
        assert!(cmds.contains(cmd), "PROTOCOL.md has no example of `{cmd}`");
    }
    assert!(
        exchanges.len() >= 20,
        "expected the documented examples, found {}",
        exchanges.len()
    );
}

#[test]
fn the_schema_is_a_valid_2020_12_schema() {
    let s = schema();
    if let Err(e) = jsonschema::meta::validate(&s) {
        panic!("protocol.schema.json is not a valid schema: {e}");
    }
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    // The top level accepts both directions.
    let top = jsonschema::draft202012::new(&s).unwrap_or_else(|e| panic!("{e}"));
    assert!(top.is_valid(&json!({"cmd": "hello", "protocol": 1, "seq": 0})));
    // Every request carries `seq` (PROTOCOL.md §2); a bad_request answer to an unparseable
    // line may leave it out or null.
    assert!(!top.is_valid(&json!({"cmd": "hello", "protocol": 1})));
    assert!(top.is_valid(&json!({"ok": false, "seq": null, "error": {"kind": "bad_request", "message": "request is not JSON"}})));
    assert!(top.is_valid(&json!({"ok": true, "prompt": ""})));
}

#[test]
fn broken_messages_are_rejected() {
    let s = schema();
    let v = Validators::new();
    let result = validator(&s, "ToolResult");
    let answer = validator(&s, "Answer");
    let options = validator(&s, "ToolkitOptions");
    let rejected = |v: &Validator, what: &str, instance: Value| {
        let errs = violations(v, &instance);
        assert!(!errs.is_empty(), "{what} should be rejected: {instance}");
        eprintln!("{what}: rejected as expected: {}", errs.join("; "));
    };

    // Requests.
    rejected(
        &v.request,
        "a request without cmd",
        json!({"seq": 1, "toolkit": "tk1"}),
    );
    rejected(
        &v.request,
        "a request without seq",
        json!({"cmd": "tools", "toolkit": "tk1"}),
    );
    rejected(
        &v.request,
        "execute without toolkit",
        json!({"seq": 1, "cmd": "execute", "name": "x", "args": {}}),
    );
    rejected(
        &v.request,
        "build without options",
        json!({"seq": 1, "cmd": "build", "id": "tk1"}),
    );
    rejected(
        &v.request,
        "hello of another protocol version",
        json!({"seq": 1, "cmd": "hello", "protocol": 2}),
    );
    rejected(
        &v.request,
        "an unknown adapter format",
        json!({"seq": 1, "cmd": "adapter", "toolkit": "tk1", "format": "cohere"}),
    );
    rejected(
        &v.request,
        "an answer without an id",
        json!({"seq": 1, "cmd": "execute", "toolkit": "t", "name": "x", "args": {}, "context": {"answer": {"ok": true}}}),
    );
    rejected(
        &options,
        "an unknown option key",
        json!({"skillsDirectory": "/x"}),
    );
    rejected(
        &options,
        "a behaviour with two keys",
        json!({"extraTools": [{"name": "x", "behaviour": {"text": "a", "fail": "b"}}]}),
    );
    rejected(
        &options,
        "an unknown behaviour",
        json!({"extraTools": [{"name": "x", "behaviour": {"sleep": 5}}]}),
    );

    // Responses.
    rejected(
        &v.response,
        "a response without ok",
        json!({"result": {"output": "x", "isError": false}}),
    );
    rejected(
        &v.response,
        "an error without a kind",
        json!({"ok": false, "error": {"message": "m"}}),
    );
    rejected(
        &v.response,
        "an unknown error kind",
        json!({"ok": false, "error": {"kind": "oops", "message": "m"}}),
    );
    rejected(
        &result,
        "a ToolResult with an extra key",
        json!({"output": "x", "isError": false, "content": []}),
    );
    rejected(
        &result,
        "a ToolResult whose isError is a string",
        json!({"output": "x", "isError": "false"}),
    );
    rejected(
        &result,
        "a pending Request with an extra key",
        json!({"output": "p", "isError": true,
        "metadata": {"pending": {"id": "r1", "kind": "approval", "prompt": "p", "expires_at": "2030-01-01T00:00:00Z"}}}),
    );
    rejected(
        &answer,
        "an Answer with a snake_case key",
        json!({"id": "r1", "ok": true, "is_ok": true}),
    );

    // Exchanges: the response shape depends on the command.
    let exchange =
        |request: Value, response: Value| json!({"request": request, "response": response});
    rejected(
        &v.exchange,
        "execute answered with a ToolResult that has an extra key",
        exchange(
            json!({"seq": 1, "cmd": "execute", "toolkit": "tk1", "name": "x", "args": {}}),
            json!({"ok": true, "result": {"output": "x", "isError": false, "extra": 1}}),
        ),
    );
    rejected(
        &v.exchange,
        "build answered without statuses",
        exchange(
            json!({"seq": 1, "cmd": "build", "id": "tk1", "options": {}}),
            json!({"ok": true, "tools": [], "names": [], "errors": {}, "skills": []}),
        ),
    );
    rejected(
        &v.exchange,
        "hello answered without port",
        exchange(
            json!({"seq": 1, "cmd": "hello", "protocol": 1}),
            json!({"ok": true, "protocol": 1, "implements": ["0"]}),
        ),
    );
    rejected(
        &v.exchange,
        "a gemini adapter with two wrappers",
        exchange(
            json!({"seq": 1, "cmd": "adapter", "toolkit": "tk1", "format": "gemini"}),
            json!({"ok": true, "output": [{"functionDeclarations": []}, {"functionDeclarations": []}]}),
        ),
    );
    rejected(
        &v.exchange,
        "a tool description with an unsanitised name",
        exchange(
            json!({"seq": 1, "cmd": "select_builtins", "config": null}),
            json!({"ok": true, "tools": [{"name": "a b", "description": "", "inputSchema": {}, "source": "builtin"}]}),
        ),
    );

    // ...while a port may add fields to a response envelope.
    let extra = exchange(
        json!({"seq": 1, "cmd": "skills_prompt", "toolkit": "tk1"}),
        json!({"ok": true, "prompt": "", "elapsedMs": 3}),
    );
    assert!(violations(&v.exchange, &extra).is_empty());
}

/// The typed form (the protocol crate) agrees with PROTOCOL.md: every example request decodes
/// into `Request` as its own command, every example answer into that command's typed answer,
/// and every malformed example is refused with the error kind the document shows.
#[test]
fn the_examples_in_protocol_md_decode_into_the_typed_form() {
    let path = root().join("conformance").join("PROTOCOL.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let exchanges = documented_exchanges(&text);
    assert!(exchanges.len() >= 20, "found {}", exchanges.len());
    let mut typed = std::collections::BTreeSet::new();
    for d in &exchanges {
        let at = d.line;
        let cmd = d.request["cmd"].as_str().unwrap_or("?");
        match decode_request(&d.request) {
            Err(e) => {
                assert!(
                    d.invalid_request,
                    "PROTOCOL.md line {at}: {cmd} request does not decode: {}",
                    e.message
                );
                assert_eq!(
                    Some(e.kind.as_str()),
                    d.response.pointer("/error/kind").and_then(Value::as_str),
                    "PROTOCOL.md line {at}: refused with another kind"
                );
                assert_eq!(
                    Some(e.message.as_str()),
                    d.response.pointer("/error/message").and_then(Value::as_str),
                    "PROTOCOL.md line {at}: refused with another message"
                );
                continue;
            }
            Ok(request) => {
                assert!(
                    !d.invalid_request,
                    "PROTOCOL.md line {at}: marked invalid-request but decodes"
                );
                assert_eq!(request.command().as_str(), cmd, "PROTOCOL.md line {at}");
            }
        }
        let answer = decode_response(cmd, &d.response, None)
            .unwrap_or_else(|v| panic!("PROTOCOL.md line {at}: the {cmd} answer: {v}"));
        if !matches!(answer, TypedResponse::Failure(_)) {
            typed.insert(cmd.to_string());
        }
        // The harness numbers requests; an example answer with the request's seq also decodes.
        let (mut request, mut response) = (d.request.clone(), d.response.clone());
        request["seq"] = json!(9);
        response["seq"] = json!(9);
        assert!(decode_request(&request).is_ok(), "line {at}: with seq");
        assert!(
            decode_response(cmd, &response, Some(9)).is_ok(),
            "line {at}: with seq"
        );
    }
    for cmd in commands() {
        assert!(
            typed.contains(cmd),
            "PROTOCOL.md has no successful example of `{cmd}`"
        );
    }
}

/// The protocol crate's list of commands is the schema's.
#[test]
fn the_typed_commands_are_the_schemas_commands() {
    let s = schema();
    let listed: std::collections::BTreeSet<String> = s
        .pointer("/$defs/request/properties/cmd/enum")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("the schema lists no commands"))
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    let typed: std::collections::BTreeSet<String> =
        commands().into_iter().map(str::to_string).collect();
    assert_eq!(typed, listed);
    // Each name is a `Request` variant: a bare `{"cmd": name}` is refused for a missing field
    // at worst, never as an unknown command.
    for cmd in commands() {
        if let Err(e) = decode_request(&json!({ "cmd": cmd })) {
            assert_eq!(e.kind, "bad_request", "{cmd}: {}", e.message);
            assert!(e.message.contains("missing field"), "{cmd}: {}", e.message);
        }
        assert_eq!(Command::parse(cmd).map(Command::as_str), Some(cmd));
    }
}

/// Options the schema rejects, the typed decode refuses too (as `bad_request`).
#[test]
fn the_typed_options_refuse_what_the_schema_rejects() {
    let options = validator(&schema(), "ToolkitOptions");
    for bad in [
        json!({"skillsDirectory": "/x"}),
        json!({"extraTools": [{"name": "x", "behaviour": {"text": "a", "fail": "b"}}]}),
        json!({"extraTools": [{"name": "x", "behaviour": {"sleep": 5}}]}),
        json!({"skills": [{"name": "x", "contents": "typo"}]}),
        json!({"waitFor": {"answer": {"ok": true}, "echoRequest": true}}),
        json!({"skillProvider": {"skills": [], "fail": "x"}}),
        json!({"skillSampleLimit": "3"}),
    ] {
        assert!(!options.is_valid(&bad), "the schema should reject {bad}");
        let refused = decode_request(&json!({"cmd": "build", "id": "tk1", "options": bad}));
        match refused {
            Err(e) => assert_eq!(e.kind, "bad_request", "{bad}: {}", e.message),
            Ok(r) => panic!("{bad} should be refused, decoded as {r:?}"),
        }
    }
}
