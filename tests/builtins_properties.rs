//! Property tests for the §4A builtins that mutate files, run through the public tool
//! surface (`create_builtin_tools()` + `Tool::execute`) on temp directories and checked
//! against small oracles written from the SPEC text:
//!
//! 1. `edit`: replacing a unique marker and replacing it back restores the original bytes;
//!    `replaceAll` equals `str::replace`, and without it a non-unique or absent `oldString`
//!    is an error that leaves the file alone (§4A `edit`).
//! 2. `apply_patch`: an Update patch built from random line lists (with context) turns the
//!    old text into the new one and its inverse turns it back, with Add/Delete riding along
//!    in the same patch (§4A `apply_patch`).
//! 3. `apply_patch` on random bytes and on random grammar-shaped lines always answers with a
//!    `ToolResult` (no panic caught on the way), and a failed patch changes no file.
//!
//! Every path handed to the tools is absolute and inside a fresh temp dir; the process cwd
//! is moved into a temp dir too, so a relative path in random input cannot touch the checkout.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{json, Value};

use toolnexus_reference::builtins::create_builtin_tools;
use toolnexus_reference::{Context, Tool, ToolResult};

// ---------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------

/// Moves the process cwd once into an emptied folder of cargo's per-target temp dir. Not a
/// `TempDir`: a static is never dropped, so one would leave a folder in `/tmp` every run.
fn sandbox_cwd() {
    static CWD: OnceLock<()> = OnceLock::new();
    CWD.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("builtins-properties-cwd");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp cwd");
        std::env::set_current_dir(&dir).expect("chdir into temp cwd");
    });
}

fn builtin(name: &str) -> Tool {
    create_builtin_tools()
        .into_iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no builtin {name}"))
}

/// Executes one builtin on a fresh current-thread runtime (one per proptest case).
fn exec(name: &str, args: Value) -> ToolResult {
    sandbox_cwd();
    let tool = builtin(name);
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(tool.execute(args, &Context::default()))
}

/// A panic inside a builtin is turned into an isError result on the way out (by
/// `Tool::execute` or the blocking-task join); those results must never be seen here.
fn assert_no_panic(r: &ToolResult) -> Result<(), TestCaseError> {
    prop_assert!(
        !r.output.contains("panicked") && !r.output.starts_with("tool \""),
        "a panic was caught on the way out: {}",
        r.output
    );
    Ok(())
}

/// Every file under `dir` (recursively) as relative path → bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.expect("walk temp dir");
        if entry.file_type().is_file() {
            let rel = entry
                .path()
                .strip_prefix(dir)
                .expect("under dir")
                .to_string_lossy()
                .into_owned();
            out.insert(rel, std::fs::read(entry.path()).expect("read temp file"));
        }
    }
    out
}

fn path_str(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------------------
// 1. edit
// ---------------------------------------------------------------------------------------

/// Text that never contains the marker's or the replacement's delimiters.
fn plain_text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 \t\n.,;:'\"{}()\\[\\]<>/\\\\éß漢字-]{0,200}"
}

proptest! {
    #![proptest_config(cfg(48))]

    /// Replacing a unique marker with a unique replacement and back gives the original bytes.
    #[test]
    fn edit_round_trips_a_unique_marker(
        text in plain_text(),
        at in any::<prop::sample::Index>(),
        marker_id in "[a-z0-9]{0,8}",
        repl_id in "[a-zA-Z0-9 \n]{0,12}",
    ) {
        let chars: Vec<char> = text.chars().collect();
        let cut = at.index(chars.len() + 1);
        let (head, tail): (String, String) =
            (chars[..cut].iter().collect(), chars[cut..].iter().collect());
        // The delimiters occur nowhere else, so each string occurs exactly once.
        let marker = format!("\u{1F600}{marker_id}\u{1F600}");
        let repl = format!("\u{2603}{repl_id}\u{2603}");
        let original = format!("{head}{marker}{tail}");

        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("f.txt");
        std::fs::write(&file, &original).expect("write");
        let p = file.to_string_lossy().into_owned();

        let r = exec("edit", json!({"path": p, "oldString": marker, "newString": repl}));
        assert_no_panic(&r)?;
        prop_assert!(!r.is_error, "{r:?}");
        prop_assert_eq!(std::fs::read(&file).expect("read"), format!("{head}{repl}{tail}").into_bytes());

        let r = exec("edit", json!({"path": p, "oldString": repl, "newString": marker}));
        prop_assert!(!r.is_error, "{r:?}");
        prop_assert_eq!(std::fs::read(&file).expect("read"), original.into_bytes());
    }

    /// `replaceAll` is `str::replace`; without it only a unique `oldString` is replaced,
    /// and an absent or (without `replaceAll`) repeated one is an error with the file intact.
    #[test]
    fn edit_replace_all_matches_str_replace(
        text in "[ab\n]{0,40}",
        needle in "[ab\n]{1,3}",
        repl in "[abc\n]{0,3}",
        replace_all in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("f.txt");
        std::fs::write(&file, &text).expect("write");
        let p = file.to_string_lossy().into_owned();

        let r = exec(
            "edit",
            json!({"path": p, "oldString": needle, "newString": repl, "replaceAll": replace_all}),
        );
        assert_no_panic(&r)?;
        let after = std::fs::read_to_string(&file).expect("read");
        let count = text.matches(needle.as_str()).count();
        if count == 0 || (count > 1 && !replace_all) {
            prop_assert!(r.is_error, "{r:?}");
            prop_assert_eq!(after, text);
        } else {
            prop_assert!(!r.is_error, "{r:?}");
            prop_assert_eq!(after, text.replace(needle.as_str(), &repl));
        }
    }
}

