//! The protocol's JSON Schema (conformance/protocol.schema.json), generated from this crate's
//! types so that no shape is kept by hand twice.
//!
//! The types carry the shapes (`#[derive(JsonSchema)]` follows their serde attributes: renames,
//! tags, defaults, `deny_unknown_fields` ⇒ `additionalProperties: false`); this module only
//! assembles the document the tests and `validate-trace` read, with the entry points they use:
//! `request` (any harness → driver line), `response` (any driver → harness line), `exchange`
//! (a request and the answer of its command), one `<cmd>_request` / `<cmd>_response` per
//! command, and the types' own `$defs` (PascalCase, e.g. the pinned SPEC data types).
//!
//! Two rules are the document's own, not a type's:
//! - A request the harness writes is closed (`unevaluatedProperties: false`): a driver ignores
//!   an unknown request field (§1), so a harness typo would otherwise pass silently.
//! - Every request carries `seq` (§2), every answer may echo it.
//!
//! Regenerate the checked-in file with `cargo run -- schema > conformance/protocol.schema.json`.

use schemars::generate::SchemaSettings;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::{json, Map, Value};

use crate::agent::{AgentResult, HandleInfo, InspectResponse};
use crate::client::{ConversationResponse, RunResponse, StreamResponse, TranslateResponse};
use crate::compact::CompactResponse;
use crate::messages::*;
use crate::ErrorKind;

/// The `$id` of the generated document.
pub const SCHEMA_ID: &str = "https://toolnexus.invalid/conformance/protocol.schema.json";

/// The command that regenerates the checked-in schema (named by the drift test's message).
pub const REGENERATE: &str = "cargo run -- schema > conformance/protocol.schema.json";

/// The whole schema document, as checked in at conformance/protocol.schema.json.
pub fn generate() -> Value {
    let mut g = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    let mut defs = Map::new();
    defs.insert("request".into(), request_entry());
    defs.insert("response".into(), response_entry());
    defs.insert("exchange".into(), exchange_entry());
    defs.insert("is_failure".into(), is_failure());
    defs.insert("ok_response".into(), ok_response());
    defs.insert("error_response".into(), error_response());
    // The request enum's own schema is split per command, not kept as a `$def`.
    let requests = Request::json_schema(&mut g).to_value();
    let variants = requests
        .get("oneOf")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for command in Command::ALL {
        let name = command.as_str();
        defs.insert(format!("cmd_{name}"), discriminator(name));
        let variant = variants
            .iter()
            .find(|v| v.pointer("/properties/cmd/const") == Some(&json!(name)))
            .cloned()
            .unwrap_or(Value::Bool(false));
        defs.insert(format!("{name}_request"), closed_request(variant));
        defs.insert(
            format!("{name}_response"),
            json!({"allOf": [{"$ref": "#/$defs/ok_response"}, answer_body(command, &mut g).to_value()]}),
        );
        defs.insert(
            format!("{name}_response_or_error"),
            response_or_error(command),
        );
        if let Some(keys) = command.raises() {
            defs.insert(
                format!("{name}_raised_response"),
                raised_response(name, keys),
            );
        }
    }
    // The types' own definitions (the SPEC data types, options, behaviours), sorted so that
    // the file's order does not depend on which command first used a type.
    let mut types: Vec<(String, Value)> = g.take_definitions(true).into_iter().collect();
    types.sort_by(|a, b| a.0.cmp(&b.0));
    defs.extend(types);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": format!("toolnexus conformance port protocol, version {}", crate::PROTOCOL_VERSION),
        "description": format!(
            "GENERATED from the toolnexus-protocol crate's types; do not edit (regenerate: `{REGENERATE}`). \
             Every line a harness writes to a driver's stdin is a `request`; every line a driver writes back \
             is a `response`. `exchange` pairs one request with its response and checks the response shape of \
             that command. Lower-case $defs are protocol messages; PascalCase $defs are the types they are made \
             of (the SPEC data types are closed, the protocol's answers open: PROTOCOL.md §1, §8). \
             See conformance/PROTOCOL.md."
        ),
        "oneOf": [{"$ref": "#/$defs/request"}, {"$ref": "#/$defs/response"}],
        "$defs": defs,
    })
}

