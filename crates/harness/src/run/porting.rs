//! `porting`: per SPEC section, the commands, option keys and behaviours its scenarios send,
//! and an order of implementing them that unlocks the most scenarios soonest. The scenarios
//! build their requests as they run, so the requests are recorded from a run against a port
//! (the CLI gives the in-process reference); nothing is judged by it, only listened to.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::future::{FutureExt, LocalBoxFuture};
use serde::Serialize;
use serde_json::Value;
use toolnexus_spec::sections;

use crate::outcome::model::Status;
use crate::outcome::needs::{self, Need, NeedKind};
use crate::run::runner;
use crate::scenario::features::ScenarioSpec;
use crate::scenario::state::Env;
use toolnexus_ports::port::{truncate, Port, PortError};
use toolnexus_ports::trace::Tracer;

/// One scenario and what its steps asked of the port.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioNeeds {
    /// Scenario id.
    pub id: String,
    /// SPEC section.
    pub section: String,
    /// Why it did not pass where it was recorded (that port's message: a scenario for a later
    /// SPEC version is skipped, for one), so that it may not have sent every request; `None`
    /// when it passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_out: Option<String>,
    /// Every need of every request its steps sent (clean-up and `hello`/`shutdown` left out).
    pub needs: BTreeSet<Need>,
}

/// What each scenario's steps sent, by scenario id, shared by the recorders of a run.
type Log = Arc<Mutex<BTreeMap<String, BTreeSet<Need>>>>;

/// A port whose requests are added to the running scenario's needs until its steps are done.
struct Recorder {
    inner: Box<dyn Port>,
    log: Log,
    current: Option<String>,
}

#[async_trait]
impl Port for Recorder {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        if let Some(id) = &self.current {
            if let Ok(mut log) = self.log.lock() {
                log.entry(id.clone())
                    .or_default()
                    .extend(needs::of_request(&request));
            }
        }
        self.inner.call(request).await
    }

    async fn ensure_ready(&mut self) -> Result<(), PortError> {
        self.inner.ensure_ready().await
    }

    async fn shutdown(&mut self) {
        self.inner.shutdown().await;
    }

    fn set_tracer(&mut self, tracer: Tracer) {
        self.inner.set_tracer(tracer);
    }

    fn begin_scenario(&mut self, name: &str) {
        // A scenario run again (a broken time bound) starts afresh.
        if let Ok(mut log) = self.log.lock() {
            log.insert(name.to_string(), BTreeSet::new());
        }
        self.current = Some(name.to_string());
        self.inner.begin_scenario(name);
    }

    fn watch_log(&mut self, needle: &str) {
        self.inner.watch_log(needle);
    }

    async fn log_mentioned(&mut self, needle: &str) -> Option<bool> {
        self.inner.log_mentioned(needle).await
    }

    fn steps_done(&mut self) {
        self.current = None;
        self.inner.steps_done();
    }

    async fn end_scenario(&mut self) -> Option<String> {
        self.current = None;
        self.inner.end_scenario().await
    }
}

/// Runs `scenarios` over `ports` (one worker each, as `run --jobs`) and returns what each
/// one's steps sent, in scenario order; `Err` when a port's `hello` fails.
pub fn record<'a>(
    ports: Vec<Box<dyn Port>>,
    env: &'a Env,
    scenarios: &'a [ScenarioSpec],
) -> LocalBoxFuture<'a, Result<Vec<ScenarioNeeds>, String>> {
    async move {
        let log: Log = Arc::default();
        let mut recorders: Vec<Recorder> = ports
            .into_iter()
            .map(|inner| Recorder {
                inner,
                log: Arc::clone(&log),
                current: None,
            })
            .collect();
        let pool = recorders.iter_mut().map(|r| r as &mut dyn Port).collect();
        let report =
            runner::run_pool_or_refuse(pool, env, scenarios, "reference", &mut |_| true).await?;
        let mut sent = log.lock().map(|l| l.clone()).unwrap_or_default();
        Ok(report
            .scenarios
            .into_iter()
            .map(|r| ScenarioNeeds {
                needs: sent.remove(&r.name).unwrap_or_default(),
                left_out: (r.status != Status::Passed).then(|| {
                    let first = r.message.lines().next().unwrap_or_default();
                    format!("{}: {}", status_word(r.status), truncate(first, 200))
                }),
                id: r.name,
                section: r.section,
            })
            .collect())
    }
    .boxed_local()
}

/// `passed`, `failed` or `skipped`.
fn status_word(status: Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::Skipped => "skipped",
    }
}

/// A scenario left out of the counts and the order, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeftOut {
    /// Scenario id.
    pub id: String,
    /// Its outcome where recorded and that port's message.
    pub why: String,
}

/// How many scenarios use one need.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Count {
    /// `build`, `build.builtins`, `build.extraTools:echo` ([`Need`]'s text).
    pub need: String,
    /// The need as data.
    #[serde(flatten)]
    pub what: Need,
    /// Scenarios whose steps send it.
    pub scenarios: usize,
}

