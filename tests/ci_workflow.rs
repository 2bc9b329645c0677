//! The CI jobs port maintainers copy (`docs/ci/*.yml`, shown whole in
//! docs/port-maintainers.md), run here so they cannot rot: every shell step, in a fresh folder
//! laid out as a port's repository, against the starter port, with the built binary standing
//! in for the installed harness (the cache-hit path of the install step: `cargo install` from
//! a git URL is measured apart, in the README; its arguments are checked here). The step that
//! sets up the port is the port's own, in its language; for the starter it is its kit on
//! `PYTHONPATH`. `.ci/run` checks the files themselves with actionlint and shellcheck.
//!
//! Needs python3 and bash; without them the runs say `SKIPPED:` on stderr (a failure under
//! `TOOLNEXUS_REQUIRE_PEERS=1`, as CI runs it).

mod optional;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use yaml_rust2::{Yaml, YamlLoader};

/// The checkout.
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The workflow file `docs/ci/NAME`, parsed.
fn workflow(name: &str) -> Yaml {
    let text = std::fs::read_to_string(repo().join("docs/ci").join(name))
        .unwrap_or_else(|e| panic!("docs/ci/{name}: {e}"));
    YamlLoader::load_from_str(&text)
        .ok()
        .and_then(|mut docs| docs.drain(..).next())
        .unwrap_or_else(|| panic!("docs/ci/{name} is not YAML"))
}

/// A step to run: its name and its `run` script.
struct Step {
    name: String,
    script: String,
}

/// The one job's environment (the workflow's `env`, then the job's) and its steps with a
/// `run` script, `${{ matrix.KEY }}` replaced from the matrix's first `include` entry as the
/// runner would.
fn job(doc: &Yaml) -> (BTreeMap<String, String>, Vec<Step>) {
    let job = &doc["jobs"]["conformance"];
    assert!(!job.is_badvalue(), "the workflow has no `conformance` job");
    let matrix = &job["strategy"]["matrix"]["include"][0];
    let expand = |text: &str| {
        let mut text = text.to_string();
        if let Some(cell) = matrix.as_hash() {
            for (key, value) in cell {
                let (Some(key), Some(value)) = (key.as_str(), value.as_str()) else {
                    continue;
                };
                text = text.replace(&format!("${{{{ matrix.{key} }}}}"), value);
            }
        }
        text
    };
    let mut env = BTreeMap::new();
    for block in [&doc["env"], &job["env"]] {
        for (key, value) in block.as_hash().into_iter().flatten() {
            if let (Some(key), Some(value)) = (key.as_str(), value.as_str()) {
                env.insert(key.to_string(), expand(value));
            }
        }
    }
    let steps = job["steps"]
        .as_vec()
        .into_iter()
        .flatten()
        .filter_map(|step| {
            Some(Step {
                name: step["name"].as_str().unwrap_or_default().to_string(),
                script: expand(step["run"].as_str()?),
            })
        })
        .collect();
    (env, steps)
}

/// A folder laid out as a port's repository whose driver is the starter, with the built
/// binary installed on a `PATH` of its own.
struct PortRepo {
    _dirs: tempfile::TempDir,
    root: PathBuf,
    bin: PathBuf,
    home: PathBuf,
}

