//! Holds `conformance/protocol.schema.json` and the reference port to each other: every
//! request the harness sends and every response the in-process reference gives while running
//! all scenarios must validate, the examples in `conformance/PROTOCOL.md` must validate, and a
//! few broken messages must not (so the schema can fail).

use std::collections::BTreeMap;
use std::path::PathBuf;

use async_trait::async_trait;
use jsonschema::Validator;
use serde_json::{json, Value};

use toolnexus_harness::outcome::model::Status;
use toolnexus_harness::run::runner;
use toolnexus_harness::scenario::features;
use toolnexus_harness::scenario::state::Env;
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::{Port, PortError};
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
    /// Request fields PROTOCOL.md says no scenario sends (`stream`'s `history`, §5.16), each
    /// time one was sent anyway.
    unsent_sent: Vec<String>,
    /// The next `seq`: the in-process port does not number requests, the subprocess port does.
    seq: u64,
    /// Every protocol-defined key any request carried (an object key the schema names in a
    /// `properties`, which is also every behaviour name: each behaviour is an object of one
    /// named key), with the first place it was seen.
    keys_sent: BTreeMap<String, String>,
    /// The request validator `protocol_keys` evaluates with, and the schema it was built from.
    annotating: (Validator, Value),
    /// Every HTTP tool (`{name, http}`) sent without `method` (PROTOCOL.md §7: the harness
    /// always sends one).
    http_without_method: Vec<String>,
}

impl RecordingPort {
    fn new() -> Self {
        Self {
            inner: InProcessPort::new(toolnexus_driver::ReferenceSession::new()),
            validators: Validators::new(),
            violations: Vec::new(),
            commands: BTreeMap::new(),
            errors: BTreeMap::new(),
            unsent_sent: Vec::new(),
            seq: 0,
            keys_sent: BTreeMap::new(),
            annotating: annotating_request_validator(),
            http_without_method: Vec::new(),
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
        for (command, field) in NEVER_SENT {
            if cmd == command && request.get(field).is_some() {
                self.unsent_sent
                    .push(format!("`{command}` with `{field}`: {request}"));
            }
        }
        for (key, at) in protocol_keys(&self.annotating.0, &self.annotating.1, &request) {
            self.keys_sent
                .entry(key)
                .or_insert_with(|| format!("`{cmd}` at `{at}`"));
        }
        http_blocks_without_method(&request, &mut self.http_without_method);
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

/// A validator of `request` whose every schema object with `properties` carries an annotation
/// (a `description`, added where the generated schema has none), so that evaluating a request
/// reports each object node the request went through, and `protocol_keys` can read off it.
fn annotating_request_validator() -> (Validator, Value) {
    fn annotate(node: &mut Value) {
        match node {
            Value::Object(map) => {
                if map.get("properties").is_some_and(Value::is_object)
                    && !map.contains_key("description")
                {
                    map.insert("description".into(), json!("(annotated by the test)"));
                }
                map.values_mut().for_each(annotate);
            }
            Value::Array(items) => items.iter_mut().for_each(annotate),
            _ => {}
        }
    }
    let mut annotated = schema();
    annotate(&mut annotated);
    (validator(&annotated, "request"), annotated)
}

/// The keys of `request` the schema defines, each with where it sits in the request: at each
/// schema object with `properties` that a valid evaluation went through (a failing `oneOf`
/// branch does not count), the request's keys that object names. Keys only an
/// `additionalProperties` admits (tool arguments, server names, header names) are free-form
/// data, not protocol words, and are left out. Every behaviour name is such a key: a
/// behaviour is an object of one named key.
fn protocol_keys(annotating: &Validator, schema: &Value, request: &Value) -> Vec<(String, String)> {
    let evaluation = annotating.evaluate(request);
    let mut out = Vec::new();
    for entry in evaluation.iter_annotations() {
        let Some((_, pointer)) = entry.schema_location.split_once('#') else {
            continue;
        };
        let Some(names) = schema.pointer(pointer).and_then(|n| n.get("properties")) else {
            continue;
        };
        let at = entry.instance_location.as_str();
        let Some(instance) = request.pointer(at).and_then(Value::as_object) else {
            continue;
        };
        for key in instance.keys().filter(|k| names.get(k.as_str()).is_some()) {
            out.push((key.clone(), format!("{at}/{key}")));
        }
    }
    out
}

/// Each HTTP tool declaration (an object with `name` and an `http` block) in `value` whose
/// block has no `method`, by name.
fn http_blocks_without_method(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let (Some(name), Some(http)) = (map.get("name"), map.get("http")) {
                if http.get("method").is_none() {
                    out.push(name.to_string());
                }
            }
            map.values()
                .for_each(|v| http_blocks_without_method(v, out));
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| http_blocks_without_method(v, out)),
        _ => {}
    }
}

/// Every word PROTOCOL.md shows as code: the identifiers inside its inline code spans
/// (`` `beforeLLM` ``, `` `{"echo": true}` `` gives `echo`), fenced examples left out — a key
/// that only an example shows is not documented.
fn documented_words(text: &str) -> std::collections::BTreeSet<String> {
    let mut words = std::collections::BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Odd pieces between backticks are code spans.
        for span in line.split('`').skip(1).step_by(2) {
            for word in span.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
                if !word.is_empty() {
                    words.insert(word.to_string());
                }
            }
        }
    }
    words
}