// ---------------------------------------------------------------------------------------
// 2. apply_patch round trips
// ---------------------------------------------------------------------------------------

/// Free text of one line: no `\n`, and no `⟦`, which opens every line id (so a block of
/// lines occurs in the file exactly where it was taken from).
fn line_text() -> impl Strategy<Value = String> {
    "[^\n⟦]{0,12}"
}

/// One region of the file: lines kept as they are, or a change (old lines → new lines).
#[derive(Debug, Clone)]
enum Region {
    Keep(Vec<String>),
    Change(Vec<String>, Vec<String>),
}

/// `Keep, Change, Keep, …, Keep`: every change sits between kept lines (its context).
fn regions() -> impl Strategy<Value = Vec<Region>> {
    let lines = |n: std::ops::RangeInclusive<usize>| prop::collection::vec(line_text(), n);
    (
        lines(1..=4),
        prop::collection::vec(((lines(0..=3), lines(0..=3)), lines(1..=4)), 1..=4),
    )
        .prop_map(|(first, rest)| {
            let mut out = vec![Region::Keep(first)];
            for ((old, new), keep) in rest {
                out.push(Region::Change(old, new));
                out.push(Region::Keep(keep));
            }
            // Give every line a unique id: `⟦k3⟧`, `⟦o1⟧`, `⟦n2⟧`.
            let mut n = 0;
            let mut tag = |kind: char, lines: &mut Vec<String>| {
                for l in lines.iter_mut() {
                    *l = format!("⟦{kind}{n}⟧{l}");
                    n += 1;
                }
            };
            for r in out.iter_mut() {
                match r {
                    Region::Keep(k) => tag('k', k),
                    Region::Change(o, nw) => {
                        tag('o', o);
                        tag('n', nw);
                    }
                }
            }
            out
        })
}

/// The file's lines before (`new == false`) or after the change.
fn side(regions: &[Region], new: bool) -> Vec<String> {
    let mut out = Vec::new();
    for r in regions {
        match r {
            Region::Keep(k) => out.extend(k.iter().cloned()),
            Region::Change(o, n) => out.extend(if new { n } else { o }.iter().cloned()),
        }
    }
    out
}

/// The Update body turning side `!new` into side `new`: one `@@` hunk per change, with up
/// to `ctx` lines of context on each side.
fn update_body(regions: &[Region], to_new: bool, ctx: usize) -> Vec<String> {
    let mut body = Vec::new();
    for (i, r) in regions.iter().enumerate() {
        let Region::Change(o, n) = r else { continue };
        let (from, to) = if to_new { (o, n) } else { (n, o) };
        let before = match &regions[i - 1] {
            Region::Keep(k) => &k[k.len().saturating_sub(ctx)..],
            Region::Change(..) => &[][..],
        };
        let after = match regions.get(i + 1) {
            Some(Region::Keep(k)) => &k[..ctx.min(k.len())],
            _ => &[][..],
        };
        body.push("@@".to_string());
        body.extend(before.iter().map(|l| format!(" {l}")));
        body.extend(from.iter().map(|l| format!("-{l}")));
        body.extend(to.iter().map(|l| format!("+{l}")));
        body.extend(after.iter().map(|l| format!(" {l}")));
    }
    body
}

fn add_lines(content: &str) -> Vec<String> {
    content.split('\n').map(|l| format!("+{l}")).collect()
}

fn patch(ops: Vec<String>) -> String {
    let mut lines = vec!["*** Begin Patch".to_string()];
    lines.extend(ops);
    lines.push("*** End Patch".to_string());
    lines.join("\n")
}

