//! What the bench tests share (`bench_smoke`, `bench_image`, `bench_classifier`): the two ports
//! each smoke run compares (the in-process reference and the reference's own driver), and a
//! bench run that shuts its ports down after, since `bench::run` leaves them running, and the
//! floors' checks. Each test crate uses a part of it.

#![allow(dead_code)]

use std::time::Duration;

use toolnexus_bench::{self as bench, BenchOptions, BenchReport, Op, REFERENCE};
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::Port;
use toolnexus_ports::subprocess::SubprocessPort;

/// The name the reference's own driver runs under, beside [`REFERENCE`].
pub const DRIVER: &str = "reference-driver";

/// The command that starts the reference's own driver.
pub fn driver_command(bin: &str) -> String {
    format!("{bin} driver")
}

/// The in-process reference, then the reference's own driver (30 s per request: one skills
/// build at smoke size fits well inside it on a loaded machine).
pub fn reference_and_driver(bin: &str) -> Vec<(String, Box<dyn Port>)> {
    vec![
        (
            REFERENCE.to_string(),
            Box::new(InProcessPort::new(toolnexus_driver::ReferenceSession::new())),
        ),
        (
            DRIVER.to_string(),
            Box::new(SubprocessPort::new(
                driver_command(bin),
                Duration::from_secs(30),
            )),
        ),
    ]
}

/// `bench::run` over `ports`, then every port shut down.
pub async fn run_then_shut_down(
    ports: &mut [(String, Box<dyn Port>)],
    opts: &BenchOptions,
    progress: &mut dyn FnMut(&str),
) -> BenchReport {
    let report = bench::run(ports, opts, progress).await;
    for (_, port) in ports.iter_mut() {
        port.shutdown().await;
    }
    report
}

/// One floor per operation of `ops`, in their order, each measured (`samples` samples, no
/// notes) in the same rounds as the ports, with a ratio to the reference.
pub fn assert_floors_measured(report: &BenchReport, ops: &[Op], samples: usize) {
    let text = bench::table(report);
    let floors: Vec<Op> = report.floors.iter().map(|f| f.op).collect();
    assert_eq!(floors, ops, "{text}");
    for f in &report.floors {
        assert!(f.notes.is_empty(), "{f:?}\n{text}");
        assert_eq!(f.samples, samples, "{f:?}");
        assert!(f.ratio_to_reference.is_some(), "{f:?}");
    }
}
