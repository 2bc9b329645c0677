//! The benchmark engine at smoke sizes over the in-process reference and the reference's own
//! driver: every operation (the MCP ones against this crate's own mock server over stdio) is
//! measured on both, through the protocol, without notes.
//! (Sizes are tiny on purpose: this checks the engine, it does not benchmark.)

use toolnexus_bench::{self as bench, BenchOptions, Op, REFERENCE};
use toolnexus_ports::port::hello;

mod bench_support;
use bench_support::{driver_command, reference_and_driver, run_then_shut_down, DRIVER};

#[tokio::test]
async fn bench_smoke_in_process_and_driver() {
    let bin = env!("CARGO_BIN_EXE_toolnexus-conformance");
    let mut ports = reference_and_driver(bin);
    let mut opts = BenchOptions {
        mcp_builds: 2,
        ..BenchOptions::smoke(bin.into())
    };
    // The suite runs `run --port <spec>`: the reference's driver by its command.
    opts.suite.specs.insert(DRIVER.into(), driver_command(bin));
    // The agent loop needs the §8 client; until the reference's driver has it (its `hello`
    // lists "8"), the loop must be skipped as unsupported, and measured once it does.
    ports[1].1.ensure_ready().await.unwrap();
    let has_client = hello(ports[1].1.as_mut())
        .await
        .unwrap()
        .implements
        .iter()
        .any(|s| s == "8");
    let report = run_then_shut_down(&mut ports, &opts, &mut |_| {}).await;
    let text = bench::table(&report);

    assert_eq!(report.rows.len(), 24, "{text}");
    assert!(report.notes.is_empty(), "{text}");
    let fixtures = report.fixtures.as_ref().expect("fixtures generated");
    assert_eq!(fixtures.skill_files, 60);
    assert_eq!(fixtures.grep_matches, 5);
    assert_eq!(fixtures.mcp_command[0], bin);
    for row in &report.rows {
        if row.op == Op::AgentLoop && !has_client {
            assert_eq!(row.median_ms, None, "{row:?}\n{text}");
            assert_eq!(row.notes.len(), 1, "{row:?}");
            assert!(row.notes[0].starts_with("unsupported: "), "{row:?}");
            continue;
        }
        assert!(row.median_ms.is_some(), "{row:?}\n{text}");
        if row.op == Op::Suite {
            // The suite's note is the child run's counts: section 1 passes on the reference.
            assert_eq!(row.notes.len(), 1, "{row:?}\n{text}");
            assert!(row.notes[0].starts_with("passed "), "{row:?}");
            assert!(row.notes[0].contains(", failed 0, "), "{row:?}");
            continue;
        }
        assert!(row.notes.is_empty(), "{row:?}\n{text}");
        assert!(row.ratio_to_reference.is_some(), "{row:?}\n{text}");
        if row.port == REFERENCE {
            assert_eq!(row.ratio_to_reference, Some(1.0), "{row:?}");
        }
    }
    for op in Op::ALL {
        assert!(report
            .rows
            .iter()
            .any(|r| r.op == op && r.port == "reference-driver"));
    }
    // No `rust-crate` or `python` port here, so only the loop's fastest-port target, against
    // the reference's driver.
    assert_eq!(report.targets.len(), 1, "{:?}", report.targets);
    assert_eq!(report.targets[0].op, Op::AgentLoop);
    assert_eq!(report.targets[0].port, "reference-driver");
    assert!(text.contains("execute round trip (per call)"), "{text}");
    let sampled = |op: Op| {
        report
            .rows
            .iter()
            .filter(|r| r.op == op)
            .map(|r| (r.runs, r.samples))
            .collect::<Vec<_>>()
    };
    // The MCP call's five calls are five blocks of one, interleaved across the ports.
    assert_eq!(sampled(Op::McpCall), [(5, 5), (5, 5)], "{text}");
    assert_eq!(sampled(Op::McpBuild), [(2, 2), (2, 2)], "{text}");
    if has_client {
        assert_eq!(sampled(Op::AgentLoop), [(2, 2), (2, 2)], "{text}");
        assert!(
            text.contains("agent loop per LLM round trip (2 × 5 turns)"),
            "{text}"
        );
    }
    assert!(
        text.contains("MCP call round trip, stdio (5 calls)"),
        "{text}"
    );
    assert!(
        text.contains("toolkit build, one stdio MCP server"),
        "{text}"
    );
    assert_eq!(sampled(Op::ServeCall), [(5, 5), (5, 5)], "{text}");
    assert_eq!(sampled(Op::Suite), [(1, 1), (1, 1)], "{text}");
    assert_eq!(sampled(Op::ClassifierStatic), [(3, 3), (3, 3)], "{text}");
    assert_eq!(
        sampled(Op::ClassifierCanonical255),
        [(3, 3), (3, 3)],
        "{text}"
    );
    assert_eq!(
        report.suite_sections.as_deref(),
        Some(&["1".to_string()][..])
    );
    // Every floor but grep's (which needs `rg`) is measured here, with the real mocks, the
    // ones in processes of their own (`floor …` of this binary) included.
    assert_eq!(report.floors.len(), 15, "{text}");
    for f in &report.floors {
        if f.op == Op::Grep && f.notes == ["rg not installed"] {
            continue;
        }
        assert!(f.notes.is_empty(), "{f:?}\n{text}");
        assert!(f.median_ms.is_some(), "{f:?}\n{text}");
        assert!(f.ratio_to_reference.is_some(), "{f:?}\n{text}");
    }
    let floor_samples = |op: Op| report.floors.iter().find(|f| f.op == op).unwrap().samples;
    assert_eq!(floor_samples(Op::McpCall), 5, "{text}");
    assert_eq!(floor_samples(Op::McpBuild), 2, "{text}");
    assert_eq!(floor_samples(Op::AgentLoop), 2, "{text}");
    assert!(text.contains("floor (bare rmcp client)"), "{text}");
    for fairer in [
        "floor (the same walk, each frontmatter loaded by yaml-rust2)",
        "floor (minimal driver process: request line, bare rmcp call, answer line)",
        "floor (same HTTP client, canned server in its own process)",
        "floor (same HTTP client, bare rmcp server in its own process)",
    ] {
        assert!(text.contains(fairer), "{fairer}\n{text}");
    }
    let process_samples = |what: &str| {
        report
            .floors
            .iter()
            .find(|f| f.what.contains(what))
            .unwrap()
            .samples
    };
    assert_eq!(process_samples("minimal driver process"), 5, "{text}");
    assert_eq!(process_samples("bare rmcp server"), 5, "{text}");
}