/// One step of an implementation order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// What to implement in this step (needs as text), sorted.
    pub implement: Vec<String>,
    /// Scenarios this step unlocks.
    pub unlocks: usize,
    /// Scenarios unlocked after this step, the ones needing nothing counted from the start.
    pub unlocked: usize,
}

/// One SPEC section's map.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SectionMap {
    /// The section (`0`, `4A`).
    pub section: String,
    /// Its SPEC title, when the harness knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    /// Selected scenarios of the section.
    pub scenarios: usize,
    /// Scenarios that did not pass where recorded, so may not have sent every request:
    /// left out of the counts and the order.
    pub left_out: Vec<LeftOut>,
    /// Recorded scenarios needing nothing beyond `hello` and `shutdown`.
    pub need_nothing: usize,
    /// Commands, by scenarios using them (most first).
    pub commands: Vec<Count>,
    /// Option keys, likewise.
    pub options: Vec<Count>,
    /// Behaviours, likewise.
    pub behaviours: Vec<Count>,
    /// The implementation order ([`order`]).
    pub order: Vec<Step>,
}

/// The whole map: the `--format json` shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PortingMap {
    /// Commands every session sends whatever its scenarios (`hello`, `shutdown`).
    pub always: Vec<&'static str>,
    /// Selected scenarios.
    pub scenarios: usize,
    /// Per section, in SPEC order.
    pub sections: Vec<SectionMap>,
    /// The order across every selected section (absent when one section is selected).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<Vec<Step>>,
}

impl PortingMap {
    /// The map of `recorded` scenarios.
    pub fn of(recorded: &[ScenarioNeeds]) -> PortingMap {
        let mut by_section: BTreeMap<&str, Vec<&ScenarioNeeds>> = BTreeMap::new();
        for s in recorded {
            by_section.entry(&s.section).or_default().push(s);
        }
        let mut names: Vec<&str> = by_section.keys().copied().collect();
        names.sort_by(|a, b| sections::cmp_sections(a, b));
        let sections: Vec<SectionMap> = names
            .iter()
            .map(|name| section_map(name, by_section.get(name).map_or(&[][..], Vec::as_slice)))
            .collect();
        let order = (sections.len() > 1).then(|| {
            let complete: Vec<&BTreeSet<Need>> = recorded
                .iter()
                .filter(|s| s.left_out.is_none())
                .map(|s| &s.needs)
                .collect();
            order(&complete)
        });
        PortingMap {
            always: needs::ALWAYS.iter().map(|c| c.as_str()).collect(),
            scenarios: recorded.len(),
            sections,
            order,
        }
    }
}

fn section_map(section: &str, scenarios: &[&ScenarioNeeds]) -> SectionMap {
    let complete: Vec<&BTreeSet<Need>> = scenarios
        .iter()
        .filter(|s| s.left_out.is_none())
        .map(|s| &s.needs)
        .collect();
    let counts = |kind: NeedKind| {
        let mut n: BTreeMap<&Need, usize> = BTreeMap::new();
        for need in complete
            .iter()
            .flat_map(|s| s.iter())
            .filter(|n| n.kind == kind)
        {
            *n.entry(need).or_default() += 1;
        }
        let mut list: Vec<Count> = n
            .into_iter()
            .map(|(need, scenarios)| Count {
                need: need.to_string(),
                what: need.clone(),
                scenarios,
            })
            .collect();
        list.sort_by(|a, b| b.scenarios.cmp(&a.scenarios).then(a.what.cmp(&b.what)));
        list
    };
    SectionMap {
        section: section.to_string(),
        title: sections::title(section),
        scenarios: scenarios.len(),
        left_out: scenarios
            .iter()
            .filter_map(|s| {
                s.left_out.as_ref().map(|why| LeftOut {
                    id: s.id.clone(),
                    why: why.clone(),
                })
            })
            .collect(),
        need_nothing: complete.iter().filter(|s| s.is_empty()).count(),
        commands: counts(NeedKind::Command),
        options: counts(NeedKind::Option),
        behaviours: counts(NeedKind::Behaviour),
        order: order(&complete),
    }
}

/// The implementation order of scenarios needing `sets`: at each step, among the needs still
/// missing for one locked scenario, the set unlocking the most scenarios per need implemented
/// (ties: more scenarios, then fewer needs, then the first in need order); a scenario is
/// unlocked when every need of it is implemented. Scenarios needing nothing are unlocked from
/// the start, and counted in every step's running total.
pub fn order(sets: &[&BTreeSet<Need>]) -> Vec<Step> {
    let mut done: BTreeSet<&Need> = BTreeSet::new();
    let mut locked: Vec<&BTreeSet<Need>> = sets.iter().copied().filter(|s| !s.is_empty()).collect();
    let mut unlocked = sets.len() - locked.len();
    let mut steps = Vec::new();
    while !locked.is_empty() {
        let candidates: BTreeSet<BTreeSet<&Need>> =
            locked.iter().map(|&s| missing(s, &done)).collect();
        let gain = |c: &BTreeSet<&Need>| {
            locked
                .iter()
                .filter(|&&s| missing(s, &done).is_subset(c))
                .count()
        };
        let Some((best, _)) =
            candidates
                .iter()
                .map(|c| (c, gain(c)))
                .reduce(|a, b| if better(&b, &a) { b } else { a })
        else {
            break;
        };
        let best = best.clone();
        done.extend(best.iter().copied());
        let before = locked.len();
        locked.retain(|s| !s.iter().all(|n| done.contains(n)));
        let unlocks = before - locked.len();
        unlocked += unlocks;
        steps.push(Step {
            implement: best.iter().map(|n| n.to_string()).collect(),
            unlocks,
            unlocked,
        });
    }
    steps
}

