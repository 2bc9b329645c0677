//! `run --trace`: every message exchanged with a port, as JSON lines, for a driver's author
//! to read or check with `validate-trace` (PROTOCOL.md §11).

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

/// The default cap on a trace file: a runaway driver must not fill the disk.
pub const MAX_TRACE_BYTES: u64 = 256 * 1024 * 1024;

/// The most characters of an unparseable answer line a trace keeps.
pub const MAX_RAW_CHARS: usize = 64 * 1024;

struct State {
    file: File,
    written: u64,
    limit: u64,
    truncated: bool,
}

/// A shared trace sink; clones write to the same file, in call order.
#[derive(Clone)]
pub struct Tracer {
    state: Arc<Mutex<State>>,
    /// The worker (`run --jobs N`) whose port this tracer records, named in every line.
    worker: Option<usize>,
    /// The scenario the worker runs, shared by this tracer's clones.
    scenario: Arc<Mutex<Option<String>>>,
}

impl Tracer {
    /// Creates (truncates) `path`, capped at [`MAX_TRACE_BYTES`].
    pub fn create(path: &Path) -> Result<Self, String> {
        Self::with_limit(path, MAX_TRACE_BYTES)
    }

    /// Creates (truncates) `path`, capped at `limit` bytes (plus the final truncation note).
    pub fn with_limit(path: &Path, limit: u64) -> Result<Self, String> {
        let file = File::create(path)
            .map_err(|e| format!("cannot create trace file {}: {e}", path.display()))?;
        Ok(Self {
            state: Arc::new(Mutex::new(State {
                file,
                written: 0,
                limit,
                truncated: false,
            })),
            worker: None,
            scenario: Arc::new(Mutex::new(None)),
        })
    }

    /// A tracer writing to the same file for worker `n` of a parallel run: its lines carry
    /// `"worker": n`, so each driver's sequence can be followed on its own.
    pub fn for_worker(&self, n: usize) -> Tracer {
        Tracer {
            state: Arc::clone(&self.state),
            worker: Some(n),
            scenario: Arc::new(Mutex::new(None)),
        }
    }

    /// Names the scenario the following lines belong to.
    pub fn scenario(&self, name: &str) {
        if let Ok(mut s) = self.scenario.lock() {
            *s = Some(name.to_string());
        }
    }

    /// Records a request as sent, its payloads cut ([`Self::message`]).
    pub fn request(&self, msg: &Value) {
        self.message("request", msg);
    }

    /// Records an answer as received, its payloads cut ([`Self::message`]).
    pub fn answer(&self, msg: &Value) {
        self.message("answer", msg);
    }

    /// A message without its base64 payloads (`crate::payload`): each is cut to a head that is
    /// still base64, so the line still matches the protocol schema, and the line's `elided`
    /// lists where and how long each was. A 64 MiB image is not copied, nor written.
    fn message(&self, dir: &str, msg: &Value) {
        let mut elided = Vec::new();
        let shown = crate::payload::elide(msg, &mut elided);
        let elided: Vec<Value> = elided
            .into_iter()
            .map(|e| json!({"path": e.path, "chars": e.chars}))
            .collect();
        self.write(dir, "msg", shown, elided);
    }

    /// Records an answer line that is not a JSON object, shortened to [`MAX_RAW_CHARS`].
    pub fn raw_answer(&self, text: &str) {
        let count = text.chars().count();
        let kept = if count > MAX_RAW_CHARS {
            let cut: String = text.chars().take(MAX_RAW_CHARS).collect();
            format!("{cut}… (truncated: {count} chars)")
        } else {
            text.to_string()
        };
        let kept = crate::payload::shorten_text(&kept).into_owned();
        self.write("answer", "raw", Value::String(kept), Vec::new());
    }

    fn write(&self, dir: &str, key: &str, payload: Value, elided: Vec<Value>) {
        let scenario = self.scenario.lock().ok().and_then(|s| s.clone());
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        if s.truncated {
            return;
        }
        let mut entry = json!({ "dir": dir });
        if let Some(n) = self.worker {
            entry["worker"] = json!(n);
        }
        if let Some(name) = scenario {
            entry["scenario"] = Value::String(name);
        }
        entry[key] = payload;
        if !elided.is_empty() {
            entry["elided"] = Value::Array(elided);
        }
        // The secret is plain ASCII, so it reads the same inside escaped JSON text.
        let mut line = crate::secret::redact(&entry.to_string());
        line.push('\n');
        if s.written + line.len() as u64 > s.limit {
            s.truncated = true;
            let note = json!({
                "dir": "truncated",
                "note": format!("trace truncated: the file reached its cap of {} bytes", s.limit)
            });
            let _ = writeln!(s.file, "{note}");
            return;
        }
        // A trace is a diagnostic: a failed write must not fail the run.
        if s.file.write_all(line.as_bytes()).is_ok() {
            s.written += line.len() as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolnexus_protocol::{Framed, Request};

    #[test]
    fn the_cap_ends_the_file_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let t = Tracer::with_limit(&path, 100).unwrap();
        for _ in 0..10 {
            let value = "aaaaaaaaaa".to_string();
            t.request(&Framed::new(Request::Sanitize { value }, None).to_value());
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() < 10, "{text}");
        assert!(lines.last().unwrap().contains("\"truncated\""), "{text}");
        assert!(text.len() < 300);
    }

    #[test]
    fn a_payload_is_cut_and_listed_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let t = Tracer::create(&path).unwrap();
        let data = "AAAA".repeat(1 << 18);
        t.answer(
            &json!({"ok": true, "seq": 3, "result": {"output": "", "isError": false,
            "parts": [{"type": "image", "mimeType": "image/png", "data": data}]}}),
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.len() < 1000, "{text}");
        let line: Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(
            line["msg"]["result"]["parts"][0]["data"],
            "A".repeat(crate::payload::KEPT)
        );
        assert_eq!(
            line["elided"],
            json!([{"path": "$.result.parts[0].data", "chars": 1 << 20}])
        );
    }

    #[test]
    fn a_long_raw_answer_is_shortened_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let t = Tracer::create(&path).unwrap();
        t.raw_answer(&"x".repeat(MAX_RAW_CHARS + 10));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.len() < MAX_RAW_CHARS + 200);
        assert!(text.contains("truncated:"), "{}", &text[text.len() - 100..]);
    }
}
