//! The protocol schema read into a language-neutral model: records (objects with named
//! fields), field types, and the commands with their request and answer records.
//!
//! The reading is deliberately shallow. JSON Schema can say more than a record type can (a
//! `oneOf` of required keys, `if`/`then`); the model keeps every property a message may carry,
//! marks a field required only where the schema requires it unconditionally, and leaves the
//! finer rules to the schema itself. A value whose shape varies (a boolean or an object, a
//! string or a list) is `Ty::Any`: raw JSON the driver reads as it needs.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::names::pascal;
use crate::sections::CORE_COMMANDS;
use crate::KitgenError;

/// A field's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    /// A string.
    Str,
    /// An integer.
    Int,
    /// A number.
    Num,
    /// A boolean.
    Bool,
    /// Any JSON value, kept raw (its key order included).
    Any,
    /// A JSON object whose keys are free (tool arguments, an `http` block).
    Object,
    /// A list.
    Array(Box<Ty>),
    /// An object from names to one type.
    Map(Box<Ty>),
    /// A record of this model.
    Named(String),
    /// One of these strings.
    Literals(Vec<String>),
}

/// One field of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The JSON key.
    pub json: String,
    /// Its type.
    pub ty: Ty,
    /// Whether every message of the record carries it.
    pub required: bool,
    /// Whether the schema allows `null` for it.
    pub nullable: bool,
    /// The schema's description, on one line.
    pub doc: String,
}

/// A record: a JSON object with named fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The type name.
    pub name: String,
    /// The schema's description, on one line.
    pub doc: String,
    /// Its fields, in the schema's order.
    pub fields: Vec<Field>,
    /// A behaviour of PROTOCOL.md §7: exactly one of the fields is present.
    pub one_key: bool,
}

/// A protocol command with the records of its request and answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The `cmd` value.
    pub name: String,
    /// The request record (without `cmd` and `seq`, which the kit's loop handles).
    pub request: String,
    /// The answer's record, when the answer has fields.
    pub answer: Option<String>,
}

/// The whole model of one schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// The protocol version.
    pub protocol: u64,
    /// Every command, in the schema's order.
    pub commands: Vec<Command>,
    /// Every record: the commands' requests and answers first, then the schema's named types
    /// alphabetically.
    pub records: Vec<Record>,
    /// The core commands per section (`CORE_COMMANDS`), checked against the command list.
    pub core: Vec<(String, Vec<String>)>,
}

impl Model {
    /// Reads `schema`, the protocol's JSON Schema document.
    pub fn from_schema(schema: &Value, protocol: u64) -> Result<Model, KitgenError> {
        let defs = schema
            .get("$defs")
            .and_then(Value::as_object)
            .ok_or_else(|| KitgenError("the schema has no `$defs`".into()))?;
        let names = command_names(defs)?;
        let reader = Reader { defs };
        let named: BTreeSet<&str> = defs
            .keys()
            .filter(|k| k.starts_with(|c: char| c.is_ascii_uppercase()))
            .map(String::as_str)
            .collect();

        let mut records = Vec::new();
        let mut commands = Vec::new();
        for name in &names {
            let request_def = defs
                .get(&format!("{name}_request"))
                .ok_or_else(|| KitgenError(format!("no `{name}_request` in `$defs`")))?;
            let mut request_name = format!("{}Request", pascal(name));
            if named.contains(request_name.as_str()) {
                request_name = format!("{}CommandRequest", pascal(name));
            }
            let mut request = reader.record(&request_name, request_def);
            request
                .fields
                .retain(|f| f.json != "cmd" && f.json != "seq");
            if request.doc.is_empty() {
                request.doc = format!("The fields of the `{name}` request.");
            }
            records.push(request);
            let answer = match defs.get(&format!("{name}_response")) {
                Some(response) => reader.answer(name, response, &named, &mut records),
                None => None,
            };
            commands.push(Command {
                name: name.clone(),
                request: request_name,
                answer,
            });
        }
        for name in &named {
            if let Some(def) = defs.get(*name) {
                if reader.is_record(def) {
                    records.push(reader.record(name, def));
                }
            }
        }
        let mut core = Vec::new();
        for (section, cmds) in CORE_COMMANDS {
            for cmd in *cmds {
                if !names.iter().any(|n| n == cmd) {
                    return Err(KitgenError(format!(
                        "the core command `{cmd}` of §{section} is not a protocol command"
                    )));
                }
            }
            core.push((
                section.to_string(),
                cmds.iter().map(|c| c.to_string()).collect(),
            ));
        }
        Ok(Model {
            protocol,
            commands,
            records,
            core,
        })
    }

