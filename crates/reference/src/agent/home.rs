//! SPEC §7E "The directory is the agent": composing a persona's soul from its home dir.
//!
//! Pinned by the SPEC (§7E, SPEC.md lines 880-898): the seven files of [`BOOTSTRAP_ORDER`],
//! in that order, each present one injected as a `## <filename>` section (line 881); absent
//! files skipped; each read with a cap measured in BYTES, 2097152 by default (lines
//! 893-895), a larger file truncated at the byte cap — possibly splitting a multibyte
//! character — with a notice, the file on disk untouched; composition happens once, at
//! session start (frozen snapshot, lines 896-898).
//!
//! Where the SPEC is silent, this module chooses (and the Python port agrees on the first
//! three, `toolnexus.agents.surface.compose_soul`):
//! - a section is `## <filename>\n\n<body>` with the body's surrounding whitespace trimmed,
//!   and sections are joined by one blank line (`\n\n`);
//! - a present but empty (or all-whitespace) file still yields its section — it is present;
//! - the truncation notice is its own paragraph after the body:
//!   `[truncated: <file> exceeds the <cap>-byte cap; only its first <cap> bytes are shown]`;
//! - bytes are decoded lossily (a split character, or any invalid UTF-8, becomes U+FFFD)
//!   rather than failing the whole composition;
//! - a file that exists but cannot be read (a directory or other non-regular file named
//!   `SOUL.md`, a permission error) is skipped and reported in [`ComposedSoul::warnings`];
//!   only a missing or non-directory home is an error.

use std::fmt;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

/// The files a home may hold, in the order they are composed (§7E table).
pub const BOOTSTRAP_ORDER: [&str; 7] = [
    "AGENTS.md",
    "SOUL.md",
    "IDENTITY.md",
    "USER.md",
    "TOOLS.md",
    "HEARTBEAT.md",
    "MEMORY.md",
];

/// The §7E per-file cap: 2 MB, measured in bytes.
pub const MAX_FILE_BYTES: usize = 2_097_152;

/// A home dir composed into a system prompt (the session's frozen snapshot).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ComposedSoul {
    /// The system prompt: the `## <file>` sections joined by blank lines.
    pub text: String,
    /// The files that became sections, in composition order.
    pub sections: Vec<String>,
    /// The files cut at the byte cap (each also among `sections`).
    pub truncated: Vec<String>,
    /// Files present but unreadable, skipped: `"<file>: <reason>"`.
    pub warnings: Vec<String>,
}

/// Why a home could not be composed: only a missing or non-directory home is an error.
#[derive(Debug)]
pub enum HomeError {
    /// The home exists but is not a directory.
    NotADirectory {
        /// The home.
        dir: PathBuf,
    },
    /// The home's metadata could not be read (it is missing, or not ours to read).
    Unreadable {
        /// The home.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl fmt::Display for HomeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HomeError::NotADirectory { dir } => {
                write!(f, "agent home {} is not a directory", dir.display())
            }
            HomeError::Unreadable { dir, source } => {
                write!(f, "agent home {}: {source}", dir.display())
            }
        }
    }
}

impl std::error::Error for HomeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HomeError::NotADirectory { .. } => None,
            HomeError::Unreadable { source, .. } => Some(source),
        }
    }
}

/// What reading one bootstrap file gave.
enum Read1 {
    /// Not there: skipped silently.
    Absent,
    /// There but unreadable: skipped with this reason.
    Unreadable(String),
    /// Its (possibly capped) bytes, and whether the cap cut it.
    Bytes(Vec<u8>, bool),
}