/// The generated document as the checked-in file holds it: pretty JSON and a final newline.
pub fn generate_text() -> String {
    let mut text = serde_json::to_string_pretty(&generate()).unwrap_or_default();
    text.push('\n');
    text
}

fn seq_schema() -> Value {
    json!({
        "type": "integer",
        "minimum": 0,
        "description": "Sequence number: the harness numbers every request (0 for each driver process's `hello`, then 1, 2, …); the driver echoes it in the response (PROTOCOL.md §2)."
    })
}

fn discriminator(name: &str) -> Value {
    json!({"type": "object", "required": ["cmd"], "properties": {"cmd": {"const": name}}})
}

/// A request variant as the harness writes it: closed, with `seq` (PROTOCOL.md §2).
/// `unevaluatedProperties` (not `additionalProperties`) so that fields a variant takes from a
/// `$ref` or `allOf` (a flattened body type) count as known.
fn closed_request(mut variant: Value) -> Value {
    if let Some(map) = variant.as_object_mut() {
        map.insert("unevaluatedProperties".into(), Value::Bool(false));
        if let Some(props) = map.get_mut("properties").and_then(Value::as_object_mut) {
            props.insert("seq".into(), seq_schema());
        }
    }
    variant
}

fn request_entry() -> Value {
    let names: Vec<&str> = Command::ALL.iter().map(|c| c.as_str()).collect();
    let branches: Vec<Value> = names
        .iter()
        .map(|n| json!({"if": {"$ref": format!("#/$defs/cmd_{n}")}, "then": {"$ref": format!("#/$defs/{n}_request")}}))
        .collect();
    json!({
        "description": "Any harness → driver message, discriminated by `cmd`. Every request carries `seq` (PROTOCOL.md §2).",
        "type": "object",
        "required": ["cmd", "seq"],
        "properties": {"cmd": {"enum": names}, "seq": seq_schema()},
        "allOf": branches,
    })
}

fn response_entry() -> Value {
    json!({
        "description": "Any driver → harness message: a success (`ok: true` plus the command's fields) or the error envelope. Which success fields are required depends on the command: see `exchange`.",
        "type": "object",
        "required": ["ok"],
        "properties": {"ok": {"type": "boolean"}},
        "if": {"$ref": "#/$defs/is_failure"},
        "then": {"$ref": "#/$defs/error_response"},
        "else": {"$ref": "#/$defs/ok_response"},
    })
}

fn exchange_entry() -> Value {
    let branches: Vec<Value> = Command::ALL
        .iter()
        .map(|c| {
            let n = c.as_str();
            json!({
                "if": {"properties": {"request": {"$ref": format!("#/$defs/cmd_{n}")}}},
                "then": {"properties": {"response": {"$ref": format!("#/$defs/{n}_response_or_error")}}},
            })
        })
        .collect();
    json!({
        "description": "One request and the response it got: the response is the error envelope or that command's success shape.",
        "type": "object",
        "required": ["request", "response"],
        "properties": {"request": {"$ref": "#/$defs/request"}, "response": {"$ref": "#/$defs/response"}},
        "allOf": branches,
    })
}

fn is_failure() -> Value {
    json!({
        "description": "Holds for a response whose ok is false (a discriminator helper).",
        "type": "object",
        "required": ["ok"],
        "properties": {"ok": {"const": false}},
    })
}

fn ok_response() -> Value {
    json!({
        "description": "What every success shares (PROTOCOL.md §4); open: a driver may add fields (§1).",
        "type": "object",
        "required": ["ok"],
        "properties": {"ok": {"const": true}, "seq": seq_schema()},
    })
}

