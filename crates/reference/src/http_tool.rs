//! §7 HTTP / REST tools: a declared endpoint becomes a tool with source `http`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::{Client, Method};
use serde_json::{json, Map, Value};

use super::env_expand::{expand_headers, Redactor};
use super::percent;
use super::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// §7 default timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// How the request body is made from the arguments left after the URL and query took theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyMode {
    /// The remaining arguments as a JSON object (the default).
    Json,
    /// The remaining arguments, form-urlencoded.
    Form,
    /// The `body` argument's text as it is.
    Raw,
}

/// What a 2xx answer becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultMode {
    /// The body text (the default).
    Text,
    /// The body re-serialised as compact JSON (a body that is not JSON becomes a JSON string,
    /// as the Python port's `json.dumps` does).
    Json,
    /// `<status>\n<body>`.
    StatusText,
}

/// `httpTool({...})`'s declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpToolSpec {
    /// Tool name.
    pub name: String,
    /// Tool description.
    pub description: String,
    /// HTTP method, upper case.
    pub method: String,
    /// URL with `{placeholder}`s filled from arguments.
    pub url: String,
    /// Static headers; values expand `${ENV}`.
    pub headers: Vec<(String, String)>,
    /// Argument names sent in the query string.
    pub query: Vec<String>,
    /// Body encoding.
    pub body: BodyMode,
    /// The arguments' JSON-Schema.
    pub input_schema: Value,
    /// Per-request bound in milliseconds.
    pub timeout_ms: u64,
    /// What a success returns.
    pub result_mode: ResultMode,
}

/// An HTTP tool declaration that cannot be read; `Display` is the message the host sees.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpToolError {
    /// No string `name`.
    MissingName,
    /// No string `url`.
    MissingUrl {
        /// The tool.
        tool: String,
    },
    /// A header value is not a string.
    HeaderNotString {
        /// The tool.
        tool: String,
        /// The header.
        header: String,
    },
    /// `headers` is not an object.
    HeadersNotObject {
        /// The tool.
        tool: String,
    },
    /// A `query` entry is not a string.
    QueryNotNames {
        /// The tool.
        tool: String,
    },
    /// `query` is not an array.
    QueryNotArray {
        /// The tool.
        tool: String,
    },
    /// `body` is not `json`, `form` or `raw`.
    UnknownBodyMode {
        /// The tool.
        tool: String,
        /// The mode given.
        mode: String,
    },
    /// `resultMode` is not `text`, `json` or `status+text`.
    UnknownResultMode {
        /// The tool.
        tool: String,
        /// The mode given.
        mode: String,
    },
}

impl std::fmt::Display for HttpToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HttpToolError::MissingName => f.write_str("an HTTP tool needs a string \"name\""),
            HttpToolError::MissingUrl { tool } => {
                write!(f, "HTTP tool \"{tool}\" needs a string \"url\"")
            }
            HttpToolError::HeaderNotString { tool, header } => {
                write!(
                    f,
                    "HTTP tool \"{tool}\": header \"{header}\" must be a string"
                )
            }
            HttpToolError::HeadersNotObject { tool } => {
                write!(f, "HTTP tool \"{tool}\": headers must be an object")
            }
            HttpToolError::QueryNotNames { tool } => {
                write!(f, "HTTP tool \"{tool}\": query must list argument names")
            }
            HttpToolError::QueryNotArray { tool } => {
                write!(f, "HTTP tool \"{tool}\": query must be an array")
            }
            HttpToolError::UnknownBodyMode { tool, mode } => {
                write!(f, "HTTP tool \"{tool}\": unknown body mode \"{mode}\"")
            }
            HttpToolError::UnknownResultMode { tool, mode } => {
                write!(f, "HTTP tool \"{tool}\": unknown resultMode \"{mode}\"")
            }
        }
    }
}

impl std::error::Error for HttpToolError {}

