//! The `compact` command (PROTOCOL.md §5.26) and the protocol's compactor options as the
//! reference's, which the client's `compactor` hook behaviour uses too.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use toolnexus_protocol::compact::{CompactOptions as ProtoCompactOptions, TokenCounter};
use toolnexus_protocol::ErrorKind;
use toolnexus_reference::compact::{self, CompactOptions, CountTokens, Summarize};

use crate::reply::Reply;

/// §5.26: one SPEC §7F compaction, recording every `summarize` argument.
pub async fn compact(messages: Vec<Value>, options: &ProtoCompactOptions) -> Reply {
    let calls: Arc<Mutex<Vec<Vec<Value>>>> = Arc::default();
    let opts = compact_options(options, Arc::clone(&calls));
    let compacted = compact::compact(&messages, &opts)
        .await
        .map_err(|e| (ErrorKind::Internal, e))?;
    let calls = calls.lock().unwrap_or_else(|p| p.into_inner()).clone();
    Ok(json!({"messages": compacted, "summarizeCalls": calls}))
}

/// The protocol's compactor options as the reference's, each `summarize` argument pushed
/// to `calls`.
pub(crate) fn compact_options(
    options: &ProtoCompactOptions,
    calls: Arc<Mutex<Vec<Vec<Value>>>>,
) -> CompactOptions {
    let summarizer = options.summarize.clone();
    let summarize: Summarize = Arc::new(move |older: Vec<Value>| {
        let text = summarizer.summarize(&older);
        calls.lock().unwrap_or_else(|p| p.into_inner()).push(older);
        Box::pin(async move { Ok(text) })
    });
    let count_tokens = options.count_tokens.as_ref().map(|counter| {
        let TokenCounter::PerMessage(k) = *counter;
        let k = usize::try_from(k).unwrap_or(usize::MAX);
        Arc::new(move |m: &[Value]| m.len().saturating_mul(k)) as CountTokens
    });
    CompactOptions {
        max_tokens: usize::try_from(options.max_tokens).unwrap_or(usize::MAX),
        keep_tail: options
            .keep_tail
            .map(|t| usize::try_from(t).unwrap_or(usize::MAX)),
        summarize,
        count_tokens,
        flush_to_memory: options.flush_to_memory,
    }
}
