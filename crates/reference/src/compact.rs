//! SPEC §7F context compaction: a pure `messages → messages` helper, and the §8 `beforeLLM`
//! hook that applies it. It adds no loop behaviour: the loop already replaces the working
//! transcript with whatever `beforeLLM` returns.
//!
//! Pinned readings (conformance/NOTES.md #284–#289):
//! - the default estimate is `ceil(chars / 4)` per message, summed, where a message's chars are
//!   the Unicode scalar values of its compact JSON text (the compaction fixture's reading of the
//!   SPEC's "chars"; other ports' JSON bytes differ slightly, so scenarios never pin an exact
//!   split under the default estimator);
//! - a boundary is a `user` message whose content holds no `tool_result` block, whatever the
//!   dialect (so no `style` option exists); the first body message is never a boundary, which
//!   keeps at least one message to summarize;
//! - nothing to summarize (a body of zero messages) is a no-op even above `maxTokens`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use crate::client::hooks::{BeforeLlm, Hooks, LlmOverride};

/// The summary message's content prefix (the compaction fixture's `summaryContentPrefix`).
pub const SUMMARY_PREFIX: &str = "[Summary of earlier conversation]\n";

/// The `flushToMemory` reminder: the SPEC pins its purpose, not its words.
pub const FLUSH_REMINDER: &str = "Before continuing: save any durable facts from the earlier \
conversation with the memory tool now; the earlier transcript is about to be summarized.";

/// A boxed summarizer future (it may call an LLM, so it is async and may fail).
pub type SummaryFuture = Pin<Box<dyn Future<Output = Result<String, String>> + Send>>;

/// `summarize(older) → string`; an `Err` is the summarizer's failure message.
pub type Summarize = Arc<dyn Fn(Vec<Value>) -> SummaryFuture + Send + Sync>;

/// `countTokens(messages) → number`.
pub type CountTokens = Arc<dyn Fn(&[Value]) -> usize + Send + Sync>;

/// The compactor's options (SPEC §7F table).
#[derive(Clone)]
pub struct CompactOptions {
    /// Compact only when the estimate exceeds this.
    pub max_tokens: usize,
    /// Tokens of recent tail to keep at least; `None` ⇒ `max_tokens / 2`.
    pub keep_tail: Option<usize>,
    /// Produces the summary of the older body.
    pub summarize: Summarize,
    /// The token estimator; `None` ⇒ [`estimate_tokens`].
    pub count_tokens: Option<CountTokens>,
    /// Inject the pre-compact memory reminder.
    pub flush_to_memory: bool,
}

impl CompactOptions {
    /// Options with the SPEC defaults for everything but `maxTokens` and `summarize`.
    pub fn new(max_tokens: usize, summarize: Summarize) -> Self {
        CompactOptions {
            max_tokens,
            keep_tail: None,
            summarize,
            count_tokens: None,
            flush_to_memory: false,
        }
    }

    fn count(&self, messages: &[Value]) -> usize {
        match &self.count_tokens {
            Some(count) => count(messages),
            None => estimate_tokens(messages),
        }
    }

    fn tail_budget(&self) -> usize {
        self.keep_tail.unwrap_or(self.max_tokens / 2)
    }
}

/// The default estimator: `ceil(chars / 4)` of each message's compact JSON, summed.
pub fn estimate_tokens(messages: &[Value]) -> usize {
    messages
        .iter()
        .map(|m| m.to_string().chars().count().div_ceil(4))
        .sum()
}

/// Whether the tail may start at `message`: a `user` turn carrying no tool result. An
/// anthropic tool result is a `user` message with `tool_result` blocks, a tool-group member.
pub fn is_boundary(message: &Value) -> bool {
    let carries_result = message
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|blocks| {
            blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        });
    message.get("role").and_then(Value::as_str) == Some("user") && !carries_result
}

/// Where a compaction cuts: `messages[..head]` is the kept system prompt, `[head..split]`
/// the older body to summarize, `[split..]` the retained tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// 1 when the transcript starts with a `system` message, else 0.
    pub head: usize,
    /// The index the retained tail starts at (`len` for an empty tail).
    pub split: usize,
}

/// The cut a compaction would make, or `None` for a no-op (at/below `maxTokens`, or no body).
pub fn plan(messages: &[Value], opts: &CompactOptions) -> Option<Split> {
    if opts.count(messages) <= opts.max_tokens {
        return None;
    }
    let head = usize::from(
        messages
            .first()
            .and_then(|m| m.get("role"))
            .and_then(Value::as_str)
            == Some("system"),
    );
    let budget = opts.tail_budget();
    // The largest fitting tail: walk boundaries from the end while the suffix still fits.
    let mut fitting = None;
    for i in (head + 1..messages.len()).rev() {
        if opts.count(&messages[i..]) > budget {
            break;
        }
        if is_boundary(&messages[i]) {
            fitting = Some(i);
        }
    }
    // Safety over size: else the most recent boundary; else an empty tail.
    let split = fitting
        .or_else(|| {
            (head + 1..messages.len())
                .rev()
                .find(|&i| is_boundary(&messages[i]))
        })
        .unwrap_or(messages.len());
    (split > head).then_some(Split { head, split })
}

