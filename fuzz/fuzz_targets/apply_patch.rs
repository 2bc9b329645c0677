//! Fuzzes the reference's `apply_patch` parser and hunk applier (pure, no filesystem).
//!
//! The input is `file content` NUL `patch text` (no NUL: the whole input is the patch and
//! also the content). Any panic is a bug: a malformed patch must be an `Err`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolnexus_reference::builtins::apply_patch::{apply_update, parse_patch, PatchOp};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (content, patch) = text.split_once('\0').unwrap_or((&text, &text));
    if let Ok(ops) = parse_patch(patch) {
        for op in ops {
            if let PatchOp::Update { body, .. } = op {
                let _ = apply_update(content, &body);
            }
        }
    }
});
