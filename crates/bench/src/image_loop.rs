//! The image-loop operations (issue 46): one loop turn of the port's own §8 client in which
//! the model calls a tool answering a large image part (SPEC §1B `ToolResult.parts`, 1 MiB by
//! default) and then answers, on either wire. What is timed is the client carrying the image
//! from the tool result into the next LLM request, where §8A puts it: on `openai` in one
//! synthetic `user` message after the tool message, on `anthropic` as a block of the
//! `tool_result`.
//!
//! Per port: one toolkit whose extra tool `snap` answers the image through PROTOCOL.md §7's
//! `parts` behaviour, one client of the style, one fresh mock LLM serving `bench-image.json`
//! (a `snap` call, then a text naming every media block of the request by its place, its
//! mime type, its base64 length and tail: the mock's `{{media}}`). Each sample is one `run`
//! (two LLM round trips), its answer checked against the text the SPEC's placement gives.

use std::fmt;
use std::time::Instant;

use base64::Engine as _;
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use crate::agent_loop::{mock_exe, MockLlm};
use crate::fixtures::IMAGE_SCENARIO_FILE;
use crate::measure::{note, Ctx, Go, Measured, Unit};
pub(crate) use crate::options::Style;
use crate::raw::{answer, send, send_unparsed};
use crate::stats::ms;
use toolnexus_ports::port::{truncate, Port, PortError};
use toolnexus_protocol::client::ClientOptions;
use toolnexus_protocol::Request;

const TK_IMAGE: &str = "bench-image";
const CLIENT: &str = "bench-image";
/// The tool answering the image.
const TOOL: &str = "snap";
/// The tool result's `output`, beside its image part.
pub(crate) const OUTPUT: &str = "a PNG screenshot";
/// The image's mime type.
const MIME: &str = "image/png";
/// The prompt of every run.
const PROMPT: &str = "look at the screen";
/// The `run` cut: the loop takes 2 turns, so a third means the model never answered.
const MAX_TURNS: u64 = 4;

/// Where §8A puts the tool's one image in the second request of a run, as the mock's
/// `{{media}}` names a place (the message counted from the end). `openai`: the last
/// message is the synthetic `user` one right after the tool message, its text part
/// (`Output of tool …`) and then the image. `anthropic`: the last message is the `user`
/// one holding the `tool_result`, whose content is the output's text and the image (NOTES
/// #383: the order inside is not the SPEC's, so either place of the two is taken).
fn places(style: Style) -> &'static [&'static str] {
    match style {
        Style::Openai => &["messages[-1].content[1] user image_url"],
        Style::Anthropic => &[
            "messages[-1].content[0].content[1] user image",
            "messages[-1].content[0].content[0] user image",
        ],
    }
}

/// The image's bytes, deterministic: the PNG signature, then an xorshift stream (so its
/// base64 neither repeats nor compresses), `size` bytes in all.
pub(crate) fn image_bytes(size: usize) -> Vec<u8> {
    const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];
    let mut out = Vec::with_capacity(size);
    out.extend(SIGNATURE.iter().take(size));
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    while out.len() < size {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let take = (size - out.len()).min(8);
        out.extend_from_slice(&x.to_le_bytes()[..take]);
    }
    out
}

/// The image of `size` bytes as standard padded base64 (SPEC §1B's `data`).
pub(crate) fn image_base64(size: usize) -> String {
    base64::engine::general_purpose::STANDARD.encode(image_bytes(size))
}

/// The run text the mock answers when the image sits at `place`: the tool's output, then the
/// media block as `{{media}}` describes it (mime type, base64 length, last 8 characters).
fn expected_text(place: &str, b64: &str) -> String {
    let tail = &b64[b64.len().saturating_sub(8)..];
    format!("done: {OUTPUT} | {place} {MIME} {} {tail}", b64.len())
}

