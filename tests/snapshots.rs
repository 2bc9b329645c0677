//! Whole outputs recorded as insta snapshots under `snapshots/`.
//!
//! Each value is produced through the port boundary (the in-process reference port) and
//! normalised exactly as scenarios normalise port output. The same snapshot bodies are read
//! by the `... matches snapshot "..."` steps for every port, so `cargo insta review` shows
//! a SPEC change once and every port is held to it.

use std::path::Path;

use serde_json::{json, Value};
use toolnexus_harness::scenario::normalise::Placeholders;
use toolnexus_harness::scenario::state::Env;
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::{request, Port};

fn env() -> Env {
    Env::from_root(Path::new(env!("CARGO_MANIFEST_DIR")))
}

fn placeholders(env: &Env) -> Placeholders {
    let mut p = Placeholders::default();
    p.add("{{FIXTURES}}", &env.fixtures);
    p.add("{{EXAMPLES}}", &env.examples);
    p
}

fn snapshot(name: &str, body: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, body));
}

async fn call(port: &mut dyn Port, req: Value) -> Value {
    match request(port, req).await {
        Ok(v) => v,
        Err(e) => panic!("port failed: {e}"),
    }
}

async fn default_toolkit(port: &mut dyn Port, env: &Env) {
    let skills = env.examples.join("skills");
    call(
        port,
        json!({"cmd": "build", "id": "tk", "options": {"skillsDir": skills}}),
    )
    .await;
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

#[tokio::test]
async fn adapters_for_the_default_toolkit() {
    let env = env();
    let p = placeholders(&env);
    let mut port = InProcessPort::new(toolnexus_driver::ReferenceSession::new());
    default_toolkit(&mut port, &env).await;
    for format in ["openai", "anthropic", "gemini"] {
        let r = call(
            &mut port,
            json!({"cmd": "adapter", "toolkit": "tk", "format": format}),
        )
        .await;
        snapshot(
            &format!("adapter-{format}-default"),
            &pretty(&p.normalise_json(&r["output"])),
        );
    }
}

#[tokio::test]
async fn hello_world_skill_block_and_prompt() {
    let env = env();
    let p = placeholders(&env);
    let mut port = InProcessPort::new(toolnexus_driver::ReferenceSession::new());
    default_toolkit(&mut port, &env).await;
    let r = call(
        &mut port,
        json!({"cmd": "execute", "toolkit": "tk", "name": "skill", "args": {"name": "hello-world"}}),
    )
    .await;
    let output = r["result"]["output"].as_str().unwrap_or_default();
    snapshot("skill-hello-world", &p.normalise_text(output));
    let r = call(&mut port, json!({"cmd": "skills_prompt", "toolkit": "tk"})).await;
    snapshot(
        "skills-prompt-hello-world",
        r["prompt"].as_str().unwrap_or_default(),
    );
}

#[tokio::test]
async fn the_ten_builtin_schemas() {
    let mut port = InProcessPort::new(toolnexus_driver::ReferenceSession::new());
    let r = call(&mut port, json!({"cmd": "select_builtins", "config": null})).await;
    snapshot("builtin-schemas", &pretty(&r["tools"]));
}
