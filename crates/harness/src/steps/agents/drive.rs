//! Driving a fixture: its `run`, its `steps` (spawns, sends, closes, resumes) and each step's
//! own `expect`.

use serde_json::{json, Map, Value};

use super::fixture::known_keys;
use super::{agent, inspect, list, same, within};
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail, fail_as, ScenarioState, StepFailure, StepResult};
use crate::steps::agents::AgentState;
use toolnexus_ports::port::Port;
use toolnexus_protocol::Command;

/// `agent_run {entry, prompt}`; the result and the entry handle are kept.
pub(super) async fn drive_run(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    run: &Value,
) -> StepResult {
    known_keys(run, &["entry", "prompt"], "run")?;
    let entry = run.get("entry").and_then(Value::as_str).unwrap_or_default();
    let prompt = run
        .get("prompt")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let a = agent(
        port,
        st,
        Command::AgentRun,
        json!({"entry": entry, "prompt": prompt}),
    )
    .await?;
    match (a.get("handle"), a.get("result")) {
        (Some(h), Some(r)) => {
            st.areas.get_mut::<AgentState>().entry = h.as_str().map(str::to_string);
            st.areas.get_mut::<AgentState>().result = Some(r.clone());
            Ok(())
        }
        _ => fail(format!("agent_run answered no handle and result: {a}")),
    }
}

/// A fixture handle reference: a full id (`root/…`), or a short def path under root
/// (`peer`, `coordinator/peer`) whose missing levels are spawned in order.
pub(super) async fn resolve(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    path: &str,
) -> Result<String, StepFailure> {
    if path.starts_with("root/") || path == "root" {
        return Ok(path.to_string());
    }
    let mut parent = "root".to_string();
    let mut short = String::new();
    for seg in path.split('/') {
        short = if short.is_empty() {
            seg.to_string()
        } else {
            format!("{short}/{seg}")
        };
        if let Some(id) = st.areas.get_mut::<AgentState>().ids.get(&short) {
            parent = id.clone();
            continue;
        }
        let a = agent(
            port,
            st,
            Command::AgentSpawn,
            json!({"parent": parent, "def": seg}),
        )
        .await?;
        let id = a
            .get("handle")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| {
                StepFailure::failed(format!("spawning {seg:?} under {parent} failed: {a}"))
            })?;
        st.areas
            .get_mut::<AgentState>()
            .ids
            .insert(short.clone(), id.clone());
        parent = id;
    }
    Ok(parent)
}

/// The deepest handle under `entry` (the escalation leaf).
pub(super) async fn leaf_of(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    entry: &str,
) -> Result<String, StepFailure> {
    let handles = list(port, st).await?;
    handles
        .iter()
        .filter_map(|h| h.get("id").and_then(Value::as_str))
        .filter(|id| id.starts_with(&format!("{entry}/")))
        .max_by_key(|id| id.matches('/').count())
        .map(str::to_string)
        .ok_or_else(|| StepFailure::failed(format!("no handle below {entry}")))
}

/// The fixture `steps` of `subagent-budgets` and `subagent-lifecycle`, in order.
pub(super) async fn drive_steps(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    steps: &[Value],
) -> StepResult {
    for (i, step) in steps.iter().enumerate() {
        let ctx = format!("fixture step {} ({step})", i + 1);
        drive_step(port, st, step)
            .await
            .map_err(|e| within(e, &ctx))?;
    }
    Ok(())
}