/// The failure envelope (§4). The harness reads it leniently ([`ErrorBody`]'s defaults); what a
/// driver must send is the kind and the message.
fn error_response() -> Value {
    let kinds = ErrorKind::KNOWN.map(|k| k.as_str().to_string());
    json!({
        "description": "A driver's own failure, never a tool failure (a failing tool is an ok response whose result has isError true).",
        "type": "object",
        "required": ["ok", "error"],
        "properties": {
            "ok": {"const": false},
            "error": {
                "type": "object",
                "required": ["kind", "message"],
                "properties": {
                    "kind": {"description": "unsupported ⇒ the scenario is reported skipped; any other kind ⇒ failed.", "enum": kinds},
                    "message": {"type": "string"},
                },
            },
            "seq": {
                "type": ["integer", "null"],
                "minimum": 0,
                "description": "The request's `seq`, echoed (PROTOCOL.md §2). Absent (or null) only in the `bad_request` answer to a line that is not a JSON object, whose `seq` cannot be read.",
            },
        },
    })
}

fn raised_response(name: &str, keys: &[&str]) -> Value {
    let any_key: Vec<Value> = keys.iter().map(|k| json!({"required": [k]})).collect();
    json!({
        "description": format!("`{name}` when the port's own call threw (PROTOCOL.md §5.2, §5.23): `raised` is the exception's message, in the port's words, and no field of the success body is sent. Not a driver failure."),
        "allOf": [{"$ref": "#/$defs/ok_response"}],
        "type": "object",
        "required": ["ok", "raised"],
        "properties": {"raised": {"type": "string"}},
        "not": {"anyOf": any_key},
    })
}

fn response_or_error(command: Command) -> Value {
    let n = command.as_str();
    let success = match command.raises() {
        Some(_) => json!({
            "if": {"type": "object", "required": ["raised"]},
            "then": {"$ref": format!("#/$defs/{n}_raised_response")},
            "else": {"$ref": format!("#/$defs/{n}_response")},
        }),
        None => json!({"$ref": format!("#/$defs/{n}_response")}),
    };
    json!({
        "if": {"$ref": "#/$defs/is_failure"},
        "then": {"$ref": "#/$defs/error_response"},
        "else": success,
    })
}

/// An object schema with these required properties (the answers the typed decode reads field
/// by field; open, as every answer).
fn body(required: &[&str], properties: Value) -> Schema {
    json_schema!({"type": "object", "required": required, "properties": properties})
}

/// `{error}` in place of the verb's answer when the port refused it (§5.27: data, not the
/// error envelope), else `done`.
fn refusable(done: Schema) -> Schema {
    json_schema!({
        "if": {"type": "object", "required": ["error"]},
        "then": {"properties": {"error": {"type": "string", "description": "The port's refusal, in its words."}}},
        "else": done,
    })
}