/// Request fields PROTOCOL.md promises no scenario sends, so that a driver may leave them
/// unsupported: `stream`'s `history` (§5.16; SPEC §8's `stream(prompt, { toolkit, id? })` has
/// none). A scenario that starts sending one must change that sentence and this list.
const NEVER_SENT: [(&str, &str); 1] = [("stream", "history")];

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
    toolnexus_ports::secret::ensure();
    let root = root();
    let (scenarios, errors) = features::load(&root.join("features"));
    assert!(
        errors.is_empty(),
        "feature files that do not parse: {errors:?}"
    );
    let env = Env::from_root(&root).with_mock_bin(env!("CARGO_BIN_EXE_toolnexus-conformance"));
    let mut port = RecordingPort::new();
    let report = runner::run(&mut port, &env, &scenarios, "reference", &mut |_| {}).await;

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
    let protocol_md = std::fs::read_to_string(root.join("conformance").join("PROTOCOL.md"))
        .unwrap_or_else(|e| panic!("cannot read PROTOCOL.md: {e}"));
    let documented = documented_words(&protocol_md);
    let undocumented: Vec<String> = port
        .keys_sent
        .iter()
        .filter(|(key, _)| !documented.contains(key.as_str()))
        .map(|(key, at)| format!("`{key}` (first sent in {at})"))
        .collect();
    assert!(
        port.keys_sent.len() > 150,
        "the run should send the protocol's keys: {:?}",
        port.keys_sent.keys()
    );
    assert!(
        undocumented.is_empty(),
        "keys or behaviours the scenarios send that PROTOCOL.md never shows as code \
         (a driver could learn them only from the Rust types): {undocumented:#?}"
    );
    assert!(
        port.http_without_method.is_empty(),
        "PROTOCOL.md §7 says the harness always sends an HTTP tool's `method`: {:?}",
        port.http_without_method
    );
    assert!(
        port.unsent_sent.is_empty(),
        "PROTOCOL.md §5.16 says no scenario sends these; update it (and NEVER_SENT): {:?}",
        port.unsent_sent
    );
    assert!(
        report.summary.failed == 0
            && report.summary.preview.failed == 0
            && report.summary.passed >= 80,
        "the recorded run should pass every scenario: {:?}",
        report.summary
    );
    for cmd in commands() {
        assert!(
            port.commands.contains_key(cmd) || LATER_SPEC_ONLY.contains(&cmd),
            "the scenarios never sent `{cmd}`"
        );
    }
}

/// Commands only scenarios of a SPEC text after the reference's declared one send (the
/// reference skips them by version): PROTOCOL.md §5.28 `content_part`, from SPEC 0.17.0. Its
/// examples in PROTOCOL.md are still checked against the schema.
const LATER_SPEC_ONLY: &[&str] = &["content_part"];

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

