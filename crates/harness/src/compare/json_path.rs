//! The JSON paths client steps name a field by: `usage.totalTokens`, `toolCalls[0].args.city`,
//! `messages[-1].content` (a negative index counts from the end), `$` or `` for the whole
//! value. A key holding a `.` or `[` is written `["a.b"]`.

use serde_json::Value;

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Segment {
    /// An object key.
    Key(String),
    /// An array index (negative: from the end).
    Index(i64),
}

/// Parses `path`, or says why it is not one.
pub(crate) fn parse(path: &str) -> Result<Vec<Segment>, String> {
    let rest = path.strip_prefix('$').unwrap_or(path);
    let chars: Vec<char> = rest.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut key = String::new();
    let bad = |why: &str| Err(format!("bad JSON path {path:?}: {why}"));
    while i < chars.len() {
        match chars[i] {
            '.' => {
                if !key.is_empty() {
                    out.push(Segment::Key(std::mem::take(&mut key)));
                } else if i + 1 == chars.len() || (i > 0 && chars[i - 1] == '.') {
                    return bad("empty key");
                }
                i += 1;
            }
            '[' => {
                if !key.is_empty() {
                    out.push(Segment::Key(std::mem::take(&mut key)));
                }
                let Some(close) = chars[i..].iter().position(|c| *c == ']').map(|p| p + i) else {
                    return bad("unclosed `[`");
                };
                let inner: String = chars[i + 1..close].iter().collect();
                if let Some(quoted) = inner.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                    out.push(Segment::Key(quoted.to_string()));
                } else {
                    match inner.trim().parse::<i64>() {
                        Ok(n) => out.push(Segment::Index(n)),
                        Err(_) => return bad("an index is an integer or a quoted key"),
                    }
                }
                i = close + 1;
            }
            c => {
                key.push(c);
                i += 1;
            }
        }
    }
    if !key.is_empty() {
        out.push(Segment::Key(key));
    }
    Ok(out)
}

/// The value at `path` inside `root`: `Ok(None)` when nothing is there, `Err` for a path
/// that does not parse.
pub fn get<'v>(root: &'v Value, path: &str) -> Result<Option<&'v Value>, String> {
    let mut at = root;
    for segment in parse(path)? {
        let next = match (&segment, at) {
            (Segment::Key(k), Value::Object(m)) => m.get(k),
            (Segment::Index(n), Value::Array(a)) => {
                let len = a.len() as i64;
                let i = if *n < 0 { len + n } else { *n };
                usize::try_from(i).ok().and_then(|i| a.get(i))
            }
            _ => None,
        };
        match next {
            Some(v) => at = v,
            None => return Ok(None),
        }
    }
    Ok(Some(at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_reach_keys_indices_and_the_end() {
        let v = json!({"a": {"b": [1, {"c": "x"}], "d.e": true}, "usage": {"totalTokens": 3}});
        assert_eq!(get(&v, "usage.totalTokens").unwrap(), Some(&json!(3)));
        assert_eq!(get(&v, "$.a.b[1].c").unwrap(), Some(&json!("x")));
        assert_eq!(get(&v, "a.b[-1].c").unwrap(), Some(&json!("x")));
        assert_eq!(get(&v, "a.b[-2]").unwrap(), Some(&json!(1)));
        assert_eq!(get(&v, "a[\"d.e\"]").unwrap(), Some(&json!(true)));
        assert_eq!(get(&v, "").unwrap(), Some(&v));
        assert_eq!(get(&v, "$").unwrap(), Some(&v));
        assert_eq!(get(&v, "a.b[2]").unwrap(), None);
        assert_eq!(get(&v, "a.b[-3]").unwrap(), None);
        assert_eq!(get(&v, "a.x.y").unwrap(), None);
        assert_eq!(get(&v, "usage.totalTokens.deeper").unwrap(), None);
        assert!(get(&v, "a.b[x]").is_err());
        assert!(get(&v, "a.b[1").is_err());
        assert!(get(&v, "a..b").is_err());
    }
}
