//! The crate graph is the architecture, and this test is what enforces it: it reads
//! `cargo metadata` and fails on any edge the dependency rules of docs/architecture.md forbid.
//!
//! - the reference is a plain library: no workspace crate and no harness tooling (clap,
//!   gherkin, cucumber, wiremock, proptest, insta, criterion) among its normal dependencies,
//!   direct or transitive;
//! - the protocol depends on no workspace crate;
//! - the harness reaches the reference only through the protocol: no edge of any kind (dev
//!   included) to the reference or its driver;
//! - the mock servers never depend on the reference, its driver or the harness;
//! - the driver never depends on the harness or the mock servers;
//! - the bench's floors never depend on the reference, its driver, the harness or the mock
//!   servers: a floor is the least work of its kind, with no port code in it;
//! - the SPEC crate depends on no workspace crate and not on gherkin: it knows the SPEC and
//!   nothing of ports, scenarios or reports;
//! - the port boundary (`toolnexus-ports`) knows no scenario, report, SPEC text or bench, and
//!   no implementation: it is what the harness and the bench both build on;
//! - the bench is built on the port boundary only: never the harness (a step file's change
//!   rebuilds no bench), the SPEC crate, the reference, its driver or the mock servers;
//! - the harness never depends on the bench;
//! - the kits' generator reads the schema as JSON and depends on no workspace crate.
//!
//! Inside a crate, `module_graph` reads the files' imports: the SPEC, ports and bench crates
//! have no import circle, and the harness's layers point down.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::{json, Value};

const REFERENCE: &str = "toolnexus-reference";
const PROTOCOL: &str = "toolnexus-protocol";
const DRIVER: &str = "toolnexus-driver";
const HARNESS: &str = "toolnexus-harness";
const MOCKS: &str = "toolnexus-mock-servers";
const FLOOR: &str = "toolnexus-floor";
const SPEC: &str = "toolnexus-spec";
const PORTS: &str = "toolnexus-ports";
const BENCH: &str = "toolnexus-bench";
const KITGEN: &str = "toolnexus-kitgen";

/// Harness tooling a plain library of the contract has no use for.
const TOOLING: [&str; 7] = [
    "clap",
    "gherkin",
    "cucumber",
    "wiremock",
    "proptest",
    "insta",
    "criterion",
];

/// One rule: from `crate_name`, over edges of `kinds` (`None` = normal, `"dev"`, `"build"`),
/// transitively or only directly, none of `forbidden` may be reached.
struct Rule {
    crate_name: &'static str,
    forbidden: Vec<&'static str>,
    kinds: &'static [Option<&'static str>],
    transitive: bool,
}

fn rules() -> Vec<Rule> {
    const NORMAL: &[Option<&str>] = &[None, Some("build")];
    const ANY: &[Option<&str>] = &[None, Some("build"), Some("dev")];
    let mut reference_forbidden = vec![PROTOCOL, DRIVER, HARNESS, MOCKS];
    reference_forbidden.extend(TOOLING);
    let spec_forbidden = vec![
        REFERENCE,
        PROTOCOL,
        DRIVER,
        HARNESS,
        MOCKS,
        FLOOR,
        PORTS,
        BENCH,
        "toolnexus-stdio",
        "toolnexus-process-group",
        "gherkin",
    ];
    let ports_forbidden = vec![REFERENCE, DRIVER, HARNESS, MOCKS, SPEC, BENCH, FLOOR];
    let bench_forbidden = vec![REFERENCE, DRIVER, HARNESS, MOCKS, SPEC];
    vec![
        Rule {
            crate_name: PORTS,
            forbidden: ports_forbidden.clone(),
            kinds: NORMAL,
            transitive: true,
        },
        Rule {
            crate_name: PORTS,
            forbidden: ports_forbidden,
            kinds: ANY,
            transitive: false,
        },
        Rule {
            crate_name: BENCH,
            forbidden: bench_forbidden.clone(),
            kinds: NORMAL,
            transitive: true,
        },
        Rule {
            crate_name: BENCH,
            forbidden: bench_forbidden,
            kinds: ANY,
            transitive: false,
        },
        Rule {
            crate_name: KITGEN,
            forbidden: vec![
                REFERENCE, PROTOCOL, DRIVER, HARNESS, MOCKS, FLOOR, SPEC, PORTS, BENCH,
            ],
            kinds: ANY,
            transitive: false,
        },
        Rule {
            crate_name: HARNESS,
            forbidden: vec![BENCH],
            kinds: ANY,
            transitive: false,
        },
        Rule {
            crate_name: REFERENCE,
            forbidden: reference_forbidden,
            kinds: NORMAL,
            transitive: true,
        },
        Rule {
            crate_name: PROTOCOL,
            forbidden: vec![REFERENCE, DRIVER, HARNESS, MOCKS],
            kinds: ANY,
            transitive: false,
        },
        Rule {
            crate_name: HARNESS,
            forbidden: vec![REFERENCE, DRIVER],
            kinds: NORMAL,
            transitive: true,
        },
        Rule {
            crate_name: HARNESS,
            forbidden: vec![REFERENCE, DRIVER],
            kinds: ANY,
            transitive: false,
        },
        Rule {
            crate_name: MOCKS,
            forbidden: vec![REFERENCE, DRIVER, HARNESS],
            kinds: ANY,
            transitive: false,
        },
        Rule {
            crate_name: MOCKS,
            forbidden: vec![REFERENCE, DRIVER, HARNESS],
            kinds: NORMAL,
            transitive: true,
        },
        Rule {
            crate_name: DRIVER,
            forbidden: vec![HARNESS, MOCKS],
            kinds: NORMAL,
            transitive: true,
        },
        Rule {
            crate_name: FLOOR,
            forbidden: vec![REFERENCE, DRIVER, HARNESS, MOCKS],
            kinds: NORMAL,
            transitive: true,
        },
        Rule {
            crate_name: FLOOR,
            forbidden: vec![REFERENCE, DRIVER, HARNESS, MOCKS],
            kinds: ANY,
            transitive: false,
        },
        Rule {
            crate_name: SPEC,
            forbidden: spec_forbidden.clone(),
            kinds: NORMAL,
            transitive: true,
        },
        Rule {
            crate_name: SPEC,
            forbidden: spec_forbidden,
            kinds: ANY,
            transitive: false,
        },
    ]
}

