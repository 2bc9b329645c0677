//! The SPEC's version order: a strict `X.Y.Z` ([`SpecVersion`], as tags and ports name a
//! SPEC) and release numbers of any length as text ([`version_key`], [`cmp_versions`], as
//! the history files and the index's arrivals name them); and the label of a text that is no
//! release ([`after_release`]: `main-after-X.Y.Z`, upstream main after a release), which
//! sorts right after that release and before the next.

use std::cmp::Ordering;

/// A SPEC version (`X.Y.Z`), compared numerically per component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SpecVersion(pub [u64; 3]);

/// The label of the newest SPEC text in reach, which is no release: upstream main after
/// 0.17.0, with what its CHANGELOG then listed as "Unreleased". Written here once; it sorts
/// after 0.17.0 and before any later release ([`cmp_versions`]).
pub const NEWEST_TEXT: &str = "main-after-0.17.0";

impl SpecVersion {
    /// A port that declares the [`NEWEST_TEXT`] label implements that text whole, which is
    /// ahead of every release it follows (its "Unreleased" rules shipped later): above every
    /// release, so every scenario the text's clauses bound holds for it.
    pub const NEWEST: SpecVersion = SpecVersion([u64::MAX; 3]);

    /// Parses exactly `X.Y.Z` (decimal components), as version tags must be written.
    pub fn parse(text: &str) -> Option<SpecVersion> {
        let mut parts = [0u64; 3];
        let mut n = 0;
        for part in text.split('.') {
            if n == 3 || part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            parts[n] = part.parse().ok()?;
            n += 1;
        }
        (n == 3).then_some(SpecVersion(parts))
    }

    /// Parses `X.Y.Z`, or the [`NEWEST_TEXT`] label as [`SpecVersion::NEWEST`]: a SPEC text a
    /// command can be asked to judge by.
    pub fn parse_text(text: &str) -> Option<SpecVersion> {
        SpecVersion::parse(text).or((text == NEWEST_TEXT).then_some(SpecVersion::NEWEST))
    }

    /// Reads the version a port declares: its leading `X[.Y[.Z]]`, missing components 0 and
    /// any suffix (`rc1`, `.post1`) ignored, because package versions carry them.
    pub fn parse_declared(text: &str) -> Option<SpecVersion> {
        if text.trim() == NEWEST_TEXT {
            return Some(SpecVersion::NEWEST);
        }
        let mut parts = [0u64; 3];
        let mut rest = text.trim();
        for (i, slot) in parts.iter_mut().enumerate() {
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits == 0 {
                return (i > 0).then_some(SpecVersion(parts));
            }
            *slot = rest[..digits].parse().ok()?;
            rest = &rest[digits..];
            match rest.strip_prefix('.') {
                Some(r) if r.starts_with(|c: char| c.is_ascii_digit()) => rest = r,
                _ => return Some(SpecVersion(parts)),
            }
        }
        Some(SpecVersion(parts))
    }
}

impl std::fmt::Display for SpecVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if *self == SpecVersion::NEWEST {
            return f.write_str(NEWEST_TEXT);
        }
        let [a, b, c] = self.0;
        write!(f, "{a}.{b}.{c}")
    }
}

/// A plain release number's numeric components (`0.18.1` ⇒ `[0, 18, 1]`); `None` for
/// anything else (pre-releases such as `0.17.0rc1` included).
pub fn version_key(v: &str) -> Option<Vec<u64>> {
    v.split('.').map(|c| c.parse::<u64>().ok()).collect()
}

/// The prefix of a label naming upstream main after a release: no release itself, so no tag,
/// arrival or port declaration can name it, and [`version_key`] refuses it.
pub const AFTER_PREFIX: &str = "main-after-";

/// The release a `main-after-X.Y.Z` label follows (`X.Y.Z`); `None` for anything else.
pub fn after_release(label: &str) -> Option<&str> {
    label
        .strip_prefix(AFTER_PREFIX)
        .filter(|v| version_key(v).is_some())
}

