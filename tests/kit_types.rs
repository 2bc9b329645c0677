//! The driver kits' generated types (issue 49) do not drift from the protocol: each kit's
//! checked-in file is exactly what `schema --kit LANG` prints, and `schema --check` fails, naming
//! the file and the regenerate command, when one of them is stale or missing.

use std::path::Path;
use std::process::Command;

use toolnexus_kitgen::Language;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolnexus-conformance"))
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The generated files of these kits, in order.
fn generated(languages: &[Language]) -> Vec<(&'static str, String)> {
    toolnexus_kitgen::generate(
        &toolnexus_protocol::schema::generate(),
        toolnexus_protocol::PROTOCOL_VERSION,
        languages,
    )
    .unwrap_or_else(|e| panic!("{e}"))
    .into_iter()
    .map(|file| (file.path, file.text))
    .collect()
}

#[test]
fn every_kit_holds_the_types_the_schema_generates() {
    for language in Language::ALL {
        let out = bin()
            .args(["schema", "--kit", language.name()])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.status.code(), Some(0), "{language:?}");
        let printed = String::from_utf8_lossy(&out.stdout).into_owned();
        let on_disk: String = generated(&[language])
            .into_iter()
            .map(|(path, _)| {
                std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
            })
            .collect();
        assert!(
            printed == on_disk,
            "the {language:?} kit's generated types are stale; regenerate them: {}",
            toolnexus_kitgen::REGENERATE
        );
    }
}

#[test]
fn a_stale_or_missing_kit_file_fails_the_check_naming_it() {
    let scratch = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let copy = |path: &str, text: &str| {
        let target = scratch.path().join(path);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&target, text).unwrap_or_else(|e| panic!("{e}"));
    };
    copy(
        "conformance/protocol.schema.json",
        &toolnexus_protocol::schema::generate_text(),
    );
    let files = generated(&Language::ALL);
    for (path, text) in &files {
        copy(path, text);
    }
    let check = || {
        let out = bin()
            .arg("--root")
            .arg(scratch.path())
            .args(["schema", "--check"])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // The control: a copy with every file current passes.
    let (code, text) = check();
    assert_eq!(code, Some(0), "{text}");

    let (stale_path, stale_text) = &files[0];
    copy(stale_path, &stale_text.replacen("Commands", "Cmds", 1));
    let (code, text) = check();
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains(stale_path), "{text}");
    assert!(text.contains(toolnexus_kitgen::REGENERATE), "{text}");

    copy(stale_path, stale_text);
    let missing = files.last().map(|f| f.0).unwrap_or_default();
    std::fs::remove_file(scratch.path().join(missing)).unwrap_or_else(|e| panic!("{e}"));
    let (code, text) = check();
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains(missing), "{text}");
}