/// Composes `dir`'s bootstrap files into a soul; a missing or non-directory `dir` is an error.
pub fn compose_soul(dir: &Path, max_file_bytes: usize) -> Result<ComposedSoul, HomeError> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(HomeError::NotADirectory {
                dir: dir.to_path_buf(),
            })
        }
        Err(source) => {
            return Err(HomeError::Unreadable {
                dir: dir.to_path_buf(),
                source,
            })
        }
    }
    let mut soul = ComposedSoul::default();
    let mut parts: Vec<String> = Vec::new();
    for name in BOOTSTRAP_ORDER {
        match read_capped(&dir.join(name), max_file_bytes) {
            Read1::Absent => {}
            Read1::Unreadable(why) => soul.warnings.push(format!("{name}: {why}")),
            Read1::Bytes(bytes, cut) => {
                let body = String::from_utf8_lossy(&bytes);
                let mut section = format!("## {name}\n\n{}", body.trim());
                if cut {
                    section.push_str(&format!(
                        "\n\n[truncated: {name} exceeds the {max_file_bytes}-byte cap; \
                         only its first {max_file_bytes} bytes are shown]"
                    ));
                    soul.truncated.push(name.to_string());
                }
                parts.push(section);
                soul.sections.push(name.to_string());
            }
        }
    }
    soul.text = parts.join("\n\n");
    Ok(soul)
}

