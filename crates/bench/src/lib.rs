//! The cross-port benchmark: times a few heavy operations on each chosen port, through the
//! protocol only, and compares every port with the reference measured in the same run and
//! with a floor the bench measures itself, with no port involved.
//!
//! Twelve operations, each with warm-up runs that are not counted and several counted runs
//! (median, p90, min, max):
//!
//! 1. **skills build + prompt** — `build {"builtins": false, "skillsDir": <tree>}` over a
//!    generated tree of skills (5,000 by default, three files each), then `skills_prompt`,
//!    then `close`; the whole sequence is timed.
//! 2. **grep** — one `build {}`, then per run one `execute grep` over a generated tree of
//!    small files (20,000 by default); the result must not be an error and must have the
//!    known number of matching lines (a difference is a note, not a failure).
//! 3. **execute round trip** — a toolkit with one cheap extra tool (`{"text": "ok"}`), then
//!    `runs × round_trips` sequential `execute` calls; statistics are per call.
//! 4. **MCP call round trip (stdio)** — one `build {"builtins": false, "mcpConfig": …}` with
//!    the `basic.json` mock MCP server over stdio, warm-up calls, then `mcp_calls` sequential
//!    `execute mock_echo` calls; statistics (median = p50, p90) are per call.
//! 5. **toolkit build, one stdio MCP server** — `build` with that config, then `close`
//!    (which stops the server), timed together, `mcp_builds` counted runs.
//! 6. **agent loop per LLM round trip** — the port's §8 client (`client` + `run`) against
//!    the mock LLM answering one `echo` tool call per turn at once, `loop_runs` runs cut by
//!    `maxTurns` = `loop_turns`; each sample is a run's time per turn (`agent_loop.rs`). A
//!    port answering `unsupported` gets an `unsupported` note and no numbers.
//! 7. **served `tools/call`** (SPEC §7C; PROTOCOL §5.23 `serve`, §5.24 `serve_stop`) — a
//!    toolkit with the cheap extra tool served with `"mcp": {"tools": ["noop"]}`, then `serve_calls`
//!    sequential JSON-RPC `tools/call` POSTs to `<url>/mcp` over one keep-alive HTTP client
//!    (after `initialize`, with the session header when the server hands one out); per call
//!    (`serve.rs`). `unsupported` is a note, as for the loop.
//! 8. **image loops** (issue 46; SPEC §1B, §8A) — `image_loop_openai` and
//!    `image_loop_anthropic`: one loop turn of the port's §8 client whose tool (PROTOCOL §7's
//!    `parts` behaviour) answers a 1 MiB image, against a mock LLM whose final text names
//!    where the request carried the image; each sample is one `run`, its text checked
//!    against §8A's place for the wire (`image_loop.rs`).
//! 9. **classifier evaluations** (issue 47; SPEC §8B) — `classifier_static` and
//!    `classifier_canonical_255`: one `evaluate` per round on a `static` classifier whose
//!    one recorded decision is for exactly the request sent (a choice of 3 and a noul; 10
//!    choices of 255 options written unsorted, so the port encodes the whole request
//!    canonically every round to find it), the decision checked (`classifier.rs`).
//! 10. **conformance suite** — the wall time of `<this binary> run --port <port> --format
//!     json --no-expected-failures` as a child process, restricted to the SPEC sections every
//!     port of the run implements (their `hello` lists), `suite_runs` counted runs, no
//!     warm-up; the notes carry the run's passed/failed/skipped counts (`suite.rs`).
//!
//! **Interleaving.** Per operation every port is set up first (its build, its served
//! handle, …), then the warm-ups and then the counted samples are taken in rounds: round k
//! of every port (and of the floor) before round k + 1. For the per-call operations a round
//! is a block of calls (the counted calls split into at least [`CALL_BLOCKS`] blocks); for
//! the others it is one run. A burst of load on the machine so lands on every port alike.
//! Before each step of the skills build the harness pauses (see [`settle`]): what a party
//! frees after answering ends before the next party's clock starts instead of landing on it.
//!
//! **Floors.** In the same rounds the harness measures what the operation costs with no
//! port at all (`floor.rs`): a raw parallel walk reading every `SKILL.md`; `rg -j1` over the
//! grep tree; the request line through a `cat` child; a bare rmcp client calling the mock
//! MCP server (and spawning, initialising, listing, stopping it); a bare HTTP tool loop
//! against the mock LLM; the same HTTP client against a minimal loopback server answering a
//! canned JSON-RPC result; the image loops' two requests from a bare HTTP client, the image
//! in the body where the wire puts it; the classifier's `evaluate` line through a `cat` child.
//! The suite has no floor. The two operations whose port is
//! necessarily another process have fairer floors beside their own, in processes of their own
//! (`floor_process.rs`, the `toolnexus-floor` crate): the canned server and a bare rmcp server
//! for the served call, a minimal driver (request line, bare rmcp call, answer line) for the
//! MCP call.
//!
//! The fixtures are generated once per [`run`] (plain `std::fs` writes, deterministic
//! content) into a temporary directory that is removed afterwards, and shared by all ports.
//! The MCP server is this crate's own `mock mcp` subcommand, started by the port from the
//! config (absolute path of [`BenchOptions::mock_exe`], else of the running binary, and of
//! a copy of `mock-servers/scenarios/basic.json` in the fixture directory).
//! A port that fails gets a note on its row; the benchmark never panics on port behaviour,
//! and one port failing does not stop the others.

#![warn(missing_docs)]

mod agent_loop;
mod classifier;
mod engine;
mod fixtures;
mod floor;
mod floor_process;
mod image_loop;
mod measure;
mod operations;
mod options;
mod raw;
mod render;
mod report;
mod serve;
pub mod stats;
mod suite;

pub use agent_loop::http_tool_loop;
pub use engine::run;
pub use fixtures::Fixtures;
pub use options::{BenchOptions, Op, SuiteOptions, CALL_BLOCKS, GREP_TOKEN, MCP_TOOL, REFERENCE};
pub use render::table;
pub use report::{BenchReport, BenchRow, FixtureInfo, FloorRow, TargetCheck, LOOP_TARGET, TARGETS};
