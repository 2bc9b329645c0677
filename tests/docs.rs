//! The README and the guides under docs/ stay true to the tree they describe:
//!
//! - every relative link (markdown `[text](target)`, `[label]: target`, `<a href>`) in
//!   README.md and docs/*.md names a file that exists, and its `#anchor`, when the target is
//!   markdown, names one of that file's headings (GitHub's slug rule);
//! - every command a ```sh / ```bash / ```console / ```shell block shows that invokes the CLI
//!   (`cargo run [--release] -- ARGS`, `toolnexus-conformance ARGS`) parses: the built binary
//!   run with `ARGS --help` exits 0 (clap rejects an unknown subcommand or flag, or a bad
//!   value, before it acts on the trailing `--help`);
//! - README.md stays at most 15 KB and links every guide under docs/.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// README.md's size limit, in bytes: it leads, the guides go deep.
const README_LIMIT: usize = 15 * 1024;

/// The checkout this test was built from.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md, in a stable order.
fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let mut guides: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    guides.sort();
    files.extend(guides);
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A file's path relative to the checkout, for messages.
fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// One line of a markdown file: its 1-based number, its text, and the info string of the
/// fenced code block it lies in (`None` outside any block; fence lines themselves are
/// reported as inside, with an empty info string).
struct Line<'a> {
    number: usize,
    text: &'a str,
    fence: Option<&'a str>,
}

/// The lines of `text` with their code-block context (``` and ~~~ fences, indented or not).
fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut open: Option<(&str, &str)> = None; // (fence marker, info string)
    for (i, text) in text.lines().enumerate() {
        let trimmed = text.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        let fence = match (open, marker) {
            (Some((m, _)), Some(n)) if m == n && trimmed.trim_end() == m => {
                open = None;
                Some("")
            }
            (Some((_, info)), _) => Some(info),
            (None, Some(m)) => {
                open = Some((m, trimmed[m.len()..].trim()));
                Some("")
            }
            (None, None) => None,
        };
        out.push(Line {
            number: i + 1,
            text,
            fence,
        });
    }
    out
}

