//! Benchmarks of the §4A `grep` and `glob` builtins against ripgrep on one thread.
//!
//! `cargo bench --bench builtins` generates (once, deterministically) a tree of 20,000 small
//! text files in 200 directories, then measures, in the same run and on the same tree:
//!
//! - group `grep`: the reference `grep` builtin (`Tool::execute`, all matches returned) and
//!   `rg -j1 -n --no-heading --color never <token> <tree>`;
//! - group `glob`: the reference `glob` builtin and `rg -j1 --files -g <glob> <tree>`.
//!
//! criterion reports each function's time; a final interleaved timing loop prints the medians
//! side by side with the ratio reference / `rg -j1`. Without `rg` on the PATH only the
//! reference is measured and the summary says that rg is missing.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion};
use serde_json::{json, Value};
use toolnexus_bench::stats;
use toolnexus_reference::builtins::create_builtin_tools;
use toolnexus_reference::tool::{Context, Tool};

/// Directories in the tree (20 top-level × 10 nested).
const TOP_DIRS: usize = 20;
const SUB_DIRS: usize = 10;
/// Files per leaf directory.
const FILES_PER_DIR: usize = 100;
const TOTAL_FILES: usize = TOP_DIRS * SUB_DIRS * FILES_PER_DIR;
/// The searched token; one line of every tenth file holds it.
const TOKEN: &str = "needle_7f3a";
/// The glob; every tenth file (a different tenth) has the `.md` extension.
const GLOB: &str = "*.md";
const EXPECTED_GREP: usize = TOTAL_FILES / 10;
const EXPECTED_GLOB: usize = TOTAL_FILES / 10;
/// Runs per side in the final side-by-side timing loop.
const SUMMARY_RUNS: usize = 10;

/// Writes the tree under `root`: `dNN/sN/fNNN.{txt,md}`, five to six short lines per file.
fn generate_tree(root: &Path) {
    let mut n = 0usize;
    for top in 0..TOP_DIRS {
        for sub in 0..SUB_DIRS {
            let dir = root.join(format!("d{top:02}/s{sub}"));
            std::fs::create_dir_all(&dir).expect("create bench dir");
            for f in 0..FILES_PER_DIR {
                let ext = if n % 10 == 5 { "md" } else { "txt" };
                let mut text = String::new();
                for line in 0..5 {
                    text.push_str(&format!(
                        "line {line} of file {n}: the quick brown fox jumps over the lazy dog {}\n",
                        (n * 31 + line * 7) % 1000
                    ));
                    if line == 2 && n % 10 == 3 {
                        text.push_str(&format!("let value_{n} = {TOKEN}(42);\n"));
                    }
                }
                std::fs::write(dir.join(format!("f{f:03}.{ext}")), text).expect("write bench file");
                n += 1;
            }
        }
    }
}

fn tool(name: &str) -> Tool {
    create_builtin_tools()
        .into_iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("builtin {name} missing"))
}

/// One reference call; returns the number of output lines (matches or paths).
fn run_reference(rt: &tokio::runtime::Runtime, tool: &Tool, args: &Value) -> usize {
    let r = rt.block_on(tool.execute(args.clone(), &Context::default()));
    assert!(!r.is_error, "{}: {}", tool.name, r.output);
    r.output.lines().count()
}

/// One `rg` process; returns the number of output lines.
fn run_rg(args: &[&str]) -> usize {
    let out = Command::new("rg").args(args).output().expect("run rg");
    assert!(out.status.success(), "rg {args:?}: {:?}", out.status);
    out.stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count()
}

