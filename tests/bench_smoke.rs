//! The benchmark engine at smoke sizes over the in-process reference and the reference's own
//! driver: every operation is measured on both, through the protocol, without notes.
//! (Sizes are tiny on purpose: this checks the engine, it does not benchmark.)

use std::time::Duration;

use toolnexus_conformance::harness::bench::{self, BenchOptions, Op, REFERENCE};
use toolnexus_conformance::harness::inprocess::InProcessPort;
use toolnexus_conformance::harness::port::Port;
use toolnexus_conformance::harness::subprocess::SubprocessPort;

#[tokio::test]
async fn bench_smoke_in_process_and_driver() {
    let driver = format!("{} driver", env!("CARGO_BIN_EXE_toolnexus-conformance"));
    let mut ports: Vec<(String, Box<dyn Port>)> = vec![
        (REFERENCE.to_string(), Box::new(InProcessPort::new())),
        (
            "reference-driver".to_string(),
            Box::new(SubprocessPort::new(driver, Duration::from_secs(30))),
        ),
    ];
    let opts = BenchOptions {
        skills: 20,
        grep_files: 50,
        round_trips: 5,
        runs: 1,
        warmup: 1,
        work_dir: None,
    };
    let report = bench::run(&mut ports, &opts, |_| {}).await;
    for (_, port) in &mut ports {
        port.shutdown().await;
    }
    let text = bench::table(&report);

    assert_eq!(report.rows.len(), 6, "{text}");
    assert!(report.notes.is_empty(), "{text}");
    let fixtures = report.fixtures.as_ref().expect("fixtures generated");
    assert_eq!(fixtures.skill_files, 60);
    assert_eq!(fixtures.grep_matches, 5);
    for row in &report.rows {
        assert!(row.median_ms.is_some(), "{row:?}\n{text}");
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
    // No `rust-crate` or `python` port here, so no target lines.
    assert!(report.targets.is_empty());
    assert!(text.contains("execute round trip (per call)"), "{text}");
}