/// The needs of `scenario` not yet `done`.
fn missing<'n>(scenario: &'n BTreeSet<Need>, done: &BTreeSet<&Need>) -> BTreeSet<&'n Need> {
    scenario.iter().filter(|n| !done.contains(*n)).collect()
}

/// Whether candidate `a` (needs, scenarios it unlocks) beats `b`: more scenarios per need
/// (compared as fractions), then more scenarios, then fewer needs.
fn better(a: &(&BTreeSet<&Need>, usize), b: &(&BTreeSet<&Need>, usize)) -> bool {
    let ((na, ga), (nb, gb)) = ((a.0.len(), a.1), (b.0.len(), b.1));
    (ga * nb, ga, nb).cmp(&(gb * na, gb, na)) == std::cmp::Ordering::Greater
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolnexus_protocol::Command;

    fn set(needs: &[&Need]) -> BTreeSet<Need> {
        needs.iter().map(|&n| n.clone()).collect()
    }

    #[test]
    fn the_order_takes_the_most_scenarios_per_need_first() {
        let build = Need::command(Command::Build);
        let tools = Need::command(Command::Tools);
        let execute = Need::command(Command::Execute);
        let builtins = Need::option(Command::Build, "builtins");
        let echo = Need::behaviour(Command::Build, "extraTools", "echo");
        let sanitize = Need::command(Command::Sanitize);
        let scenarios = [
            set(&[]),
            set(&[&sanitize]),
            set(&[&build, &tools]),
            set(&[&build, &tools]),
            set(&[&build, &tools]),
            set(&[&build, &tools, &execute, &echo]),
            set(&[&build, &tools, &execute, &echo]),
            set(&[&build, &builtins]),
        ];
        let refs: Vec<&BTreeSet<Need>> = scenarios.iter().collect();
        let steps = order(&refs);
        let shown: Vec<(Vec<&str>, usize, usize)> = steps
            .iter()
            .map(|s| {
                (
                    s.implement.iter().map(String::as_str).collect(),
                    s.unlocks,
                    s.unlocked,
                )
            })
            .collect();
        // build+tools unlock 3 for 2 needs (1.5 each), beating sanitize's 1 for 1; then
        // execute+echo unlock 2 for 2 and build.builtins 1 for 1: ties go to more scenarios.
        assert_eq!(
            shown,
            vec![
                (vec!["build", "tools"], 3, 4),
                (vec!["build.extraTools:echo", "execute"], 2, 6),
                (vec!["build.builtins"], 1, 7),
                (vec!["sanitize"], 1, 8),
            ]
        );
        assert!(order(&[]).is_empty());
    }

    #[test]
    fn sections_count_complete_scenarios_and_list_the_rest() {
        let build = Need::command(Command::Build);
        let echo = Need::behaviour(Command::Build, "extraTools", "echo");
        let scenario = |id: &str, section: &str, passed: bool, needs: &[&Need]| ScenarioNeeds {
            id: id.into(),
            section: section.into(),
            left_out: (!passed).then(|| "skipped: holds for SPEC ≥ 0.17.0".to_string()),
            needs: set(needs),
        };
        let map = PortingMap::of(&[
            scenario("a", "4", true, &[&build, &echo]),
            scenario("b", "4", true, &[&build]),
            scenario("c", "4", false, &[&build]),
            scenario("d", "10", true, &[]),
            scenario("e", "4A", true, &[&build]),
        ]);
        let names: Vec<&str> = map.sections.iter().map(|s| s.section.as_str()).collect();
        assert_eq!(names, vec!["4", "4A", "10"]);
        let four = &map.sections[0];
        assert_eq!(four.scenarios, 3);
        assert_eq!(
            four.left_out,
            vec![LeftOut {
                id: "c".into(),
                why: "skipped: holds for SPEC ≥ 0.17.0".into()
            }]
        );
        assert_eq!(four.commands[0].need, "build");
        assert_eq!(four.commands[0].scenarios, 2);
        assert_eq!(four.behaviours[0].need, "build.extraTools:echo");
        assert_eq!(map.sections[2].need_nothing, 1);
        let overall = map.order.as_ref().unwrap();
        assert_eq!(overall.last().map(|s| s.unlocked), Some(4));
        assert_eq!(map.always, vec!["hello", "shutdown"]);
        let json = serde_json::to_value(&map).unwrap();
        assert_eq!(json["sections"][0]["commands"][0]["kind"], "command");
        assert_eq!(json["sections"][0]["needNothing"], 0);
    }
}
