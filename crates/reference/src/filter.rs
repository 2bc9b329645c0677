//! The name→bool filter shared by skills (§3 S2) and MCP per-server tools (§2 Gap 7).

use std::collections::{BTreeMap, BTreeSet};

/// A resolved name filter: nil/empty ⇒ all; ≥1 `true` ⇒ allowlist; only `false` ⇒ drop-list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum NameFilter {
    /// Everything passes.
    #[default]
    All,
    /// Only these names pass.
    Allow(BTreeSet<String>),
    /// Everything but these names passes.
    Drop(BTreeSet<String>),
}

impl NameFilter {
    /// Resolves a name→bool map into a filter.
    pub fn from_map(map: &BTreeMap<String, bool>) -> Self {
        if map.is_empty() {
            return NameFilter::All;
        }
        if map.values().any(|v| *v) {
            NameFilter::Allow(
                map.iter()
                    .filter(|(_, v)| **v)
                    .map(|(k, _)| k.clone())
                    .collect(),
            )
        } else {
            NameFilter::Drop(map.keys().cloned().collect())
        }
    }

    /// Whether `name` passes.
    pub fn allows(&self, name: &str) -> bool {
        match self {
            NameFilter::All => true,
            NameFilter::Allow(set) => set.contains(name),
            NameFilter::Drop(set) => !set.contains(name),
        }
    }

    /// Applies the filter to `items` (keyed by `name_of`), returning the kept items and one
    /// warning naming every map key that matched no item (sorted, so output is stable).
    pub fn apply<T>(
        map: &BTreeMap<String, bool>,
        items: Vec<T>,
        name_of: impl Fn(&T) -> &str,
        what: &str,
    ) -> (Vec<T>, Option<String>) {
        if map.is_empty() {
            // Nothing to drop and no name to check: the common case, and a large catalog.
            return (items, None);
        }
        let filter = Self::from_map(map);
        let known: BTreeSet<&str> = items.iter().map(&name_of).collect();
        let unknown: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| !known.contains(k))
            .collect();
        let warning = (!unknown.is_empty()).then(|| {
            format!(
                "{what} filter names unknown {what}s (ignored): {}",
                unknown.join(", ")
            )
        });
        let kept = items
            .into_iter()
            .filter(|i| filter.allows(name_of(i)))
            .collect();
        (kept, warning)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pairs: &[(&str, bool)]) -> BTreeMap<String, bool> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn three_modes() {
        assert!(NameFilter::from_map(&m(&[])).allows("x"));
        let allow = NameFilter::from_map(&m(&[("a", true), ("b", false)]));
        assert!(allow.allows("a") && !allow.allows("b") && !allow.allows("c"));
        let drop = NameFilter::from_map(&m(&[("b", false)]));
        assert!(drop.allows("a") && !drop.allows("b"));
    }
}
