//! The `compact` command's typed options and answer (PROTOCOL.md §5.26, SPEC §7F).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Every `compact` option key (SPEC §7F), the fields of [`CompactOptions`]; an unknown key is
/// a `bad_request`. For drivers that read the options as JSON (the rust-crate port's).
pub const COMPACT_OPTION_KEYS: [&str; 5] = [
    "maxTokens",
    "keepTail",
    "summarize",
    "countTokens",
    "flushToMemory",
];

/// SPEC §7F compactor options; the host callbacks come from a fixed catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CompactOptions {
    /// Compact only when the estimate exceeds this.
    pub max_tokens: u64,
    /// Tokens of recent tail to keep; absent ⇒ the port's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_tail: Option<u64>,
    /// The `summarize(older)` callback.
    pub summarize: Summarizer,
    /// The `countTokens` callback; absent ⇒ the port's default estimator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_tokens: Option<TokenCounter>,
    /// Inject the pre-compact memory reminder.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flush_to_memory: bool,
}

/// What the driver's `summarize` callback answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub enum Summarizer {
    /// This text, whatever the older messages.
    Text(String),
    /// This text with every `<N>` replaced by the number of older messages.
    Template(String),
}

impl Summarizer {
    /// The summary of `older` this callback answers.
    pub fn summarize(&self, older: &[Value]) -> String {
        match self {
            Summarizer::Text(text) => text.clone(),
            Summarizer::Template(t) => t.replace("<N>", &older.len().to_string()),
        }
    }
}

/// A host `countTokens` callback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub enum TokenCounter {
    /// K tokens per message, whatever its content (so a split is exact in every port).
    PerMessage(u64),
}

/// `compact`'s answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CompactResponse {
    /// The compacted transcript; `None` when the compactor was a no-op.
    pub messages: Option<Vec<Value>>,
    /// The `older` argument of every `summarize` call, in order.
    #[serde(rename = "summarizeCalls")]
    pub summarize_calls: Vec<Vec<Value>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_list_names_every_field_of_the_options() {
        let full = CompactOptions {
            max_tokens: 1,
            keep_tail: Some(1),
            summarize: Summarizer::Text("s".into()),
            count_tokens: Some(TokenCounter::PerMessage(1)),
            flush_to_memory: true,
        };
        let json = serde_json::to_value(full).unwrap_or_default();
        let keys: Vec<&str> = json
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(keys, COMPACT_OPTION_KEYS);
    }
}