impl PortRepo {
    fn new() -> PortRepo {
        let dirs = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (root, bin, home) = (
            dirs.path().join("port"),
            dirs.path().join("bin"),
            dirs.path().join("home"),
        );
        for d in [&root.join("conformance"), &bin, &home.join("tmp")] {
            std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::copy(
            repo().join("conformance/ports/starter/driver.py"),
            root.join("conformance/driver.py"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        std::fs::copy(
            env!("CARGO_BIN_EXE_toolnexus-conformance"),
            bin.join("toolnexus-conformance"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        PortRepo {
            _dirs: dirs,
            root,
            bin,
            home,
        }
    }

    /// `script` as a GitHub runner runs a `run` step (`bash -eo pipefail`), in the
    /// repository, with the job's environment.
    fn run_step(&self, script: &str, env: &BTreeMap<String, String>) -> Output {
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = Command::new("bash");
        command
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .current_dir(&self.root)
            .envs(env)
            .env("PATH", path)
            .env("HOME", &self.home)
            .env("TMPDIR", self.home.join("tmp"))
            .env(
                "PYTHONPATH",
                repo().join("conformance/kits/python").as_os_str(),
            )
            .env_remove("TOOLNEXUS_CONFORMANCE_ROOT")
            .env_remove("TOOLNEXUS_CONFORMANCE_EMBEDDED")
            .env_remove("TOOLNEXUS_CONFORMANCE_CACHE")
            .env_remove("XDG_CACHE_HOME");
        // A test forking on another thread while the binary was copied holds the copy open
        // until its own exec; bash then finds the file busy. Try again a few times.
        for _ in 0..100 {
            let out = command.output().unwrap_or_else(|e| panic!("{e}"));
            if !String::from_utf8_lossy(&out.stderr).contains("Text file busy") {
                return out;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        command.output().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Runs every step but the port's own set-up; each must succeed.
    fn run_job(&self, env: &BTreeMap<String, String>, steps: &[Step]) {
        for step in steps {
            if step.name.starts_with("Set up") {
                continue;
            }
            let out = self.run_step(&step.script, env);
            assert!(
                out.status.success(),
                "step {:?} failed: {:?}\nstdout: {}\nstderr: {}",
                step.name,
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// The starter's failing scenarios, from a run with no expected-failures file.
    fn starter_failures(&self, spec: Option<&str>) -> Vec<String> {
        let mut script =
            "toolnexus-conformance run --port 'python3 conformance/driver.py' --format json"
                .to_string();
        if let Some(spec) = spec {
            script.push_str(&format!(" --spec {spec}"));
        }
        script.push_str(" || true");
        let out = self.run_step(&script, &BTreeMap::new());
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        report["scenarios"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|s| s["status"] == "failed")
            .filter_map(|s| s["name"].as_str().map(str::to_string))
            .collect()
    }

    fn write(&self, path: &str, text: &str) {
        std::fs::write(self.root.join(path), text).unwrap_or_else(|e| panic!("{e}"));
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root.join(path))
            .unwrap_or_else(|e| panic!("{path} was not written: {e}"))
    }
}

fn have_peers() -> bool {
    optional::have_tools(
        optional::REQUIRE_PEERS,
        &["python3", "bash"],
        "the CI workflow's steps (tests/ci_workflow.rs)",
    )
}

/// The reports the run step wrote under `reports`: JUnit, JSON naming the harness, HTML.
fn assert_reports(repo: &PortRepo, reports: &str) {
    let junit = repo.read(&format!("{reports}/junit.xml"));
    assert!(
        junit.starts_with("<?xml") && junit.contains("<testsuite"),
        "{junit}"
    );
    let json: Value = serde_json::from_str(&repo.read(&format!("{reports}/report.json")))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(json["harness"]["protocol"], 1, "{}", json["harness"]);
    assert!(json["summary"]["passed"].as_u64() > Some(0));
    let html = repo.read(&format!("{reports}/report.html"));
    assert!(html.contains("<html"), "{}", &html[..html.len().min(200)]);
}

#[test]
fn the_workflow_runs_against_the_starter_and_fails_on_a_new_failure() {
    if !have_peers() {
        return;
    }
    let (env, steps) = job(&workflow("toolnexus-conformance.yml"));
    let names: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["Install the harness", "Set up the port", "Run the suite"]
    );
    let repo = PortRepo::new();
    let (expected, reports) = (&env["EXPECTED_FAILURES"], &env["REPORTS"]);
    // The starter as it is, with no known failure: the job passes and leaves its reports.
    repo.write(expected, "# no known failures\n");
    repo.run_job(&env, &steps);
    assert_reports(&repo, reports);

    // A bug in the port (SPEC §0.2's sanitize replacing with "-" instead of "_") is a new
    // failure: the run step fails, and the reports name each scenario it broke.
    let driver = repo.read("conformance/driver.py");
    let bug = r#"re.sub(r"[^a-zA-Z0-9_-]", "_", name)"#;
    assert!(driver.contains(bug), "the starter's sanitize moved");
    repo.write(
        "conformance/driver.py",
        &driver.replace(bug, r#"re.sub(r"[^a-zA-Z0-9_-]", "-", name)"#),
    );
    let run = &steps[steps.len() - 1];
    let out = repo.run_step(&run.script, &env);
    assert_eq!(out.status.code(), Some(1), "{:?}", out.status);
    let json: Value = serde_json::from_str(&repo.read(&format!("{reports}/report.json")))
        .unwrap_or_else(|e| panic!("{e}"));
    let new: Vec<&str> = json["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["status"] == "failed" && s["known"] != true)
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(!new.is_empty(), "the bug failed nothing");
    let junit = repo.read(&format!("{reports}/junit.xml"));
    assert_eq!(junit.matches("<failure").count(), new.len(), "{junit}");

    // Listed in the port's expected-failures file, the same failures pass the job again.
    let failures = repo.starter_failures(None);
    assert_eq!(failures.len(), new.len());
    repo.write(
        expected,
        &format!("# sanitize replaces with \"-\"\n{}\n", failures.join("\n")),
    );
    repo.run_job(&env, &steps);
    assert_reports(&repo, reports);
}

#[test]
fn the_matrix_workflow_runs_its_first_cell_against_the_starter() {
    if !have_peers() {
        return;
    }
    let doc = workflow("toolnexus-conformance-matrix.yml");
    let (env, steps) = job(&doc);
    let cell = &doc["jobs"]["conformance"]["strategy"]["matrix"]["include"][0];
    let (release, spec) = (
        cell["release"].as_str().unwrap_or_default(),
        cell["spec"].as_str().unwrap_or_default(),
    );
    assert!(!release.is_empty() && !spec.is_empty(), "{cell:?}");
    let repo = PortRepo::new();
    let failures = repo.starter_failures(Some(spec));
    repo.write(
        &format!("conformance/expected-failures-{release}.txt"),
        &failures.join("\n"),
    );
    repo.run_job(&env, &steps);
    let reports = &env["REPORTS"];
    assert!(
        reports.contains(release) && reports.contains(spec),
        "{reports}"
    );
    assert_reports(&repo, reports);
}

/// The install step is not run here (it is `cargo install`, minutes long); what it is given
/// is checked: `--rev` takes a commit or a tag, and cargo refuses a branch name there.
#[test]
fn each_workflow_installs_a_commit_of_the_harness() {
    for name in [
        "toolnexus-conformance.yml",
        "toolnexus-conformance-matrix.yml",
    ] {
        let (env, steps) = job(&workflow(name));
        let rev = &env["HARNESS_REV"];
        assert!(
            rev.len() == 40 && rev.chars().all(|c| c.is_ascii_hexdigit()),
            "{name}: HARNESS_REV {rev:?} is not a commit"
        );
        let install = steps
            .iter()
            .find(|s| s.name == "Install the harness")
            .unwrap_or_else(|| panic!("{name}: no install step"));
        assert!(
            install
                .script
                .contains("cargo install --locked --git \"$HARNESS_GIT\" --rev \"$HARNESS_REV\" toolnexus-conformance"),
            "{name}: {}",
            install.script
        );
    }
}

#[test]
fn the_guide_shows_each_workflow_as_it_is_checked() {
    let guide = std::fs::read_to_string(repo().join("docs/port-maintainers.md"))
        .unwrap_or_else(|e| panic!("{e}"));
    for name in [
        "toolnexus-conformance.yml",
        "toolnexus-conformance-matrix.yml",
    ] {
        let text = std::fs::read_to_string(repo().join("docs/ci").join(name))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            guide.contains(&format!("```yaml\n{text}```")),
            "docs/port-maintainers.md does not show docs/ci/{name} as it is"
        );
    }
}
