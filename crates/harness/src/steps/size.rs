//! A guard on the step sources' shape: no function (nor `step!` item) longer than
//! `MAX_LINES`, so a step stays a named item one can read whole (issue 31).

use std::path::Path;

/// The longest a function or step item in `src/steps.rs` and `src/steps/` may be, in lines.
const MAX_LINES: usize = 200;

/// `src` with the insides of comments, strings and char literals blanked (newlines kept),
/// so braces and `fn` found in what is left are code.
fn code_only(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                blank(&mut out, chars[i]);
                i += 1;
            }
            out.push_str("  ");
            i += 2;
        } else if (c == 'r' || c == 'b')
            && (i == 0 || !ident(chars[i - 1]))
            && raw_start(&chars, i).is_some()
        {
            let (hashes, open) = raw_start(&chars, i).unwrap_or((0, i));
            let mut j = open + 1;
            while j < chars.len()
                && !(chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')))
            {
                j += 1;
            }
            let end = (j + 1 + hashes).min(chars.len());
            chars[i..end].iter().for_each(|&c| blank(&mut out, c));
            i = end;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            chars[i..end].iter().for_each(|&c| blank(&mut out, c));
            i = end;
        } else if c == '\'' && char_literal_end(&chars, i).is_some() {
            let end = char_literal_end(&chars, i).unwrap_or(i + 1);
            chars[i..end].iter().for_each(|&c| blank(&mut out, c));
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// At a raw (byte) string's start `i` (`r"`, `r#"`, `br"`, …): its `#` count and the index of
/// its opening quote.
fn raw_start(chars: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if chars[j] == 'b' {
        j += 1;
        if chars.get(j) == Some(&'"') {
            return Some((0, j));
        }
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (chars.get(j) == Some(&'"')).then_some((hashes, j))
}

/// The index after the char literal starting at `i`, if one does (else it is a lifetime).
fn char_literal_end(chars: &[char], i: usize) -> Option<usize> {
    if chars.get(i + 1) == Some(&'\\') {
        let close = (i + 2..chars.len().min(i + 12)).find(|&j| chars[j] == '\'')?;
        return Some(close + 1);
    }
    (chars.get(i + 2) == Some(&'\'')).then_some(i + 3)
}

/// Every function and `step!` item in `src` with its length in lines.
fn item_lengths(src: &str) -> Vec<(String, usize)> {
    let code = code_only(src);
    let item = regex::Regex::new(r"\bfn\s+(\w+)|\bstep!\s*[({]\s*(\w+)\s*:")
        .unwrap_or_else(|e| panic!("bad regex: {e}"));
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for caps in item.captures_iter(&code) {
        let (Some(whole), Some(name)) = (caps.get(0), caps.get(1).or(caps.get(2))) else {
            continue;
        };
        // A step item's extent is its macro call; a function's is its body.
        let open = if caps.get(2).is_some() {
            Some(
                code[..whole.end()]
                    .rfind(['(', '{'])
                    .unwrap_or(whole.start()),
            )
        } else {
            code[whole.end()..]
                .find(['{', ';'])
                .map(|k| whole.end() + k)
                .filter(|&k| bytes[k] == b'{')
        };
        let Some(open) = open else { continue };
        let mut depth = 0usize;
        let close = (open..bytes.len()).find(|&k| {
            match bytes[k] {
                b'{' | b'(' | b'[' => depth += 1,
                b'}' | b')' | b']' => depth = depth.saturating_sub(1),
                _ => return false,
            }
            depth == 0
        });
        let close = close.unwrap_or(bytes.len() - 1);
        found.push((
            name.as_str().to_string(),
            code[whole.start()..=close].lines().count(),
        ));
    }
    found
}

#[test]
fn no_step_source_has_a_function_over_the_limit() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join("steps.rs")];
    files.extend(
        walkdir::WalkDir::new(src.join("steps"))
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| e.into_path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs")),
    );
    let mut long = Vec::new();
    let mut items = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (name, lines) in item_lengths(&text) {
            items += 1;
            if lines > MAX_LINES {
                long.push(format!("{}: {name} has {lines} lines", file.display()));
            }
        }
    }
    assert!(
        items > 300,
        "only {items} functions found in {} files",
        files.len()
    );
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn lengths_skip_strings_comments_and_chars() {
    let src = "fn a() {\n    let s = \"}\"; // }\n    let c = '}';\n    let r = r#\"{\"#;\n}\nfn b<'x>(v: &'x str);\nstep!(c: Setup, r\"(\", \"doc\",\n |_| {})\nstep! {\n  d: Setup, \"{\", |_| {}\n}\n";
    assert_eq!(
        item_lengths(src),
        vec![
            ("a".to_string(), 5),
            ("c".to_string(), 2),
            ("d".to_string(), 3)
        ]
    );
}