/// Whether a run's text is the mock's answer to a request carrying the image where `style`
/// puts it; otherwise why not.
pub(crate) fn check_text(style: Style, text: &str, b64: &str) -> Result<(), String> {
    if places(style)
        .iter()
        .any(|place| text == expected_text(place, b64))
    {
        return Ok(());
    }
    Err(format!(
        "the model saw {:?}, expected {:?}",
        truncate(text, 300),
        expected_text(places(style)[0], b64)
    ))
}

/// The `build` options: no builtins, no skill tool (nothing but the loop in the requests),
/// one `snap` tool answering the image part.
fn build_options(b64: &str) -> Value {
    json!({"builtins": false, "disableTools": ["skill"], "extraTools": [{
        "name": TOOL,
        "description": "A screenshot of the screen.",
        "behaviour": {"parts": {"output": OUTPUT,
                                "parts": [{"type": "image", "mimeType": MIME, "data": b64}]}},
    }]})
}

/// The `client` options: the style's wire on the mock, no retries, a fixed key.
fn client_options(url: &str, style: Style) -> ClientOptions {
    ClientOptions {
        base_url: Some(url.to_string()),
        style: Some(style.name().into()),
        model: Some("bench".into()),
        api_key: Some("bench-key".into()),
        retries: Some(0),
        max_turns: Some(MAX_TURNS),
        ..ClientOptions::default()
    }
}

fn client_request(options: ClientOptions) -> Request {
    Request::Client {
        id: CLIENT.into(),
        options: Box::new(options),
    }
}

/// A fresh mock LLM serving the image scenario of the fixture directory.
pub(crate) async fn start_image_mock(ctx: &Ctx<'_>) -> Result<MockLlm, String> {
    let exe = mock_exe(ctx.opts)?;
    toolnexus_ports::mock_launch::llm(&exe, &ctx.fx.dir.join(IMAGE_SCENARIO_FILE)).await
}

/// The image loop's state on a set-up port.
pub(crate) struct ImageState {
    _mock: MockLlm,
    style: Style,
    b64: String,
}

/// Builds the toolkit (a port without the `parts` behaviour answers `unsupported` here),
/// probes `client`, starts a fresh mock LLM and points the client at it.
pub(crate) async fn setup(
    port: &mut dyn Port,
    ctx: &Ctx<'_>,
    style: Style,
    m: &mut Measured,
) -> Result<Option<ImageState>, PortError> {
    let b64 = image_base64(ctx.opts.image_bytes);
    port.build(TK_IMAGE, &build_options(&b64)).await?;
    let outcome = async {
        send(
            port,
            client_request(client_options("http://127.0.0.1:9", style)),
        )
        .await?;
        let mock = match start_image_mock(ctx).await {
            Ok(mock) => mock,
            Err(why) => {
                note(&mut m.notes, why);
                return Ok(None);
            }
        };
        send(port, client_request(client_options(&mock.url, style))).await?;
        Ok(Some(mock))
    }
    .await;
    match outcome {
        Ok(Some(mock)) => Ok(Some(ImageState {
            _mock: mock,
            style,
            b64,
        })),
        Ok(None) => port.close(TK_IMAGE).await.map(|()| None),
        Err(e) => {
            let _ = port.close(TK_IMAGE).await;
            Err(e)
        }
    }
}

/// One `run`, timed from the request line to its answer line (read unparsed: the answer
/// holds the transcript, image included, and the harness's parse of it is not the port's
/// time); the answer is checked after the clock stops.
pub(crate) async fn step(
    port: &mut dyn Port,
    state: &mut ImageState,
    unit: Unit,
    m: &mut Measured,
) -> Result<Go, PortError> {
    let run = Request::Run {
        client: CLIENT.into(),
        toolkit: Some(TK_IMAGE.into()),
        prompt: PROMPT.into(),
        history: None,
        cancel_after_ms: None,
    };
    let started = Instant::now();
    let text = send_unparsed(port, run).await?;
    let elapsed = ms(started);
    let response = answer(&text)?;
    if let Err(why) = check_run(state.style, &response, &state.b64) {
        // A run that did not carry the image where it belongs times something else: stop.
        note(&mut m.notes, why);
        return Ok(Go::Stop);
    }
    if unit.counted {
        m.samples.push(elapsed);
    }
    m.detail = Some(format!("{elapsed:.1} ms, {} bytes answered", text.len()));
    Ok(Go::On)
}