proptest! {
    #![proptest_config(cfg(48))]

    /// Update (old → new lines, with context), Add and Delete in one patch give the oracle's
    /// files; the inverse patch (new → old, Delete the added file, Add the deleted one back)
    /// restores every original byte.
    #[test]
    fn apply_patch_round_trips(
        regions in regions(),
        ctx in 1usize..=3,
        trailing_newline in any::<bool>(),
        added in "[^⟦]{0,40}",
        deleted in "[^⟦]{0,40}",
    ) {
        let nl = if trailing_newline { "\n" } else { "" };
        let old_text = format!("{}{nl}", side(&regions, false).join("\n"));
        let new_text = format!("{}{nl}", side(&regions, true).join("\n"));

        let dir = tempfile::tempdir().expect("temp dir");
        let (upd, add, del) = (
            path_str(dir.path(), "sub/target.txt"),
            path_str(dir.path(), "new/dir/added.txt"),
            path_str(dir.path(), "deleted.txt"),
        );
        std::fs::create_dir_all(dir.path().join("sub")).expect("mkdir");
        std::fs::write(&upd, &old_text).expect("write");
        std::fs::write(&del, &deleted).expect("write");
        let before = snapshot(dir.path());

        let mut forward = vec![format!("*** Update File: {upd}")];
        forward.extend(update_body(&regions, true, ctx));
        forward.push(format!("*** Add File: {add}"));
        forward.extend(add_lines(&added));
        forward.push(format!("*** Delete File: {del}"));
        let r = exec("apply_patch", json!({"patchText": patch(forward)}));
        assert_no_panic(&r)?;
        prop_assert!(!r.is_error, "{r:?}");
        prop_assert_eq!(std::fs::read_to_string(&upd).expect("read"), new_text);
        prop_assert_eq!(std::fs::read_to_string(&add).expect("read"), added);
        prop_assert!(!Path::new(&del).exists());

        let mut inverse = vec![format!("*** Update File: {upd}")];
        inverse.extend(update_body(&regions, false, ctx));
        inverse.push(format!("*** Delete File: {add}"));
        inverse.push(format!("*** Add File: {del}"));
        inverse.extend(add_lines(&deleted));
        let r = exec("apply_patch", json!({"patchText": patch(inverse)}));
        prop_assert!(!r.is_error, "{r:?}");
        // Files only: the added file's directories stay behind, empty, as `rm` would leave them.
        prop_assert_eq!(snapshot(dir.path()), before);
    }
}

// ---------------------------------------------------------------------------------------
// 3. apply_patch never panics, and a failed patch changes nothing
// ---------------------------------------------------------------------------------------

/// The workspace every robustness case starts from.
fn seed_workspace(dir: &Path) {
    std::fs::write(dir.join("f0"), "a\nb\nc\n").expect("write");
    std::fs::write(dir.join("f1"), "a\nb\nc").expect("write");
    std::fs::write(dir.join("f2"), "").expect("write");
    std::fs::create_dir_all(dir.join("d")).expect("mkdir");
    std::fs::write(dir.join("d/f3"), "x\ny\n").expect("write");
}

/// A path in the workspace (`{D}` stands for its dir), picked from `names`.
fn ws_path(names: Vec<&'static str>) -> impl Strategy<Value = String> {
    prop::sample::select(names).prop_map(|f| format!("{{D}}/{f}"))
}

/// A file marker, mostly a plausible one: Add of new paths (or a path under a file), Update
/// and Delete of the seeded files (or a directory, a missing file, the dir itself), and now
/// and then a near miss.
fn marker_line() -> impl Strategy<Value = String> {
    let existing = || vec!["f0", "f1", "f2", "d/f3", "f0", "d", "f5", ""];
    prop_oneof![
        3 => ws_path(vec!["new/f4", "f5", "d/f6", "f0/x", "f1"]).prop_map(|p| format!("*** Add File: {p}")),
        4 => ws_path(existing()).prop_map(|p| format!("*** Update File: {p}")),
        2 => ws_path(existing()).prop_map(|p| format!("*** Delete File: {p}")),
        1 => ws_path(existing()).prop_map(|p| format!("*** Frobnicate File: {p}")),
    ]
}

/// A line inside an operation's body.
fn body_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("@@".to_string()),
        Just("@@ b".to_string()),
        Just("*** End of File".to_string()),
        Just(String::new()),
        ws_path(vec!["f1", "moved", "d/moved", "f0/x", "d"])
            .prop_map(|p| format!("*** Move to: {p}")),
        (
            prop::sample::select(vec!["+", "+", "-", "-", " ", " ", ""]),
            prop::sample::select(vec!["a", "b", "c", "x", "y", "", "*** End Patch", "zz"])
        )
            .prop_map(|(p, t)| format!("{p}{t}")),
        "[^\n]{0,10}",
    ]
}

