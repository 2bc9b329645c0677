//! §2/§0.4 listed MCP tool definitions → toolnexus tools, and call results → `ToolResult`.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ResourceContents};
use rmcp::{Peer, RoleClient};
use serde_json::{json, Map, Value};

use crate::content::{ContentPart, MediaKind, MediaPart, PartBody};
use crate::env_expand::Redactor;
use crate::sanitize::sanitize;
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// Used when an `isError` result carries no text to join (as the published ports say).
pub const EMPTY_ERROR_OUTPUT: &str = "MCP tool returned an error";

/// A listed tool definition under its original name (§2 Gap 6 `ToolInfo`); serialises as
/// `{name, description, inputSchema}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolInfo {
    /// The server's own tool name.
    pub name: String,
    /// The server's description, or "".
    pub description: String,
    /// The normalised input schema.
    pub input_schema: Value,
}

impl ToolInfo {
    /// Reads a listed definition from its wire JSON.
    pub fn from_wire(def: &Value) -> ToolInfo {
        ToolInfo {
            name: def
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            description: def
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            input_schema: input_schema(def.get("inputSchema")),
        }
    }
}

/// The server's schema with `type:"object"` forced, `properties` defaulted to `{}` and
/// `additionalProperties:false`, as both published ports do (NOTES records it).
pub fn input_schema(schema: Option<&Value>) -> Value {
    let mut out = match schema {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    out.insert("type".to_string(), json!("object"));
    if !matches!(out.get("properties"), Some(Value::Object(_))) {
        out.insert("properties".to_string(), json!({}));
    }
    out.insert("additionalProperties".to_string(), json!(false));
    Value::Object(out)
}

/// What one exposed MCP tool needs to call its server.
pub struct McpCall {
    /// The server's config name (for metadata and messages).
    pub server: String,
    /// The original tool name.
    pub tool: String,
    /// The live session.
    pub peer: Peer<RoleClient>,
    /// The server's timeout, bounding each call unless the context sets one.
    pub timeout: Duration,
    /// Hides expanded secrets in anything reported.
    pub redactor: Arc<Redactor>,
}

/// `sanitize(server)_sanitize(tool)`, source `mcp`.
pub fn to_tool(info: &ToolInfo, call: McpCall) -> Tool {
    Tool::new(
        format!("{}_{}", sanitize(&call.server), sanitize(&info.name)),
        info.description.clone(),
        info.input_schema.clone(),
        Source::Mcp,
        Arc::new(call),
    )
}

#[async_trait]
impl ToolExec for McpCall {
    async fn execute(&self, args: Value, ctx: &Context) -> ToolResult {
        let arguments = match args {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => {
                return self.finish(ToolResult::error(format!(
                    "arguments must be a JSON object, got {other}"
                )))
            }
        };
        let params = CallToolRequestParams::new(self.tool.clone()).with_arguments(arguments);
        let bound = ctx
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.timeout);
        let call = tokio::time::timeout(bound, self.peer.call_tool(params));
        let result = tokio::select! {
            r = call => r,
            () = ctx.cancelled() => return self.finish(ToolResult::error("cancelled")),
        };
        let result = match result {
            Err(_) => ToolResult::error(format!(
                "mcp server \"{}\" did not answer tools/call \"{}\" within {} ms",
                self.server,
                self.tool,
                bound.as_millis()
            )),
            Ok(Err(e)) => ToolResult::error(format!(
                "mcp server \"{}\" failed at tools/call \"{}\": {e}",
                self.server, self.tool
            )),
            Ok(Ok(r)) => match wire_of(r) {
                Ok(wire) => map_result(wire),
                Err(e) => ToolResult::error(format!("unreadable tools/call result: {e}")),
            },
        };
        self.finish(result)
    }
}

impl McpCall {
    fn finish(&self, mut result: ToolResult) -> ToolResult {
        result.output = self.redactor.redact(&result.output);
        result.with_meta("server", json!(self.server))
    }
}

