//! How alike two wordings are: word-level similarity, and the run of a text closest to a
//! quote. An earlier wording of a clause (its arrival) and a changed clause (`spec-diff`) are
//! both found this way.

use std::collections::HashMap;

use similar::{capture_diff_slices, Algorithm, DiffOp};

/// The lowest similarity at which two wordings count as one sentence reworded: an earlier
/// wording of a clause (its arrival), or a changed clause rather than a removed one
/// (`spec-diff`). One threshold, so the two never disagree about the same pair.
pub const REWORDED_AT: f32 = 0.6;

/// Word-level similarity: twice the words in common (in order) over both lengths. Words
/// compare without surrounding punctuation and case, so `(\`skill\`` matches `\`skill\``.
pub fn similarity(a: &[&str], b: &[&str]) -> f32 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (a, b): (Vec<String>, Vec<String>) = (
        a.iter().map(|w| word_key(w)).collect(),
        b.iter().map(|w| word_key(w)).collect(),
    );
    let same: usize = capture_diff_slices(Algorithm::Myers, &a, &b)
        .iter()
        .map(|op| match op {
            DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    2.0 * same as f32 / (a.len() + b.len()) as f32
}

fn word_key(w: &str) -> String {
    w.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// How many of the best windows by shared words get the exact (ordered) similarity.
const CANDIDATES: usize = 8;

/// The run of `text`'s words most like `quote` (windows of about the quote's length) and
/// its [`similarity`]. Windows are first ranked by the words they share with the quote, in
/// one pass per window length; only the best few are compared in order.
pub fn closest(quote: &str, text: &str) -> Option<(String, f32)> {
    let q: Vec<&str> = quote.split_whitespace().collect();
    let words: Vec<&str> = text.split_whitespace().collect();
    if q.is_empty() || words.is_empty() {
        return None;
    }
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut id = |w: &str| {
        let n = ids.len();
        *ids.entry(word_key(w)).or_insert(n)
    };
    let q_ids: Vec<usize> = q.iter().map(|w| id(w)).collect();
    let w_ids: Vec<usize> = words.iter().map(|w| id(w)).collect();
    let mut want = vec![0i32; ids.len()];
    for &i in &q_ids {
        want[i] += 1;
    }
    let n = q.len();
    // (bag score, start, len), the quote's own length tried first so ties go to it.
    let mut ranked: Vec<(f32, usize, usize)> = Vec::new();
    for len in [n, n - n / 4, n + n / 4] {
        let len = len.clamp(1, words.len());
        let mut have = vec![0i32; want.len()];
        let mut shared = 0i32;
        for (end, &w) in w_ids.iter().enumerate() {
            if have[w] < want[w] {
                shared += 1;
            }
            have[w] += 1;
            if end >= len {
                let out = w_ids[end - len];
                have[out] -= 1;
                if have[out] < want[out] {
                    shared -= 1;
                }
            }
            if end + 1 >= len {
                let score = 2.0 * shared as f32 / (n + len) as f32;
                ranked.push((score, end + 1 - len, len));
            }
        }
    }
    // Stable sort keeps the earlier (quote-length, leftmost) window first among equals.
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut best: Option<(usize, usize, f32)> = None;
    for &(bag, start, len) in ranked.iter().take(CANDIDATES) {
        if best.is_some_and(|(_, _, b)| bag <= b) {
            break; // the bag score bounds the ordered one
        }
        let score = similarity(&q, &words[start..start + len]);
        if best.is_none_or(|(_, _, b)| score > b) {
            best = Some((start, len, score));
        }
    }
    best.map(|(start, len, score)| (words[start..start + len].join(" "), score))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_run_is_the_reworded_sentence() {
        let words = |s: &'static str| s.split_whitespace().collect::<Vec<_>>();
        assert_eq!(similarity(&words("a b"), &words("(a b.")), 1.0);
        assert_eq!(similarity(&[], &[]), 1.0);
        let text = "Intro here. Ports MUST answer each request with one line. Other prose follows.";
        let (run, score) =
            closest("Ports MUST answer every request with one line.", text).unwrap_or_default();
        assert_eq!(run, "Ports MUST answer each request with one line.");
        assert!((0.8..1.0).contains(&score), "{score}");
        assert_eq!(closest("", text), None);
    }
}
