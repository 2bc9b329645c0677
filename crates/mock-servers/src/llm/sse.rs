//! A turn with everything resolved (text rendered, ids assigned, usage chosen), and how
//! streamed text is cut into pieces.

use serde_json::Value;

use super::scenario::Usage;

/// One tool call ready for the wire.
#[derive(Debug, Clone)]
pub struct RenderedCall {
    /// The call id.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments object.
    pub args: Value,
    /// The arguments as the JSON string OpenAI sends.
    pub arguments: String,
}

/// A model turn ready for either wire.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// `chatcmpl-…` / `msg_…`.
    pub id: String,
    /// Seconds since the epoch.
    pub created: u64,
    /// The request's model, echoed.
    pub model: String,
    /// The text, if any.
    pub text: Option<String>,
    /// The tool calls.
    pub tool_calls: Vec<RenderedCall>,
    /// The override, else derived per wire.
    pub finish_reason: Option<String>,
    /// Token counts.
    pub usage: Usage,
}

/// Characters per streamed piece: small, so a client really has to reassemble.
const PIECE: usize = 5;

/// `text` cut into pieces of [`PIECE`] characters (never inside a character).
pub fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(PIECE)
        .map(|c| c.iter().collect::<String>())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_rejoin_to_the_text() {
        let t = "héllo wörld, {\"q\": \"x\"}";
        let p = pieces(t);
        assert!(p.len() > 3);
        assert_eq!(p.concat(), t);
        assert!(pieces("").is_empty());
    }
}
