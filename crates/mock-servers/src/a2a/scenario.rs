//! Scenario files for the mock A2A agent: the card it advertises, how its task runs and
//! how it breaks, parsed and validated up front so a bad file fails at start, never
//! mid-test.

use std::path::Path;

use axum::http::{HeaderName, StatusCode};
use serde::Deserialize;

use crate::loopback;
use serde_json::{Map, Value};

/// A validated scenario: everything the mock agent needs, nothing left to parse.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// What `GET /.well-known/agent-card.json` answers.
    pub card: CardAnswer,
    /// What a JSON-RPC POST does.
    pub rpc: RpcAnswer,
    /// Headers every request must carry: header → environment variable with the value.
    pub require_headers_from_env: Vec<(HeaderName, String)>,
    /// How long each JSON-RPC method's answer is held back (`stallMs`): a request stays in
    /// flight that long, so a client's abort can land while it is (SPEC §7A).
    pub stall: Vec<(String, std::time::Duration)>,
}

/// The methods `stallMs` may hold back.
pub const STALLABLE: [&str; 2] = ["SendMessage", "GetTask"];

impl Scenario {
    /// How long an answer to `method` is held back (zero when it is not).
    pub fn stall_for(&self, method: &str) -> std::time::Duration {
        self.stall
            .iter()
            .find(|(m, _)| m == method)
            .map(|(_, d)| *d)
            .unwrap_or_default()
    }
}

/// The card route's answer.
#[derive(Debug, Clone)]
pub enum CardAnswer {
    /// This Agent Card, `{{SELF}}` not yet replaced (the port is chosen at start).
    Card(Map<String, Value>),
    /// A broken card endpoint.
    Fail(CardFailure),
}

/// A card endpoint that fails: this status and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardFailure {
    /// The HTTP status.
    pub status: StatusCode,
    /// The raw body (not JSON, whatever the status).
    pub body: String,
}

/// The JSON-RPC routes' behaviour.
#[derive(Debug, Clone)]
pub enum RpcAnswer {
    /// Real tasks, run as scripted.
    Tasks(TaskScript),
    /// Every POST fails this way.
    Fail(RpcFailure),
}

/// How every JSON-RPC POST fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RpcFailure {
    /// HTTP 500 with a text body.
    Http500,
    /// HTTP 200 `application/json` with a body that is not JSON.
    Malformed,
    /// A JSON-RPC error object, code -32603.
    Error,
}

/// How every task of the scenario runs.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskScript {
    /// `GetTask` answers that say `working` before the final state.
    pub polls: u32,
    /// The state after those polls.
    pub state: FinalState,
    /// The completed task's artifacts, as written (absent ⇒ no `artifacts` key).
    pub artifacts: Option<Vec<Value>>,
    /// Answer one artifact holding the client's task text instead of `artifacts`.
    pub echo: bool,
    /// The Task's `history`, as written.
    pub history: Option<Vec<Value>>,
    /// `status.message` text of a failed or canceled task.
    pub message: Option<String>,
}

/// Where a task ends up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FinalState {
    /// Done, with artifacts.
    Completed,
    /// Failed, optionally with a message.
    Failed,
    /// Canceled, optionally with a message.
    Canceled,
    /// Never ends.
    Working,
}

impl FinalState {
    /// The A2A `TaskState` string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Canceled => "canceled",
            Self::Working => "working",
        }
    }
}

/// Reads and validates a scenario file; the error names the file and what is wrong.
pub fn load_scenario(path: impl AsRef<Path>) -> Result<Scenario, String> {
    loopback::load_json(path.as_ref(), parse_scenario)
}