impl HttpToolSpec {
    /// Reads a declaration: `{name, description?, inputSchema?, method?, url, headers?, query?,
    /// body?, timeout?, resultMode?}`.
    pub fn from_json(v: &Value) -> Result<HttpToolSpec, HttpToolError> {
        let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        let name = text("name").ok_or(HttpToolError::MissingName)?;
        let tool = || name.clone();
        let url = text("url").ok_or_else(|| HttpToolError::MissingUrl { tool: tool() })?;
        let headers = match v.get("headers") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| {
                    v.as_str()
                        .map(|s| (k.clone(), s.to_string()))
                        .ok_or_else(|| HttpToolError::HeaderNotString {
                            tool: tool(),
                            header: k.clone(),
                        })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(HttpToolError::HeadersNotObject { tool: tool() }),
        };
        let query = match v.get("query") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|q| q.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| HttpToolError::QueryNotNames { tool: tool() })?,
            Some(_) => return Err(HttpToolError::QueryNotArray { tool: tool() }),
        };
        let body = match text("body").as_deref() {
            None | Some("json") => BodyMode::Json,
            Some("form") => BodyMode::Form,
            Some("raw") => BodyMode::Raw,
            Some(other) => {
                return Err(HttpToolError::UnknownBodyMode {
                    tool: tool(),
                    mode: other.to_string(),
                })
            }
        };
        let result_mode = match text("resultMode").as_deref() {
            None | Some("text") => ResultMode::Text,
            Some("json") => ResultMode::Json,
            Some("status+text") => ResultMode::StatusText,
            Some(other) => {
                return Err(HttpToolError::UnknownResultMode {
                    tool: tool(),
                    mode: other.to_string(),
                })
            }
        };
        Ok(HttpToolSpec {
            description: text("description").unwrap_or_default(),
            method: text("method")
                .unwrap_or_else(|| "GET".to_string())
                .to_uppercase(),
            headers,
            query,
            body,
            input_schema: match v.get("inputSchema") {
                Some(s @ Value::Object(_)) => s.clone(),
                _ => json!({"type": "object", "properties": {}, "additionalProperties": false}),
            },
            timeout_ms: v
                .get("timeout")
                .and_then(Value::as_u64)
                .filter(|ms| *ms > 0)
                .unwrap_or(DEFAULT_TIMEOUT_MS),
            result_mode,
            name,
            url,
        })
    }
}

/// `httpTool(spec)`.
pub fn http_tool(spec: HttpToolSpec) -> Tool {
    Tool::new(
        spec.name.clone(),
        spec.description.clone(),
        spec.input_schema.clone(),
        Source::Http,
        Arc::new(HttpExec {
            spec,
            client: crate::http_client::client(),
        }),
    )
}

struct HttpExec {
    spec: HttpToolSpec,
    /// One connection pool per tool, not one per call.
    client: Client,
}

