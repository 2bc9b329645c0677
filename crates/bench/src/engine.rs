//! The engine: per operation, every port and floor set up, sampled in interleaved
//! rounds, torn down, and the rows and ratios made (the crate doc says why so).

use std::time::{Duration, Instant};

use futures::future::{FutureExt, LocalBoxFuture};

use crate::fixtures::Fixtures;
use crate::measure::{error_note, plan, Ctx, Go, Measured, Unit};
use crate::options::{BenchOptions, Op, REFERENCE};
use crate::report::{BenchReport, BenchRow, FloorRow, TargetCheck, LOOP_TARGET, TARGETS};
use crate::stats::ms;
use crate::{floor, operations, render, stats, suite};
use toolnexus_ports::port::Port;

/// One port taking part in an operation: its state while set up, and what it measured.
struct PortLane<'a> {
    name: &'a str,
    port: &'a mut dyn Port,
    state: Option<operations::State>,
    m: Measured,
}

/// A floor taking part in an operation.
struct FloorLane {
    what: &'static str,
    state: Option<floor::State>,
    m: Measured,
}

/// Runs the benchmark over `ports` (name, port) with `opts`, reporting progress lines to
/// `progress`.
///
/// Every port gets every operation of `opts.ops`; a port that fails gets notes on its rows
/// instead of numbers. Per operation the ports are set up, then sampled in interleaved
/// rounds together with the floor (see the module doc). Ratios are against the port named
/// [`REFERENCE`], when one is. The ports are left running: shutting them down is the
/// caller's business. Drivers need a per-request timeout long enough for one skills build
/// at the chosen size.
pub fn run<'a>(
    ports: &'a mut [(String, Box<dyn Port>)],
    opts: &'a BenchOptions,
    progress: &'a mut dyn FnMut(&str),
) -> LocalBoxFuture<'a, BenchReport> {
    async move {
        let mut report = BenchReport {
            reference: ports
                .iter()
                .any(|(n, _)| n == REFERENCE)
                .then(|| REFERENCE.to_string()),
            runs: opts.runs,
            warmup: opts.warmup,
            round_trips: opts.round_trips,
            mcp_calls: opts.mcp_calls,
            mcp_builds: opts.mcp_builds,
            loop_turns: opts.loop_turns,
            loop_runs: opts.loop_runs,
            serve_calls: opts.serve_calls,
            image_bytes: opts.image_bytes,
            image_runs: opts.image_runs,
            classifier_runs: opts.classifier_runs,
            suite_runs: opts.suite_runs,
            suite_sections: None,
            fixtures: None,
            rows: Vec::new(),
            floors: Vec::new(),
            targets: Vec::new(),
            notes: Vec::new(),
        };
        progress(&format!(
            "generating fixtures: {} skills, {} grep files",
            opts.skills, opts.grep_files
        ));
        let fixtures = match Fixtures::generate(opts) {
            Ok(f) => f,
            Err(e) => {
                let why = format!("cannot generate the fixtures: {e}");
                progress(&why);
                report.notes.push(why.clone());
                for &op in &opts.ops {
                    for (name, _) in ports.iter() {
                        report.rows.push(row(op, opts, name, Measured::default()));
                    }
                }
                report.targets = targets(&report.rows, ports);
                for r in &mut report.rows {
                    r.notes.push(why.clone());
                }
                return report;
            }
        };
        progress(&format!(
            "fixtures ready in {:.0} ms ({} skill files, {} grep files, {} expected grep matches)",
            fixtures.info.generation_ms,
            fixtures.info.skill_files,
            fixtures.info.grep_files,
            fixtures.info.grep_matches
        ));
        for &op in &opts.ops {
            let label = op.label(opts);
            progress(&format!("{label}…"));
            let mut ctx = Ctx {
                opts,
                fx: &fixtures,
                suite_sections: Vec::new(),
            };
            let mut early: Vec<Vec<String>> = vec![Vec::new(); ports.len()];
            if op == Op::Suite {
                let (sections, notes) = suite::common_sections(ports, &opts.suite.sections).await;
                progress(&format!("  suite sections: {}", sections.join(",")));
                report.suite_sections = Some(sections.clone());
                ctx.suite_sections = sections;
                early = notes;
            }
            let (lanes, floors) = measure_op(op, ports, &ctx, early, progress).await;
            for (name, m) in lanes {
                let r = row(op, opts, &name, m);
                progress(&format!(
                    "{label} on {name}: median {}{}",
                    render::fmt_ms(r.median_ms),
                    if r.notes.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", r.notes.join("; "))
                    }
                ));
                report.rows.push(r);
            }
            for (what, m) in floors {
                let f = floor_row(op, what, m);
                progress(&format!(
                    "{label}, floor ({what}): median {}{}",
                    render::fmt_ms(f.median_ms),
                    if f.notes.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", f.notes.join("; "))
                    }
                ));
                report.floors.push(f);
            }
        }
        report.fixtures = Some(fixtures.info.clone());
        fill_ratios(&mut report.rows, &mut report.floors);
        report.targets = targets(&report.rows, ports);
        report
    }
    .boxed_local()
}

