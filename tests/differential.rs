//! Differential mode over two in-process references: they agree, and a port that reverses
//! tool order is caught and shrunk (moved out of the harness crate, which never links the
//! reference).

use serde_json::Value;
use toolnexus_harness::run::differential::{run, text};
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::{Port, PortError};

fn reference() -> InProcessPort {
    InProcessPort::new(toolnexus_driver::ReferenceSession::new())
}

#[tokio::test]
async fn the_reference_agrees_with_itself() {
    let mut a = reference();
    let mut b = reference();
    let report = run(&mut a, &mut b, "reference", 24, 7, &mut |_, _| {}).await;
    assert_eq!(report.mismatching, 0, "{}", text(&report));
}

/// A port that reverses tool order must be caught and shrunk to a small case.
struct Reversed(InProcessPort);

#[async_trait::async_trait]
impl Port for Reversed {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        let mut r = self.0.call(request).await?;
        if let Some(tools) = r.get_mut("tools").and_then(Value::as_array_mut) {
            tools.reverse();
        }
        Ok(r)
    }
}

#[tokio::test]
async fn a_disagreeing_port_yields_shrunk_counterexamples() {
    let mut a = reference();
    let mut b = Reversed(reference());
    let report = run(&mut a, &mut b, "reversed", 16, 7, &mut |_, _| {}).await;
    assert!(report.mismatching > 0);
    let c = &report.counterexamples[0];
    assert!(c.signature.contains("$.tools"), "{}", text(&report));
}
