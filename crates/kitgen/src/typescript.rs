//! The TypeScript kit's generated pair: `protocol_gen.mjs` (the runtime constants: version,
//! commands, core commands) and `protocol_gen.d.mts` (an interface per record, a §7 behaviour
//! as a union of one-key objects, and `Requests`/`Answers` maps from a command to its types).

use std::fmt::Write;

use crate::model::{Field, Model, Record, Ty};
use crate::{banner, GeneratedFile, Language};

/// The two generated files.
pub fn files(model: &Model) -> Vec<GeneratedFile> {
    vec![runtime(model), declarations(model)]
}

fn runtime(model: &Model) -> GeneratedFile {
    let mut out = String::new();
    let _ = writeln!(out, "// {}", banner(Language::TypeScript));
    out.push_str("// @ts-check\n\n/** The protocol version these constants describe. */\n");
    let _ = writeln!(out, "export const PROTOCOL_VERSION = {};\n", model.protocol);
    out.push_str(
        "/** Every command, in the schema's order. */\nexport const COMMANDS = Object.freeze([\n",
    );
    for c in &model.commands {
        let _ = writeln!(out, "  {:?},", c.name);
    }
    out.push_str("]);\n\n");
    out.push_str(
        "/** Per SPEC section, the commands a driver registers before `hello` may list it; a section\n \
         * missing here needs only to be declared. */\nexport const CORE_COMMANDS = Object.freeze({\n",
    );
    for (section, cmds) in &model.core {
        let list: Vec<String> = cmds.iter().map(|c| format!("{c:?}")).collect();
        let _ = writeln!(out, "  {section:?}: Object.freeze([{}]),", list.join(", "));
    }
    out.push_str("});\n");
    GeneratedFile {
        path: "conformance/kits/ts/protocol_gen.mjs",
        text: out,
    }
}

fn declarations(model: &Model) -> GeneratedFile {
    let mut out = String::new();
    let _ = writeln!(out, "// {}\n", banner(Language::TypeScript));
    let _ = writeln!(
        out,
        "/** The protocol version these types describe. */\nexport declare const PROTOCOL_VERSION: {};",
        model.protocol
    );
    let names: Vec<String> = model
        .commands
        .iter()
        .map(|c| format!("{:?}", c.name))
        .collect();
    let _ = writeln!(
        out,
        "/** Every command, in the schema's order. */\nexport declare const COMMANDS: readonly Command[];"
    );
    out.push_str(
        "/** Per SPEC section, the commands a driver registers before `hello` may list it. */\n\
         export declare const CORE_COMMANDS: Readonly<Record<string, readonly Command[]>>;\n\n",
    );
    let _ = writeln!(
        out,
        "/** A command name. */\nexport type Command =\n  | {};\n",
        names.join("\n  | ")
    );
    out.push_str("/** Each command's request fields (beside `cmd` and `seq`, which the loop handles). */\nexport interface Requests {\n");
    for c in &model.commands {
        let _ = writeln!(out, "  {}: {};", c.name, c.request);
    }
    out.push_str("}\n\n/** Each command's answer fields (beside `ok` and `seq`). */\nexport interface Answers {\n");
    for c in &model.commands {
        let answer = c.answer.as_deref().unwrap_or("Record<string, never>");
        let _ = writeln!(out, "  {}: {};", c.name, answer);
    }
    out.push_str("}\n");
    for record in &model.records {
        out.push('\n');
        write_record(&mut out, record);
    }
    GeneratedFile {
        path: "conformance/kits/ts/protocol_gen.d.mts",
        text: out,
    }
}

fn doc(out: &mut String, indent: &str, text: &str) {
    if !text.is_empty() {
        let _ = writeln!(out, "{indent}/** {} */", text.replace("*/", "*\\/"));
    }
}

fn write_record(out: &mut String, record: &Record) {
    doc(out, "", &record.doc);
    if record.one_key {
        let variants: Vec<String> = record
            .fields
            .iter()
            .map(|field| format!("  | {{ {}: {} }}", key(&field.json), ty(&field.ty)))
            .collect();
        let body = if variants.is_empty() {
            "  never".to_string()
        } else {
            variants.join("\n")
        };
        let _ = writeln!(out, "export type {} =\n{body};", record.name);
        return;
    }
    let _ = writeln!(out, "export interface {} {{", record.name);
    for field in &record.fields {
        doc(out, "  ", &field.doc);
        let _ = writeln!(
            out,
            "  {}{}: {};",
            key(&field.json),
            if field.required { "" } else { "?" },
            field_type(field)
        );
    }
    out.push_str("}\n");
}

fn key(json: &str) -> String {
    if json
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        && !json.starts_with(|c: char| c.is_ascii_digit())
    {
        json.to_string()
    } else {
        format!("{json:?}")
    }
}

fn field_type(field: &Field) -> String {
    let base = ty(&field.ty);
    if field.nullable {
        format!("{base} | null")
    } else {
        base
    }
}

fn ty(t: &Ty) -> String {
    match t {
        Ty::Str => "string".into(),
        Ty::Int | Ty::Num => "number".into(),
        Ty::Bool => "boolean".into(),
        Ty::Any => "unknown".into(),
        Ty::Object => "Record<string, unknown>".into(),
        Ty::Array(inner) => match **inner {
            Ty::Literals(_) => format!("Array<{}>", ty(inner)),
            _ => format!("{}[]", ty(inner)),
        },
        Ty::Map(inner) => format!("Record<string, {}>", ty(inner)),
        Ty::Named(name) => name.clone(),
        Ty::Literals(values) => values
            .iter()
            .map(|v| format!("{v:?}"))
            .collect::<Vec<_>>()
            .join(" | "),
    }
}