/// Package id → name, and package id → [(dependency id, edge kinds)].
type Graph = (
    BTreeMap<String, String>,
    BTreeMap<String, Vec<(String, Vec<Option<String>>)>>,
);

fn graph(metadata: &Value) -> Graph {
    let names = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            (
                p["id"].as_str().unwrap_or_default().to_string(),
                p["name"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let edges = metadata["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| {
            let deps = n["deps"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| {
                    let kinds = d["dep_kinds"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|k| k["kind"].as_str().map(str::to_string))
                        .collect();
                    (d["pkg"].as_str().unwrap_or_default().to_string(), kinds)
                })
                .collect();
            (n["id"].as_str().unwrap_or_default().to_string(), deps)
        })
        .collect();
    (names, edges)
}

/// Every forbidden edge in `metadata`, as `from -> … -> to` paths; empty when the graph keeps
/// the rules.
fn violations(metadata: &Value) -> Vec<String> {
    let (names, edges) = graph(metadata);
    let name = |id: &str| names.get(id).cloned().unwrap_or_else(|| id.to_string());
    let mut found = BTreeSet::new();
    for rule in rules() {
        let starts: Vec<&String> = names
            .iter()
            .filter(|(_, n)| n.as_str() == rule.crate_name)
            .map(|(id, _)| id)
            .collect();
        assert!(
            !starts.is_empty(),
            "crate {} is not in the workspace metadata",
            rule.crate_name
        );
        for start in starts {
            // Breadth-first over the allowed edge kinds, keeping the path for the message.
            let mut queue = vec![(start.clone(), vec![name(start)])];
            let mut seen = BTreeSet::from([start.clone()]);
            while let Some((id, path)) = queue.pop() {
                for (dep, kinds) in edges.get(&id).into_iter().flatten() {
                    let allowed = kinds
                        .iter()
                        .any(|k| rule.kinds.iter().any(|r| r.as_deref() == k.as_deref()));
                    if !allowed || !seen.insert(dep.clone()) {
                        continue;
                    }
                    let mut next = path.clone();
                    next.push(name(dep));
                    if rule.forbidden.contains(&name(dep).as_str()) {
                        found.insert(next.join(" -> "));
                    }
                    if rule.transitive {
                        queue.push((dep.clone(), next));
                    }
                }
            }
        }
    }
    found.into_iter().collect()
}

fn rustc_host() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let out = Command::new(rustc)
        .arg("-vV")
        .output()
        .unwrap_or_else(|e| panic!("cannot run rustc -vV: {e}"));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("rustc -vV named no host"))
}

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    // Only the host's platform: metadata for every platform would want crates no build here
    // downloaded, and the rules are about our own crates' edges, the same on every platform.
    let host = rustc_host();
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--filter-platform",
        ])
        .arg(host)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo metadata: {e}"));
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("cargo metadata JSON: {e}"))
}

#[test]
fn the_workspace_keeps_the_dependency_rules() {
    let m = metadata();
    let v = violations(&m);
    assert!(
        v.is_empty(),
        "forbidden dependency edges:\n{}",
        v.join("\n")
    );
}