/// Numeric per-component order (`0.9.5` < `0.10.0`); a missing component counts as 0. A
/// `main-after-X` label sorts right after `X` and before any later release. Anything else
/// that is not a plain release number sorts after those, by its text.
pub fn cmp_versions(a: &str, b: &str) -> Ordering {
    if after_release(a).is_some() || after_release(b).is_some() {
        let (ra, rb) = (after_release(a).unwrap_or(a), after_release(b).unwrap_or(b));
        return cmp_versions(ra, rb)
            .then_with(|| after_release(a).is_some().cmp(&after_release(b).is_some()));
    }
    match (version_key(a), version_key(b)) {
        (Some(x), Some(y)) => {
            let n = x.len().max(y.len());
            let pad = |v: &[u64]| {
                (0..n)
                    .map(|i| v.get(i).copied().unwrap_or(0))
                    .collect::<Vec<_>>()
            };
            pad(&x).cmp(&pad(&y)).then_with(|| x.len().cmp(&y.len()))
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_strictly_in_tags_and_compare_per_component() {
        let v = |t: &str| SpecVersion::parse(t);
        assert_eq!(v("0.16.0"), Some(SpecVersion([0, 16, 0])));
        for bad in [
            "0.16", "0.16.x", "1.2.3.4", "", "0..1", "v0.16.0", "0.16.0 ",
        ] {
            assert_eq!(v(bad), None, "{bad:?}");
        }
        // Numeric, not textual: 0.9.0 < 0.10.0 < 0.16.0 < 1.0.0.
        assert!(v("0.9.0") < v("0.10.0"));
        assert!(v("0.10.0") < v("0.16.0"));
        assert!(v("0.16.0") < v("1.0.0"));
        assert_eq!(SpecVersion([0, 17, 2]).to_string(), "0.17.2");
    }

    #[test]
    fn a_declared_version_tolerates_package_suffixes() {
        let d = |t: &str| SpecVersion::parse_declared(t);
        assert_eq!(d("0.21.0"), Some(SpecVersion([0, 21, 0])));
        assert_eq!(d("0.21"), Some(SpecVersion([0, 21, 0])));
        assert_eq!(d("0.21.0.post1"), Some(SpecVersion([0, 21, 0])));
        assert_eq!(d("0.22.0rc1"), Some(SpecVersion([0, 22, 0])));
        assert_eq!(d("1"), Some(SpecVersion([1, 0, 0])));
        assert_eq!(d("latest"), None);
        assert_eq!(d(NEWEST_TEXT), Some(SpecVersion::NEWEST));
        assert!(SpecVersion::NEWEST > SpecVersion([0, 99, 0]));
        assert_eq!(SpecVersion::NEWEST.to_string(), NEWEST_TEXT);
        assert_eq!(d(""), None);
    }

    #[test]
    fn versions_compare_numerically_per_component() {
        assert_eq!(cmp_versions("0.9.5", "0.10.0"), Ordering::Less);
        assert_eq!(cmp_versions("0.18.1", "0.18.0"), Ordering::Greater);
        assert_eq!(cmp_versions("0.16.0", "0.16.0"), Ordering::Equal);
        assert_eq!(version_key("0.17.0rc1"), None);
    }

    #[test]
    fn main_after_a_release_sorts_after_it_and_before_the_next() {
        let after = "main-after-0.17.0";
        assert_eq!(after_release(after), Some("0.17.0"));
        assert_eq!(version_key(after), None, "no release");
        let mut texts = vec!["0.18.0", after, "0.16.0", "0.17.0", "0.9.5", "0.17.0rc1"];
        texts.sort_by(|a, b| cmp_versions(a, b));
        assert_eq!(
            texts,
            ["0.9.5", "0.16.0", "0.17.0", after, "0.18.0", "0.17.0rc1"]
        );
        assert_eq!(cmp_versions(after, after), Ordering::Equal);
        assert_eq!(cmp_versions("main-after-0.9.5", "0.10.0"), Ordering::Less);
        for not_one in ["main-after-", "main-after-next", "main-0.17.0"] {
            assert_eq!(after_release(not_one), None, "{not_one}");
        }
    }
}
