//! The Java kit's generated class `Protocol` (conformance/kits/java/src/main/java/dev/toolnexus/
//! conformance/kit/Protocol.java): a Jackson-annotated record per protocol record, nested in one
//! final class, with the version, the commands and the core commands as constants. Unknown keys
//! are ignored on reading (the protocol grows by adding keys, PROTOCOL.md §1) and absent values
//! are left out on writing.

use std::fmt::Write;

use crate::model::{Model, Record, Ty};
use crate::names::java_component;
use crate::{banner, GeneratedFile, Language};

/// The Java package the kit's sources live in.
pub const PACKAGE: &str = "dev.toolnexus.conformance.kit";

/// The generated file.
pub fn file(model: &Model) -> GeneratedFile {
    let mut out = String::new();
    let _ = writeln!(out, "// {}", banner(Language::Java));
    let _ = writeln!(out, "package {PACKAGE};\n");
    out.push_str(
        "import com.fasterxml.jackson.annotation.JsonIgnoreProperties;\n\
         import com.fasterxml.jackson.annotation.JsonInclude;\n\
         import com.fasterxml.jackson.annotation.JsonProperty;\n\
         import com.fasterxml.jackson.databind.JsonNode;\n\
         import java.util.List;\n\
         import java.util.Map;\n\n",
    );
    out.push_str(
        "/** The port protocol's records, commands and core commands, generated from its JSON Schema. */\n\
         public final class Protocol {\n  private Protocol() {}\n\n",
    );
    let _ = writeln!(
        out,
        "  /** The protocol version these types describe. */\n  public static final int VERSION = {};\n",
        model.protocol
    );
    out.push_str("  /** Every command, in the schema's order. */\n  public static final List<String> COMMANDS =\n      List.of(\n");
    let cmds: Vec<String> = model
        .commands
        .iter()
        .map(|c| format!("          {:?}", c.name))
        .collect();
    let _ = writeln!(out, "{});\n", cmds.join(",\n"));
    out.push_str(
        "  /** Per SPEC section, the commands a driver registers before {@code hello} may list it. */\n  \
         public static final Map<String, List<String>> CORE_COMMANDS =\n      Map.ofEntries(\n",
    );
    let core: Vec<String> = model
        .core
        .iter()
        .map(|(section, cmds)| {
            let list: Vec<String> = cmds.iter().map(|c| format!("{c:?}")).collect();
            format!(
                "          Map.entry({section:?}, List.of({}))",
                list.join(", ")
            )
        })
        .collect();
    let _ = writeln!(out, "{});\n", core.join(",\n"));
    out.push_str("  /** Per command, its request record's class. */\n  public static final Map<String, Class<?>> REQUEST_TYPES =\n      Map.ofEntries(\n");
    let reqs: Vec<String> = model
        .commands
        .iter()
        .map(|c| format!("          Map.entry({:?}, {}.class)", c.name, c.request))
        .collect();
    let _ = writeln!(out, "{});", reqs.join(",\n"));
    for record in &model.records {
        out.push('\n');
        write_record(&mut out, record);
    }
    out.push_str("}\n");
    GeneratedFile {
        path: "conformance/kits/java/src/main/java/dev/toolnexus/conformance/kit/Protocol.java",
        text: out,
    }
}

fn javadoc(text: &str) -> String {
    text.replace("*/", "*&#47;").replace('@', "{@literal @}")
}

fn write_record(out: &mut String, record: &Record) {
    let mut doc = javadoc(&record.doc);
    if record.one_key {
        doc.push_str(" Exactly one component is set.");
    }
    if !doc.trim().is_empty() {
        let _ = writeln!(out, "  /** {} */", doc.trim());
    }
    out.push_str("  @JsonInclude(JsonInclude.Include.NON_NULL)\n  @JsonIgnoreProperties(ignoreUnknown = true)\n");
    if record.fields.is_empty() {
        let _ = writeln!(out, "  public record {}() {{}}", record.name);
        return;
    }
    let _ = writeln!(out, "  public record {}(", record.name);
    let parts: Vec<String> = record
        .fields
        .iter()
        .map(|f| {
            let mut part = String::new();
            if !f.doc.is_empty() {
                let _ = writeln!(part, "      /** {} */", javadoc(&f.doc));
            }
            let property = if f.required {
                format!("@JsonProperty(value = {:?}, required = true)", f.json)
            } else {
                format!("@JsonProperty({:?})", f.json)
            };
            let _ = write!(
                part,
                "      {property} {} {}",
                ty(&f.ty),
                java_component(&f.json)
            );
            part
        })
        .collect();
    let _ = writeln!(out, "{}) {{}}", parts.join(",\n"));
}

fn ty(t: &Ty) -> String {
    match t {
        Ty::Str | Ty::Literals(_) => "String".into(),
        Ty::Int => "Long".into(),
        Ty::Num => "Double".into(),
        Ty::Bool => "Boolean".into(),
        Ty::Any | Ty::Object => "JsonNode".into(),
        Ty::Array(inner) => format!("List<{}>", ty(inner)),
        Ty::Map(inner) => format!("Map<String, {}>", ty(inner)),
        Ty::Named(name) => name.clone(),
    }
}
