//! Identifier spelling per language: Pascal case for type names, Go's initialisms, and the
//! reserved words a field name must step around.

/// `agent_store_get` ⇒ `AgentStoreGet`; `baseUrl` ⇒ `BaseUrl`.
pub fn pascal(name: &str) -> String {
    name.split(['_', '-'])
        .filter(|w| !w.is_empty())
        .map(capitalise)
        .collect()
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Words Go spells in capitals (Effective Go's initialisms), as they occur in protocol names.
const GO_INITIALISMS: [&str; 7] = ["Id", "Url", "Http", "Json", "Api", "Mcp", "Llm"];

/// A Go exported field name: `baseUrl` ⇒ `BaseURL`, `id` ⇒ `ID`, `apiKeyEnv` ⇒ `APIKeyEnv`.
pub fn go_field(json: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    for c in json.chars() {
        if c == '_' || c == '-' {
            words.push(String::new());
        } else if c.is_uppercase() || words.is_empty() {
            words.push(c.to_string());
        } else if let Some(last) = words.last_mut() {
            last.push(c);
        }
    }
    words
        .iter()
        .filter(|w| !w.is_empty())
        .map(|w| {
            let word = capitalise(w);
            if GO_INITIALISMS.contains(&word.as_str()) {
                word.to_uppercase()
            } else {
                word
            }
        })
        .collect()
}

/// Java's reserved words (keywords and literals), which a record component may not be named.
const JAVA_RESERVED: [&str; 53] = [
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
    "true",
    "false",
    "null",
];

/// A Java record component for a JSON key: the key itself, or the key with `_` appended when it
/// is reserved (the JSON name stays in `@JsonProperty`).
pub fn java_component(json: &str) -> String {
    let cleaned: String = json
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    if JAVA_RESERVED.contains(&cleaned.as_str()) {
        format!("{cleaned}_")
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_each_language() {
        assert_eq!(pascal("agent_store_get"), "AgentStoreGet");
        assert_eq!(go_field("baseUrl"), "BaseURL");
        assert_eq!(go_field("id"), "ID");
        assert_eq!(go_field("apiKeyEnv"), "APIKeyEnv");
        assert_eq!(go_field("mcpConfig"), "MCPConfig");
        assert_eq!(go_field("isError"), "IsError");
        assert_eq!(java_component("default"), "default_");
        assert_eq!(java_component("from"), "from");
    }
}