    /// The record named `name`.
    pub fn record(&self, name: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.name == name)
    }
}

/// The `cmd` values of `$defs/request`, in order.
fn command_names(defs: &Map<String, Value>) -> Result<Vec<String>, KitgenError> {
    defs.get("request")
        .and_then(|r| r.pointer("/properties/cmd/enum"))
        .and_then(Value::as_array)
        .map(|cmds| {
            cmds.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .ok_or_else(|| KitgenError("`$defs/request` lists no `cmd` enum".into()))
}

/// A schema description on one line: its first paragraph, whitespace collapsed.
fn one_line(schema: &Value) -> String {
    let text = schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");
    let first = text.split("\n\n").next().unwrap_or("");
    first.split_whitespace().collect::<Vec<_>>().join(" ")
}

struct Reader<'a> {
    defs: &'a Map<String, Value>,
}

impl Reader<'_> {
    fn resolve<'v>(&'v self, schema: &'v Value) -> &'v Value {
        match ref_name(schema).and_then(|n| self.defs.get(n)) {
            Some(target) => target,
            None => schema,
        }
    }

    /// Whether a named definition becomes a record of its own.
    fn is_record(&self, def: &Value) -> bool {
        !self.properties(def).is_empty()
    }

    /// Every property an object schema may carry: its own, its `allOf` members', its `oneOf`
    /// variants' and its `if`/`then`/`else` branches', first seen first.
    fn properties<'v>(&'v self, schema: &'v Value) -> Vec<(&'v String, &'v Value)> {
        let mut out: Vec<(&String, &Value)> = Vec::new();
        self.collect_properties(schema, &mut out, 0);
        out
    }

    fn collect_properties<'v>(
        &'v self,
        schema: &'v Value,
        out: &mut Vec<(&'v String, &'v Value)>,
        depth: usize,
    ) {
        if depth > 8 {
            return;
        }
        let schema = self.resolve(schema);
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                // A variant's `{"const": …}` narrowing adds nothing to the first, typed one.
                if !out.iter().any(|(name, _)| *name == k) {
                    out.push((k, v));
                }
            }
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            if let Some(items) = schema.get(key).and_then(Value::as_array) {
                for item in items {
                    self.collect_properties(item, out, depth + 1);
                }
            }
        }
        for key in ["then", "else"] {
            if let Some(branch) = schema.get(key) {
                self.collect_properties(branch, out, depth + 1);
            }
        }
    }

    /// The keys required unconditionally: the schema's own `required` and its `allOf` members'.
    fn required(&self, schema: &Value, depth: usize) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        if depth > 8 {
            return out;
        }
        let schema = self.resolve(schema);
        if let Some(req) = schema.get("required").and_then(Value::as_array) {
            out.extend(req.iter().filter_map(Value::as_str).map(str::to_string));
        }
        if let Some(items) = schema.get("allOf").and_then(Value::as_array) {
            for item in items {
                out.extend(self.required(item, depth + 1));
            }
        }
        out
    }

    fn record(&self, name: &str, def: &Value) -> Record {
        let required = self.required(def, 0);
        let one_key = is_one_key_union(def);
        let fields = self
            .properties(def)
            .into_iter()
            .map(|(json, schema)| {
                let (ty, nullable) = self.ty(schema);
                Field {
                    json: json.clone(),
                    ty,
                    required: required.contains(json.as_str()),
                    nullable,
                    doc: one_line(schema),
                }
            })
            .collect();
        Record {
            name: name.to_string(),
            doc: one_line(def),
            fields,
            one_key,
        }
    }

    /// The record of a command's answer: the named body of `allOf [ok_response, body]`, or a
    /// record `<Command>Answer` made of an inline body's fields; `None` for an empty answer.
    fn answer(
        &self,
        command: &str,
        response: &Value,
        named: &BTreeSet<&str>,
        records: &mut Vec<Record>,
    ) -> Option<String> {
        let body = response
            .get("allOf")
            .and_then(Value::as_array)?
            .iter()
            .find(|part| ref_name(part) != Some("ok_response"))?;
        if let Some(name) = ref_name(body) {
            return Some(name.to_string());
        }
        if self.properties(body).is_empty() {
            return None;
        }
        let mut name = format!("{}Answer", pascal(command));
        if named.contains(name.as_str()) {
            name = format!("{}CommandAnswer", pascal(command));
        }
        let mut record = self.record(&name, body);
        if record.doc.is_empty() {
            record.doc = format!("The fields of the `{command}` answer.");
        }
        records.push(record);
        Some(name)
    }

    /// A property's type and whether it may be `null`.
    fn ty(&self, schema: &Value) -> (Ty, bool) {
        if let Some(name) = ref_name(schema) {
            return (self.named_ty(name), false);
        }
        if let Some(options) = schema.get("anyOf").and_then(Value::as_array) {
            let nonnull: Vec<&Value> = options.iter().filter(|o| !is_null(o)).collect();
            let nullable = nonnull.len() < options.len();
            return match nonnull.as_slice() {
                [one] => (self.ty(one).0, nullable),
                _ => (Ty::Any, nullable),
            };
        }
        if let Some(values) = string_literals(schema) {
            return (Ty::Literals(values), false);
        }
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let nullable = types.contains(&"null");
        let nonnull: Vec<&str> = types.into_iter().filter(|t| *t != "null").collect();
        let ty = match nonnull.as_slice() {
            ["string"] => Ty::Str,
            ["integer"] => Ty::Int,
            ["number"] => Ty::Num,
            ["boolean"] => Ty::Bool,
            ["array"] => Ty::Array(Box::new(match schema.get("items") {
                Some(items) => self.ty(items).0,
                None => Ty::Any,
            })),
            ["object"] => match schema.get("additionalProperties") {
                Some(Value::Object(inner)) if schema.get("properties").is_none() => {
                    Ty::Map(Box::new(self.ty(&Value::Object(inner.clone())).0))
                }
                _ => Ty::Object,
            },
            _ => Ty::Any,
        };
        (ty, nullable)
    }

    /// The type a `$ref` to a named definition stands for.
    fn named_ty(&self, name: &str) -> Ty {
        let Some(def) = self.defs.get(name) else {
            return Ty::Any;
        };
        if name.starts_with(|c: char| c.is_ascii_uppercase()) && self.is_record(def) {
            return Ty::Named(name.to_string());
        }
        if let Some(values) = string_literals(def) {
            return Ty::Literals(values);
        }
        if def.get("type").is_some() || def.get("anyOf").is_some() {
            return self.ty(def).0;
        }
        Ty::Any
    }
}