/// A `run` answer: a result of two turns whose text says the image was where `style` puts it.
fn check_run(style: Style, response: &Value, b64: &str) -> Result<(), String> {
    let Some(result) = response.get("result") else {
        return Err(match response.get("raised").and_then(Value::as_str) {
            Some(m) => format!("run raised: {}", truncate(m, 300)),
            None => format!(
                "run answered neither result nor raised: {}",
                truncate(&response.to_string(), 300)
            ),
        });
    };
    let text = result.get("text").and_then(Value::as_str).unwrap_or("");
    check_text(style, text, b64)?;
    match result.get("turns").and_then(Value::as_u64) {
        Some(2) => Ok(()),
        other => Err(format!("the run took {other:?} turns, expected 2")),
    }
}

/// Closes the toolkit; the mock LLM dies with the state.
pub(crate) async fn teardown(port: &mut dyn Port, state: ImageState) -> Result<(), PortError> {
    drop(state);
    port.close(TK_IMAGE).await
}

/// The floor: the same two requests per run with no port, from a bare HTTP client against
/// its own fresh mock LLM. The first POST carries the prompt and must be answered with the
/// `snap` call; the second adds the assistant's call and the tool's answer, the image placed
/// as `style` requires, serialised from borrowed parts (the base64 is written into the body
/// once, never copied into a JSON value), and must be answered with the text naming the
/// image's place. The base64 text is made once: a port's tool holds it already (the `parts`
/// behaviour hands it over as base64).
pub(crate) async fn http_image_loop(
    http: &reqwest::Client,
    base_url: &str,
    style: Style,
    b64: &str,
) -> Result<(), String> {
    let (url, call_path) = match style {
        Style::Openai => (format!("{base_url}/chat/completions"), "/choices/0/message"),
        Style::Anthropic => (format!("{base_url}/v1/messages"), ""),
    };
    let tools = tool_schema(style);
    let prompt = json!({"role": "user", "content": PROMPT});
    let first = serde_json::to_string(&Body {
        style,
        tools: &tools,
        head: std::slice::from_ref(&prompt),
        image: None,
    })
    .map_err(|e| e.to_string())?;
    let answer = post(http, &url, style, first).await?;
    let (assistant, id) = tool_call(style, &answer, call_path)?;
    let head = [prompt, assistant];
    let second = serde_json::to_string(&Body {
        style,
        tools: &tools,
        head: &head,
        image: Some(ToolImage { id: &id, b64 }),
    })
    .map_err(|e| e.to_string())?;
    let answer = post(http, &url, style, second).await?;
    let text = match style {
        Style::Openai => answer.pointer("/choices/0/message/content"),
        Style::Anthropic => answer.pointer("/content/0/text"),
    };
    check_text(style, text.and_then(Value::as_str).unwrap_or(""), b64)
}

/// The `snap` tool as each wire declares it.
fn tool_schema(style: Style) -> Value {
    let params = json!({"type": "object", "properties": {}});
    match style {
        Style::Openai => json!([{"type": "function", "function": {
            "name": TOOL, "description": "A screenshot of the screen.", "parameters": params}}]),
        Style::Anthropic => json!([{
            "name": TOOL, "description": "A screenshot of the screen.", "input_schema": params}]),
    }
}

/// One POST, its answer parsed.
async fn post(
    http: &reqwest::Client,
    url: &str,
    style: Style,
    body: String,
) -> Result<Value, String> {
    let request = http.post(url).header("content-type", "application/json");
    let request = match style {
        Style::Openai => request.header("authorization", "Bearer bench-key"),
        Style::Anthropic => request
            .header("x-api-key", "bench-key")
            .header("anthropic-version", "2023-06-01"),
    };
    let response = request.body(body).send().await.map_err(|e| e.to_string())?;
    let text = response.text().await.map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {}", truncate(&text, 200)))
}

