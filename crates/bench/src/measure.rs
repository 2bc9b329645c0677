//! One lane's measuring vocabulary: the units of work, what a lane collected, and the
//! shared inputs of an operation.

use crate::fixtures::Fixtures;
use crate::options::{BenchOptions, Op, CALL_BLOCKS, MCP_WARMUP_CALLS};
use toolnexus_ports::port::{truncate, PortError};

/// Adds `text` to `notes` unless it is there already (a repeated failure is one note).
pub(crate) fn note(notes: &mut Vec<String>, text: String) {
    if !notes.contains(&text) {
        notes.push(text);
    }
}

/// The note a port error leaves: `unsupported: …` (skipped) or `failed: …`.
pub(crate) fn error_note(notes: &mut Vec<String>, e: &PortError) {
    match e {
        PortError::Unsupported(why) => note(notes, format!("unsupported: {}", truncate(why, 300))),
        e => note(notes, format!("failed: {}", truncate(&e.to_string(), 300))),
    }
}

/// What one (operation, port) measurement collected.
#[derive(Default)]
pub(crate) struct Measured {
    pub(crate) samples: Vec<f64>,
    pub(crate) runs: usize,
    pub(crate) notes: Vec<String>,
    /// What the last step reports on its progress line instead of its wall time.
    pub(crate) detail: Option<String>,
}

/// Whether a lane goes on after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Go {
    /// Take the next round.
    On,
    /// Stop here (the reason is a note already); the numbers so far stay.
    Stop,
}

/// One unit of a lane's work: uncounted (warm-up) or counted, of `size` calls (1 for the
/// operations timed per run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unit {
    pub(crate) size: usize,
    pub(crate) counted: bool,
    /// Its progress label (`warm-up 1/1`, `run 3/5`, `block 2/10`).
    pub(crate) index: usize,
    pub(crate) of: usize,
}

impl Unit {
    pub(crate) fn label(self) -> String {
        let kind = if self.counted { "run" } else { "warm-up" };
        let calls = if self.size > 1 {
            format!(" ({} calls)", self.size)
        } else {
            String::new()
        };
        format!("{kind} {}/{}{calls}", self.index + 1, self.of)
    }
}

/// `total` calls split into at least `min_blocks` blocks (fewer only when there are fewer
/// calls), the sizes differing by at most one.
pub(crate) fn blocks(total: usize, min_blocks: usize) -> Vec<usize> {
    let n = min_blocks.max(1).min(total);
    (0..n)
        .map(|i| total / n + usize::from(i < total % n))
        .collect()
}

/// The units of `op`, warm-ups first, each taken of every lane in turn.
pub(crate) fn plan(op: Op, opts: &BenchOptions) -> Vec<Unit> {
    let runs = |n: usize| vec![1; n];
    let (warmup, counted) = match op {
        Op::SkillsBuild | Op::Grep => (runs(opts.warmup), runs(opts.runs)),
        Op::RoundTrip => (
            vec![opts.round_trips; opts.warmup],
            blocks(opts.runs * opts.round_trips, CALL_BLOCKS.max(opts.runs)),
        ),
        Op::McpCall => (
            vec![opts.mcp_calls.min(MCP_WARMUP_CALLS); opts.warmup],
            blocks(opts.mcp_calls, CALL_BLOCKS),
        ),
        Op::ServeCall => (
            vec![opts.serve_calls.min(MCP_WARMUP_CALLS); opts.warmup],
            blocks(opts.serve_calls, CALL_BLOCKS),
        ),
        Op::McpBuild => (runs(opts.warmup), runs(opts.mcp_builds)),
        Op::AgentLoop => (runs(opts.warmup), runs(opts.loop_runs)),
        Op::ImageLoopOpenai | Op::ImageLoopAnthropic => (runs(opts.warmup), runs(opts.image_runs)),
        Op::ClassifierStatic | Op::ClassifierCanonical255 => {
            (runs(opts.warmup), runs(opts.classifier_runs))
        }
        Op::Suite => (Vec::new(), runs(opts.suite_runs)),
    };
    let units = |sizes: Vec<usize>, counted: bool| {
        let of = sizes.len();
        sizes
            .into_iter()
            .enumerate()
            .map(move |(index, size)| Unit {
                size,
                counted,
                index,
                of,
            })
    };
    units(warmup, false).chain(units(counted, true)).collect()
}

/// The shared inputs of one operation's lanes.
pub(crate) struct Ctx<'a> {
    pub(crate) opts: &'a BenchOptions,
    pub(crate) fx: &'a Fixtures,
    /// The sections the suite runs (every port implements them).
    pub(crate) suite_sections: Vec<String>,
}
