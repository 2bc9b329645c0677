//! The Python kit's generated module `protocol_gen` (conformance/kits/python/toolnexus_kit/
//! protocol_gen.py): a `TypedDict` per record in the functional form (JSON keys such as `from`
//! are not Python identifiers), all keys optional with the required ones listed in `REQUIRED`
//! (Python 3.9 has no `Required[...]`), and the version, commands and core commands.

use std::fmt::Write;

use crate::model::{Field, Model, Ty};
use crate::{banner, GeneratedFile, Language};

/// The generated file.
pub fn file(model: &Model) -> GeneratedFile {
    let mut out = String::new();
    let _ = writeln!(out, "# {}", banner(Language::Python));
    out.push_str(
        "\"\"\"The port protocol's records, commands and core commands, generated from its JSON Schema.\"\"\"\n\n\
         from typing import Any, Dict, List, Optional, Tuple, TypedDict\n\n",
    );
    let _ = writeln!(out, "PROTOCOL_VERSION = {}", model.protocol);
    out.push_str("\n# Every command, in the schema's order.\nCOMMANDS: Tuple[str, ...] = (\n");
    for c in &model.commands {
        let _ = writeln!(out, "    {:?},", c.name);
    }
    out.push_str(
        ")\n\n# Per SPEC section, the commands a driver registers before `hello` may list it.\n",
    );
    out.push_str("CORE_COMMANDS: Dict[str, Tuple[str, ...]] = {\n");
    for (section, cmds) in &model.core {
        let list: Vec<String> = cmds.iter().map(|c| format!("{c:?}")).collect();
        let _ = writeln!(out, "    {section:?}: ({},),", list.join(", "));
    }
    out.push_str(
        "}\n\n# Per command, the name of its request type.\nREQUEST_TYPES: Dict[str, str] = {\n",
    );
    for c in &model.commands {
        let _ = writeln!(out, "    {:?}: {:?},", c.name, c.request);
    }
    out.push_str("}\n\n# Per record, the keys every message of it carries.\nREQUIRED: Dict[str, Tuple[str, ...]] = {\n");
    for r in &model.records {
        let req: Vec<String> = r
            .fields
            .iter()
            .filter(|f| f.required)
            .map(|f| format!("{:?}", f.json))
            .collect();
        if !req.is_empty() {
            let _ = writeln!(out, "    {:?}: ({},),", r.name, req.join(", "));
        }
    }
    out.push_str("}\n");
    for record in &model.records {
        out.push('\n');
        if !record.doc.is_empty() {
            let _ = writeln!(out, "# {}", record.doc);
        }
        if record.one_key {
            out.push_str("# Exactly one key is set.\n");
        }
        let fields: Vec<String> = record.fields.iter().map(field).collect();
        if fields.is_empty() {
            let _ = writeln!(
                out,
                "{0} = TypedDict({0:?}, {{}}, total=False)",
                record.name
            );
        } else {
            let _ = writeln!(
                out,
                "{0} = TypedDict(\n    {0:?},\n    {{\n{1}    }},\n    total=False,\n)",
                record.name,
                fields.concat()
            );
        }
    }
    GeneratedFile {
        path: "conformance/kits/python/toolnexus_kit/protocol_gen.py",
        text: out,
    }
}

fn field(f: &Field) -> String {
    let t = ty(&f.ty);
    let t = if f.nullable {
        format!("Optional[{t}]")
    } else {
        t
    };
    format!("        {:?}: {t},\n", f.json)
}

fn ty(t: &Ty) -> String {
    match t {
        Ty::Str | Ty::Literals(_) => "str".into(),
        Ty::Int => "int".into(),
        Ty::Num => "float".into(),
        Ty::Bool => "bool".into(),
        Ty::Any => "Any".into(),
        Ty::Object => "Dict[str, Any]".into(),
        Ty::Array(inner) => format!("List[{}]", ty(inner)),
        Ty::Map(inner) => format!("Dict[str, {}]", ty(inner)),
        Ty::Named(name) => format!("{name:?}"),
    }
}