/// Reads at most `cap + 1` bytes (so a huge file is never loaded whole) and cuts to `cap`.
fn read_capped(path: &Path, cap: usize) -> Read1 {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Read1::Absent,
        Err(e) => return Read1::Unreadable(e.to_string()),
    };
    // A directory or FIFO named like a bootstrap file is not one (and opening a FIFO blocks).
    if !meta.is_file() {
        return Read1::Unreadable("not a regular file".to_string());
    }
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Read1::Absent,
        Err(e) => return Read1::Unreadable(e.to_string()),
    };
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    let mut bytes = Vec::new();
    if let Err(e) = file.take(limit).read_to_end(&mut bytes) {
        return Read1::Unreadable(e.to_string());
    }
    let cut = bytes.len() > cap;
    bytes.truncate(cap);
    Read1::Bytes(bytes, cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, body) in files {
            std::fs::write(dir.path().join(name), body).unwrap();
        }
        dir
    }

    #[test]
    fn sections_follow_the_spec_order_and_absent_files_are_skipped() {
        // Written in reverse order so directory order can't pass for the SPEC's.
        let dir = home(&[
            ("MEMORY.md", "- Onboarded 2026-07."),
            ("HEARTBEAT.md", "If it is time, remind about the 3pm sync."),
            ("USER.md", "The user is Muthu; timezone IST.\n"),
            ("SOUL.md", "You are Ava, a calm support assistant."),
            ("NOTES.md", "not a bootstrap file"),
        ]);
        let soul = compose_soul(dir.path(), MAX_FILE_BYTES).unwrap();
        assert_eq!(
            soul.sections,
            ["SOUL.md", "USER.md", "HEARTBEAT.md", "MEMORY.md"]
        );
        assert_eq!(
            soul.text,
            "## SOUL.md\n\nYou are Ava, a calm support assistant.\n\n\
             ## USER.md\n\nThe user is Muthu; timezone IST.\n\n\
             ## HEARTBEAT.md\n\nIf it is time, remind about the 3pm sync.\n\n\
             ## MEMORY.md\n\n- Onboarded 2026-07."
        );
        assert!(soul.truncated.is_empty());
        assert!(soul.warnings.is_empty());
        assert!(!soul.text.contains("NOTES"));
    }

    #[test]
    fn all_seven_files_compose_in_order() {
        let files: Vec<(&str, &str)> = BOOTSTRAP_ORDER.iter().rev().map(|f| (*f, "x")).collect();
        let dir = home(&files);
        let soul = compose_soul(dir.path(), MAX_FILE_BYTES).unwrap();
        assert_eq!(soul.sections, BOOTSTRAP_ORDER);
        let heads: Vec<&str> = soul.text.lines().filter(|l| l.starts_with("## ")).collect();
        let want: Vec<String> = BOOTSTRAP_ORDER.iter().map(|f| format!("## {f}")).collect();
        assert_eq!(heads, want);
    }

    #[test]
    fn an_empty_home_composes_to_nothing() {
        let dir = home(&[]);
        assert_eq!(
            compose_soul(dir.path(), MAX_FILE_BYTES).unwrap(),
            ComposedSoul::default()
        );
    }

    #[test]
    fn a_missing_home_is_an_error_naming_it() {
        let dir = home(&[]);
        let gone = dir.path().join("no-such-home");
        let err = compose_soul(&gone, MAX_FILE_BYTES).unwrap_err().to_string();
        assert!(err.contains("no-such-home"), "{err}");
        let file = dir.path().join("plain-file");
        std::fs::write(&file, "x").unwrap();
        let err = compose_soul(&file, MAX_FILE_BYTES).unwrap_err();
        assert!(matches!(err, HomeError::NotADirectory { .. }), "{err}");
        let err = err.to_string();
        assert!(
            err.contains("plain-file") && err.contains("not a directory"),
            "{err}"
        );
    }

    #[test]
    fn an_oversized_file_is_cut_at_the_byte_cap_with_a_notice_and_left_on_disk() {
        // 2 MB + change: the real default cap, so the constant itself is exercised.
        let big = "a".repeat(MAX_FILE_BYTES) + "TAIL-BEYOND-THE-CAP";
        let dir = home(&[("SOUL.md", &big), ("USER.md", "small")]);
        let soul = compose_soul(dir.path(), MAX_FILE_BYTES).unwrap();
        assert_eq!(soul.truncated, ["SOUL.md"]);
        assert_eq!(soul.sections, ["SOUL.md", "USER.md"]);
        assert!(!soul.text.contains("TAIL-BEYOND-THE-CAP"));
        let head = format!(
            "## SOUL.md\n\n{}\n\n[truncated: ",
            "a".repeat(MAX_FILE_BYTES)
        );
        assert!(soul.text.starts_with(&head));
        assert!(soul.text.contains(
            "[truncated: SOUL.md exceeds the 2097152-byte cap; only its first 2097152 bytes are shown]"
        ));
        assert!(soul.text.ends_with("## USER.md\n\nsmall"));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("SOUL.md")).unwrap(),
            big
        );
    }

    #[test]
    fn a_file_exactly_at_the_cap_is_not_truncated() {
        let dir = home(&[("SOUL.md", "0123456789")]);
        let soul = compose_soul(dir.path(), 10).unwrap();
        assert!(soul.truncated.is_empty());
        assert_eq!(soul.text, "## SOUL.md\n\n0123456789");
        let soul = compose_soul(dir.path(), 9).unwrap();
        assert_eq!(soul.truncated, ["SOUL.md"]);
        assert!(soul
            .text
            .starts_with("## SOUL.md\n\n012345678\n\n[truncated: SOUL.md"));
    }

    #[test]
    fn the_cap_counts_bytes_not_characters_and_may_split_one() {
        // "é" is two bytes: a 5-byte cap keeps "éé" and half of the third.
        let dir = home(&[("SOUL.md", "ééé")]);
        let soul = compose_soul(dir.path(), 5).unwrap();
        assert_eq!(soul.truncated, ["SOUL.md"]);
        assert!(soul
            .text
            .starts_with("## SOUL.md\n\néé\u{FFFD}\n\n[truncated:"));
        assert!(soul.text.contains("exceeds the 5-byte cap"));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("SOUL.md")).unwrap(),
            "ééé"
        );
    }

    #[test]
    fn an_unreadable_entry_is_skipped_with_a_warning() {
        let dir = home(&[("USER.md", "u")]);
        std::fs::create_dir(dir.path().join("SOUL.md")).unwrap();
        let soul = compose_soul(dir.path(), MAX_FILE_BYTES).unwrap();
        assert_eq!(soul.sections, ["USER.md"]);
        assert_eq!(soul.warnings.len(), 1);
        assert!(
            soul.warnings[0].starts_with("SOUL.md: "),
            "{:?}",
            soul.warnings
        );
        assert!(!soul.text.contains("SOUL.md"));
    }
}