/// The assistant message to send back and the call's id, from the first answer, which must
/// be one `snap` call.
fn tool_call(style: Style, answer: &Value, path: &str) -> Result<(Value, String), String> {
    let wrong = || {
        format!(
            "not the snap tool call: {}",
            truncate(&answer.to_string(), 200)
        )
    };
    match style {
        Style::Openai => {
            let message = answer.pointer(path).ok_or_else(wrong)?;
            let call = &message["tool_calls"][0];
            if call["function"]["name"] != TOOL {
                return Err(wrong());
            }
            let id = call["id"].as_str().ok_or_else(wrong)?.to_string();
            Ok((message.clone(), id))
        }
        Style::Anthropic => {
            let block = &answer["content"][0];
            if block["type"] != "tool_use" || block["name"] != TOOL {
                return Err(wrong());
            }
            let id = block["id"].as_str().ok_or_else(wrong)?.to_string();
            let message = json!({"role": "assistant", "content": answer["content"]});
            Ok((message, id))
        }
    }
}

/// A request body of the floor, serialised from borrowed parts.
struct Body<'a> {
    style: Style,
    tools: &'a Value,
    /// The prompt, then (second request) the assistant's tool call.
    head: &'a [Value],
    /// The tool's answer with its image (second request).
    image: Option<ToolImage<'a>>,
}

/// The tool's answer: its call id and the image's base64.
#[derive(Clone, Copy)]
struct ToolImage<'a> {
    id: &'a str,
    b64: &'a str,
}

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("model", "bench")?;
        if self.style == Style::Anthropic {
            map.serialize_entry("max_tokens", &4096)?;
        }
        map.serialize_entry(
            "messages",
            &Messages {
                style: self.style,
                head: self.head,
                image: self.image,
            },
        )?;
        map.serialize_entry("tools", self.tools)?;
        map.end()
    }
}

/// The messages: the head, then the tool's answer as `style` carries it.
struct Messages<'a> {
    style: Style,
    head: &'a [Value],
    image: Option<ToolImage<'a>>,
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(None)?;
        for m in self.head {
            seq.serialize_element(m)?;
        }
        let Some(ToolImage { id, b64 }) = self.image else {
            return seq.end();
        };
        match self.style {
            Style::Openai => {
                seq.serialize_element(
                    &json!({"role": "tool", "tool_call_id": id, "content": OUTPUT}),
                )?;
                let label = format!("Output of tool {TOOL} ({id}):");
                seq.serialize_element(&UserImage {
                    role: "user",
                    content: (
                        TextBlock {
                            kind: "text",
                            text: &label,
                        },
                        ImageUrlBlock {
                            kind: "image_url",
                            image_url: UrlField { url: DataUrl(b64) },
                        },
                    ),
                })?;
            }
            Style::Anthropic => {
                seq.serialize_element(&ToolResultMessage {
                    role: "user",
                    content: (ToolResultBlock {
                        kind: "tool_result",
                        tool_use_id: id,
                        content: (
                            TextBlock {
                                kind: "text",
                                text: OUTPUT,
                            },
                            ImageBlock {
                                kind: "image",
                                source: Source(b64),
                            },
                        ),
                    },),
                })?;
            }
        }
        seq.end()
    }
}

// The floor's message shapes, borrowed so the base64 is written into the body once and
// never copied into a `Value` (which `json!` would do with any interpolated value).

/// OpenAI's synthetic `user` message: the label, then the image.
#[derive(Serialize)]
struct UserImage<'a> {
    role: &'static str,
    content: (TextBlock<'a>, ImageUrlBlock<'a>),
}

/// `{"type": "text", "text": …}` on either wire.
#[derive(Serialize)]
struct TextBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// OpenAI's `{"type": "image_url", "image_url": {"url": <data URL>}}`.
#[derive(Serialize)]
struct ImageUrlBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    image_url: UrlField<'a>,
}

#[derive(Serialize)]
struct UrlField<'a> {
    url: DataUrl<'a>,
}