/// `text` with inline code spans blanked (a run of N backticks up to the next run of exactly
/// N), so link syntax shown as code is not taken for a link. Spans may cross line breaks.
fn without_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = run_at(i);
        let mut j = i + n;
        let close = loop {
            if j >= chars.len() {
                break None;
            }
            if chars[j] == '`' {
                let m = run_at(j);
                if m == n {
                    break Some(j);
                }
                j += m;
            } else {
                j += 1;
            }
        };
        match close {
            Some(j) => {
                // Keep the line breaks, so line numbers still count.
                out.extend(
                    chars[i..j + n]
                        .iter()
                        .map(|&c| if c == '\n' { '\n' } else { ' ' }),
                );
                i = j + n;
            }
            None => {
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}

/// The prose of a markdown file (code blocks blanked, inline code blanked), line by line.
fn prose(text: &str) -> String {
    let outside: Vec<&str> = lines(text)
        .iter()
        .map(|l| if l.fence.is_some() { "" } else { l.text })
        .collect();
    without_code_spans(&outside.join("\n"))
}

/// Every link target of a markdown file with its line number: `](target)`, a reference
/// definition `[label]: target`, and `href="target"`.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (i, line) in prose(text).lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            found.push((i + 1, after[..end].to_string()));
            rest = &after[end..];
        }
        let trimmed = line.trim_start();
        if let (true, Some(colon)) = (trimmed.starts_with('['), trimmed.find("]: ")) {
            found.push((i + 1, trimmed[colon + 3..].to_string()));
        }
        let mut rest = line;
        while let Some(at) = rest.find("href=\"") {
            let after = &rest[at + 6..];
            let end = after.find('"').unwrap_or(after.len());
            found.push((i + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    found
        .into_iter()
        .map(|(n, t)| {
            // `<target>` and `target "title"` forms: the target alone.
            let t = t.trim().trim_start_matches('<');
            let t = t.split([' ', '>']).next().unwrap_or("");
            (n, t.to_string())
        })
        .collect()
}

/// GitHub's anchor for a heading: lowercase, punctuation dropped except `-` and `_`, each
/// space a `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a markdown file's headings (ATX headings outside code blocks), a repeated
/// heading's anchor numbered `-1`, `-2`… as GitHub does.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for line in lines(text).iter().filter(|l| l.fence.is_none()) {
        let trimmed = line.text.trim_start();
        let hashes = trimmed.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !trimmed[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(trimmed[hashes..].trim().trim_end_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// What is wrong with one link target of `file` (`None` when it resolves).
fn broken(file: &Path, target: &str) -> Option<String> {
    let external = ["http://", "https://", "mailto:"];
    if target.is_empty() || external.iter().any(|p| target.starts_with(p)) {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let resolved = if path.is_empty() {
        file.to_path_buf()
    } else {
        file.parent().unwrap_or(Path::new(".")).join(path)
    };
    if !resolved.exists() {
        return Some(format!("{target}: no such file ({})", resolved.display()));
    }
    let anchor = anchor?;
    if resolved.extension().is_none_or(|x| x != "md") {
        return None;
    }
    let known = anchors(&read(&resolved));
    if known.contains(anchor) {
        return None;
    }
    Some(format!(
        "{target}: {} has no heading with anchor #{anchor}",
        shown(&resolved)
    ))
}

#[test]
fn every_relative_link_names_an_existing_file_and_heading() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        for (line, target) in link_targets(&read(&file)) {
            checked += 1;
            if let Some(why) = broken(&file, &target) {
                problems.push(format!("{}:{line}: {why}", shown(&file)));
            }
        }
    }
    assert!(
        checked > 10,
        "only {checked} links found: is the scanner broken?"
    );
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn readme_stays_short_and_links_every_guide() {
    let readme = read(&root().join("README.md"));
    assert!(
        readme.len() <= README_LIMIT,
        "README.md is {} bytes, over its limit of {README_LIMIT}: move the detail into a \
         guide under docs/",
        readme.len()
    );
    let linked: BTreeSet<String> = link_targets(&readme).into_iter().map(|(_, t)| t).collect();
    let unlinked: Vec<String> = doc_files()
        .iter()
        .skip(1)
        .map(|p| shown(p))
        .filter(|guide| {
            !linked
                .iter()
                .any(|t| t.split('#').next() == Some(guide.as_str()))
        })
        .collect();
    assert!(
        unlinked.is_empty(),
        "guides README.md does not link: {unlinked:?}"
    );
}

/// A shell line split into words, quote-aware, up to the first unquoted operator (`|`, `&`,
/// `;`, `<`, `>`, `2>` …) or `#` comment: the command the line runs, without its redirections
/// and pipes.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => word.extend(chars.next()),
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                word.extend(chars.next());
                in_word = true;
            }
            (None, '#') if !in_word => break,
            (None, '|' | '&' | ';' | '<' | '>') => {
                // `2>`: the digits were the redirection's file descriptor, not a word.
                if in_word && !(c == '>' && word.chars().all(|d| d.is_ascii_digit())) {
                    words.push(std::mem::take(&mut word));
                }
                return words;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The CLI arguments of a shown command, when it invokes the CLI: after `cargo run … --`
/// (none without `--`), or after a `toolnexus-conformance` program; leading `VAR=value`
/// assignments skipped.
fn cli_args(words: &[String]) -> Option<Vec<String>> {
    let is_assignment = |w: &String| w.contains('=') && !w.starts_with('-');
    let start = words.iter().position(|w| !is_assignment(w))?;
    let words = &words[start..];
    let program = words.first()?;
    if program == "cargo" && words.get(1).map(String::as_str) == Some("run") {
        let args = match words.iter().position(|w| w == "--") {
            Some(dash) => words[dash + 1..].to_vec(),
            None => Vec::new(),
        };
        return Some(args);
    }
    if Path::new(program).file_name()? == "toolnexus-conformance" {
        return Some(words[1..].to_vec());
    }
    None
}

/// The commands shown in a file's shell code blocks (``` sh, bash, console, shell), with the
/// line each starts on: `\` continuations joined, a console's `$ ` prompt dropped.
fn shown_commands(text: &str) -> Vec<(usize, String)> {
    let shell = ["sh", "bash", "console", "shell"];
    let mut commands = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for line in lines(text) {
        let in_shell = line
            .fence
            .and_then(|info| info.split_whitespace().next())
            .is_some_and(|lang| shell.contains(&lang));
        if !in_shell {
            pending = None;
            continue;
        }
        let text = line.text.trim();
        let (start, mut joined) = pending.take().unwrap_or((line.number, String::new()));
        joined.push_str(text.strip_prefix("$ ").unwrap_or(text));
        match joined.strip_suffix('\\') {
            Some(head) => pending = Some((start, format!("{head} "))),
            None => commands.push((start, joined)),
        }
    }
    commands
}

/// Whether a shown word is a placeholder rather than an argument: `[--seed 1]`'s
/// brackets or an ellipsis. `run` takes scenario names as positional arguments, so clap would
/// accept `[--seed` and `1]` as names.
fn is_placeholder(word: &str) -> bool {
    word.starts_with('[') || word.ends_with(']') || word == "…" || word == "..."
}

/// Why the CLI rejects `args` (run as `ARGS --help`), or `None` when they parse.
fn rejection(bin: &str, args: &[String]) -> Option<String> {
    if let Some(word) = args.iter().find(|w| is_placeholder(w)) {
        return Some(format!(
            "shows the placeholder {word:?}: show a real command (optional flags go in prose \
             or a comment)"
        ));
    }
    let out = Command::new(bin)
        .args(args)
        .arg("--help")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    if out.status.success() {
        return None;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    Some(format!("does not parse ({}): {first}", out.status))
}

#[test]
fn every_cli_command_shown_parses() {
    let bin = env!("CARGO_BIN_EXE_toolnexus-conformance");
    let mut problems = Vec::new();
    let mut checked = Vec::new();
    for file in doc_files() {
        for (line, command) in shown_commands(&read(&file)) {
            let Some(args) = cli_args(&shell_words(&command)) else {
                continue;
            };
            if let Some(why) = rejection(bin, &args) {
                problems.push(format!("{}:{line}: `{command}` {why}", shown(&file)));
            }
            checked.push(args.join(" "));
        }
    }
    assert!(
        checked.iter().any(|c| c == "run"),
        "the README's `cargo run --release -- run` was not found among {} commands: is the \
         extractor broken?",
        checked.len()
    );
    assert!(
        problems.is_empty(),
        "shown commands the CLI rejects:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_shell_splitter_keeps_quotes_and_drops_redirections() {
    let words = shell_words(r#"cargo run -- run --port "python3 a b.py" > out.json 2>&1 # why"#);
    assert_eq!(
        words,
        ["cargo", "run", "--", "run", "--port", "python3 a b.py"]
    );
    assert_eq!(shell_words("a 2> err.txt"), ["a"]);
    assert_eq!(shell_words("a | head -1"), ["a"]);
    assert_eq!(shell_words("x=1 'it''s' # c"), ["x=1", "its"]);
    assert_eq!(
        cli_args(&shell_words("INSTA=1 cargo run --release -- list")),
        Some(vec!["list".to_string()])
    );
    assert_eq!(cli_args(&shell_words("cargo test")), None);
    assert_eq!(
        slug("Agents: the runtime (§7D), homes"),
        "agents-the-runtime-7d-homes"
    );
    assert_eq!(slug("`run`"), "run");
    assert!(is_placeholder("[--seed") && is_placeholder("1]") && !is_placeholder("0,1"));
}