/// The checked-in schema is the one the protocol types generate: a type changed without
/// regenerating (or a hand edit of the file) fails here, naming the command that regenerates.
#[test]
fn the_checked_in_schema_is_the_generated_one() {
    let path = root().join("conformance").join("protocol.schema.json");
    let checked_in = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let generated = toolnexus_protocol::schema::generate_text();
    if checked_in == generated {
        return;
    }
    let diff = similar::TextDiff::from_lines(&checked_in, &generated);
    let changes: String = diff
        .unified_diff()
        .context_radius(2)
        .header("checked in", "generated")
        .to_string()
        .lines()
        .take(60)
        .map(|l| format!("{l}\n"))
        .collect();
    panic!(
        "conformance/protocol.schema.json is not what the protocol types generate; \
         regenerate it with `{}` and commit it.\n{changes}",
        toolnexus_protocol::schema::REGENERATE
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
    // (`hello` of another protocol version is `validate-trace`'s check, tests/trace.rs: the
    // types read any integer. A `build` without `options` and an `adapter` of an unknown
    // `format` are valid requests: the types default the options and keep the format as text
    // for the driver's own `bad_request`. conformance/NOTES.md #338.)
    rejected(
        &v.request,
        "a request with a field the driver would ignore",
        json!({"seq": 1, "cmd": "tools", "toolkit": "tk1", "toolKit": "tk1"}),
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
    // (The provider arrays' shapes per `format`, e.g. gemini's single wrapper, are the
    // adapter scenarios' snapshot comparisons: `AdapterResponse.output` is provider JSON.
    // conformance/NOTES.md #338.)
    rejected(
        &v.exchange,
        "an execute result whose metadata is empty",
        exchange(
            json!({"seq": 1, "cmd": "execute", "toolkit": "tk1", "name": "x", "args": {}}),
            json!({"ok": true, "result": {"output": "x", "isError": false, "metadata": {}}}),
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

    rejected(
        &v.exchange,
        "a build that raised and answered a toolkit too",
        exchange(
            json!({"seq": 1, "cmd": "build", "id": "tk1", "options": {}}),
            json!({"ok": true, "raised": "boom", "tools": [], "names": [], "statuses": {}, "errors": {}, "skills": []}),
        ),
    );
    rejected(
        &v.exchange,
        "a serve that raised and answered a url too",
        exchange(
            json!({"seq": 1, "cmd": "serve", "id": "s1", "toolkit": "tk1"}),
            json!({"ok": true, "raised": "boom", "url": "http://127.0.0.1:1"}),
        ),
    );
    rejected(
        &v.exchange,
        "a build whose raised is not a string",
        exchange(
            json!({"seq": 1, "cmd": "build", "id": "tk1", "options": {}}),
            json!({"ok": true, "raised": 1}),
        ),
    );
    rejected(
        &v.request,
        "a generate step whose usage is camelCase",
        json!({"seq": 1, "cmd": "client", "id": "c1", "options": {"model": "m", "generate": {"script":
            [{"content": "hi", "usage": {"promptTokens": 1, "completionTokens": 1, "totalTokens": 2}}]}}}),
    );
    for (cmd, request) in [
        (
            "build",
            json!({"seq": 1, "cmd": "build", "id": "tk1", "options": {}}),
        ),
        (
            "serve",
            json!({"seq": 1, "cmd": "serve", "id": "s1", "toolkit": "tk1"}),
        ),
    ] {
        let raised = exchange(request, json!({"ok": true, "raised": "the port threw"}));
        assert!(
            violations(&v.exchange, &raised).is_empty(),
            "a {cmd} may answer raised alone"
        );
    }

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
                assert_eq!(
                    request.request.command().as_str(),
                    cmd,
                    "PROTOCOL.md line {at}"
                );
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

/// JSON types, as the schema's `type` names them.
type Types = std::collections::BTreeSet<&'static str>;

const ALL_TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// `integer` is a `number` in JSON Schema: a set holding both is just `number`.
fn normalised(mut types: Types) -> Types {
    if types.contains("number") {
        types.remove("integer");
    }
    types
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn resolve<'a>(schema: &'a Value, reference: &str) -> &'a Value {
    reference
        .strip_prefix('#')
        .and_then(|p| schema.pointer(p))
        .unwrap_or_else(|| panic!("the schema has no {reference}"))
}

/// The JSON types `node` admits: its `$ref`'s (when it has no `type` of its own), else its
/// `type`, else its `const` or `enum` values' types, else the union of its `oneOf`/`anyOf`
/// branches; a node that constrains none admits any JSON value.
fn schema_types(schema: &Value, node: &Value) -> Types {
    let types: Types =
        if let (Some(r), None) = (node.get("$ref").and_then(Value::as_str), node.get("type")) {
            return schema_types(schema, resolve(schema, r));
        } else if let Some(t) = node.get("type") {
            let names: Vec<&Value> = match t {
                Value::Array(a) => a.iter().collect(),
                one => vec![one],
            };
            names
                .into_iter()
                .filter_map(Value::as_str)
                .map(|n| {
                    *ALL_TYPES
                        .iter()
                        .find(|t| **t == n)
                        .unwrap_or_else(|| panic!("unknown JSON type {n}"))
                })
                .collect()
        } else if let Some(c) = node.get("const") {
            [json_type(c)].into()
        } else if let Some(values) = node.get("enum").and_then(Value::as_array) {
            values.iter().map(json_type).collect()
        } else if let Some(branches) = node
            .get("oneOf")
            .or_else(|| node.get("anyOf"))
            .and_then(Value::as_array)
        {
            branches
                .iter()
                .flat_map(|b| schema_types(schema, b))
                .collect()
        } else {
            ALL_TYPES.into()
        };
    normalised(types)
}

/// An object schema's properties by name.
type Fields = serde_json::Map<String, Value>;

/// The properties of an object schema, through its `$ref` and `allOf`.
fn properties(schema: &Value, node: &Value) -> Fields {
    let mut out = Fields::new();
    if let Some(r) = node.get("$ref").and_then(Value::as_str) {
        out.extend(properties(schema, resolve(schema, r)));
    }
    for part in node
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.extend(properties(schema, part));
    }
    if let Some(own) = node.get("properties").and_then(Value::as_object) {
        out.extend(own.clone());
    }
    out
}

/// The success shapes of a `<cmd>_response_or_error` (the `else` of its failure test, and of
/// any further `if` in it: `build`'s body or its `raised` answer), their properties merged.
fn success_properties(schema: &Value, node: &Value) -> Fields {
    let node = match node.get("$ref").and_then(Value::as_str) {
        Some(r) if node.get("if").is_none() => resolve(schema, r),
        _ => node,
    };
    match (node.get("if"), node.get("then"), node.get("else")) {
        (Some(cond), Some(then), Some(other)) => {
            let mut out = success_properties(schema, other);
            if cond.get("$ref").and_then(Value::as_str) != Some("#/$defs/is_failure") {
                out.extend(success_properties(schema, then));
            }
            out
        }
        _ => properties(schema, node),
    }
}

/// `cmd`'s request and success-response properties, found as the schema pairs them itself:
/// `request.allOf`'s entry whose `if` is `cmd_<cmd>`, and `exchange.allOf`'s.
fn command_fields(schema: &Value, cmd: &str) -> (Fields, Fields) {
    let discriminator = json!(format!("#/$defs/cmd_{cmd}"));
    let entries = |def: &str| {
        schema
            .pointer(&format!("/$defs/{def}/allOf"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let request = entries("request")
        .into_iter()
        .find(|e| e.pointer("/if/$ref") == Some(&discriminator))
        .and_then(|e| e.get("then").cloned())
        .unwrap_or_else(|| panic!("the schema's request has no branch for `{cmd}`"));
    let response = entries("exchange")
        .into_iter()
        .find(|e| e.pointer("/if/properties/request/$ref") == Some(&discriminator))
        .and_then(|e| e.pointer("/then/properties/response").cloned())
        .unwrap_or_else(|| panic!("the schema's exchange has no branch for `{cmd}`"));
    (
        properties(schema, &request),
        success_properties(schema, &response),
    )
}

/// The JSON types a PROTOCOL.md table's type cell states, or `None` for words this reader does
/// not know (the test then fails, asking for words it reads). The vocabulary: `any JSON value`;
/// `array of …` and `object K → V` (one type, whatever `\|` the element or value has);
/// otherwise alternatives split by `\|` or ` or `, each read by its start: a quoted literal is
/// a string, `{…}` an object, `[…]` an array, a JSON type name (`strings` too) itself, and
/// `ToolResult`, `RunResult`, `Request`, `Answer`, `SkillDef`, `ContentPart`, `behaviour` objects.
fn doc_types(cell: &str) -> Option<Types> {
    let text = cell.replace('`', "");
    let text = text.trim();
    if text.starts_with("any JSON") {
        return Some(normalised(ALL_TYPES.into()));
    }
    if text.starts_with("array of") {
        return Some(["array"].into());
    }
    if text.starts_with("object") && text.contains('→') {
        return Some(["object"].into());
    }
    let mut alternatives = Vec::new();
    let (mut depth, mut current) = (0i32, String::new());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if depth == 0 {
            if let Some(after) = rest
                .strip_prefix("\\|")
                .or_else(|| rest.strip_prefix(" or "))
            {
                alternatives.push(std::mem::take(&mut current));
                rest = after;
                continue;
            }
        }
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            _ => {}
        }
        current.push(c);
        rest = &rest[c.len_utf8()..];
    }
    alternatives.push(current);
    let mut types = Types::new();
    for alternative in alternatives
        .iter()
        .map(|a| a.trim())
        .filter(|a| !a.is_empty())
    {
        let word: String = alternative
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        let t = match (alternative.chars().next(), word.as_str()) {
            (Some('"'), _) => "string",
            (Some('{'), _) => "object",
            (Some('['), _) => "array",
            (_, "string" | "strings") => "string",
            (_, "true" | "false" | "boolean") => "boolean",
            (
                _,
                "ToolResult" | "RunResult" | "Request" | "Answer" | "SkillDef" | "behaviour"
                | "ContentPart" | "Decision",
            ) => "object",
            (_, w) => ALL_TYPES.iter().copied().find(|t| *t == w)?,
        };
        types.insert(t);
    }
    Some(normalised(types))
}

/// The cells of a Markdown table row, split on `|` but not on `\|`.
fn cells(row: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut chars = row.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                current.push_str("\\|");
                chars.next();
            }
            '|' => out.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    out.push(current);
    // The text before the first `|` and after the last one is not a cell.
    out.remove(0);
    out.pop();
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Every field of PROTOCOL.md's command tables (§5: `| request field | type |` and
/// `| response field | type |`, under a heading naming the commands) and option tables (§6,
/// §6A: `| key | JSON type |`) states the types the schema gives it: the document's type words
/// (read by [`doc_types`]) and the schema's JSON types (by [`schema_types`]) are the same set.
/// A row whose type cell is empty or refers elsewhere (`as run`) states nothing; a row
/// restricted to one command (its meaning starts with `` `cmd` only``) is checked for that one.
#[test]
fn the_field_types_in_protocol_md_tables_are_the_schemas() {
    let s = schema();
    let path = root().join("conformance").join("PROTOCOL.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let only = regex::Regex::new(r"^`([a-z_]+)` only").unwrap_or_else(|e| panic!("{e}"));
    let mut problems = Vec::new();
    let mut compared = 0;
    // The objects the current heading's tables describe: (label, request fields, response fields).
    let mut targets: Vec<(String, Fields, Fields)> = Vec::new();
    let mut header: Option<Vec<String>> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if let Some(title) = line
            .strip_prefix("### ")
            .or_else(|| line.strip_prefix("## "))
        {
            header = None;
            let (number, rest) = title.split_once(' ').unwrap_or((title, ""));
            targets = if number.starts_with("5.") {
                rest.split('`')
                    .skip(1)
                    .step_by(2)
                    .filter(|c| Command::parse(c).is_some())
                    .map(|c| {
                        let (req, resp) = command_fields(&s, c);
                        (c.to_string(), req, resp)
                    })
                    .collect()
            } else {
                let def = match number {
                    "6." => Some("ToolkitOptions"),
                    "6A." => Some("ClientOptions"),
                    _ => None,
                };
                def.map(|d| {
                    let fields = properties(&s, &s["$defs"][d]);
                    (d.to_string(), fields.clone(), fields)
                })
                .into_iter()
                .collect()
            };
            continue;
        }
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let row = cells(line);
        let Some(head) = &header else {
            header = Some(row);
            continue;
        };
        if row.iter().all(|c| c.chars().all(|ch| "-: ".contains(ch))) {
            continue;
        }
        let request_side = match (
            head.first().map(String::as_str),
            head.get(1).map(String::as_str),
        ) {
            (Some("request field"), Some("type")) | (Some("key"), Some("JSON type")) => true,
            (Some("response field"), Some("type")) => false,
            _ => continue,
        };
        let names: Vec<&str> = row[0].split('`').skip(1).step_by(2).collect();
        let stated = row.get(1).map(String::as_str).unwrap_or("");
        if names.len() != 1 || stated.is_empty() || stated.starts_with("as ") {
            continue;
        }
        let field = names[0];
        let Some(said) = doc_types(stated) else {
            problems.push(format!(
                "line {n}: cannot read the type words {stated:?} of `{field}`"
            ));
            continue;
        };
        let restricted = row[2..]
            .iter()
            .find_map(|c| only.captures(c).map(|m| m[1].to_string()));
        for (label, request, response) in &targets {
            if restricted.as_ref().is_some_and(|r| r != label) {
                continue;
            }
            let mut node: Option<Value> = None;
            let mut fields = if request_side {
                request.clone()
            } else {
                response.clone()
            };
            for part in field.split('.') {
                node = fields.get(part).cloned();
                let Some(found) = &node else { break };
                fields = properties(&s, found);
            }
            let Some(node) = node else {
                problems.push(format!(
                    "line {n}: `{field}` of `{label}` is not in the schema's {} fields",
                    if request_side { "request" } else { "response" }
                ));
                continue;
            };
            compared += 1;
            let mut schema_said = schema_types(&s, &node);
            // An optional field's type (Rust `Option`) accepts `null` as absent (§6: drivers
            // treat `null` as absent); the tables say `null` only where it means something.
            if !said.contains("null") {
                schema_said.remove("null");
            }
            if schema_said != said {
                problems.push(format!(
                    "line {n}: `{label}` `{field}`: PROTOCOL.md says {stated:?} ({said:?}), the schema {schema_said:?}"
                ));
            }
        }
    }
    for p in &problems {
        eprintln!("PROTOCOL.md {p}");
    }
    assert!(
        problems.is_empty(),
        "{} disagreement(s); see above",
        problems.len()
    );
    assert!(
        compared >= 120,
        "only {compared} fields compared: has the table layout changed?"
    );
}

#[test]
fn the_type_words_reader_reads_what_the_tables_say() {
    let t = |c: &str| doc_types(c).map(|t| t.into_iter().collect::<Vec<_>>());
    assert_eq!(
        t("any JSON value"),
        Some(
            ALL_TYPES
                .iter()
                .copied()
                .filter(|t| *t != "integer")
                .collect()
        )
    );
    assert_eq!(
        t("`null` \\| boolean \\| object"),
        Some(vec!["boolean", "null", "object"])
    );
    assert_eq!(t("object \\| string"), Some(vec!["object", "string"]));
    assert_eq!(t("`\"openai\"` \\| `\"anthropic\"`"), Some(vec!["string"]));
    assert_eq!(
        t("array of `{\"send\": prompt}` \\| `{\"reset\": true}`"),
        Some(vec!["array"])
    );
    assert_eq!(
        t("object server → `connected` \\| `failed`"),
        Some(vec!["object"])
    );
    assert_eq!(t("array or null"), Some(vec!["array", "null"]));
    assert_eq!(
        t("string \\| array of strings"),
        Some(vec!["array", "string"])
    );
    assert_eq!(t("RunResult (§8)"), Some(vec!["object"]));
    assert_eq!(t("integer"), Some(vec!["integer"]));
    assert_eq!(t("a mystery"), None);
}