fn rg_available() -> bool {
    Command::new("rg")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// One compared operation: the reference call and the equivalent `rg -j1` command.
struct Case {
    group: &'static str,
    tool: Tool,
    args: Value,
    rg_args: Vec<String>,
    expected: usize,
}

impl Case {
    fn rg_args(&self) -> Vec<&str> {
        self.rg_args.iter().map(String::as_str).collect()
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The median of `times` in milliseconds, as `bench` computes it (`bench::stats`).
fn median_ms(times: &[Duration]) -> f64 {
    let samples: Vec<f64> = times.iter().copied().map(ms).collect();
    stats::of(&samples).map_or(f64::NAN, |s| s.median)
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = dir.path().join("tree");
    let t0 = Instant::now();
    generate_tree(&tree);
    let tree_s = tree.to_str().expect("UTF-8 temp path").to_string();
    eprintln!(
        "builtins bench: {TOTAL_FILES} files under {tree_s} (generated in {:.1} s)",
        t0.elapsed().as_secs_f64()
    );

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let rg = rg_available();
    if !rg {
        eprintln!(
            "builtins bench: rg is missing (apt-get install ripgrep); measuring the reference only"
        );
    }

    let limit = TOTAL_FILES * 10;
    let cases = [
        Case {
            group: "grep",
            tool: tool("grep"),
            args: json!({"pattern": TOKEN, "path": tree_s, "limit": limit}),
            rg_args: [
                "-j1",
                "-n",
                "--no-heading",
                "--color",
                "never",
                TOKEN,
                &tree_s,
            ]
            .map(String::from)
            .to_vec(),
            expected: EXPECTED_GREP,
        },
        Case {
            group: "glob",
            tool: tool("glob"),
            args: json!({"pattern": GLOB, "path": tree_s, "limit": limit}),
            rg_args: ["-j1", "--files", "-g", GLOB, &tree_s]
                .map(String::from)
                .to_vec(),
            expected: EXPECTED_GLOB,
        },
    ];

    // Both sides must return every match before anything is measured.
    for case in &cases {
        let got = run_reference(&rt, &case.tool, &case.args);
        assert_eq!(got, case.expected, "reference {} count", case.group);
        if rg {
            let got = run_rg(&case.rg_args());
            assert_eq!(got, case.expected, "rg -j1 {} count", case.group);
        }
    }

    let mut c = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .warm_up_time(Duration::from_secs(2))
        .configure_from_args();
    for case in &cases {
        let mut group = c.benchmark_group(case.group);
        group.bench_function(BenchmarkId::from_parameter("reference"), |b| {
            b.iter(|| run_reference(&rt, &case.tool, &case.args))
        });
        if rg {
            let rg_args = case.rg_args();
            group.bench_function(BenchmarkId::from_parameter("rg -j1"), |b| {
                b.iter(|| run_rg(&rg_args))
            });
        }
        group.finish();
    }
    c.final_summary();

    // `--list`, criterion's quick test mode and `--profile-time` need no summary.
    let args: Vec<String> = std::env::args().collect();
    if args
        .iter()
        .any(|a| a == "--list" || a == "--test" || a == "--profile-time")
    {
        return;
    }

    // Side by side: interleaved runs of both sides, medians and the ratio reference / rg -j1.
    println!(
        "\nside by side ({SUMMARY_RUNS} interleaved runs each, medians, {TOTAL_FILES} files):"
    );
    for case in &cases {
        let mut reference = Vec::with_capacity(SUMMARY_RUNS);
        let mut ripgrep = Vec::with_capacity(SUMMARY_RUNS);
        for _ in 0..SUMMARY_RUNS {
            let t = Instant::now();
            std::hint::black_box(run_reference(&rt, &case.tool, &case.args));
            reference.push(t.elapsed());
            if rg {
                let rg_args = case.rg_args();
                let t = Instant::now();
                std::hint::black_box(run_rg(&rg_args));
                ripgrep.push(t.elapsed());
            }
        }
        let r = median_ms(&reference);
        if rg {
            let g = median_ms(&ripgrep);
            println!(
                "{}: reference {r:.1} ms, rg -j1 {g:.1} ms, ratio {:.2}",
                case.group,
                r / g
            );
        } else {
            println!(
                "{}: reference {r:.1} ms, rg -j1 missing (apt-get install ripgrep), no ratio",
                case.group
            );
        }
    }
}
