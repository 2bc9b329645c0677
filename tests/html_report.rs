//! The HTML report end to end: the whole suite is run against the in-process reference and
//! against a deliberately broken wrapper of it, both reports are rendered into one page, and
//! headless Chromium loads the page (DOM dump and screenshot) to show it is a real,
//! self-contained document with the matrix, both ports and the failures in their cells.

mod optional;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;
use toolnexus_harness::outcome::model::{RunReport, Status};
use toolnexus_harness::reporting::html::render;
use toolnexus_harness::run::runner::run;
use toolnexus_harness::scenario::features::load;
use toolnexus_harness::scenario::state::Env;
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::{Port, PortError};

const CHROMIUM_TIMEOUT: Duration = Duration::from_secs(60);
/// The section the broken port claims not to implement, so the page also shows skips.
const DROPPED_SECTION: &str = "6";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The reference with its answers corrupted: another name, one section dropped from
/// `implements`, the tools of every build reversed, adapter arrays reversed and the first
/// character of every tool output changed.
struct BrokenPort {
    inner: InProcessPort,
}

#[async_trait]
impl Port for BrokenPort {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        let cmd = request
            .get("cmd")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let mut response = self.inner.call(request).await?;
        match cmd.as_str() {
            "hello" => {
                response["port"]["name"] = Value::from("broken");
                response["port"]["language"] = Value::from("rust (mangled)");
                if let Some(list) = response.get_mut("implements").and_then(Value::as_array_mut) {
                    list.retain(|s| s != DROPPED_SECTION);
                }
            }
            "build" | "tools" => {
                if let Some(tools) = response.get_mut("tools").and_then(Value::as_array_mut) {
                    tools.reverse();
                }
            }
            "adapter" => {
                if let Some(out) = response.get_mut("output").and_then(Value::as_array_mut) {
                    out.reverse();
                }
            }
            "execute" => {
                if let Some(Value::String(out)) = response.pointer_mut("/result/output") {
                    let rest: String = out.chars().skip(1).collect();
                    *out = format!("#{rest}");
                }
            }
            _ => {}
        }
        Ok(response)
    }

    async fn ensure_ready(&mut self) -> Result<(), PortError> {
        self.inner.ensure_ready().await
    }

    async fn shutdown(&mut self) {
        self.inner.shutdown().await;
    }
}

async fn reports() -> (RunReport, RunReport) {
    // The secret scenarios need the canary in the environment, as the CLI's `main` puts it.
    toolnexus_ports::secret::ensure();
    let root = root();
    let (scenarios, errors) = load(&root.join("features"));
    assert!(
        errors.is_empty(),
        "feature files that do not parse: {errors:?}"
    );
    let env = Env::from_root(&root).with_mock_bin(env!("CARGO_BIN_EXE_toolnexus-conformance"));
    let mut reference = InProcessPort::new(toolnexus_driver::ReferenceSession::new());
    let good = run(&mut reference, &env, &scenarios, "reference", &mut |_| {}).await;
    let mut broken = BrokenPort {
        inner: InProcessPort::new(toolnexus_driver::ReferenceSession::new()),
    };
    let bad = run(&mut broken, &env, &scenarios, "broken", &mut |_| {}).await;
    (good, bad)
}

/// Runs the browser `chrome` with `args`, stdout to `stdout`, killing it after
/// `CHROMIUM_TIMEOUT`.
fn chromium(chrome: &Path, args: &[String], stdout: &Path, stderr: &Path) {
    let mut child = Command::new(chrome)
        .args(args)
        .stdin(Stdio::null())
        .stdout(File::create(stdout).expect("stdout file"))
        .stderr(File::create(stderr).expect("stderr file"))
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + CHROMIUM_TIMEOUT;
    loop {
        match child.try_wait().expect("wait for chromium") {
            Some(status) => {
                let err = std::fs::read_to_string(stderr).unwrap_or_default();
                assert!(status.success(), "chromium exited with {status}:\n{err}");
                return;
            }
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                let err = std::fs::read_to_string(stderr).unwrap_or_default();
                panic!("chromium did not finish within {CHROMIUM_TIMEOUT:?}; killed it:\n{err}");
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

fn chromium_args(profile: &Path, extra: &[String]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    args.extend_from_slice(extra);
    args
}

/// Text as Chromium's DOM serialiser writes it in element content.
fn dom_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\u{a0}', "&nbsp;")
}

/// The `<td>…</td>` of the matrix cell for `section` and port column `port`.
fn matrix_cell<'a>(dom: &'a str, section: &str, port: usize) -> &'a str {
    let marker = format!("data-section=\"{section}\" data-port=\"{port}\"");
    let at = dom
        .find(&marker)
        .unwrap_or_else(|| panic!("no matrix cell for section {section}, port {port}"));
    let start = dom[..at].rfind("<td").expect("cell start");
    let end = at + dom[at..].find("</td>").expect("cell end");
    &dom[start..end]
}

