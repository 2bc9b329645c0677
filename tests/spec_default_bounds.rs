//! No scenario's verdict may hang on a port bounding tighter than a SPEC default (issue 48,
//! NOTES #414). The SPEC's defaults (an MCP server's 30 000 ms `timeout`, an A2A agent's
//! 300 000 ms, `bash`'s 60 000 ms) are far above the harness's per-request limit (`run
//! --timeout-ms`, 5 000 ms unless given), so a port that waits a default out is cut off and
//! fails for the harness's limit, not for a SPEC sentence. This lint walks every scenario's
//! JSON and finds each peer that may never answer (a failing mock MCP server, an A2A task that
//! never ends, an HTTP answer held past the limit, a `sleep` past it) whose config leaves the
//! bound to the SPEC's default, or sets one the limit cannot cover.
//!
//! `@beyond-spec` scenarios are left out: they already say what they take beyond the SPEC
//! (the five-server build bound of mcp_failures relies on garbage failing at once, NOTES #46).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::Value;
use toolnexus_harness::scenario::features::{self, ScenarioSpec, BEYOND_SPEC_TAG};

/// §2: connect, `initialize` and `tools/list` are each waited up to `timeout`.
const MCP_WAITED_PHASES: u64 = 3;
/// §7A: `pollEvery`'s default, the most a port may sleep past an A2A `timeout`.
const A2A_DEFAULT_POLL_MS: u64 = 1_000;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The request limit `run` applies by default, read from its argument definition so the lint
/// follows a change there.
fn request_limit_ms() -> u64 {
    let path = root().join("src/cli/run.rs");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let re = Regex::new(r"default_value_t = ([\d_]+), value_parser = timeout_ms\)\]\s*timeout_ms")
        .unwrap_or_else(|e| panic!("bad regex: {e}"));
    let caps = re
        .captures(&text)
        .unwrap_or_else(|| panic!("no `--timeout-ms` default in {}", path.display()));
    caps[1]
        .replace('_', "")
        .parse()
        .unwrap_or_else(|e| panic!("bad limit: {e}"))
}