/// `r` as its wire JSON, each image's, audio clip's and blob's base64 moved rather than
/// copied: a result carrying a 64 MiB image holds it once while it is converted, not twice.
fn wire_of(mut r: CallToolResult) -> Result<Value, serde_json::Error> {
    let payloads: Vec<Option<String>> = r
        .content
        .iter_mut()
        .map(|c| match c {
            ContentBlock::Image(i) => Some(std::mem::take(&mut i.data)),
            ContentBlock::Audio(a) => Some(std::mem::take(&mut a.data)),
            ContentBlock::Resource(e) => match &mut e.resource {
                ResourceContents::BlobResourceContents { blob, .. } => Some(std::mem::take(blob)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let mut wire = serde_json::to_value(&r)?;
    drop(r);
    if let Some(content) = wire.get_mut("content").and_then(Value::as_array_mut) {
        for (entry, payload) in content.iter_mut().zip(payloads) {
            let at = if entry.get("data").is_some() {
                "/data"
            } else {
                "/resource/blob"
            };
            if let (Some(payload), Some(slot)) = (payload, entry.pointer_mut(at)) {
                *slot = Value::String(payload);
            }
        }
    }
    Ok(wire)
}

/// §0.4/§2 over a wire `CallToolResult`: `isError` ⇒ the non-blank text parts joined by a
/// blank line; `structuredContent` ⇒ its compact JSON; else the text parts (and embedded text
/// resources) joined by `\n`. On every branch the non-text entries become `parts`, collected
/// before either short-circuit; a result with none has no `parts` key. A plain result with no
/// text at all describes its parts instead, one line each.
/// The parts' base64 is moved out of `wire`, never copied.
pub fn map_result(mut wire: Value) -> ToolResult {
    let parts: Vec<ContentPart> = match wire.get_mut("content").and_then(Value::as_array_mut) {
        Some(content) => content.iter_mut().filter_map(part_of).collect(),
        None => Vec::new(),
    };
    let content = wire
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    if wire.get("isError").and_then(Value::as_bool) == Some(true) {
        let texts: Vec<&str> = content
            .iter()
            .filter_map(text_of)
            .filter(|t| !t.trim().is_empty())
            .collect();
        return ToolResult::error(if texts.is_empty() {
            EMPTY_ERROR_OUTPUT.to_string()
        } else {
            texts.join("\n\n")
        })
        .with_parts(parts);
    }
    if let Some(structured) = wire.get("structuredContent").filter(|v| !v.is_null()) {
        return ToolResult::ok(structured.to_string()).with_parts(parts);
    }
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|c| text_of(c).or_else(|| embedded(c)))
        .collect();
    let output = if texts.is_empty() && !parts.is_empty() {
        parts
            .iter()
            .map(ContentPart::described)
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        texts.join("\n")
    };
    ToolResult::ok(output).with_parts(parts)
}

/// The §2 table: `image`/`audio` with their base64 taken verbatim, a `resource_link` as a file
/// by URL, a `resource` blob as a file by data (its URI the name). A resource's text is output,
/// not a part; anything else (text, an unknown type) is none. A missing mime type is
/// `application/octet-stream` (NOTES records it).
fn part_of(c: &mut Value) -> Option<ContentPart> {
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    // The payload itself is taken, leaving `null` behind: no part reads it twice.
    let take = |v: Option<&mut Value>| match v.map(Value::take) {
        Some(Value::String(data)) => Some(data),
        _ => None,
    };
    let mime = |v: Option<&Value>| s(v).unwrap_or_else(|| OCTET_STREAM.to_string());
    let media = |kind, mime_type, body, name| {
        Some(ContentPart::Media(MediaPart {
            kind,
            mime_type,
            body,
            name,
        }))
    };
    let kind = c.get("type").and_then(Value::as_str)?.to_string();
    match kind.as_str() {
        "image" | "audio" => {
            let kind = if kind == "image" {
                MediaKind::Image
            } else {
                MediaKind::Audio
            };
            let data = take(c.get_mut("data"))?;
            media(kind, mime(c.get("mimeType")), PartBody::Data(data), None)
        }
        "resource_link" => media(
            MediaKind::File,
            mime(c.get("mimeType")),
            PartBody::Url(s(c.get("uri"))?),
            s(c.get("name")),
        ),
        "resource" => {
            let r = c.get_mut("resource")?;
            let blob = take(r.get_mut("blob"))?;
            media(
                MediaKind::File,
                mime(r.get("mimeType")),
                PartBody::Data(blob),
                s(r.get("uri")),
            )
        }
        _ => None,
    }
}

/// The mime type of a part whose server named none.
const OCTET_STREAM: &str = "application/octet-stream";

/// A `text` content part's text.
fn text_of(c: &Value) -> Option<&str> {
    (c.get("type").and_then(Value::as_str) == Some("text"))
        .then(|| c.get("text").and_then(Value::as_str))
        .flatten()
}

/// An embedded resource's text (the server meant the model to read it).
fn embedded(c: &Value) -> Option<&str> {
    (c.get("type").and_then(Value::as_str) == Some("resource"))
        .then(|| c.pointer("/resource/text").and_then(Value::as_str))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_form_moves_payloads_and_equals_rmcps_own() {
        let blob =
            ResourceContents::blob("AAE=", "file:///b.bin").with_mime_type("application/pdf");
        let text = ResourceContents::text("inside", "file:///t.txt");
        let r = CallToolResult::success(vec![
            ContentBlock::text("see"),
            ContentBlock::image("iVBORw==", "image/png"),
            ContentBlock::audio("UklGRg==", "audio/wav"),
            ContentBlock::resource(blob),
            ContentBlock::resource(text),
        ]);
        let want = serde_json::to_value(&r).unwrap();
        assert_eq!(wire_of(r).unwrap(), want);
    }

    #[test]
    fn results_follow_section_0_4() {
        let r = map_result(json!({"content": [
            {"type": "text", "text": "a"}, {"type": "image", "data": "x", "mimeType": "image/png"},
            {"type": "text", "text": "b"}]}));
        assert_eq!((r.output.as_str(), r.is_error), ("a\nb", false));
        let r = map_result(json!({"content": [{"type": "text", "text": "x"}],
            "structuredContent": {"z": 1, "a": [1, 2]}}));
        assert_eq!(r.output, r#"{"z":1,"a":[1,2]}"#);
        let r = map_result(json!({"isError": true, "structuredContent": {"a": 1},
            "content": [{"type": "text", "text": "bad"}, {"type": "text", "text": " "},
                        {"type": "text", "text": "worse"}]}));
        assert_eq!((r.output.as_str(), r.is_error), ("bad\n\nworse", true));
        let r = map_result(json!({"isError": true, "content": []}));
        assert_eq!(r.output, EMPTY_ERROR_OUTPUT);
        let r = map_result(json!({"content": [{"type": "resource",
            "resource": {"uri": "file:///a", "text": "inside"}}]}));
        assert_eq!(r.output, "inside");
    }

    #[test]
    fn non_text_content_becomes_parts_on_every_branch() {
        let content = json!([
            {"type": "text", "text": "see"},
            {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "https://x.test/r.pdf", "name": "r.pdf", "mimeType": "application/pdf"},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAE=", "mimeType": "application/pdf"}},
            {"type": "resource", "resource": {"uri": "file:///t.txt", "text": "inside"}}
        ]);
        let want = json!([
            {"type": "image", "mimeType": "image/png", "data": "iVBORw=="},
            {"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="},
            {"type": "file", "mimeType": "application/pdf", "url": "https://x.test/r.pdf", "name": "r.pdf"},
            {"type": "file", "mimeType": "application/pdf", "data": "AAE=", "name": "file:///b.bin"}
        ]);
        for wire in [
            json!({"content": content}),
            json!({"content": content, "structuredContent": {"a": 1}}),
            json!({"content": content, "isError": true}),
        ] {
            let r = map_result(wire.clone());
            assert_eq!(serde_json::to_value(&r.parts).unwrap(), want, "{wire}");
        }
        assert_eq!(
            map_result(json!({"content": content})).output,
            "see\ninside"
        );
        let only = map_result(json!({"content": [
            {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "https://x.test/r.pdf", "mimeType": "application/pdf"}]}));
        assert_eq!(
            only.output,
            "image (image/png, 4 bytes)\nfile (application/pdf, 0 bytes)"
        );
        let text = map_result(json!({"content": [{"type": "text", "text": "t"}]}));
        assert!(!serde_json::to_string(&text).unwrap().contains("parts"));
    }

    #[test]
    fn schemas_are_normalised() {
        assert_eq!(
            input_schema(None),
            json!({"type": "object", "properties": {}, "additionalProperties": false})
        );
        let s = input_schema(Some(&json!({"type": "object", "required": ["a"],
            "properties": {"a": {"type": "string"}}, "additionalProperties": true})));
        assert_eq!(s["required"], json!(["a"]));
        assert_eq!(s["additionalProperties"], json!(false));
    }
}