/// Anthropic's `user` message holding the one `tool_result`.
#[derive(Serialize)]
struct ToolResultMessage<'a> {
    role: &'static str,
    content: (ToolResultBlock<'a>,),
}

/// The `tool_result`: the output's text, then the image.
#[derive(Serialize)]
struct ToolResultBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    tool_use_id: &'a str,
    content: (TextBlock<'a>, ImageBlock<'a>),
}

/// Anthropic's `{"type": "image", "source": …}`.
#[derive(Serialize)]
struct ImageBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    source: Source<'a>,
}

/// `data:image/png;base64,<b64>` written straight into the body as one JSON string.
struct DataUrl<'a>(&'a str);

impl fmt::Display for DataUrl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "data:{MIME};base64,{}", self.0)
    }
}

impl Serialize for DataUrl<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Anthropic's `{"type": "base64", "media_type": …, "data": <b64>}`.
struct Source<'a>(&'a str);

impl Serialize for Source<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("type", "base64")?;
        map.serialize_entry("media_type", MIME)?;
        map.serialize_entry("data", self.0)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_is_deterministic_png_signed_and_sized() {
        let a = image_bytes(1 << 20);
        assert_eq!(a.len(), 1 << 20);
        assert_eq!(&a[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(a, image_bytes(1 << 20));
        assert_eq!(image_bytes(3), b"\x89PN");
        // 1 MiB is 1,398,104 base64 characters (4 per 3 bytes, padded).
        assert_eq!(image_base64(1 << 20).len(), 1_398_104);
    }

    #[test]
    fn a_run_text_is_checked_against_the_style_s_place() {
        let b64 = image_base64(100);
        let tail = &b64[b64.len() - 8..];
        let openai = format!(
            "done: {OUTPUT} | messages[-1].content[1] user image_url image/png {} {tail}",
            b64.len()
        );
        assert_eq!(check_text(Style::Openai, &openai, &b64), Ok(()));
        // The image left in the tool message, or another image, is not the SPEC's place.
        assert!(check_text(Style::Anthropic, &openai, &b64).is_err());
        let other = image_base64(99);
        assert!(check_text(Style::Openai, &openai, &other).is_err());
        let anthropic = format!(
            "done: {OUTPUT} | messages[-1].content[0].content[1] user image image/png {} {tail}",
            b64.len()
        );
        assert_eq!(check_text(Style::Anthropic, &anthropic, &b64), Ok(()));
        let relocated = anthropic.replace(
            "messages[-1].content[0].content[1] user image",
            "messages[-1].content[1] user image_url",
        );
        // An image left in the OpenAI tool message is not the synthetic user message.
        let in_tool = openai.replace(" user image_url", " tool image_url");
        assert!(check_text(Style::Openai, &in_tool, &b64).is_err());
        assert!(check_text(Style::Anthropic, &relocated, &b64).is_err());
    }

    /// The floor's bodies serialise to the shapes SPEC §8A gives each wire.
    #[test]
    fn the_floor_bodies_have_the_wire_shapes() {
        let head = [
            json!({"role": "user", "content": PROMPT}),
            json!({"role": "assistant"}),
        ];
        let tools = tool_schema(Style::Openai);
        let body = |style| {
            let text = serde_json::to_string(&Body {
                style,
                tools: &tools,
                head: &head,
                image: Some(ToolImage {
                    id: "c1",
                    b64: "QUJD",
                }),
            })
            .unwrap();
            serde_json::from_str::<Value>(&text).unwrap()
        };
        let openai = body(Style::Openai);
        assert_eq!(
            openai["messages"][2],
            json!({"role": "tool", "tool_call_id": "c1", "content": OUTPUT})
        );
        assert_eq!(
            openai["messages"][3]["content"][1],
            json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}})
        );
        let anthropic = body(Style::Anthropic);
        assert_eq!(
            anthropic["messages"][2]["content"][0]["content"][1],
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "QUJD"}})
        );
        assert_eq!(anthropic["messages"][2]["content"][0]["tool_use_id"], "c1");
    }
}
