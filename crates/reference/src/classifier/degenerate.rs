//! Degenerate `choice` criteria (§8B): detected and reported, never repaired. A choice of
//! two or more options is degenerate when every description is empty, or every description
//! equals its own id, or every description equals every other; the model then has nothing to
//! rank the options by. A single-option choice is never reported.

use indexmap::IndexMap;

/// Which rule a degenerate choice breaks (the first that holds, in the SPEC's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Degenerate {
    /// Every description is the empty string.
    AllEmpty,
    /// Every description is its option's own id.
    EqualsId,
    /// Every description is the same text.
    AllIdentical,
}

impl Degenerate {
    /// The advisory text of the `classifier.warning` event for question `key`.
    pub fn warning(self, key: &str) -> String {
        let why = match self {
            Degenerate::AllEmpty => "every option's description is empty",
            Degenerate::EqualsId => "every option's description is its own id",
            Degenerate::AllIdentical => "every option has the same description",
        };
        format!(
            "question {key:?}: degenerate choice criteria: {why}; a choice's descriptions are \
             all that tells its options apart to the model, so its answer ranks at chance \
             (sent unchanged)"
        )
    }
}

/// The rule `criteria` breaks, if any; `None` for fewer than two options.
pub fn detect(criteria: &IndexMap<String, String>) -> Option<Degenerate> {
    if criteria.len() < 2 {
        return None;
    }
    if criteria.values().all(String::is_empty) {
        return Some(Degenerate::AllEmpty);
    }
    if criteria.iter().all(|(id, d)| id == d) {
        return Some(Degenerate::EqualsId);
    }
    let mut values = criteria.values();
    let first = values.next()?;
    values
        .all(|d| d == first)
        .then_some(Degenerate::AllIdentical)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_three_rules() {
        assert_eq!(
            detect(&map(&[("left", ""), ("right", "")])),
            Some(Degenerate::AllEmpty)
        );
        assert_eq!(
            detect(&map(&[("left", "left"), ("right", "right")])),
            Some(Degenerate::EqualsId)
        );
        assert_eq!(
            detect(&map(&[
                ("left", "a move"),
                ("right", "a move"),
                ("up", "a move")
            ])),
            Some(Degenerate::AllIdentical)
        );
    }

    #[test]
    fn described_options_and_partial_cases_are_not_degenerate() {
        assert_eq!(
            detect(&map(&[
                ("left", "away from the wall"),
                ("right", "into it")
            ])),
            None
        );
        // One empty among described ones, one id among described ones: not "every".
        assert_eq!(detect(&map(&[("left", ""), ("right", "into it")])), None);
        assert_eq!(
            detect(&map(&[("left", "left"), ("right", "into it")])),
            None
        );
    }

    #[test]
    fn a_single_option_is_never_reported() {
        assert_eq!(detect(&map(&[("only", "")])), None);
        assert_eq!(detect(&map(&[("only", "only")])), None);
        assert_eq!(detect(&IndexMap::new()), None);
    }

    #[test]
    fn the_warning_names_the_key() {
        let w = Degenerate::EqualsId.warning("move");
        assert!(w.starts_with("question \"move\": "), "{w}");
    }
}