/// The success body of `command`'s answer: the typed answer the decode builds
/// ([`crate::decode_response`]), one arm per command (the match is exhaustive, so a new command
/// cannot be left out).
fn answer_body(command: Command, g: &mut SchemaGenerator) -> Schema {
    let envelope_only = || json_schema!({"type": "object"});
    let transcript = |g: &mut SchemaGenerator| {
        body(
            &["messages"],
            json!({"messages": g.subschema_for::<Option<Vec<Value>>>()}),
        )
    };
    match command {
        Command::Hello => g.subschema_for::<HelloResponse>(),
        Command::Build => g.subschema_for::<BuildResponse>(),
        Command::Tools | Command::SelectBuiltins => g.subschema_for::<ToolsResponse>(),
        Command::Execute => g.subschema_for::<ExecuteResponse>(),
        Command::Adapter => g.subschema_for::<AdapterResponse>(),
        Command::SkillsPrompt => g.subschema_for::<SkillsPromptResponse>(),
        Command::ListSkills => g.subschema_for::<ListSkillsResponse>(),
        Command::Sanitize => g.subschema_for::<SanitizeResponse>(),
        Command::ListMcpTools => g.subschema_for::<ListMcpToolsResponse>(),
        Command::Client => body(
            &[],
            json!({"client": {"type": "string", "description": "Echoes `id` (not read by the harness)."}}),
        ),
        Command::Close
        | Command::Shutdown
        | Command::StoreSave
        | Command::ServeStop
        | Command::AgentRuntime
        | Command::AgentHeartbeat
        | Command::AgentStoreSave
        | Command::AgentCloseRuntime => envelope_only(),
        Command::Run | Command::Ask | Command::RunWithAnswer | Command::AskWithAnswer => {
            g.subschema_for::<RunResponse>()
        }
        Command::Stream => g.subschema_for::<StreamResponse>(),
        Command::Conversation => g.subschema_for::<ConversationResponse>(),
        Command::Translate => g.subschema_for::<TranslateResponse>(),
        Command::StoreGet | Command::AgentStoreGet => transcript(g),
        Command::Metrics => body(
            &["text"],
            json!({"text": {"type": "string", "description": "The Prometheus text."}}),
        ),
        Command::Serve => body(
            &["url"],
            json!({"url": {"type": "string", "description": "The served handle's base URL."}}),
        ),
        Command::ServeRecords => g.subschema_for::<ServeRecordsResponse>(),
        Command::ContentPart => g.subschema_for::<ContentPartResponse>(),
        Command::Classifier => body(
            &[],
            json!({"classifier": {"type": "string", "description": "Echoes `id` (not read by the harness)."}}),
        ),
        Command::Evaluate => json_schema!({
            "allOf": [g.subschema_for::<crate::classifier::EvaluateAnswer>()],
            "oneOf": [{"required": ["decision"]}, {"required": ["raised"]}],
        }),
        Command::Compact => g.subschema_for::<CompactResponse>(),
        Command::AgentSpawn => json_schema!({
            "if": {"type": "object", "required": ["error"]},
            "then": {"properties": {"error": g.subschema_for::<ToolResult>()}},
            "else": body(&["handle"], json!({
                "handle": {"type": "string"},
                "budget": {"description": "`{effective}`, as the port renders it."},
            })),
        }),
        Command::AgentPost => body(
            &["accepted"],
            json!({"accepted": {"type": "boolean"}, "error": {"type": "string"}}),
        ),
        Command::AgentWake => refusable(body(
            &["state"],
            json!({"state": {"type": "string"}, "queued": {"type": "boolean"}}),
        )),
        Command::AgentWait => body(
            &["result"],
            json!({"result": g.subschema_for::<AgentResult>()}),
        ),
        Command::AgentInterrupt | Command::AgentClose => {
            refusable(body(&["state"], json!({"state": {"type": "string"}})))
        }
        Command::AgentList => body(
            &["handles"],
            json!({"handles": g.subschema_for::<Vec<HandleInfo>>()}),
        ),
        Command::AgentInspect => g.subschema_for::<InspectResponse>(),
        Command::AgentRun => refusable(body(
            &["handle", "result"],
            json!({"handle": {"type": "string"}, "result": g.subschema_for::<AgentResult>()}),
        )),
        Command::AgentResume => json_schema!({
            "if": {"type": "object", "required": ["raised"]},
            "then": {"properties": {"raised": {"type": "string"}}},
            "else": body(&["result"], json!({"result": g.subschema_for::<AgentResult>()})),
        }),
        Command::AgentExecute => body(
            &["tool", "result"],
            json!({
                "tool": {"type": "object", "description": "`agent(def).asTool()`'s description."},
                "result": g.subschema_for::<ToolResult>(),
            }),
        ),
        Command::AgentClock => body(
            &["now"],
            json!({"now": {"type": "integer", "minimum": 0, "description": "The virtual clock, in ms."}}),
        ),
        Command::AgentTrace => body(
            &["transitions"],
            json!({"transitions": g.subschema_for::<std::collections::BTreeMap<String, Vec<String>>>()}),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_its_request_and_response() {
        let doc = generate();
        for c in Command::ALL {
            let n = c.as_str();
            for def in [
                format!("cmd_{n}"),
                format!("{n}_request"),
                format!("{n}_response"),
                format!("{n}_response_or_error"),
            ] {
                assert!(
                    doc.pointer(&format!("/$defs/{def}")).is_some(),
                    "no $defs/{def}"
                );
            }
            assert_eq!(
                doc.pointer(&format!("/$defs/{n}_request/properties/cmd/const")),
                Some(&json!(n)),
                "the request enum has a variant for `{n}`"
            );
        }
    }

    #[test]
    fn generation_is_deterministic() {
        assert_eq!(generate_text(), generate_text());
    }
}
