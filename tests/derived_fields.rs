//! A driver may leave out an answer field the SPEC gives its port no way to observe
//! (PROTOCOL.md §5.2 "What a driver may derive", NOTES #422–#427). The scenarios with a step
//! that reads such a field run through the in-process reference as it is (each passes), then
//! behind a stub that strips derived fields from the answers: the stub must pass none of the
//! scenarios about a field it strips — each is skipped with a reason naming the field, never
//! passed on an absent value read as empty, never failed for leaving out what it may.

use std::path::PathBuf;

use async_trait::async_trait;
use serde_json::Value;

use toolnexus_harness::outcome::model::Status;
use toolnexus_harness::run::runner;
use toolnexus_harness::scenario::features::{self, ScenarioSpec};
use toolnexus_harness::scenario::state::Env;
use toolnexus_harness::steps::derived::{self, Derived};
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::{Port, PortError};

/// The reference with the given derived fields removed from its answers.
struct Stripping {
    inner: InProcessPort,
    strip: Vec<Derived>,
}

impl Stripping {
    fn new(strip: &[Derived]) -> Self {
        Self {
            inner: InProcessPort::new(toolnexus_driver::ReferenceSession::new()),
            strip: strip.to_vec(),
        }
    }

    fn strips(&self, d: Derived) -> bool {
        self.strip.contains(&d)
    }
}

#[async_trait]
impl Port for Stripping {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        let cmd = request["cmd"].as_str().unwrap_or_default().to_string();
        let mut answer = self.inner.call(request).await?;
        let Some(map) = answer.as_object_mut() else {
            return Ok(answer);
        };
        match cmd.as_str() {
            "build" => {
                for (d, key) in [
                    (derived::ERRORS, "errors"),
                    (derived::SKILLS, "skills"),
                    (derived::WARNINGS, "warnings"),
                ] {
                    if self.strips(d) {
                        map.remove(key);
                    }
                }
                if self.strips(derived::BUILTIN_STATUS) {
                    if let Some(s) = map.get_mut("statuses").and_then(Value::as_object_mut) {
                        s.remove("builtin");
                    }
                }
            }
            "list_mcp_tools" if self.strips(derived::LIST_ERRORS) => {
                map.remove("errors");
            }
            "agent_inspect" if self.strips(derived::INSPECT_USAGE) => {
                map.remove("usage");
            }
            _ => {}
        }
        Ok(answer)
    }

    async fn ensure_ready(&mut self) -> Result<(), PortError> {
        self.inner.ensure_ready().await
    }

    async fn shutdown(&mut self) {
        self.inner.shutdown().await;
    }
}

/// The steps that read each derived field (the starts of their texts).
fn readers(d: Derived) -> &'static [&'static str] {
    match d.field {
        "statuses.builtin" => &["the status of \"builtin\" is"],
        "errors" => &[
            "there are no errors",
            "an error mentions",
            "the error for \"",
            "there is an error for",
        ],
        "list_mcp_tools errors" => &["the MCP inventory matches"],
        "skills" => &["the skill catalog names are"],
        "warnings" => &["a warning mentions", "there is a warning"],
        // The agent fixtures' resume reads the leaf's `usage` for `leafUsageGrewNotReset`.
        "agent_inspect usage" => &["it is resumed with its answer"],
        other => panic!("no reader steps listed for {other}"),
    }
}

fn reads(s: &ScenarioSpec, d: Derived) -> bool {
    let starts = readers(d);
    s.steps.iter().any(|step| {
        starts.iter().any(|r| step.text.starts_with(r))
            // An inventory expectation reads `errors` only where it names them.
            && (d != derived::LIST_ERRORS
                || step
                    .docstring
                    .as_deref()
                    .is_some_and(|doc| doc.contains("\"errors\"")))
    })
}

async fn run(port: &mut dyn Port, scenarios: &[ScenarioSpec]) -> Vec<(String, Status, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let env = Env::from_root(&root).with_mock_bin(env!("CARGO_BIN_EXE_toolnexus-conformance"));
    let report = runner::run(port, &env, scenarios, "reference", &mut |_| {}).await;
    report
        .scenarios
        .into_iter()
        .map(|r| (r.name, r.status, r.message))
        .collect()
}

/// The scenarios reading any derived field that the whole reference passes (a scenario of a
/// later SPEC text is skipped by version there, as in a whole run, and left out).
async fn passing_readers() -> Vec<ScenarioSpec> {
    toolnexus_ports::secret::ensure();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let (all, errors) = features::load(&root.join("features"));
    assert!(errors.is_empty(), "{errors:?}");
    let readers: Vec<ScenarioSpec> = all
        .into_iter()
        .filter(|s| derived::ALL.iter().any(|d| reads(s, *d)))
        .collect();
    let mut reference = InProcessPort::new(toolnexus_driver::ReferenceSession::new());
    let whole = run(&mut reference, &readers).await;
    let failed: Vec<_> = whole.iter().filter(|r| r.1 == Status::Failed).collect();
    assert!(failed.is_empty(), "the reference should pass: {failed:#?}");
    readers
        .into_iter()
        .filter(|s| whole.iter().any(|r| r.0 == s.id && r.1 == Status::Passed))
        .collect()
}

#[tokio::test]
async fn a_driver_that_answers_no_derived_field_passes_none_of_the_scenarios_about_them() {
    let readers = passing_readers().await;
    assert!(readers.len() >= 30, "only {} readers pass", readers.len());
    for d in derived::ALL {
        let about: Vec<ScenarioSpec> = readers.iter().filter(|s| reads(s, d)).cloned().collect();
        assert!(!about.is_empty(), "no scenario reads {}", d.field);
        let mut stub = Stripping::new(&[d]);
        let results = run(&mut stub, &about).await;
        let mut skipped = 0;
        for (name, status, message) in &results {
            match status {
                Status::Skipped if message.contains(&format!("`{}`", d.field)) => skipped += 1,
                // The agent fixtures whose checks leave the leaf's usage alone are not about it.
                Status::Passed if d == derived::INSPECT_USAGE => {}
                _ => panic!("without {}: {name}: {status:?} {message}", d.field),
            }
        }
        assert!(skipped > 0, "no scenario skipped for {}", d.field);
        eprintln!("{}: {skipped} of {} skipped", d.field, results.len());
    }

    // The stub of the acceptance line: every derived field absent at once.
    let mut stub = Stripping::new(&derived::ALL);
    for (name, status, message) in run(&mut stub, &readers).await {
        let about = derived::ALL
            .iter()
            .any(|d| message.contains(&format!("`{}`", d.field)));
        let agent_only = readers.iter().filter(|s| s.id == name).all(|s| {
            !derived::ALL
                .iter()
                .any(|d| *d != derived::INSPECT_USAGE && reads(s, *d))
        });
        match status {
            Status::Skipped if about => {}
            Status::Passed if agent_only => {}
            _ => panic!("with no derived field: {name}: {status:?} {message}"),
        }
    }
}