/// A request ready to send: where, what, and the secrets to keep out of any message.
pub struct Prepared {
    /// The final URL.
    pub url: String,
    /// Expanded headers.
    pub headers: Vec<(String, String)>,
    /// Body bytes and their content type, when there is a body.
    pub body: Option<(Vec<u8>, &'static str)>,
    /// Hides expanded header values.
    pub redactor: Redactor,
}

impl HttpToolSpec {
    /// Fills the URL, the query string and the body from `args` (§7 behaviour, the published
    /// ports' rules: placeholders consume their arguments; GET sends every remaining argument
    /// in the query string; other methods send the named `query` ones there and the rest as
    /// the body).
    pub fn prepare(&self, args: &Map<String, Value>) -> Prepared {
        let mut rest = args.clone();
        let mut url = String::with_capacity(self.url.len());
        let mut tail = self.url.as_str();
        while let Some(open) = tail.find('{') {
            let after = &tail[open + 1..];
            match after.find('}') {
                Some(close) if is_placeholder_name(&after[..close]) => {
                    let key = &after[..close];
                    url.push_str(&tail[..open]);
                    let value = rest.remove(key).map(|v| plain_text(&v)).unwrap_or_default();
                    url.push_str(&percent::component(&value));
                    tail = &after[close + 1..];
                }
                _ => {
                    url.push_str(&tail[..=open]);
                    tail = after;
                }
            }
        }
        url.push_str(tail);

        let into_query: Vec<String> = rest
            .keys()
            .filter(|k| self.method == "GET" || self.query.contains(k))
            .cloned()
            .collect();
        if !into_query.is_empty() {
            let pairs: Vec<String> = into_query
                .iter()
                .filter_map(|k| rest.remove(k).map(|v| (k.clone(), v)))
                .map(|(k, v)| format!("{}={}", encode_form(&k), encode_form(&plain_text(&v))))
                .collect();
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(&pairs.join("&"));
        }

        let (headers, redactor) = expand_headers(&self.headers);
        let body = (!matches!(self.method.as_str(), "GET" | "HEAD") && !rest.is_empty()).then(
            || match self.body {
                BodyMode::Json => (
                    Value::Object(rest.clone()).to_string().into_bytes(),
                    "application/json",
                ),
                BodyMode::Form => (
                    rest.iter()
                        .map(|(k, v)| format!("{}={}", encode_form(k), encode_form(&plain_text(v))))
                        .collect::<Vec<_>>()
                        .join("&")
                        .into_bytes(),
                    "application/x-www-form-urlencoded",
                ),
                BodyMode::Raw => (
                    rest.get("body")
                        .map(plain_text)
                        .unwrap_or_default()
                        .into_bytes(),
                    "text/plain; charset=utf-8",
                ),
            },
        );
        Prepared {
            url,
            headers,
            body,
            redactor,
        }
    }
}

#[async_trait]
impl ToolExec for HttpExec {
    async fn execute(&self, args: Value, ctx: &Context) -> ToolResult {
        let args = match args {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => {
                return ToolResult::error(format!("arguments must be a JSON object, got {other}"))
            }
        };
        let prepared = self.spec.prepare(&args);
        let timeout = Duration::from_millis(ctx.timeout_ms.unwrap_or(self.spec.timeout_ms));
        let call = send(&self.client, &self.spec.method, &prepared, timeout);
        let answer = tokio::select! {
            a = call => a,
            () = ctx.cancelled() => return ToolResult::error("cancelled"),
        };
        // A server may echo a header back (`401 invalid token …`): nothing it says may
        // carry an expanded value onwards.
        let redact = |mut r: ToolResult| {
            r.output = prepared.redactor.redact(&r.output);
            r
        };
        let (status, text) = match answer {
            Ok(pair) => pair,
            Err(e) => return redact(ToolResult::error(e.to_string())),
        };
        if !(200..300).contains(&status) {
            return redact(ToolResult::error(format!("HTTP {status}: {text}")))
                .with_meta("status", json!(status));
        }
        let output = match self.spec.result_mode {
            ResultMode::Text => text,
            ResultMode::Json => serde_json::from_str::<Value>(&text)
                .map(|v| v.to_string())
                .unwrap_or_else(|_| Value::String(text).to_string()),
            ResultMode::StatusText => format!("{status}\n{text}"),
        };
        redact(ToolResult::ok(output)).with_meta("status", json!(status))
    }
}

/// The largest response body read.
const MAX_BODY_BYTES: usize = 10 * 1024 * 1024;

/// Why a request got no HTTP answer; `Display` is the message a tool result carries.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SendError {
    /// The method is not an HTTP token.
    InvalidMethod {
        /// The method given.
        method: String,
    },
    /// The request timed out.
    TimedOut {
        /// The bound, in milliseconds.
        ms: u128,
    },
    /// The transport failed: reqwest's message and its sources, joined by `: `.
    Transport {
        /// The joined message.
        detail: String,
    },
    /// The body passed the read cap.
    BodyTooLarge,
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::InvalidMethod { method } => write!(f, "invalid HTTP method \"{method}\""),
            SendError::TimedOut { ms } => write!(f, "request timed out after {ms} ms"),
            SendError::Transport { detail } => f.write_str(detail),
            SendError::BodyTooLarge => {
                write!(f, "the response body is larger than {MAX_BODY_BYTES} bytes")
            }
        }
    }
}

impl std::error::Error for SendError {}

/// Sends a prepared request; `Ok((status, body text))` for any HTTP answer, `Err` for a
/// transport failure (already free of header values: reqwest errors never carry them).
pub async fn send(
    client: &Client,
    method: &str,
    prepared: &Prepared,
    timeout: Duration,
) -> Result<(u16, String), SendError> {
    let method = Method::from_bytes(method.as_bytes()).map_err(|_| SendError::InvalidMethod {
        method: method.to_string(),
    })?;
    let mut request = client.request(method, &prepared.url).timeout(timeout);
    let mut has_content_type = false;
    for (k, v) in &prepared.headers {
        has_content_type |= k.eq_ignore_ascii_case("content-type");
        request = request.header(k.as_str(), v.as_str());
    }
    if let Some((bytes, content_type)) = &prepared.body {
        if !has_content_type {
            request = request.header("content-type", *content_type);
        }
        request = request.body(bytes.clone());
    }
    let response = request.send().await.map_err(|e| describe(&e, timeout))?;
    let status = response.status().as_u16();
    let mut body = Vec::new();
    let mut response = response;
    while let Some(chunk) = response.chunk().await.map_err(|e| describe(&e, timeout))? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_BODY_BYTES {
            return Err(SendError::BodyTooLarge);
        }
    }
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

