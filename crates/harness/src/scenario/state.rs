//! What one scenario works with: where inputs live, its accumulated state, and how a step
//! can fail.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::compare::expectation::Kind;
use crate::outcome::failure::Failure;
use crate::scenario::features::StepSpec;
use crate::scenario::normalise::Placeholders;
use toolnexus_ports::port::PortError;

/// Where scenario inputs and expectations live.
#[derive(Debug, Clone)]
pub struct Env {
    /// `conformance/fixtures`, the `{{FIXTURES}}` placeholder.
    pub fixtures: PathBuf,
    /// The shared SPEC examples, the `{{EXAMPLES}}` placeholder.
    pub examples: PathBuf,
    /// The insta snapshot folder.
    pub snapshots: PathBuf,
    /// The program serving `mock mcp`, the `{{BIN}}` placeholder.
    pub mock_bin: PathBuf,
    /// `mock-servers/scenarios`, the `{{MOCKS}}` placeholder.
    pub mocks: PathBuf,
}

impl Env {
    /// The layout of a checkout rooted at `root` (shared/ sits beside the checkout); the
    /// mock servers are served by the running program itself.
    pub fn from_root(root: &Path) -> Env {
        let examples = root.join("..").join("shared").join("spec").join("examples");
        Env {
            fixtures: root.join("conformance").join("fixtures"),
            examples: examples.canonicalize().unwrap_or(examples),
            snapshots: root.join("snapshots"),
            mock_bin: std::env::current_exe()
                .unwrap_or_else(|_| PathBuf::from("toolnexus-conformance")),
            mocks: root.join("mock-servers").join("scenarios"),
        }
    }

    /// The same layout with another program serving the mocks (tests run from a test binary).
    pub fn with_mock_bin(mut self, bin: impl Into<PathBuf>) -> Env {
        self.mock_bin = bin.into();
        self
    }
}

/// Why a step did not pass.
#[derive(Debug, Clone, PartialEq)]
pub enum StepFailure {
    /// An expectation did not hold, or the port failed.
    Failed(Failure),
    /// The port does not support what the step needs.
    Skipped(String),
}

impl StepFailure {
    /// A failed step from a failure, or from a message that breaks no expectation.
    pub fn failed(f: impl Into<Failure>) -> StepFailure {
        StepFailure::Failed(f.into())
    }

    /// A failed check of the kind the step declares (its label leads the message).
    pub fn kind(kind: Kind, msg: impl Into<String>) -> StepFailure {
        StepFailure::Failed(Failure::checked(kind, msg))
    }
}

/// The failure's or the skip's text, as messages have always read.
impl fmt::Display for StepFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepFailure::Failed(failure) => failure.fmt(f),
            StepFailure::Skipped(m) => f.write_str(m),
        }
    }
}

/// The outcome of one step.
pub type StepResult = Result<(), StepFailure>;

/// A failed step with `msg`, breaking no expectation (a port error, a missing input).
pub fn fail<T>(msg: impl Into<String>) -> Result<T, StepFailure> {
    Err(StepFailure::Failed(Failure::other(msg)))
}

/// A failed check of `kind` (pinned, lenient, a time bound) with `msg` after its label.
pub fn fail_as<T>(kind: Kind, msg: impl Into<String>) -> Result<T, StepFailure> {
    Err(StepFailure::kind(kind, msg))
}

impl From<PortError> for StepFailure {
    fn from(e: PortError) -> Self {
        match e {
            PortError::Unsupported(m) => {
                StepFailure::Skipped(format!("port does not support this: {m}"))
            }
            other => StepFailure::Failed(Failure::other(other.to_string())),
        }
    }
}

/// The state each step area keeps for one scenario (the serve handles, the agent
/// runtime, the compaction transcript, …), one value per type. The core owns the container
/// and each step module its own type, so the core never names a step module; a value is
/// made (by `Default`) the first time its area asks for it, and dropped with the scenario.
#[derive(Default)]
pub struct AreaStates(HashMap<TypeId, Box<dyn Any + Send>>);

impl AreaStates {
    /// The area's state, made empty on first use.
    pub fn get_mut<T: Default + Send + 'static>(&mut self) -> &mut T {
        self.0
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()))
            .downcast_mut::<T>()
            .unwrap_or_else(|| unreachable!("AreaStates keys each value by its own TypeId"))
    }

    /// The area's state, when it has made one.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.0.get(&TypeId::of::<T>())?.downcast_ref::<T>()
    }
}

/// Everything one scenario accumulates.
#[derive(Default)]
pub struct ScenarioState {
    pub(crate) tmp: Option<tempfile::TempDir>,
    pub(crate) placeholders: Placeholders,
    pub(crate) options: Option<Value>,
    pub(crate) toolkit: Option<String>,
    pub(crate) built: Option<Value>,
    pub(crate) last_call: Option<(String, Value)>,
    pub(crate) result: Option<Value>,
    pub(crate) selection: Option<Value>,
    pub(crate) inventory: Option<Value>,
    pub(crate) sanitized: Option<String>,
    pub(crate) counter: u32,
    pub(crate) recorded: Option<(PathBuf, std::collections::BTreeMap<PathBuf, Vec<u8>>)>,
    pub(crate) http: Option<wiremock::MockServer>,
    pub(crate) mocks: Vec<toolnexus_ports::mock_launch::RunningMock>,
    pub(crate) build_ms: Option<u128>,
    pub(crate) call_ms: Option<u128>,
    pub(crate) answers: Vec<Value>,
    pub(crate) mcp_inventory: Option<Value>,
    /// The current §8 client's id (`c1`, `c2`, …).
    pub(crate) client: Option<String>,
    /// The mock LLMs started for the scenario: name (`None` for `{{LLM}}`) and base URL.
    pub(crate) llms: Vec<(Option<String>, String)>,
    /// The last loop command (`run`, `ask`, `stream`, `conversation`) and its whole answer.
    pub(crate) loop_answer: Option<(String, Value)>,
    /// The harness-measured round trip of the last loop command.
    pub(crate) loop_ms: Option<u128>,
    /// The last `store_get` answer's `messages`.
    pub(crate) stored: Option<Value>,
    /// The last `metrics` text, as the port answered it.
    pub(crate) metrics_text: Option<String>,
    /// What each step area keeps (§7B/§7C serve handles, the §7D runtime, §7F compaction).
    pub(crate) areas: AreaStates,
    /// The scenario's tags (without `@`), when the runner gave them: what a failure can name
    /// as the promise it broke (a `raised` build in a scenario about isolation).
    pub(crate) tags: Vec<String>,
    expectations: RefCell<BTreeSet<String>>,
}

