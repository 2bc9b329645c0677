//! Bounded reads of what an LLM server sends: a hostile or broken server may answer with
//! an endless or giant body, and the client must neither hold it all in memory nor hang
//! on it (project rule: memory, output and reports stay bounded whatever a server sends).

use std::fmt;

use futures::{Stream, StreamExt};

/// The most a successful answer (JSON or a whole SSE stream) may weigh: 32 MiB.
pub const ANSWER_CAP: usize = 32 * 1024 * 1024;

/// How much of an error body is read before the rest is left unread: 64 KiB.
pub const ERROR_BODY_CAP: usize = 64 * 1024;

/// Why a bounded read stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// More than `cap` bytes came (or were announced); `what` names the body.
    TooBig {
        /// The cap that was passed.
        cap: usize,
        /// "LLM answer" or "LLM stream".
        what: &'static str,
    },
    /// The connection failed while reading (a network error).
    Transport(String),
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::TooBig { cap, what } => {
                write!(f, "{what} exceeds {cap} bytes; not read further")
            }
            BodyError::Transport(detail) => f.write_str(detail),
        }
    }
}

impl std::error::Error for BodyError {}

/// Reads the whole body, failing with `TooBig` as soon as it (or its announced
/// `Content-Length`) passes `cap`, so at most `cap` bytes plus one chunk are ever held.
pub(crate) async fn read_capped(
    mut resp: reqwest::Response,
    cap: usize,
) -> Result<Vec<u8>, BodyError> {
    let too_big = BodyError::TooBig {
        cap,
        what: "LLM answer",
    };
    if resp
        .content_length()
        .is_some_and(|n| n > u64::try_from(cap).unwrap_or(u64::MAX))
    {
        return Err(too_big);
    }
    let mut buf = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| BodyError::Transport(error_chain(&e)))?
    {
        if buf.len().saturating_add(chunk.len()) > cap {
            return Err(too_big);
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf)
}

/// Reads at most `cap` bytes of the body and leaves the rest unread; `true` when the body
/// went on past `cap`. A failure mid-read keeps what came before it (an error body is only
/// ever shown, so a partial one is still worth showing).
pub(crate) async fn read_prefix(mut resp: reqwest::Response, cap: usize) -> (Vec<u8>, bool) {
    let mut buf = Vec::new();
    while let Ok(Some(chunk)) = resp.chunk().await {
        let room = cap.saturating_sub(buf.len());
        if chunk.len() > room {
            buf.extend_from_slice(&chunk[..room]);
            return (buf, true);
        }
        buf.extend_from_slice(&chunk);
    }
    (buf, false)
}

/// Passes a byte stream through until `cap` bytes in total have gone by; then one
/// `TooBig` item ends it (as does the first transport error), so an endless stream or one
/// giant event cannot grow whatever consumes it past `cap`.
pub(crate) fn capped_stream<S, B, E>(
    stream: S,
    cap: usize,
) -> impl Stream<Item = Result<B, BodyError>>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: std::error::Error + 'static,
{
    stream.scan((0usize, false), move |(seen, ended), item| {
        if *ended {
            return futures::future::ready(None);
        }
        let out = match item {
            Ok(chunk) => {
                *seen = seen.saturating_add(chunk.as_ref().len());
                if *seen > cap {
                    *ended = true;
                    Err(BodyError::TooBig {
                        cap,
                        what: "LLM stream",
                    })
                } else {
                    Ok(chunk)
                }
            }
            Err(e) => {
                *ended = true;
                Err(BodyError::Transport(error_chain(&e)))
            }
        };
        futures::future::ready(Some(out))
    })
}

/// A transport error with its causes, so "connection refused" is not lost behind
/// "error sending request".
pub(crate) fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Never;
    impl fmt::Display for Never {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("never")
        }
    }
    impl std::error::Error for Never {}

    #[tokio::test]
    async fn an_endless_stream_is_cut_at_the_cap() {
        let endless = futures::stream::repeat_with(|| Ok::<_, Never>(vec![b'x'; 1000]));
        let items: Vec<_> = capped_stream(endless, 10_000).collect().await;
        assert_eq!(items.len(), 11, "ten chunks pass, then one error ends it");
        assert!(items[..10].iter().all(Result::is_ok));
        let err = items[10].as_ref().err().map(ToString::to_string);
        assert_eq!(
            err.as_deref(),
            Some("LLM stream exceeds 10000 bytes; not read further")
        );
    }

    #[tokio::test]
    async fn a_stream_within_the_cap_passes_whole() {
        let s = futures::stream::iter([Ok::<_, Never>(vec![1u8; 5]), Ok(vec![2u8; 5])]);
        let items: Vec<_> = capped_stream(s, 10).collect().await;
        assert!(items.len() == 2 && items.iter().all(Result::is_ok));
    }
}
