//! The Go kit's generated package `protocol` (conformance/kits/go/protocol/protocol_gen.go):
//! a struct per record with `encoding/json` tags, optional fields as pointers or nil-able
//! values, and raw JSON (`json.RawMessage`, key order kept) for free-form values.

use std::fmt::Write;

use crate::model::{Field, Model, Record, Ty};
use crate::names::go_field;
use crate::{banner, GeneratedFile, Language};

/// The generated file.
pub fn file(model: &Model) -> GeneratedFile {
    let mut out = String::new();
    let _ = writeln!(out, "// {}", banner(Language::Go));
    out.push_str(
        "\n// Package protocol holds the port protocol's request and answer types, its command list\n\
         // and the core commands of each SPEC section, generated from the protocol's JSON Schema.\n\
         package protocol\n\nimport \"encoding/json\"\n\n",
    );
    let _ = writeln!(
        out,
        "// Version is the protocol version these types describe.\nconst Version = {}\n",
        model.protocol
    );
    out.push_str(
        "// Commands lists every command, in the schema's order.\nvar Commands = []string{\n",
    );
    for c in &model.commands {
        let _ = writeln!(out, "\t{:?},", c.name);
    }
    out.push_str("}\n\n");
    // Maps are filled by assignments, which gofmt leaves unaligned, so the generated text is
    // gofmt's own without running gofmt.
    out.push_str(
        "// CoreCommands maps a SPEC section to the commands a driver registers before `hello` may\n\
         // list it; a section missing here needs only to be declared.\n\
         var CoreCommands = coreCommands()\n\n\
         func coreCommands() map[string][]string {\n\tm := map[string][]string{}\n",
    );
    for (section, cmds) in &model.core {
        let list: Vec<String> = cmds.iter().map(|c| format!("{c:?}")).collect();
        let _ = writeln!(out, "\tm[{section:?}] = []string{{{}}}", list.join(", "));
    }
    out.push_str("\treturn m\n}\n\n");
    out.push_str(
        "// RequestTypes maps a command to the name of its request type.\n\
         var RequestTypes = requestTypes()\n\n\
         func requestTypes() map[string]string {\n\tm := map[string]string{}\n",
    );
    for c in &model.commands {
        let _ = writeln!(out, "\tm[{:?}] = {:?}", c.name, c.request);
    }
    out.push_str("\treturn m\n}\n\n");
    out.push_str(
        "// Required maps a record's type name to the keys every message of it carries.\n\
         var Required = required()\n\n\
         func required() map[string][]string {\n\tm := map[string][]string{}\n",
    );
    for r in &model.records {
        let keys: Vec<String> = r
            .fields
            .iter()
            .filter(|f| f.required)
            .map(|f| format!("{:?}", f.json))
            .collect();
        if !keys.is_empty() {
            let _ = writeln!(out, "\tm[{:?}] = []string{{{}}}", r.name, keys.join(", "));
        }
    }
    out.push_str("\treturn m\n}\n");
    for record in &model.records {
        out.push('\n');
        write_record(&mut out, record);
    }
    // Keeps the import used when no field is raw JSON.
    out.push_str("\nvar _ json.RawMessage\n");
    GeneratedFile {
        path: "conformance/kits/go/protocol/protocol_gen.go",
        text: out,
    }
}

fn write_record(out: &mut String, record: &Record) {
    let doc = if record.doc.is_empty() {
        "a protocol record.".to_string()
    } else {
        record.doc.clone()
    };
    let _ = writeln!(out, "// {} is {}", record.name, lower_first(&doc));
    if record.one_key {
        let _ = writeln!(out, "// Exactly one field is set.");
    }
    let _ = writeln!(out, "type {} struct {{", record.name);
    for field in &record.fields {
        // Every field has a comment line above it: gofmt aligns only runs of fields with
        // none between them, so this keeps the text gofmt's own.
        let doc = if field.doc.is_empty() {
            format!("The `{}` key.", field.json)
        } else {
            field.doc.clone()
        };
        let _ = writeln!(out, "\t// {doc}");
        let optional = !field.required;
        let _ = writeln!(
            out,
            "\t{} {} `json:\"{}{}\"`",
            go_field(&field.json),
            go_type(field, optional),
            field.json,
            if optional { ",omitempty" } else { "" }
        );
    }
    out.push_str("}\n");
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        // Keep a leading code span, a section sign or a proper noun as written.
        Some(c) if c.is_ascii_uppercase() && !text.starts_with("SPEC") => {
            c.to_ascii_lowercase().to_string() + chars.as_str()
        }
        Some(_) => text.to_string(),
        None => String::new(),
    }
}

fn go_type(field: &Field, optional: bool) -> String {
    let base = ty(&field.ty);
    let pointer = match field.ty {
        Ty::Str | Ty::Int | Ty::Num | Ty::Bool | Ty::Named(_) | Ty::Literals(_) => {
            optional || field.nullable
        }
        _ => false,
    };
    if pointer {
        format!("*{base}")
    } else {
        base
    }
}

fn ty(t: &Ty) -> String {
    match t {
        Ty::Str | Ty::Literals(_) => "string".into(),
        Ty::Int => "int64".into(),
        Ty::Num => "float64".into(),
        Ty::Bool => "bool".into(),
        Ty::Any | Ty::Object => "json.RawMessage".into(),
        Ty::Array(inner) => format!("[]{}", ty(inner)),
        Ty::Map(inner) => format!("map[string]{}", ty(inner)),
        Ty::Named(name) => name.clone(),
    }
}
