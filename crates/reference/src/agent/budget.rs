//! §7D budgets: the seven limits, the carve at spawn and the ledger the live walk reads.

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::client::Usage;

/// `Budget { maxTurns, maxTokens, maxToolCalls, maxWallMs, maxChildren, maxConcurrent, maxDepth }`;
/// `None` is no limit. Serialises as the set fields, SPEC-spelled, in SPEC order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    /// LLM round trips of this handle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u64>,
    /// Tokens of this handle and everything it spawned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Tool calls of this handle and everything it spawned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u64>,
    /// Virtual milliseconds one run may take.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_wall_ms: Option<u64>,
    /// Live children at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_children: Option<u64>,
    /// Running children at once (the concurrency gate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_concurrent: Option<u64>,
    /// Levels below this handle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u64>,
}

impl Budget {
    /// Per field: `over`'s value when set, else this one's.
    pub fn overlaid(mut self, over: &Budget) -> Budget {
        let pairs = [
            (&mut self.max_turns, over.max_turns),
            (&mut self.max_tokens, over.max_tokens),
            (&mut self.max_tool_calls, over.max_tool_calls),
            (&mut self.max_wall_ms, over.max_wall_ms),
            (&mut self.max_children, over.max_children),
            (&mut self.max_concurrent, over.max_concurrent),
            (&mut self.max_depth, over.max_depth),
        ];
        for (mine, theirs) in pairs {
            if theirs.is_some() {
                *mine = theirs;
            }
        }
        self
    }
}

/// What a handle has used: its own turns, and the tokens and tool calls of its subtree
/// (children's usage rolls up when their run settles).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ledger {
    /// Own LLM round trips.
    pub turns: u64,
    /// Tool calls, rolled up.
    pub tool_calls: u64,
    /// Tokens, rolled up.
    pub usage: Usage,
}

/// Serialises as `{turns, toolCalls, tokens}` (`tokens`: the rolled-up total).
impl Serialize for Ledger {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Ledger", 3)?;
        s.serialize_field("turns", &self.turns)?;
        s.serialize_field("toolCalls", &self.tool_calls)?;
        s.serialize_field("tokens", &self.usage.total_tokens)?;
        s.end()
    }
}

/// `min(own, parent remaining)` for the spendable limits, `min(own, parent's)` for
/// `maxWallMs` and `maxDepth`; `maxChildren` and `maxConcurrent` are the handle's own caps.
pub fn carve(own: &Budget, parent: Option<(&Budget, &Ledger)>) -> Budget {
    let Some((pb, pl)) = parent else {
        return *own;
    };
    let min = |mine: Option<u64>, theirs: Option<u64>| match (mine, theirs) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let remaining = |max: Option<u64>, used: u64| max.map(|m| m.saturating_sub(used));
    Budget {
        max_tokens: min(
            own.max_tokens,
            remaining(pb.max_tokens, pl.usage.total_tokens),
        ),
        max_tool_calls: min(
            own.max_tool_calls,
            remaining(pb.max_tool_calls, pl.tool_calls),
        ),
        max_wall_ms: min(own.max_wall_ms, pb.max_wall_ms),
        max_depth: min(own.max_depth, pb.max_depth),
        ..*own
    }
}

/// The first spendable limit `used` has reached, SPEC-spelled, with its numbers.
pub fn exhausted(budget: &Budget, used: &Ledger) -> Option<(&'static str, u64, u64)> {
    let checks = [
        ("maxTurns", budget.max_turns, used.turns),
        ("maxTokens", budget.max_tokens, used.usage.total_tokens),
        ("maxToolCalls", budget.max_tool_calls, used.tool_calls),
    ];
    checks
        .into_iter()
        .find_map(|(name, max, used)| max.filter(|m| used >= *m).map(|m| (name, used, m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carve_takes_the_smaller_of_own_and_parent_remaining() {
        let parent = Budget {
            max_tokens: Some(100),
            ..Budget::default()
        };
        let used = Ledger {
            usage: Usage {
                total_tokens: 30,
                ..Usage::default()
            },
            ..Ledger::default()
        };
        let own = Budget {
            max_tokens: Some(500),
            max_children: Some(1),
            ..Budget::default()
        };
        let b = carve(&own, Some((&parent, &used)));
        assert_eq!((b.max_tokens, b.max_children), (Some(70), Some(1)));
        let b = carve(&Budget::default(), Some((&parent, &used)));
        assert_eq!(b.max_tokens, Some(70));
    }

    #[test]
    fn a_budget_serialises_its_set_fields_in_spec_order() {
        let b = Budget {
            max_depth: Some(2),
            max_turns: Some(5),
            max_tool_calls: Some(0),
            ..Budget::default()
        };
        assert_eq!(
            serde_json::to_string(&b).unwrap(),
            r#"{"maxTurns":5,"maxToolCalls":0,"maxDepth":2}"#
        );
        let l = Ledger {
            turns: 1,
            tool_calls: 2,
            usage: Usage {
                total_tokens: 3,
                ..Usage::default()
            },
        };
        assert_eq!(
            serde_json::to_string(&l).unwrap(),
            r#"{"turns":1,"toolCalls":2,"tokens":3}"#
        );
    }
}