/// A patch-shaped text: optional Begin, operations (marker + body lines), optional End, and
/// now and then a stray line anywhere.
fn grammar_patch() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(
            (marker_line(), prop::collection::vec(body_line(), 0..5)),
            1..5,
        ),
        0u8..8,
        prop::option::of((any::<prop::sample::Index>(), body_line())),
    )
        .prop_map(|(ops, wrap, stray)| {
            let mut lines = Vec::new();
            if wrap != 0 {
                lines.push("*** Begin Patch".to_string());
            }
            for (marker, body) in ops {
                lines.push(marker);
                lines.extend(body);
            }
            if wrap >= 2 {
                lines.push(
                    if wrap == 2 {
                        " *** End Patch "
                    } else {
                        "*** End Patch"
                    }
                    .to_string(),
                );
            }
            if let Some((at, line)) = stray {
                let i = at.index(lines.len() + 1);
                lines.insert(i, line);
            }
            lines.join("\n")
        })
}

/// Operations that apply cleanly to the seeded workspace (distinct paths).
fn good_ops(added: String) -> Vec<String> {
    let mut add = vec!["*** Add File: {D}/new/a.txt".to_string()];
    add.extend(add_lines(&added));
    vec![
        add.join("\n"),
        "*** Update File: {D}/f0\n@@\n a\n-b\n+B".to_string(),
        "*** Update File: {D}/d/f3\n-x\n+X".to_string(),
        "*** Update File: {D}/f2\n+appended".to_string(),
        "*** Delete File: {D}/f1".to_string(),
    ]
}

/// Operations that must make the whole patch fail, at parse, plan or write time.
fn bad_op() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "*** Update File: {D}/f0\n@@\n a\n-nomatch\n+x",
        "*** Update File: {D}/d/f3\n@@\n-x\n+X\n@@\n-y\n-q",
        "*** Add File: {D}/d/f3\n+exists",
        "*** Delete File: {D}/missing",
        "*** Delete File: {D}/d",
        "*** Add File: {D}/f0/under/a/file\n+x",
        "*** Update File: {D}/d\n+x",
        "*** Update File: {D}/missing\n+x",
        "*** Update File: {D}/f1\n*** Move to: {D}/d\n+x",
    ])
    .prop_map(str::to_string)
}

/// Runs `patch_text` on a seeded workspace: a ToolResult always, and on error no change.
fn robust(patch_text: &str) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().expect("temp dir");
    seed_workspace(dir.path());
    let before = snapshot(dir.path());
    let text = patch_text.replace("{D}", &dir.path().to_string_lossy());
    let r = exec("apply_patch", json!({"patchText": text}));
    assert_no_panic(&r)?;
    if r.is_error {
        prop_assert_eq!(
            snapshot(dir.path()),
            before,
            "failed patch changed files: {}",
            r.output
        );
    }
    let strays: Vec<String> = snapshot(dir.path())
        .into_keys()
        .filter(|k| k.contains(".toolnexus-"))
        .collect();
    prop_assert!(strays.is_empty(), "temp files left behind: {strays:?}");
    Ok(())
}

proptest! {
    #![proptest_config(cfg(96))]

    /// Arbitrary bytes (lossily decoded) are rejected or applied, never a panic.
    #[test]
    fn apply_patch_survives_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        robust(&String::from_utf8_lossy(&bytes))?;
    }

    /// Random grammar-shaped patches (markers, hunks, renames, near misses).
    #[test]
    fn apply_patch_survives_grammar_shaped_patches(text in grammar_patch()) {
        robust(&text)?;
    }

    /// The parser alone is total on grammar-shaped text.
    #[test]
    fn parse_patch_is_total(text in grammar_patch()) {
        let parsed = std::panic::catch_unwind(|| {
            toolnexus_reference::builtins::apply_patch::parse_patch(&text)
        });
        prop_assert!(parsed.is_ok(), "parse_patch panicked on {text:?}");
    }

    /// Clean operations in any order plus one failing operation anywhere: an error, and
    /// every file byte-identical (the "all files change or none").
    #[test]
    fn apply_patch_with_one_failing_op_changes_nothing(
        added in "[^⟦]{0,20}",
        keep in prop::sample::subsequence((0..5).collect::<Vec<usize>>(), 1..=5),
        order in any::<prop::sample::Index>(),
        bad in bad_op(),
        at in any::<prop::sample::Index>(),
    ) {
        let pool = good_ops(added);
        let mut ops: Vec<String> = keep.iter().map(|&i| pool[i].clone()).collect();
        let (turn, slot) = (order.index(ops.len()), at.index(ops.len() + 1));
        ops.rotate_left(turn);
        ops.insert(slot, bad);
        let dir = tempfile::tempdir().expect("temp dir");
        seed_workspace(dir.path());
        let before = snapshot(dir.path());
        let text = patch(ops).replace("{D}", &dir.path().to_string_lossy());
        let r = exec("apply_patch", json!({"patchText": text}));
        assert_no_panic(&r)?;
        prop_assert!(r.is_error, "{r:?}");
        prop_assert_eq!(snapshot(dir.path()), before, "{}", r.output);
    }
}
