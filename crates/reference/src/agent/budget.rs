//! §7D budgets: the seven limits, the carve at spawn and the ledger the live walk reads.

use serde_json::{json, Map, Value};

use crate::client::Usage;

/// `Budget { maxTurns, maxTokens, maxToolCalls, maxWallMs, maxChildren, maxConcurrent, maxDepth }`;
/// `None` is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    /// LLM round trips of this handle.
    pub max_turns: Option<u64>,
    /// Tokens of this handle and everything it spawned.
    pub max_tokens: Option<u64>,
    /// Tool calls of this handle and everything it spawned.
    pub max_tool_calls: Option<u64>,
    /// Virtual milliseconds one run may take.
    pub max_wall_ms: Option<u64>,
    /// Live children at once.
    pub max_children: Option<u64>,
    /// Running children at once (the concurrency gate).
    pub max_concurrent: Option<u64>,
    /// Levels below this handle.
    pub max_depth: Option<u64>,
}

/// The budget fields in their SPEC spelling, in SPEC order.
const FIELDS: [&str; 7] = [
    "maxTurns",
    "maxTokens",
    "maxToolCalls",
    "maxWallMs",
    "maxChildren",
    "maxConcurrent",
    "maxDepth",
];

impl Budget {
    fn slot(&mut self, name: &str) -> Option<&mut Option<u64>> {
        Some(match name {
            "maxTurns" => &mut self.max_turns,
            "maxTokens" => &mut self.max_tokens,
            "maxToolCalls" => &mut self.max_tool_calls,
            "maxWallMs" => &mut self.max_wall_ms,
            "maxChildren" => &mut self.max_children,
            "maxConcurrent" => &mut self.max_concurrent,
            "maxDepth" => &mut self.max_depth,
            _ => return None,
        })
    }

    /// Reads a budget object; an unknown field or a value that is not a non-negative
    /// integer is refused by name.
    pub fn from_json(v: &Value) -> Result<Budget, String> {
        let Some(map) = v.as_object() else {
            return Err(format!("budget must be an object, got {v}"));
        };
        let mut b = Budget::default();
        for (k, val) in map {
            let Some(slot) = b.slot(k) else {
                return Err(format!(
                    "unknown budget field {k:?} (known: {})",
                    FIELDS.join(", ")
                ));
            };
            match val {
                Value::Null => {}
                _ => match val.as_u64() {
                    Some(n) => *slot = Some(n),
                    None => {
                        return Err(format!(
                            "budget field {k} must be a non-negative integer, got {val}"
                        ))
                    }
                },
            }
        }
        Ok(b)
    }

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

    /// The set fields, SPEC-spelled.
    pub fn to_json(&self) -> Value {
        let values = [
            self.max_turns,
            self.max_tokens,
            self.max_tool_calls,
            self.max_wall_ms,
            self.max_children,
            self.max_concurrent,
            self.max_depth,
        ];
        let mut out = Map::new();
        for (name, v) in FIELDS.iter().zip(values) {
            if let Some(n) = v {
                out.insert((*name).to_string(), json!(n));
            }
        }
        Value::Object(out)
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

impl Ledger {
    /// As JSON: `{turns, toolCalls, tokens}`.
    pub fn to_json(&self) -> Value {
        json!({"turns": self.turns, "toolCalls": self.tool_calls, "tokens": self.usage.total_tokens})
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
    fn unknown_fields_are_refused_by_name() {
        let e = Budget::from_json(&json!({"maxTokenz": 1})).unwrap_err();
        assert!(e.contains("maxTokenz"), "{e}");
        let e = Budget::from_json(&json!({"maxTokens": -1})).unwrap_err();
        assert!(e.contains("maxTokens"), "{e}");
    }
}