fn describe(e: &reqwest::Error, timeout: Duration) -> SendError {
    if e.is_timeout() {
        return SendError::TimedOut {
            ms: timeout.as_millis(),
        };
    }
    let mut out = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        out.push_str(&format!(": {s}"));
        source = s.source();
    }
    SendError::Transport { detail: out }
}

/// A placeholder name is any argument name that has no brace or white space in it (NOTES
/// #121): `{user-id}` and `{a.b}` are placeholders, `{not a ph}` is text.
fn is_placeholder_name(s: &str) -> bool {
    !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || c == '{')
}

/// An argument as text: strings as they are, anything else as JSON (`true`, `3`, ...).
fn plain_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `application/x-www-form-urlencoded`: spaces as `+` (a literal `%` is `%25`, so every
/// `%20` left is a space).
fn encode_form(s: &str) -> String {
    percent::component(s).replace("%20", "+")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(v: Value) -> HttpToolSpec {
        HttpToolSpec::from_json(&v).unwrap()
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn placeholders_consume_their_arguments_and_are_encoded() {
        let s = spec(
            json!({"name": "t", "method": "POST", "url": "http://h/u/{id}/x{y}?a=1{not a ph}"}),
        );
        let p = s.prepare(&args(json!({"id": "a b/c", "y": 7, "rest": true})));
        assert_eq!(p.url, "http://h/u/a%20b%2Fc/x7?a=1{not a ph}");
        assert_eq!(p.body.unwrap().0, br#"{"rest":true}"#.to_vec());
    }

    #[test]
    fn placeholder_names_may_hold_any_character_but_braces_and_spaces() {
        let s = spec(json!({"name": "t", "url": "http://h/u/{user-id}/{a.b}/{x{y}"}));
        let p = s.prepare(&args(json!({"user-id": "7", "a.b": "x", "q": 1, "y": 2})));
        assert_eq!(p.url, "http://h/u/7/x/{x2?q=1");
    }

    #[test]
    fn get_sends_everything_in_the_query_and_no_body() {
        let s = spec(json!({"name": "t", "url": "http://h/s"}));
        let p = s.prepare(&args(json!({"q": "a&b c", "n": 2})));
        assert_eq!(p.url, "http://h/s?q=a%26b+c&n=2");
        assert!(p.body.is_none());
    }

    #[test]
    fn named_query_args_and_form_and_raw_bodies() {
        let s = spec(
            json!({"name": "t", "method": "post", "url": "http://h/s?x=1", "query": ["page"], "body": "form"}),
        );
        let p = s.prepare(&args(json!({"page": 2, "a": "b c"})));
        assert_eq!(p.url, "http://h/s?x=1&page=2");
        assert_eq!(
            p.body.unwrap(),
            (b"a=b+c".to_vec(), "application/x-www-form-urlencoded")
        );
        let s = spec(json!({"name": "t", "method": "PUT", "url": "http://h/r", "body": "raw"}));
        assert_eq!(
            s.prepare(&args(json!({"body": "<x/>"}))).body.unwrap().0,
            b"<x/>".to_vec()
        );
    }

    #[test]
    fn bad_declarations_are_errors() {
        assert!(HttpToolSpec::from_json(&json!({"url": "x"})).is_err());
        assert!(HttpToolSpec::from_json(&json!({"name": "t"})).is_err());
        assert!(HttpToolSpec::from_json(&json!({"name": "t", "url": "x", "body": "xml"})).is_err());
        assert!(
            HttpToolSpec::from_json(&json!({"name": "t", "url": "x", "resultMode": "html"}))
                .is_err()
        );
        assert_eq!(
            spec(json!({"name": "t", "url": "x"})).timeout_ms,
            DEFAULT_TIMEOUT_MS
        );
    }
}