fn ref_name(schema: &Value) -> Option<&str> {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
}

fn is_null(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// The strings of an `enum` of strings, or of a `oneOf` whose every branch is one string
/// `const`; `None` for anything else.
fn string_literals(schema: &Value) -> Option<Vec<String>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect();
    }
    let branches = schema.get("oneOf").and_then(Value::as_array)?;
    branches
        .iter()
        .map(|b| b.get("const").and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// A `oneOf` whose branches are objects of exactly one required key each: a §7 behaviour.
fn is_one_key_union(schema: &Value) -> bool {
    let Some(branches) = schema.get("oneOf").and_then(Value::as_array) else {
        return false;
    };
    !branches.is_empty()
        && branches.iter().all(|b| {
            b.get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| p.len() == 1)
                && b.get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.len() == 1)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A small schema: `build` and `translate` spelled out, and every other core command with
    /// an empty request, so the core table holds.
    fn schema() -> Value {
        let mut s = small_schema();
        let mut cmds = vec![json!("build"), json!("translate")];
        for (_, core) in CORE_COMMANDS {
            for cmd in *core {
                if !cmds.contains(&json!(cmd)) {
                    cmds.push(json!(cmd));
                    if let Some(defs) = s.get_mut("$defs").and_then(Value::as_object_mut) {
                        defs.insert(format!("{cmd}_request"), json!({"type": "object"}));
                    }
                }
            }
        }
        if let Some(enum_) = s.pointer_mut("/$defs/request/properties/cmd/enum") {
            *enum_ = Value::Array(cmds);
        }
        s
    }

    fn small_schema() -> Value {
        json!({"$defs": {
            "request": {"properties": {"cmd": {"enum": []}}},
            "build_request": {"type": "object", "required": ["cmd", "id"], "properties": {
                "cmd": {"const": "build"}, "seq": {"type": "integer"},
                "id": {"type": "string", "description": "The handle.\n\nMore."},
                "options": {"$ref": "#/$defs/ToolkitOptions"},
                "tags": {"type": ["array", "null"], "items": {"type": "string"}}}},
            "build_response": {"allOf": [{"$ref": "#/$defs/ok_response"}, {"type": "object",
                "required": ["tools"], "properties": {"tools": {"type": "integer"}}}]},
            "translate_request": {"type": "object", "properties": {"request": {"$ref": "#/$defs/TranslateRequest"}}},
            "translate_response": {"allOf": [{"$ref": "#/$defs/ok_response"}, {"type": "object"}]},
            "TranslateRequest": {"type": "object", "properties": {"style": {"$ref": "#/$defs/Style"}}},
            "Style": {"oneOf": [{"const": "openai"}, {"const": "anthropic"}]},
            "ToolkitOptions": {"type": "object", "properties": {
                "behaviour": {"anyOf": [{"$ref": "#/$defs/ToolBehaviour"}, {"type": "null"}]},
                "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                "builtins": {"anyOf": [{"type": "boolean"}, {"type": "object"}]}}},
            "ToolBehaviour": {"oneOf": [
                {"type": "object", "properties": {"echo": {"type": "boolean"}}, "required": ["echo"]},
                {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}]}
        }})
    }

    #[test]
    fn the_model_reads_requests_answers_and_named_types() {
        let model = match Model::from_schema(&schema(), 1) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(model.commands[0].request, "BuildRequest");
        assert_eq!(model.commands[0].answer.as_deref(), Some("BuildAnswer"));
        // The translate request's own name is taken by a schema type.
        assert_eq!(model.commands[1].request, "TranslateCommandRequest");
        assert_eq!(model.commands[1].answer, None);
        let build = model.record("BuildRequest").map(|r| r.fields.clone());
        let build = build.unwrap_or_default();
        let names: Vec<&str> = build.iter().map(|f| f.json.as_str()).collect();
        assert_eq!(
            names,
            ["id", "options", "tags"],
            "cmd and seq are the loop's"
        );
        assert!(build[0].required && build[0].doc == "The handle.");
        assert_eq!(build[1].ty, Ty::Named("ToolkitOptions".into()));
        assert!(!build[2].required && build[2].nullable);
        assert_eq!(build[2].ty, Ty::Array(Box::new(Ty::Str)));
        let options = model.record("ToolkitOptions").map(|r| r.fields.clone());
        let options = options.unwrap_or_default();
        assert_eq!(options[0].ty, Ty::Named("ToolBehaviour".into()));
        assert!(options[0].nullable);
        assert_eq!(options[1].ty, Ty::Map(Box::new(Ty::Str)));
        assert_eq!(options[2].ty, Ty::Any, "a boolean or an object stays raw");
        assert!(model.record("ToolBehaviour").is_some_and(|r| r.one_key));
        let style = model
            .record("TranslateRequest")
            .map(|r| r.fields[0].ty.clone());
        assert_eq!(
            style,
            Some(Ty::Literals(vec!["openai".into(), "anthropic".into()]))
        );
    }

    #[test]
    fn a_core_command_missing_from_the_protocol_is_an_error() {
        assert!(Model::from_schema(&schema(), 1).is_ok(), "the control");
        let mut bare = schema();
        if let Some(Value::Array(cmds)) = bare.pointer_mut("/$defs/request/properties/cmd/enum") {
            cmds.retain(|c| c != "tools");
        }
        let err = Model::from_schema(&bare, 1).err().map(|e| e.0);
        assert!(
            err.is_some_and(|m| m.contains("is not a protocol command")),
            "a core table naming an unknown command is refused"
        );
    }
}