async fn drive_step(port: &mut dyn Port, st: &mut ScenarioState, step: &Value) -> StepResult {
    known_keys(
        step,
        &[
            "spawn",
            "wakeWait",
            "wake",
            "post",
            "awaitState",
            "interrupt",
            "closeRoot",
            "expect",
        ],
        "step",
    )?;
    let expect = step.get("expect").cloned().unwrap_or_else(|| json!({}));
    let mut seen = Map::new();
    if let Some(s) = step.get("spawn") {
        known_keys(s, &["parent", "def", "budget"], "spawn")?;
        let parent = resolve(
            port,
            st,
            s.get("parent").and_then(Value::as_str).unwrap_or("root"),
        )
        .await?;
        let def = s.get("def").and_then(Value::as_str).unwrap_or_default();
        let mut body = json!({"parent": parent, "def": def});
        if let Some(b) = s.get("budget") {
            body["budget"] = b.clone();
        }
        let a = agent(port, st, Command::AgentSpawn, body).await?;
        if let Some(id) = a.get("handle").and_then(Value::as_str) {
            let short = match s.get("parent").and_then(Value::as_str) {
                Some(p) if p != "root" && !p.starts_with("root/") => format!("{p}/{def}"),
                _ => def.to_string(),
            };
            st.areas
                .get_mut::<AgentState>()
                .ids
                .entry(short)
                .or_insert_with(|| id.to_string());
        }
        seen.insert("spawn".into(), a);
    }
    if let Some(w) = step.get("wakeWait").or_else(|| step.get("wake")) {
        known_keys(w, &["handle", "prompt"], "wake")?;
        let h = resolve(
            port,
            st,
            w.get("handle").and_then(Value::as_str).unwrap_or_default(),
        )
        .await?;
        let mut body = json!({"handle": h});
        if let Some(p) = w.get("prompt") {
            body["prompt"] = p.clone();
        }
        let a = agent(port, st, Command::AgentWake, body).await?;
        if let Some(e) = a.get("error") {
            return fail(format!("agent_wake {h} refused: {e}"));
        }
        if step.get("wakeWait").is_some() {
            let a = agent(port, st, Command::AgentWait, json!({"handle": h})).await?;
            let r = a.get("result").cloned().unwrap_or(Value::Null);
            st.areas.get_mut::<AgentState>().result = Some(r.clone());
            seen.insert("result".into(), r);
            seen.insert("handle".into(), json!(h));
        }
    }
    if let Some(p) = step.get("post") {
        known_keys(p, &["handle", "from", "channel", "text"], "post")?;
        let h = resolve(
            port,
            st,
            p.get("handle").and_then(Value::as_str).unwrap_or_default(),
        )
        .await?;
        let mut body = json!({"handle": h, "text": p.get("text").cloned().unwrap_or(json!(""))});
        for k in ["from", "channel"] {
            if let Some(v) = p.get(k) {
                body[k] = v.clone();
            }
        }
        let a = agent(port, st, Command::AgentPost, body).await?;
        if expect.get("rejected").is_none() && a.get("accepted") != Some(&json!(true)) {
            return fail(format!("the post to {h} was refused: {a}"));
        }
        seen.insert("post".into(), a);
    }
    if let Some(s) = step.get("awaitState") {
        let h = resolve(
            port,
            st,
            s.get("handle").and_then(Value::as_str).unwrap_or_default(),
        )
        .await?;
        let want = s
            .get("state")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut state = String::new();
        for _ in 0..200 {
            state = inspect(port, st, &h)
                .await?
                .get("state")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if state == want {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        if state != want {
            return fail(format!("{h} never reached state {want:?} (last {state:?})"));
        }
        st.areas
            .get_mut::<AgentState>()
            .seen
            .insert("awaited".into(), json!(h));
    }
    if let Some(i) = step.get("interrupt") {
        let h = resolve(
            port,
            st,
            i.get("handle").and_then(Value::as_str).unwrap_or_default(),
        )
        .await?;
        agent(port, st, Command::AgentInterrupt, json!({"handle": h})).await?;
        let waited = agent(port, st, Command::AgentWait, json!({"handle": h})).await?;
        let shown = inspect(port, st, &h).await?;
        st.areas.get_mut::<AgentState>().seen.insert(
            "waiterStatus".into(),
            waited
                .pointer("/result/status")
                .cloned()
                .unwrap_or(Value::Null),
        );
        st.areas.get_mut::<AgentState>().seen.insert(
            "finalState".into(),
            shown.get("state").cloned().unwrap_or(Value::Null),
        );
        st.areas.get_mut::<AgentState>().seen.insert(
            "inboxLen".into(),
            shown.get("inboxLen").cloned().unwrap_or(Value::Null),
        );
    }
    if step.get("closeRoot").is_some() {
        let roots: Vec<String> = list(port, st)
            .await?
            .iter()
            .filter_map(|h| h.get("id").and_then(Value::as_str))
            .filter(|id| id.matches('/').count() == 1)
            .map(str::to_string)
            .collect();
        for r in roots {
            agent(port, st, Command::AgentClose, json!({"handle": r})).await?;
        }
    }
    check_step_expect(port, st, &expect, &seen).await
}

/// A fixture step's own `expect` (budgets, the lifecycle gates).
async fn check_step_expect(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    expect: &Value,
    seen: &Map<String, Value>,
) -> StepResult {
    let Some(m) = expect.as_object() else {
        return Ok(());
    };
    for (k, want) in m {
        match k.as_str() {
            "note" | "comment" => {}
            "effectiveTokens" => {
                let got = seen
                    .get("spawn")
                    .and_then(|a| a.pointer("/budget/effective/maxTokens"))
                    .cloned()
                    .unwrap_or(Value::Null);
                same("effectiveTokens (the carved maxTokens)", want, &got)?;
            }
            "isError" => {
                let out = seen
                    .get("spawn")
                    .and_then(|a| a.pointer("/error/output"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        StepFailure::kind(
                            Kind::Pinned,
                            format!("the spawn was not refused: {:?}", seen.get("spawn")),
                        )
                    })?;
                let needle = want.as_str().unwrap_or_default();
                if !out.contains(needle) {
                    return fail_as(
                        Kind::Pinned,
                        format!("the refused spawn's error does not name {needle:?}: {out:?}"),
                    );
                }
            }
            "status" => {
                let got = seen
                    .get("result")
                    .and_then(|r| r.get("status"))
                    .cloned()
                    .unwrap_or(Value::Null);
                same("status", want, &got)?;
            }
            "errorContains" => {
                let needle = want.as_str().unwrap_or_default();
                let text = seen
                    .get("result")
                    .and_then(|r| r.get("error"))
                    .or_else(|| seen.get("post").and_then(|p| p.get("error")))
                    .map(|v| {
                        v.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| v.to_string())
                    });
                // An error the port did not send is missing, not an empty text.
                let Some(text) = text else {
                    return fail_as(
                        Kind::Pinned,
                        format!("neither the result nor the post sent an `error` (missing), so none contains {needle:?}"),
                    );
                };
                if !text.contains(needle) {
                    return fail_as(
                        Kind::Pinned,
                        format!("the error {text:?} does not contain {needle:?}"),
                    );
                }
            }
            "parentPoolAfter" => {
                let h = seen
                    .get("handle")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let parent = h
                    .rsplit_once('/')
                    .map(|(p, _)| p.to_string())
                    .unwrap_or_default();
                let shown = inspect(port, st, &parent).await?;
                same(
                    "the parent's remaining maxTokens",
                    want,
                    &shown
                        .pointer("/budget/remaining/maxTokens")
                        .cloned()
                        .unwrap_or(Value::Null),
                )?;
            }
            "rejected" => {
                let accepted = seen
                    .get("post")
                    .and_then(|p| p.get("accepted"))
                    .cloned()
                    .unwrap_or(Value::Null);
                same(
                    "the post's rejection",
                    want,
                    &json!(accepted == json!(false)),
                )?;
            }
            other => {
                return fail(format!(
                    "the harness has no checker for the step expect key {other:?}"
                ))
            }
        }
    }
    Ok(())
}
