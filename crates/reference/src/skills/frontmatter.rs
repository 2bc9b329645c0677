//! §3 `---`-fenced YAML frontmatter, parsed with a standard YAML parser (yaml-rust2).

use std::panic::{catch_unwind, AssertUnwindSafe};
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::{Yaml, YamlLoader};

/// What a SKILL.md file yields once its frontmatter is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Frontmatter {
    /// The trimmed, string-coerced `name` (None when absent, non-scalar or no frontmatter).
    pub name: Option<String>,
    /// The trimmed, string-coerced `description` (None when absent or non-scalar).
    pub description: Option<String>,
    /// Everything after the closing fence (the whole text when there is no frontmatter).
    pub content: String,
}

/// The frontmatter block is present but is not valid YAML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Malformed;

/// Splits `text` at its frontmatter fences, exactly as the published ports' pattern
/// `\A---\r?\n(.*?)\r?\n---\r?\n?(.*)\z` (dot matching newlines) does: an opening `---`
/// line, the shortest block up to the next `\n---`, then the body. Hand-written because this
/// runs once per skill and a backtracking regex dominated the cost of loading large trees.
fn split_fence(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("---")?;
    let rest = rest
        .strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))?;
    let close = rest.find("\n---")?;
    let block = &rest[..close];
    let block = block.strip_suffix('\r').unwrap_or(block);
    let after = &rest[close + "\n---".len()..];
    let after = after.strip_prefix('\r').unwrap_or(after);
    let body = after.strip_prefix('\n').unwrap_or(after);
    Some((block, body))
}

/// Parses `text` into name, description and body; `Err` only for a YAML block the parser
/// refuses. No frontmatter at all is `Ok` with `name: None` and the whole text as body.
pub(super) fn parse(text: &str) -> Result<Frontmatter, Malformed> {
    // A UTF-8 byte-order mark is an encoding detail, not text before the fence.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some((block, body)) = split_fence(text) else {
        return Ok(Frontmatter {
            name: None,
            description: None,
            content: text.to_string(),
        });
    };
    let content = body.to_string();

    if !bounded(block) {
        return Err(Malformed);
    }
    // The parser is third-party code fed untrusted input: a panic must not escape.
    let loaded = catch_unwind(AssertUnwindSafe(|| YamlLoader::load_from_str(block)))
        .map_err(|_| Malformed)?
        .map_err(|_| Malformed)?;
    if loaded.len() > 1 {
        // Like PyYAML's `safe_load`, a second document in the block is a refusal.
        return Err(Malformed);
    }
    let (mut name, mut description) = (None, None);
    if let Some(Yaml::Hash(map)) = loaded.into_iter().next() {
        for (key, value) in map {
            // Only a string key can read `name` or `description`: the other scalars coerce
            // to digits, `True`/`False`, `inf` or `nan`.
            let Yaml::String(key) = key else { continue };
            let field = match key.as_str() {
                "name" => &mut name,
                "description" => &mut description,
                _ => continue,
            };
            if let Some(value) = scalar(value) {
                *field = Some(trimmed(value));
            }
        }
    }
    Ok(Frontmatter {
        name: name.filter(|n| !n.is_empty()),
        description,
        content,
    })
}

/// The largest frontmatter block read; a name and a description never need more.
const MAX_BLOCK: usize = 64 * 1024;
/// The most aliases a block may use. Loading expands aliases, so a few nested ones
/// ("billion laughs") would otherwise turn a small file into gigabytes.
const MAX_ALIASES: usize = 16;

/// Whether `block` is small enough and uses few enough aliases to load safely; counted on
/// the parser's event stream, which does not expand anything.
fn bounded(block: &str) -> bool {
    if block.len() > MAX_BLOCK {
        return false;
    }
    // An alias is spelled `*name`: a block without `*` has none to count.
    if !block.contains('*') {
        return true;
    }
    let mut parser = Parser::new_from_str(block);
    let mut aliases = 0;
    loop {
        match catch_unwind(AssertUnwindSafe(|| parser.next_token())) {
            Ok(Ok((Event::StreamEnd, _))) => return true,
            Ok(Ok((Event::Alias(_), _))) => {
                aliases += 1;
                if aliases > MAX_ALIASES {
                    return false;
                }
            }
            Ok(Ok(_)) => {}
            // A scan error is the loader's to report (as malformed); a panic is ours.
            Ok(Err(_)) => return true,
            Err(_) => return false,
        }
    }
}