/// `  <who>: <unit> <detail, or the step's wall time>`.
fn progress_line(who: &str, unit: Unit, started: Instant, m: &mut Measured) -> String {
    let detail = m
        .detail
        .take()
        .unwrap_or_else(|| format!("{:.1} ms", ms(started)));
    format!("  {who}: {} {detail}", unit.label())
}

/// The pause before each timed step of `op`, if any. Only the skills build has one: there a
/// party frees a 5,000-skill catalog after `close` answers (the reference about a millisecond
/// of work on another thread, a collector maybe more), which would land on the next party's
/// clock. Elsewhere the leftovers are small, and a pause would instead add a halted vCPU's
/// wake-up to every step: with one before every step the MCP toolkit build's floor measured
/// 6.8 ms instead of 4.1–4.4 ms.
fn settle(op: Op) -> Option<Duration> {
    (op == Op::SkillsBuild).then_some(Duration::from_millis(20))
}

/// Sleeps for `pause`, when there is one.
async fn pause(pause: Option<Duration>) {
    if let Some(pause) = pause {
        tokio::time::sleep(pause).await;
    }
}

/// Sets up every port (and the floors), then takes the plan's units round-robin, then tears
/// every lane down. Returns each port's measurement, in port order, and each floor's.
async fn measure_op(
    op: Op,
    ports: &mut [(String, Box<dyn Port>)],
    ctx: &Ctx<'_>,
    early: Vec<Vec<String>>,
    progress: &mut dyn FnMut(&str),
) -> (Vec<(String, Measured)>, Vec<(&'static str, Measured)>) {
    let mut lanes: Vec<PortLane<'_>> = Vec::new();
    for ((name, port), notes) in ports.iter_mut().zip(early) {
        let mut m = Measured {
            notes,
            ..Measured::default()
        };
        let state = if m.notes.is_empty() {
            operations::setup(op, port.as_mut(), ctx, name, &mut m).await
        } else {
            None
        };
        lanes.push(PortLane {
            name,
            port: port.as_mut(),
            state,
            m,
        });
    }
    let mut floors: Vec<FloorLane> = Vec::new();
    for &kind in floor::kinds(op) {
        let mut m = Measured::default();
        let state = floor::setup(kind, ctx, &mut m).await;
        floors.push(FloorLane {
            what: kind.what(),
            state,
            m,
        });
    }
    for unit in plan(op, ctx.opts) {
        for f in floors.iter_mut() {
            if let Some(state) = f.state.as_mut() {
                pause(settle(op)).await;
                let started = Instant::now();
                let go = floor::step(state, ctx, unit, &mut f.m).await;
                let who = format!("floor ({})", f.what);
                progress(&progress_line(&who, unit, started, &mut f.m));
                if go == Go::Stop {
                    if let Some(state) = f.state.take() {
                        floor::teardown(state).await;
                    }
                }
            }
        }
        for lane in lanes.iter_mut() {
            let Some(state) = lane.state.as_mut() else {
                continue;
            };
            pause(settle(op)).await;
            let started = Instant::now();
            let go = operations::step(lane.port, state, ctx, unit, &mut lane.m).await;
            progress(&progress_line(lane.name, unit, started, &mut lane.m));
            let go = match go {
                Ok(go) => go,
                Err(e) => {
                    error_note(&mut lane.m.notes, &e);
                    Go::Stop
                }
            };
            if unit.counted && go == Go::On {
                lane.m.runs += 1;
            }
            if go == Go::Stop {
                if let Some(state) = lane.state.take() {
                    if let Err(e) = operations::teardown(lane.port, state).await {
                        error_note(&mut lane.m.notes, &e);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for mut lane in lanes {
        if let Some(state) = lane.state.take() {
            if let Err(e) = operations::teardown(lane.port, state).await {
                error_note(&mut lane.m.notes, &e);
            }
        }
        out.push((lane.name.to_string(), lane.m));
    }
    let mut measured_floors = Vec::new();
    for mut f in floors {
        if let Some(state) = f.state.take() {
            floor::teardown(state).await;
        }
        measured_floors.push((f.what, f.m));
    }
    (out, measured_floors)
}

fn row(op: Op, opts: &BenchOptions, port: &str, m: Measured) -> BenchRow {
    let st = stats::of(&m.samples);
    BenchRow {
        op,
        label: op.label(opts),
        port: port.to_string(),
        median_ms: st.map(|s| s.median),
        p90_ms: st.map(|s| s.p90),
        min_ms: st.map(|s| s.min),
        max_ms: st.map(|s| s.max),
        runs: m.runs,
        samples: m.samples.len(),
        ratio_to_reference: None,
        notes: m.notes,
    }
}

fn floor_row(op: Op, what: &str, m: Measured) -> FloorRow {
    let st = stats::of(&m.samples);
    FloorRow {
        op,
        what: what.to_string(),
        median_ms: st.map(|s| s.median),
        p90_ms: st.map(|s| s.p90),
        min_ms: st.map(|s| s.min),
        max_ms: st.map(|s| s.max),
        samples: m.samples.len(),
        ratio_to_reference: None,
        notes: m.notes,
    }
}

fn fill_ratios(rows: &mut [BenchRow], floors: &mut [FloorRow]) {
    let reference: Vec<(Op, Option<f64>)> = rows
        .iter()
        .filter(|r| r.port == REFERENCE)
        .map(|r| (r.op, r.median_ms))
        .collect();
    for r in rows.iter_mut() {
        let base = reference
            .iter()
            .find(|(op, _)| *op == r.op)
            .and_then(|(_, m)| *m);
        r.ratio_to_reference = ratio(r.median_ms, base);
    }
    for f in floors.iter_mut() {
        let base = reference
            .iter()
            .find(|(op, _)| *op == f.op)
            .and_then(|(_, m)| *m);
        f.ratio_to_reference = ratio(f.median_ms, base);
    }
}

/// `median / base`, when both were measured.
fn ratio(median: Option<f64>, base: Option<f64>) -> Option<f64> {
    match (median, base) {
        (Some(m), Some(b)) if b > 0.0 => Some(m / b),
        _ => None,
    }
}

fn targets(rows: &[BenchRow], ports: &[(String, Box<dyn Port>)]) -> Vec<TargetCheck> {
    let median = |op: Op, port: &str| {
        rows.iter()
            .find(|r| r.op == op && r.port == port)
            .and_then(|r| r.median_ms)
    };
    let check = |op: Op, other: &str, target: f64| {
        let ratio = match (median(op, REFERENCE), median(op, other)) {
            (Some(r), Some(o)) if o > 0.0 => Some(r / o),
            _ => None,
        };
        TargetCheck {
            op,
            port: other.to_string(),
            ratio,
            target,
            met: ratio.map(|r| r <= target),
        }
    };
    let mut checks: Vec<TargetCheck> = TARGETS
        .iter()
        .filter(|(op, other, _)| {
            ports.iter().any(|(n, _)| n == other) && rows.iter().any(|r| r.op == *op)
        })
        .map(|&(op, other, target)| check(op, other, target))
        .collect();
    if let Some(fastest) = fastest_other(rows, Op::AgentLoop) {
        checks.push(check(Op::AgentLoop, &fastest, LOOP_TARGET));
    }
    checks
}

/// The non-reference port with the smallest median for `op`; when none was measured, the
/// first non-reference port that ran it (so the target shows as not measured); `None` when
/// the reference ran alone.
fn fastest_other(rows: &[BenchRow], op: Op) -> Option<String> {
    let others = || rows.iter().filter(|r| r.op == op && r.port != REFERENCE);
    others()
        .filter_map(|r| r.median_ms.map(|m| (m, r)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, r)| r.port.clone())
        .or_else(|| others().next().map(|r| r.port.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::blocks;

    fn loop_row(port: &str, median: Option<f64>) -> BenchRow {
        let mut m = Measured::default();
        if let Some(v) = median {
            m.samples.push(v);
            m.runs = 1;
        }
        row(Op::AgentLoop, &BenchOptions::default(), port, m)
    }

    #[test]
    fn calls_are_split_into_even_blocks() {
        assert_eq!(blocks(12, 10), [2, 2, 1, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(blocks(1000, 10), [100; 10]);
        assert_eq!(blocks(5, 10), [1; 5]);
        assert!(blocks(0, 10).is_empty());
        let opts = BenchOptions {
            runs: 3,
            warmup: 2,
            round_trips: 200,
            ..BenchOptions::default()
        };
        let units = plan(Op::RoundTrip, &opts);
        let warm: Vec<usize> = units
            .iter()
            .filter(|u| !u.counted)
            .map(|u| u.size)
            .collect();
        let counted: Vec<usize> = units.iter().filter(|u| u.counted).map(|u| u.size).collect();
        assert_eq!(warm, [200, 200]);
        assert_eq!(counted, [60; 10]);
        assert!(plan(Op::Suite, &opts)
            .iter()
            .all(|u| u.counted && u.size == 1));
        assert_eq!(plan(Op::Suite, &opts).len(), 3);
        assert_eq!(plan(Op::McpCall, &opts)[0].size, 100);
    }

    #[test]
    fn op_names_are_the_json_names() {
        for op in Op::ALL {
            assert_eq!(serde_json::to_value(op).unwrap(), op.name());
            assert_eq!(Op::parse(op.name()), Some(op));
        }
        assert_eq!(Op::parse("agent-loop"), None);
    }

    #[test]
    fn the_loop_target_is_against_the_fastest_other_port() {
        let rows = vec![
            loop_row(REFERENCE, Some(0.2)),
            loop_row("python", Some(1.0)),
            loop_row("rust-crate", Some(0.5)),
            loop_row("broken", None),
        ];
        let checks = targets(&rows, &[]);
        assert_eq!(checks.len(), 1, "{checks:?}");
        assert_eq!(checks[0].op, Op::AgentLoop);
        assert_eq!(checks[0].port, "rust-crate");
        assert_eq!(checks[0].ratio, Some(0.4));
        assert_eq!(checks[0].target, LOOP_TARGET);
        assert_eq!(checks[0].met, Some(true));

        let slow = vec![
            loop_row(REFERENCE, Some(0.3)),
            loop_row("python", Some(0.5)),
        ];
        assert_eq!(targets(&slow, &[])[0].met, Some(false));

        let unmeasured = vec![loop_row(REFERENCE, Some(0.3)), loop_row("python", None)];
        let t = &targets(&unmeasured, &[])[0];
        assert_eq!((t.port.as_str(), t.ratio, t.met), ("python", None, None));

        assert!(targets(&[loop_row(REFERENCE, Some(0.3))], &[]).is_empty());
    }
}