/// Parses and validates scenario JSON.
pub fn parse_scenario(text: &str) -> Result<Scenario, String> {
    loopback::parse_object::<ScenarioFile>(text)?.validate()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ScenarioFile {
    #[serde(default)]
    card: Option<Value>,
    #[serde(default)]
    card_failure: Option<CardFailureFile>,
    #[serde(default)]
    rpc_failure: Option<RpcFailure>,
    #[serde(default)]
    task: Option<TaskFile>,
    #[serde(default)]
    require_headers_from_env: Map<String, Value>,
    #[serde(default)]
    stall_ms: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CardFailureFile {
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    body: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskFile {
    #[serde(default)]
    polls: Option<u32>,
    #[serde(default)]
    state: Option<FinalState>,
    #[serde(default)]
    artifacts: Option<Vec<Value>>,
    #[serde(default)]
    history: Option<Vec<Value>>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    echo: bool,
}

/// The body of a failing card endpoint when the scenario gives none.
const CARD_FAILURE_BODY: &str = "agent card unavailable";

impl ScenarioFile {
    fn validate(self) -> Result<Scenario, String> {
        let card = match (self.card, self.card_failure) {
            (Some(_), Some(_)) => return Err("card and cardFailure are exclusive".into()),
            (None, None) => return Err("card: missing (or give cardFailure)".into()),
            (Some(Value::Object(card)), None) => CardAnswer::Card(card),
            (Some(_), None) => return Err("card: must be a JSON object".into()),
            (None, Some(f)) => CardAnswer::Fail(card_failure(f)?),
        };
        let rpc = match (self.rpc_failure, self.task) {
            (Some(_), Some(_)) => return Err("rpcFailure and task are exclusive".into()),
            (Some(f), None) => RpcAnswer::Fail(f),
            (None, Some(t)) => RpcAnswer::Tasks(t.validate().map_err(|e| format!("task.{e}"))?),
            // Card-failure scenarios need no task; a bare completion keeps the RPC side sane.
            (None, None) => RpcAnswer::Tasks(TaskScript {
                polls: 0,
                state: FinalState::Completed,
                artifacts: None,
                echo: false,
                history: None,
                message: None,
            }),
        };
        let mut require_headers_from_env: Vec<(HeaderName, String)> = Vec::new();
        for (key, value) in self.require_headers_from_env {
            let field = "requireHeadersFromEnv";
            let name = HeaderName::from_bytes(key.as_bytes())
                .map_err(|_| format!("{field}: {key:?} is not a valid HTTP header name"))?;
            if require_headers_from_env.iter().any(|(n, _)| *n == name) {
                return Err(format!("{field}: header {name} is required twice"));
            }
            match value {
                Value::String(var) if !var.is_empty() => {
                    require_headers_from_env.push((name, var));
                }
                _ => return Err(format!("{field}.{key}: must name an environment variable")),
            }
        }
        let mut stall = Vec::new();
        for (method, ms) in self.stall_ms {
            if !STALLABLE.contains(&method.as_str()) {
                return Err(format!(
                    "stallMs: {method:?} is not a method (expected \"SendMessage\" or \"GetTask\")"
                ));
            }
            let ms = ms
                .as_u64()
                .ok_or_else(|| format!("stallMs.{method}: must be a number of milliseconds"))?;
            stall.push((method, std::time::Duration::from_millis(ms)));
        }
        Ok(Scenario {
            card,
            rpc,
            require_headers_from_env,
            stall,
        })
    }
}

fn card_failure(f: CardFailureFile) -> Result<CardFailure, String> {
    if f.status.is_none() && f.body.is_none() {
        return Err("cardFailure: needs \"status\", \"body\" or both".into());
    }
    let status = match f.status {
        None => StatusCode::OK,
        Some(s) => StatusCode::from_u16(s)
            .ok()
            .filter(|c| c.as_u16() >= 200)
            .ok_or_else(|| format!("cardFailure.status: {s} is not an HTTP status of 200..=999"))?,
    };
    Ok(CardFailure {
        status,
        body: f.body.unwrap_or_else(|| CARD_FAILURE_BODY.into()),
    })
}

impl TaskFile {
    fn validate(self) -> Result<TaskScript, String> {
        let state = self.state.unwrap_or(FinalState::Completed);
        if state == FinalState::Working && self.polls.is_some() {
            return Err("polls: meaningless for a task that stays working".into());
        }
        let completed = state == FinalState::Completed;
        if self.echo && self.artifacts.is_some() {
            return Err("echo: exclusive with artifacts".into());
        }
        if !completed && (self.echo || self.artifacts.is_some()) {
            return Err(format!(
                "{}: only a completed task has artifacts",
                if self.echo { "echo" } else { "artifacts" }
            ));
        }
        if self.message.is_some() && !matches!(state, FinalState::Failed | FinalState::Canceled) {
            return Err("message: only a failed or canceled task has a status message".into());
        }
        for (i, a) in self.artifacts.iter().flatten().enumerate() {
            artifact(a).map_err(|e| format!("artifacts[{i}]{e}"))?;
        }
        for (i, m) in self.history.iter().flatten().enumerate() {
            message(m).map_err(|e| format!("history[{i}]{e}"))?;
        }
        Ok(TaskScript {
            polls: self.polls.unwrap_or(0),
            state,
            artifacts: self.artifacts,
            echo: self.echo,
            history: self.history,
            message: self.message,
        })
    }
}

// The shape checks below return errors starting with the path below the caller's, so
// they read `artifacts[0].parts[1].kind: ...`.

fn only_keys(obj: &Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!(
            ": unknown key {k:?} (expected {})",
            allowed
                .iter()
                .map(|a| format!("{a:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        None => Ok(()),
    }
}

fn object(value: &Value) -> Result<&Map<String, Value>, String> {
    value
        .as_object()
        .ok_or_else(|| ": must be a JSON object".to_string())
}

fn non_empty_string(obj: &Map<String, Value>, key: &str) -> Result<(), String> {
    match obj.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(()),
        _ => Err(format!(".{key}: must be a non-empty string")),
    }
}

/// An A2A `Artifact`: `artifactId` and `parts` required.
fn artifact(value: &Value) -> Result<(), String> {
    let obj = object(value)?;
    only_keys(
        obj,
        &[
            "artifactId",
            "name",
            "description",
            "parts",
            "metadata",
            "extensions",
        ],
    )?;
    non_empty_string(obj, "artifactId")?;
    parts(obj)
}

/// An A2A `Message`: `role` (user or agent), `messageId` and `parts` required.
fn message(value: &Value) -> Result<(), String> {
    let obj = object(value)?;
    only_keys(
        obj,
        &[
            "kind",
            "role",
            "messageId",
            "parts",
            "contextId",
            "taskId",
            "referenceTaskIds",
            "metadata",
            "extensions",
        ],
    )?;
    match obj.get("kind") {
        None => {}
        Some(Value::String(k)) if k == "message" => {}
        Some(_) => return Err(".kind: must be \"message\"".into()),
    }
    match obj.get("role").and_then(Value::as_str) {
        Some("user" | "agent") => {}
        _ => return Err(".role: must be \"user\" or \"agent\"".into()),
    }
    non_empty_string(obj, "messageId")?;
    parts(obj)
}

/// `parts`: an array of text, data or file parts, each with exactly its own keys.
fn parts(obj: &Map<String, Value>) -> Result<(), String> {
    let Some(Value::Array(parts)) = obj.get("parts") else {
        return Err(".parts: must be an array".into());
    };
    for (i, part) in parts.iter().enumerate() {
        let p = object(part).map_err(|e| format!(".parts[{i}]{e}"))?;
        let (payload, check): (&str, fn(&Value) -> bool) =
            match p.get("kind").and_then(Value::as_str) {
                Some("text") => ("text", Value::is_string),
                Some("data") => ("data", Value::is_object),
                Some("file") => ("file", Value::is_object),
                _ => {
                    return Err(format!(
                        ".parts[{i}].kind: must be \"text\", \"data\" or \"file\""
                    ))
                }
            };
        only_keys(p, &["kind", payload, "metadata"]).map_err(|e| format!(".parts[{i}]{e}"))?;
        if !p.get(payload).is_some_and(check) {
            let want = if payload == "text" {
                "a string"
            } else {
                "an object"
            };
            return Err(format!(".parts[{i}].{payload}: must be {want}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Scenario {
        parse_scenario(text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn err(text: &str) -> String {
        match parse_scenario(text) {
            Ok(_) => panic!("expected an error for {text}"),
            Err(e) => e,
        }
    }

    fn tasks(s: &Scenario) -> &TaskScript {
        match &s.rpc {
            RpcAnswer::Tasks(t) => t,
            RpcAnswer::Fail(f) => panic!("rpc fails: {f:?}"),
        }
    }

    #[test]
    fn a_full_scenario_parses() {
        let s = ok(r#"{
          "card": {"name": "Research Bot", "url": "{{SELF}}/rpc", "skills": []},
          "requireHeadersFromEnv": {"Authorization": "MOCK_EXPECTED_AUTH"},
          "task": {"polls": 2, "state": "completed",
            "artifacts": [{"artifactId": "a1", "parts": [{"kind": "text", "text": "x"},
                                                        {"kind": "data", "data": {"b": 1, "a": 2}}]}],
            "history": [{"role": "agent", "messageId": "m1", "parts": []}]}
        }"#);
        let CardAnswer::Card(card) = &s.card else {
            panic!("no card");
        };
        // Key order survives: the wire must show what the file says.
        assert_eq!(
            card.keys().collect::<Vec<_>>(),
            ["name", "url", "skills"].iter().collect::<Vec<_>>()
        );
        let t = tasks(&s);
        assert_eq!((t.polls, t.state), (2, FinalState::Completed));
        assert_eq!(t.artifacts.as_ref().map(Vec::len), Some(1));
        assert_eq!(s.require_headers_from_env.len(), 1);
        assert_eq!(s.require_headers_from_env[0].0.as_str(), "authorization");
        assert_eq!(s.stall_for("GetTask"), std::time::Duration::ZERO);
        let s = ok(r#"{"card": {}, "task": {}, "stallMs": {"SendMessage": 1500, "GetTask": 20}}"#);
        assert_eq!(s.stall_for("SendMessage").as_millis(), 1500);
        assert_eq!(s.stall_for("GetTask").as_millis(), 20);
    }

    #[test]
    fn defaults_complete_at_once_and_failures_parse() {
        let t = tasks(&ok(r#"{"card": {}, "task": {}}"#)).clone();
        assert_eq!(
            (t.polls, t.state, t.echo),
            (0, FinalState::Completed, false)
        );
        let s = ok(r#"{"cardFailure": {"status": 500}}"#);
        let CardAnswer::Fail(f) = s.card else {
            panic!("card did not fail");
        };
        assert_eq!(f.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(f.body, CARD_FAILURE_BODY);
        let s = ok(r#"{"cardFailure": {"body": "not json"}}"#);
        let CardAnswer::Fail(f) = s.card else {
            panic!("card did not fail");
        };
        assert_eq!((f.status, f.body.as_str()), (StatusCode::OK, "not json"));
        for (text, want) in [
            ("http500", RpcFailure::Http500),
            ("malformed", RpcFailure::Malformed),
            ("error", RpcFailure::Error),
        ] {
            let s = ok(&format!(r#"{{"card": {{}}, "rpcFailure": "{text}"}}"#));
            assert!(matches!(s.rpc, RpcAnswer::Fail(f) if f == want), "{text}");
        }
    }

    #[test]
    fn unknown_keys_are_named() {
        assert!(err(r#"{"card": {}, "tsk": {}}"#).contains("tsk"));
        assert!(err(r#"{"card": {}, "task": {"pols": 1}}"#).contains("pols"));
        assert!(err(r#"{"cardFailure": {"code": 500}}"#).contains("code"));
        assert!(err(r#"{"card": {}, "rpcFailure": "timeout"}"#).contains("timeout"));
        assert!(err(r#"{"card": {}, "task": {"state": "done"}}"#).contains("done"));
        let e = err(
            r#"{"card": {}, "task": {"artifacts": [{"artifactId": "a", "parts": [],
                       "title": "x"}]}}"#,
        );
        assert!(e.contains("artifacts[0]") && e.contains("\"title\""), "{e}");
        let e = err(
            r#"{"card": {}, "task": {"artifacts": [{"artifactId": "a", "parts":
                       [{"kind": "text", "text": "x", "data": {}}]}]}}"#,
        );
        assert!(
            e.contains("artifacts[0].parts[0]") && e.contains("\"data\""),
            "{e}"
        );
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        for bad in [
            "not json",
            "[]",
            "{}",
            r#"{"card": []}"#,
            r#"{"card": {}, "cardFailure": {"status": 500}}"#,
            r#"{"cardFailure": {}}"#,
            r#"{"cardFailure": {"status": 99}}"#,
            r#"{"cardFailure": {"status": 1000}}"#,
            r#"{"card": {}, "rpcFailure": "error", "task": {}}"#,
            r#"{"card": {}, "task": {"polls": -1}}"#,
            r#"{"card": {}, "task": {"state": "working", "polls": 1}}"#,
            r#"{"card": {}, "task": {"state": "failed", "artifacts": []}}"#,
            r#"{"card": {}, "task": {"state": "canceled", "echo": true}}"#,
            r#"{"card": {}, "task": {"echo": true, "artifacts": []}}"#,
            r#"{"card": {}, "task": {"message": "done"}}"#,
            r#"{"card": {}, "task": {"artifacts": [{"parts": []}]}}"#,
            r#"{"card": {}, "task": {"artifacts": [{"artifactId": "a"}]}}"#,
            r#"{"card": {}, "task": {"artifacts": [{"artifactId": "a", "parts": [{"type": "text", "text": "x"}]}]}}"#,
            r#"{"card": {}, "task": {"artifacts": [{"artifactId": "a", "parts": [{"kind": "text", "text": 1}]}]}}"#,
            r#"{"card": {}, "task": {"artifacts": [{"artifactId": "a", "parts": [{"kind": "data", "data": []}]}]}}"#,
            r#"{"card": {}, "task": {"artifacts": ["a"]}}"#,
            r#"{"card": {}, "task": {"history": [{"role": "bot", "messageId": "m", "parts": []}]}}"#,
            r#"{"card": {}, "task": {"history": [{"role": "agent", "parts": []}]}}"#,
            r#"{"card": {}, "task": {"history": [{"kind": "task", "role": "agent", "messageId": "m", "parts": []}]}}"#,
            r#"{"card": {}, "requireHeadersFromEnv": {"bad header": "V"}}"#,
            r#"{"card": {}, "requireHeadersFromEnv": {"a": ""}}"#,
            r#"{"card": {}, "requireHeadersFromEnv": {"a": "V", "A": "W"}}"#,
            r#"{"card": {}, "stallMs": {"message/send": 10}}"#,
            r#"{"card": {}, "stallMs": {"GetTask": "10"}}"#,
            r#"{"card": {}, "stallMs": {"GetTask": -1}}"#,
        ] {
            let _ = err(bad);
        }
    }

    #[test]
    fn every_shipped_scenario_loads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mock-servers/scenarios/a2a");
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
        let mut count = 0;
        for entry in entries.flatten() {
            if let Err(e) = load_scenario(entry.path()) {
                panic!("{e}");
            }
            count += 1;
        }
        assert!(count >= 13, "only {count} scenario files");
    }

    #[test]
    fn load_names_the_file() {
        let e = match load_scenario("/nonexistent/agent.json") {
            Ok(_) => panic!("loaded a missing file"),
            Err(e) => e,
        };
        assert!(e.contains("/nonexistent/agent.json"), "{e}");
    }
}