/// Coerces a YAML scalar (string, int, float, bool) to a string the way the Python port's
/// `str(value)` does; anything else (null, sequence, mapping, alias) is not a scalar.
fn scalar(value: Yaml) -> Option<String> {
    match value {
        Yaml::String(s) => Some(s),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Real(text) => Some(python_float(&text)),
        Yaml::Boolean(true) => Some("True".to_string()),
        Yaml::Boolean(false) => Some("False".to_string()),
        _ => None,
    }
}

/// `text` without its leading and trailing whitespace, reusing it when it has none.
fn trimmed(text: String) -> String {
    if text.trim().len() == text.len() {
        text
    } else {
        text.trim().to_string()
    }
}

/// Renders a YAML float the way Python's `str(float)` does (`4.50` ⇒ `4.5`, `3.0` ⇒ `3.0`,
/// `1e20` ⇒ `1e+20`, `.inf` ⇒ `inf`); integer-looking text too big for i64 stays as written.
fn python_float(text: &str) -> String {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return text.strip_prefix('+').unwrap_or(text).to_string();
    }
    let lower = text.to_ascii_lowercase();
    let value = match lower.trim_start_matches('+') {
        ".inf" => f64::INFINITY,
        "-.inf" => f64::NEG_INFINITY,
        ".nan" => f64::NAN,
        other => match other.parse::<f64>() {
            Ok(v) => v,
            Err(_) => return text.to_string(),
        },
    };
    if value.is_nan() {
        return "nan".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if value == 0.0 {
        return if value.is_sign_negative() {
            "-0.0"
        } else {
            "0.0"
        }
        .to_string();
    }
    let exp = value.abs().log10().floor() as i32;
    if (-4..16).contains(&exp) {
        let s = value.to_string();
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        // Rust `{:e}` is `1.5e20`; Python writes `1.5e+20` / `1e-05`.
        let s = format!("{value:e}");
        match s.split_once('e') {
            Some((mantissa, exp)) => {
                let (sign, digits) = match exp.strip_prefix('-') {
                    Some(d) => ('-', d),
                    None => ('+', exp),
                };
                format!("{mantissa}e{sign}{digits:0>2}")
            }
            None => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_split_like_the_ports_pattern() {
        assert_eq!(
            split_fence("---\nname: a\n---\nbody\n"),
            Some(("name: a", "body\n"))
        );
        assert_eq!(
            split_fence("---\r\nname: a\r\n---\r\nbody"),
            Some(("name: a", "body"))
        );
        assert_eq!(split_fence("---\n\n---\nb"), Some(("", "b")));
        assert_eq!(split_fence("---\nx: 1\n---"), Some(("x: 1", "")));
        assert_eq!(split_fence("---\n---\nBody\n"), None);
        assert_eq!(split_fence("--- \nx\n---\n"), None);
        assert_eq!(split_fence("# no fence"), None);
    }

    #[test]
    fn an_alias_bomb_is_refused_without_expanding_it() {
        let mut block = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let mut prev = 'a';
        for level in ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] {
            let refs = vec![format!("*{prev}"); 9].join(",");
            block.push_str(&format!("{level}: &{level} [{refs}]\n"));
            prev = level;
        }
        let text = format!("---\nname: bomb\n{block}---\nbody\n");
        assert_eq!(parse(&text), Err(Malformed));
        let few = "---\nname: ok\nbase: &b x\ndescription: *b\n---\nbody\n";
        assert_eq!(parse(few).map(|f| f.description), Ok(Some("x".to_string())));
    }

    #[test]
    fn a_byte_order_mark_does_not_hide_the_frontmatter() {
        let parsed = parse("\u{feff}---\nname: bom\n---\nbody\n");
        assert_eq!(parsed.map(|f| f.name), Ok(Some("bom".to_string())));
    }

    fn ok(text: &str) -> Frontmatter {
        parse(text).unwrap()
    }

    #[test]
    fn folded_literal_and_quoted() {
        let f = ok("---\nname: folded\ndescription: >\n  This is folded\n  across lines.\n\n  New para.\n---\nBody folded\n");
        assert_eq!(f.name.as_deref(), Some("folded"));
        assert_eq!(
            f.description.as_deref(),
            Some("This is folded across lines.\nNew para.")
        );
        assert_eq!(f.content, "Body folded\n");

        let f =
            ok("---\nname: literal\ndescription: |\n  Line one\n  Line two\n---\nBody literal\n");
        assert_eq!(f.description.as_deref(), Some("Line one\nLine two"));

        let f = ok("---\nname: lk\ndescription: |+\n  keep\n\n---\nBody\n");
        assert_eq!(f.description.as_deref(), Some("keep"));

        let f = ok("---\nname: \"dquoted\"\ndescription: \"Quoted: with colon \\u00e9 \\t tab\"\n---\nBody\n");
        assert_eq!(f.name.as_deref(), Some("dquoted"));
        assert_eq!(
            f.description.as_deref(),
            Some("Quoted: with colon é \t tab")
        );

        let f = ok("---\nname: 'squoted'\ndescription: 'It''s single'\n---\nBody\n");
        assert_eq!(f.description.as_deref(), Some("It's single"));
    }

    #[test]
    fn scalars_are_coerced_and_trimmed() {
        let f = ok("---\nname: 123\ndescription: 4.50\n---\nBody\n");
        assert_eq!(f.name.as_deref(), Some("123"));
        assert_eq!(f.description.as_deref(), Some("4.5"));
        let f = ok("---\nname: true\ndescription: 3.0\n---\n");
        assert_eq!(f.name.as_deref(), Some("True"));
        assert_eq!(f.description.as_deref(), Some("3.0"));
        assert_eq!(f.content, "");
        let f =
            ok("---\nname: trailing   \ndescription:    padded desc   \n---\n\n\n   Body   \n\n");
        assert_eq!(f.name.as_deref(), Some("trailing"));
        assert_eq!(f.description.as_deref(), Some("padded desc"));
        assert_eq!(f.content, "\n\n   Body   \n\n");
        let f = ok("---\r\nname: crlf\r\ndescription: CRLF desc\r\n---\r\nBody crlf\r\n");
        assert_eq!(f.name.as_deref(), Some("crlf"));
        assert_eq!(f.content, "Body crlf\r\n");
    }

    #[test]
    fn python_float_rendering() {
        assert_eq!(python_float("4.50"), "4.5");
        assert_eq!(python_float("1e20"), "1e+20");
        assert_eq!(python_float("1.5e-7"), "1.5e-07");
        assert_eq!(python_float(".inf"), "inf");
        assert_eq!(python_float("99999999999999999999"), "99999999999999999999");
    }

    #[test]
    fn non_scalar_null_and_empty_values() {
        let f = ok("---\nname: listdesc\ndescription: [a, b]\n---\nBody\n");
        assert_eq!(f.name.as_deref(), Some("listdesc"));
        assert_eq!(f.description, None);
        let f = ok("---\nname: nulldesc\ndescription:\n---\nBody\n");
        assert_eq!(f.description, None);
        let f = ok("---\nname: e\ndescription: \"  \"\n---\nBody\n");
        assert_eq!(f.description.as_deref(), Some(""));
        let f = ok("---\nname: [a, b]\n---\nBody\n");
        assert_eq!(f.name, None);
        let f = ok("---\nname: \"  \"\n---\nBody\n");
        assert_eq!(f.name, None);
        let f = ok("---\njust a string\n---\nBody\n");
        assert_eq!(f.name, None);
    }

    #[test]
    fn malformed_yaml_is_an_error_not_a_panic() {
        assert!(parse("---\nname: [unclosed\ndescription: x\n---\nBody\n").is_err());
        assert!(parse("---\nname: a\n\tbad: [\n---\n").is_err());
        assert!(parse("---\nname: a\nname: b\n---\n").is_err());
    }

    #[test]
    fn no_frontmatter_cases() {
        for text in [
            "# No frontmatter\nJust body\n",
            "---\n---\nBody\n",
            "---\nname: no_close\nBody\n",
        ] {
            let f = ok(text);
            assert_eq!(f.name, None, "{text:?}");
            assert_eq!(f.content, text);
        }
    }
}