impl ScenarioState {
    /// Notes the kind of an expectation that held (`pinned`, `lenient (contains)`, ...).
    pub(crate) fn record(&self, kind: impl Into<String>) {
        self.expectations.borrow_mut().insert(kind.into());
    }

    /// The kinds of every expectation that held in this scenario, sorted.
    pub fn expectations(&self) -> Vec<String> {
        self.expectations.borrow().iter().cloned().collect()
    }

    /// The same state, knowing its scenario's tags (with or without `@`).
    pub fn with_tags(mut self, tags: &[String]) -> Self {
        self.tags = tags
            .iter()
            .map(|t| t.trim_start_matches('@').to_string())
            .collect();
        self
    }

    /// A fresh state with the fixture and example placeholders of `env`.
    pub fn new(env: &Env) -> Self {
        let mut st = ScenarioState::default();
        st.placeholders.add("{{FIXTURES}}", &env.fixtures);
        st.placeholders.add("{{EXAMPLES}}", &env.examples);
        st.placeholders.add("{{MOCKS}}", &env.mocks);
        st.placeholders.add("{{BIN}}", &env.mock_bin);
        // Received requests may carry the canary; comparisons see it as a placeholder.
        if let Some(secret) = toolnexus_ports::secret::current() {
            st.placeholders.add_text("{{SECRET}}", &secret);
        }
        st
    }

    pub(crate) fn tmp(&mut self) -> Result<PathBuf, StepFailure> {
        if self.tmp.is_none() {
            let dir = tempfile::Builder::new()
                .prefix("tnx-scenario-")
                .tempdir()
                .map_err(|e| StepFailure::failed(format!("cannot create temp dir: {e}")))?;
            self.placeholders.add("{{TMP}}", dir.path());
            self.tmp = Some(dir);
        }
        Ok(self
            .tmp
            .as_ref()
            .map(|t| t.path().to_path_buf())
            .unwrap_or_default())
    }

    pub(crate) fn expand(&mut self, text: &str) -> Result<String, StepFailure> {
        if text.contains("{{TMP}}") {
            self.tmp()?;
        }
        Ok(self.placeholders.expand(text))
    }

    pub(crate) fn json_doc(&mut self, step: &StepSpec) -> Result<Value, StepFailure> {
        let doc = step.docstring.as_deref().ok_or_else(|| {
            StepFailure::failed(format!("step `{}` needs a doc string", step.text))
        })?;
        let text = self.expand(doc)?;
        serde_json::from_str(&text)
            .map_err(|e| StepFailure::failed(format!("doc string is not JSON ({e}): {text}")))
    }

    /// An expectation doc string: placeholders stay as written, since outputs are normalised.
    pub(crate) fn expect_doc(&self, step: &StepSpec) -> Result<Value, StepFailure> {
        let text = self.raw_doc(step)?;
        serde_json::from_str(&text)
            .map_err(|e| StepFailure::failed(format!("doc string is not JSON ({e}): {text}")))
    }

    pub(crate) fn raw_doc(&self, step: &StepSpec) -> Result<String, StepFailure> {
        step.docstring
            .clone()
            .ok_or_else(|| StepFailure::failed(format!("step `{}` needs a doc string", step.text)))
    }

    pub(crate) fn path(&mut self, p: &str) -> Result<PathBuf, StepFailure> {
        let expanded = PathBuf::from(self.expand(p)?);
        Ok(if expanded.is_absolute() {
            expanded
        } else {
            self.tmp()?.join(expanded)
        })
    }

    pub(crate) fn built(&self) -> Result<&Value, StepFailure> {
        self.built
            .as_ref()
            .ok_or_else(|| StepFailure::failed("no toolkit has been built in this scenario"))
    }

    pub(crate) fn toolkit_id(&self) -> Result<String, StepFailure> {
        self.toolkit
            .clone()
            .ok_or_else(|| StepFailure::failed("no toolkit has been built in this scenario"))
    }

    pub(crate) fn result(&self) -> Result<&Value, StepFailure> {
        self.result
            .as_ref()
            .ok_or_else(|| StepFailure::failed("no tool has been executed in this scenario"))
    }

    pub(crate) fn output(&self) -> Result<String, StepFailure> {
        let out = self.result()?.get("output").and_then(Value::as_str);
        out.map(|s| self.placeholders.normalise_text(s))
            .ok_or_else(|| StepFailure::failed("result has no string \"output\""))
    }

    pub(crate) fn norm(&self, v: &Value) -> Value {
        self.placeholders.normalise_json(v)
    }
}