#[tokio::test(flavor = "multi_thread")]
async fn the_page_renders_in_chromium_with_failures_drilled_down() {
    let Some(chrome) = optional::browser() else {
        optional::skip_or_fail(
            optional::REQUIRE_BROWSER,
            "no Chromium/Chrome found (chromium, chromium-browser, google-chrome on PATH, or $CHROME), so the HTML report browser check did not run",
            "install one (`apt-get install -y chromium`) or set CHROME=/path/to/chrome to run it",
        );
        return;
    };
    let (good, bad) = reports().await;
    assert_eq!(good.port.name, "reference");
    assert_eq!(bad.port.name, "broken");
    assert_eq!(
        good.summary.failed, 0,
        "the reference fails: {:?}",
        good.summary
    );
    assert!(bad.summary.failed > 0, "the broken port passes everything");
    assert!(bad.summary.skipped > 0, "the broken port skips nothing");

    let html = render(&[good.clone(), bad.clone()]);
    assert!(no_assets(&html), "the page references a remote asset");
    assert!(!html.contains("<script"), "the page carries a script");

    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html_report");
    std::fs::create_dir_all(&out).expect("output dir");
    let page = out.join("report.html");
    std::fs::write(&page, &html).expect("write page");
    let profile = tempfile::tempdir().expect("profile dir");
    let url = format!("file://{}", page.display());

    let dom_file = out.join("dom.html");
    chromium(
        &chrome,
        &chromium_args(profile.path(), &["--dump-dom".into(), url.clone()]),
        &dom_file,
        &out.join("dump-dom.stderr"),
    );
    let dom = std::fs::read_to_string(&dom_file).expect("read DOM");
    assert!(
        dom.contains("<table class=\"matrix\" id=\"matrix\">"),
        "{dom}"
    );
    assert!(dom.contains("<table class=\"scenarios\" id=\"scenarios\">"));
    assert!(dom.contains("<span class=\"pname\">reference</span>"));
    assert!(dom.contains("<span class=\"pname\">broken</span>"));
    assert!(dom.contains("toolnexus conformance — SPEC 0.16.0"));
    for section in good.sections.keys() {
        assert!(
            dom.contains(&format!(
                "<tr class=\"section-row\" data-section=\"{section}\">"
            )),
            "no row for section {section}"
        );
    }
    // Every failure of the broken port sits inside a <details> of its own section's cell
    // in the broken port's column (index 1), and not in the reference's column; a failure
    // of a @beyond-spec scenario sits in the "beyond the SPEC" row instead, shaded softly.
    let failures: Vec<_> = bad
        .scenarios
        .iter()
        .filter(|s| s.status == Status::Failed)
        .collect();
    assert!(failures.iter().any(|f| !f.beyond_spec));
    for f in &failures {
        let (row, class) = if f.beyond_spec {
            ("beyond-spec", "class=\"cell beyond-fail\"")
        } else {
            (f.section.as_str(), "class=\"cell fail\"")
        };
        let cell = matrix_cell(&dom, row, 1);
        assert!(cell.contains(class), "{cell}");
        let details = &cell[cell.find("<details>").expect("details in a failing cell")..];
        assert!(
            details.contains(&dom_text(&f.name)),
            "failure {:?} is not in its cell's details",
            f.name
        );
        assert!(!matrix_cell(&dom, row, 0).contains(&dom_text(&f.name)));
    }
    // A diff made it through, coloured.
    assert!(
        dom.contains("<span class=\"add\">+"),
        "no coloured diff line"
    );
    assert!(dom.contains("<span class=\"del\">-"));
    // The dropped section is all skipped for the broken port, with the reason.
    let skipped = matrix_cell(&dom, DROPPED_SECTION, 1);
    assert!(skipped.contains("class=\"cell skip\""), "{skipped}");
    assert!(skipped.contains("port does not implement SPEC section"));

    let shot = out.join("page.png");
    let _ = std::fs::remove_file(&shot);
    chromium(
        &chrome,
        &chromium_args(
            profile.path(),
            &[
                format!("--screenshot={}", shot.display()),
                "--window-size=1400,1000".into(),
                url,
            ],
        ),
        &out.join("screenshot.stdout"),
        &out.join("screenshot.stderr"),
    );
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(png.len() > 20_000, "screenshot is only {} bytes", png.len());
    eprintln!("page: {}\nscreenshot: {}", page.display(), shot.display());
}

/// The page pulls nothing from the network: no src/href to a remote URL, no @import.
fn no_assets(html: &str) -> bool {
    !html.contains("src=\"http")
        && !html.contains("href=\"http")
        && !html.contains("@import")
        && !html.contains("url(http")
}