#[test]
fn every_layer_is_a_workspace_member() {
    let m = metadata();
    let (names, _) = graph(&m);
    let members: BTreeSet<String> = m["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(|id| names.get(id).cloned())
        .collect();
    for c in [
        REFERENCE,
        PROTOCOL,
        DRIVER,
        HARNESS,
        MOCKS,
        FLOOR,
        SPEC,
        PORTS,
        BENCH,
        "toolnexus-conformance",
    ] {
        assert!(members.contains(c), "{c} missing from {members:?}");
    }
}

/// The rules bite: the real metadata with one forbidden edge added is refused, naming the
/// path, for each kind of edge the rules guard.
#[test]
fn an_added_forbidden_edge_is_reported() {
    let real = metadata();
    let (names, _) = graph(&real);
    let id = |n: &str| {
        names
            .iter()
            .find(|(_, name)| name.as_str() == n)
            .map(|(id, _)| id.clone())
            .unwrap_or_else(|| panic!("{n} not in metadata"))
    };
    let add_edge = |from: &str, to: &str, kind: Option<&str>| {
        let mut m = real.clone();
        let (from_id, to_id) = (id(from), id(to));
        for node in m["resolve"]["nodes"].as_array_mut().into_iter().flatten() {
            if node["id"] == json!(from_id) {
                if let Some(deps) = node["deps"].as_array_mut() {
                    deps.push(json!({"pkg": to_id, "dep_kinds": [{"kind": kind}]}));
                }
            }
        }
        violations(&m)
    };
    let cases = [
        (BENCH, HARNESS, None, "toolnexus-bench -> toolnexus-harness"),
        (
            PORTS,
            SPEC,
            Some("dev"),
            "toolnexus-ports -> toolnexus-spec",
        ),
        (
            HARNESS,
            BENCH,
            Some("dev"),
            "toolnexus-harness -> toolnexus-bench",
        ),
        (
            HARNESS,
            REFERENCE,
            None,
            "toolnexus-harness -> toolnexus-reference",
        ),
        (
            HARNESS,
            DRIVER,
            Some("dev"),
            "toolnexus-harness -> toolnexus-driver",
        ),
        (REFERENCE, "clap", None, "toolnexus-reference -> clap"),
        (
            REFERENCE,
            HARNESS,
            None,
            "toolnexus-reference -> toolnexus-harness",
        ),
        (
            MOCKS,
            REFERENCE,
            None,
            "toolnexus-mock-servers -> toolnexus-reference",
        ),
        (
            PROTOCOL,
            REFERENCE,
            None,
            "toolnexus-protocol -> toolnexus-reference",
        ),
        (FLOOR, DRIVER, None, "toolnexus-floor -> toolnexus-driver"),
        (
            FLOOR,
            HARNESS,
            Some("dev"),
            "toolnexus-floor -> toolnexus-harness",
        ),
        (SPEC, PROTOCOL, None, "toolnexus-spec -> toolnexus-protocol"),
        (
            SPEC,
            HARNESS,
            Some("dev"),
            "toolnexus-spec -> toolnexus-harness",
        ),
        (SPEC, "gherkin", None, "toolnexus-spec -> gherkin"),
    ];
    for (from, to, kind, expected) in cases {
        let v = add_edge(from, to, kind);
        assert!(
            v.iter().any(|p| p.starts_with(expected)),
            "adding {from} -> {to} ({kind:?}) was not reported: {v:?}"
        );
    }
    // Transitively too: through an edge to the mock servers, the reference would reach clap.
    let v = add_edge(REFERENCE, MOCKS, None);
    assert!(
        v.iter()
            .any(|p| p == "toolnexus-reference -> toolnexus-mock-servers -> clap"),
        "{v:?}"
    );
}

mod module_graph;

/// The crates whose files must import each other in one direction only: the SPEC's, the
/// port boundary and the bench (issue 45). A circle between files is where one job leaks
/// into another.
const ACYCLIC: [&str; 3] = ["crates/spec", "crates/ports", "crates/bench"];

#[test]
fn no_import_circle_inside_the_layered_crates() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for krate in ACYCLIC {
        let graph = module_graph::ModuleGraph::of_crate(&root.join(krate).join("src"));
        assert!(graph.files.len() > 3, "{krate}: its modules were not read");
        for cycle in graph.cycles() {
            found.push(format!("{krate}: {cycle}"));
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

/// The harness's layers, lowest first: a layer may name those below it, never one above.
/// The core (`scenario`, `compare`, `outcome`) is what every step, the runner and every
/// report build on; a core file naming a step (as `ScenarioState` once held the agent
/// steps' state) makes every step change a core change.
const HARNESS_LAYERS: [&[&str]; 4] = [
    &["scenario", "compare", "outcome"],
    &["steps"],
    &["run"],
    &["reporting"],
];

#[test]
fn the_harness_layers_point_down() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = module_graph::ModuleGraph::of_crate(&root.join("crates/harness/src"));
    let mut found = Vec::new();
    for (i, layer) in HARNESS_LAYERS.iter().enumerate() {
        let above: Vec<&str> = HARNESS_LAYERS[i + 1..]
            .iter()
            .flat_map(|l| l.iter().copied())
            .collect();
        found.extend(graph.edges_between(layer, &above));
    }
    assert!(
        found.is_empty(),
        "edges up the harness's layers:\n{}",
        found.join("\n")
    );
    // The rule bites: the runner does name the steps, the other way round.
    assert!(!graph.edges_between(&["run"], &["steps"]).is_empty());
}