/// Compacts `messages`: `Ok(None)` is the byte-identical no-op; `Err` is the summarizer's
/// failure message.
pub async fn compact(
    messages: &[Value],
    opts: &CompactOptions,
) -> Result<Option<Vec<Value>>, String> {
    let Some(Split { head, split }) = plan(messages, opts) else {
        return Ok(None);
    };
    let summary = (opts.summarize)(messages[head..split].to_vec()).await?;
    let mut out = Vec::with_capacity(head + 2 + messages.len() - split);
    out.extend_from_slice(&messages[..head]);
    out.push(json!({"role": "system", "content": format!("{SUMMARY_PREFIX}{summary}")}));
    if opts.flush_to_memory {
        out.push(json!({"role": "system", "content": FLUSH_REMINDER}));
    }
    out.extend_from_slice(&messages[split..]);
    Ok(Some(out))
}

/// The §8 `beforeLLM` hook a compactor is.
struct Compactor(CompactOptions);

#[async_trait]
impl Hooks for Compactor {
    async fn before_llm(&self, ctx: BeforeLlm) -> Result<Option<LlmOverride>, String> {
        match compact(&ctx.messages, &self.0).await {
            Ok(Some(messages)) => Ok(Some(LlmOverride {
                messages: Some(messages),
                tools: None,
            })),
            Ok(None) => Ok(None),
            Err(e) => Err(format!("compaction failed: {e}")),
        }
    }
}

/// `compactor(opts)`: the hooks value to hand to a client's (or an agent's) `hooks`.
pub fn compactor(opts: CompactOptions) -> Arc<dyn Hooks> {
    Arc::new(Compactor(opts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(text: &'static str) -> Summarize {
        Arc::new(move |_older| Box::pin(async move { Ok(text.to_string()) }))
    }

    fn per_message() -> CountTokens {
        Arc::new(|m: &[Value]| m.len())
    }

    fn opts(max: usize, tail: usize) -> CompactOptions {
        CompactOptions {
            keep_tail: Some(tail),
            count_tokens: Some(per_message()),
            ..CompactOptions::new(max, fixed("S"))
        }
    }

    fn turn(i: usize) -> Vec<Value> {
        vec![
            json!({"role": "user", "content": format!("q{i}")}),
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("c{i}"), "type": "function", "function": {"name": "f", "arguments": "{}"}}]}),
            json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": "r"}),
            json!({"role": "assistant", "content": "a"}),
        ]
    }

    fn transcript(turns: usize) -> Vec<Value> {
        let mut out = vec![json!({"role": "system", "content": "SOUL"})];
        (0..turns).for_each(|i| out.extend(turn(i)));
        out
    }

    #[tokio::test]
    async fn at_the_budget_nothing_happens() {
        let t = transcript(2);
        assert_eq!(compact(&t, &opts(9, 4)).await, Ok(None));
        assert!(compact(&t, &opts(8, 4)).await.unwrap().is_some());
    }

    #[tokio::test]
    async fn the_largest_fitting_tail_starts_at_a_user_turn() {
        let t = transcript(3);
        // 13 messages; a tail of 8 fits exactly two turns.
        let out = compact(&t, &opts(10, 8)).await.unwrap().unwrap();
        assert_eq!(out[0], t[0]);
        assert_eq!(out[1]["content"], format!("{SUMMARY_PREFIX}S"));
        assert_eq!(out[2..], t[5..]);
        // 7 fits only one turn; 3 fits none, so the most recent boundary wins.
        assert_eq!(plan(&t, &opts(10, 7)).unwrap().split, 9);
        assert_eq!(plan(&t, &opts(10, 3)).unwrap().split, 9);
    }

    #[tokio::test]
    async fn anthropic_tool_results_are_no_boundary_and_no_boundary_means_no_tail() {
        let t = vec![
            json!({"role": "system", "content": "SOUL"}),
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}),
            json!({"role": "assistant", "content": "done"}),
        ];
        assert_eq!(plan(&t, &opts(2, 2)), Some(Split { head: 1, split: 5 }));
        let out = compact(&t, &opts(2, 2)).await.unwrap().unwrap();
        assert_eq!(out.len(), 2);
    }

    #[tokio::test]
    async fn the_default_estimator_and_tail_follow_the_spec() {
        assert_eq!(estimate_tokens(&[json!({"a": "bcd"})]), 3); // {"a":"bcd"} = 11 chars
        let o = CompactOptions::new(10, fixed("S"));
        assert_eq!(o.tail_budget(), 5);
        let lone = vec![json!({"role": "system", "content": "x".repeat(400)})];
        assert_eq!(compact(&lone, &o).await, Ok(None));
    }

    #[tokio::test]
    async fn flush_and_failures() {
        let t = transcript(3);
        let mut o = opts(10, 8);
        o.flush_to_memory = true;
        let out = compact(&t, &o).await.unwrap().unwrap();
        assert_eq!(out[2]["content"], FLUSH_REMINDER);
        o.summarize = Arc::new(|_| Box::pin(async { Err("llm down".to_string()) }));
        assert_eq!(compact(&t, &o).await, Err("llm down".to_string()));
        let hook = compactor(o);
        let ctx = BeforeLlm {
            messages: t,
            tools: vec![],
            model: "m".into(),
            turn: 1,
        };
        assert_eq!(
            hook.before_llm(ctx).await.err().as_deref(),
            Some("compaction failed: llm down")
        );
    }
}