/// A mock scenario file (`mock-servers/scenarios/<sub>/<file>`) as JSON.
fn mock(sub: &str, file: &str) -> Value {
    let path = root().join("mock-servers/scenarios").join(sub).join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether a mock MCP server may never answer: every `fail` mode (a crash or an exit is seen
/// at once only by a port that watches the pipe; garbage only by one that gives up on it).
fn mcp_may_stall(file: &str) -> bool {
    mock("", file).get("fail").is_some()
}

/// Whether a mock A2A agent's task never reaches a terminal state, or it holds an answer back
/// at least `limit` ms.
fn a2a_may_stall(file: &str, limit: u64) -> bool {
    let m = mock("a2a", file);
    let state = m.pointer("/task/state").and_then(Value::as_str);
    let endless = m.get("task").is_some()
        && !matches!(
            state,
            Some(
                "completed"
                    | "failed"
                    | "canceled"
                    | "rejected"
                    | "input-required"
                    | "auth-required"
            )
        );
    let held = m
        .get("stallMs")
        .and_then(Value::as_object)
        .is_some_and(|s| s.values().filter_map(Value::as_u64).any(|ms| ms >= limit));
    endless || held
}

/// Every JSON value in the scenario's doc strings (the ones that parse).
fn docs(s: &ScenarioSpec) -> Vec<Value> {
    s.steps
        .iter()
        .filter_map(|st| st.docstring.as_deref())
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect()
}

/// Calls `f` on every object inside `v`, depth first.
fn each_object(v: &Value, f: &mut dyn FnMut(&serde_json::Map<String, Value>)) {
    match v {
        Value::Object(m) => {
            f(m);
            m.values().for_each(|x| each_object(x, f));
        }
        Value::Array(a) => a.iter().for_each(|x| each_object(x, f)),
        _ => {}
    }
}

/// The mocks a scenario's steps start, by the name its placeholders use (`""` for `{{MCP_URL}}`
/// or `{{A2A}}`, else the `"NAME"` given).
fn started(s: &ScenarioSpec, re: &Regex) -> BTreeMap<String, String> {
    s.steps
        .iter()
        .filter_map(|st| re.captures(&st.text))
        .map(|c| {
            let name = c.name("name").map_or("", |m| m.as_str()).to_string();
            (name, c["file"].to_string())
        })
        .collect()
}

/// The placeholder name in `{{KEY}}` / `{{KEY:name}}` inside `text`, if `text` has one.
fn placeholder<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text.find(&format!("{{{{{key}"))? + key.len() + 2;
    let rest = &text[at..];
    Some(
        rest.strip_prefix(':')
            .map_or("", |r| r.split("}}").next().unwrap_or("")),
    )
}

/// The problems of one scenario: each a config that leaves a may-stall peer to a SPEC default
/// (or a bound the request limit cannot cover).
fn problems(s: &ScenarioSpec, limit: u64) -> Vec<String> {
    let mut out = Vec::new();
    let mcp_http = started(
        s,
        &Regex::new(
            r#"^a mock MCP server over HTTP(?: "(?P<name>[^"]+)")? runs "(?P<file>[^"]+)"$"#,
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let a2a = started(
        s,
        &Regex::new(r#"^a mock A2A agent(?: "(?P<name>[^"]+)")? runs "(?P<file>[^"]+)"$"#)
            .unwrap_or_else(|e| panic!("{e}")),
    );
    let aborts = s.steps.iter().any(|st| st.text.contains("aborted after"));
    let held_http = s.steps.iter().any(|st| {
        st.text.starts_with("an HTTP server answers")
            && st.docstring.as_deref().is_some_and(|d| {
                serde_json::from_str::<Value>(d).is_ok_and(|v| {
                    let mut held = false;
                    each_object(&v, &mut |o| {
                        held |= o
                            .get("delayMs")
                            .and_then(Value::as_u64)
                            .is_some_and(|ms| ms >= limit);
                    });
                    held
                })
            })
    });
    let sleep = Regex::new(r"\bsleep (\d+(?:\.\d+)?)").unwrap_or_else(|e| panic!("{e}"));
    for doc in docs(s) {
        each_object(&doc, &mut |o| {
            let timeout = o.get("timeout").and_then(Value::as_u64);
            // An MCP server entry.
            if let Some(servers) = o.get("mcpServers").and_then(Value::as_object) {
                for (name, cfg) in servers {
                    let file = cfg
                        .get("command")
                        .and_then(Value::as_array)
                        .and_then(|c| {
                            let at = c.iter().position(|a| a.as_str() == Some("--scenario"))?;
                            c.get(at + 1)?.as_str()
                        })
                        .map(|p| p.rsplit('/').next().unwrap_or(p).to_string())
                        .or_else(|| {
                            let url = cfg.get("url")?.as_str()?;
                            mcp_http.get(placeholder(url, "MCP_URL")?).cloned()
                        });
                    let Some(file) = file.filter(|f| mcp_may_stall(f)) else {
                        continue;
                    };
                    match cfg.get("timeout").and_then(Value::as_u64) {
                        None => out.push(format!(
                            "MCP server {name:?} runs {file}, which may never answer, with no `timeout`: \
                             the SPEC's 30000 ms default applies"
                        )),
                        Some(t) if t * MCP_WAITED_PHASES >= limit => out.push(format!(
                            "MCP server {name:?} runs {file} with `timeout` {t}: {MCP_WAITED_PHASES} waited \
                             phases reach the {limit} ms request limit"
                        )),
                        Some(_) => {}
                    }
                }
            }
            // An A2A agent entry.
            if let Some(card) = o.get("card").and_then(Value::as_str) {
                let file = placeholder(card, "A2A").and_then(|n| a2a.get(n));
                if let Some(file) = file.filter(|f| !aborts && a2a_may_stall(f, limit)) {
                    let poll = o
                        .get("pollEvery")
                        .and_then(Value::as_u64)
                        .unwrap_or(A2A_DEFAULT_POLL_MS);
                    match timeout {
                        None => out.push(format!(
                            "A2A agent {card} runs {file}, which never ends, with no `timeout`: the SPEC's \
                             300000 ms default applies"
                        )),
                        Some(t) if t + poll >= limit => out.push(format!(
                            "A2A agent {card} runs {file} with `timeout` {t} + `pollEvery` {poll}: past the \
                             {limit} ms request limit"
                        )),
                        Some(_) => {}
                    }
                }
            }
            // An HTTP tool against a server that holds an answer past the limit.
            if held_http && o.get("http").is_some_and(|h| h.get("timeout").is_none()) {
                out.push(format!(
                    "HTTP tool {:?} has no `timeout` while the server holds an answer ≥ {limit} ms: the \
                     SPEC's 30000 ms default applies",
                    o.get("name").and_then(Value::as_str).unwrap_or("?")
                ));
            }
            // A bash command that sleeps past the limit.
            if let Some(cmd) = o.get("command").and_then(Value::as_str) {
                let longest = sleep
                    .captures_iter(cmd)
                    .filter_map(|c| c[1].parse::<f64>().ok())
                    .fold(0.0_f64, f64::max);
                if longest * 1000.0 >= limit as f64 && timeout.is_none_or(|t| t >= limit) {
                    out.push(format!(
                        "bash command {cmd:?} sleeps {longest} s with no `timeout` under the {limit} ms \
                         request limit: the SPEC's 60000 ms default applies"
                    ));
                }
            }
        });
    }
    out
}

/// The features' scenarios (the suite the CLI runs).
fn scenarios(dir: &Path) -> Vec<ScenarioSpec> {
    let (all, errors) = features::load(dir);
    assert!(errors.is_empty(), "features do not load: {errors:#?}");
    all
}

#[test]
fn no_verdict_waits_out_a_spec_default() {
    let limit = request_limit_ms();
    let mut found = Vec::new();
    for s in scenarios(&root().join("features")) {
        if s.tags.iter().any(|t| t == BEYOND_SPEC_TAG) {
            continue;
        }
        for p in problems(&s, limit) {
            found.push(format!("{}:{} {}: {p}", s.file, s.line, s.id));
        }
    }
    assert!(
        found.is_empty(),
        "{} scenario config(s) leave a peer that may never answer to a SPEC default the \
         {limit} ms request limit cannot wait out (set an explicit bound, NOTES #414):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The lint sees what it is for: the mcp_inventory scenario as it was before issue 48 (its
/// crashing server had no `timeout`) is found, and with the bound set it is not.
#[test]
fn the_lint_finds_a_crashing_server_without_timeout() {
    let limit = request_limit_ms();
    let all = scenarios(&root().join("features"));
    let Some(s) = all.into_iter().find(|s| {
        s.id.starts_with("mcp_inventory: every enabled server's unfiltered tools")
    }) else {
        panic!("the mcp_inventory scenario is gone");
    };
    assert!(problems(&s, limit).is_empty(), "{:?}", problems(&s, limit));
    let mut unbounded = s.clone();
    for st in &mut unbounded.steps {
        if let Some(d) = st.docstring.as_mut() {
            *d = d.replace(r#""timeout": 1000"#, r#""retired": 1000"#);
        }
    }
    let found = problems(&unbounded, limit);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("crash-at-initialize.json"), "{found:?}");
    let mut too_long = s;
    for st in &mut too_long.steps {
        if let Some(d) = st.docstring.as_mut() {
            *d = d.replace(r#""timeout": 1000"#, r#""timeout": 2000"#);
        }
    }
    assert_eq!(problems(&too_long, limit).len(), 1);
}
