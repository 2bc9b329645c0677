//! Why an MCP config, or one server entry of it, was refused: one kind per refusal with what
//! makes it specific. The `Display` text is the `<config>` / per-server error entry.

use std::fmt;

use super::config::{MAX_CONFIG_BYTES, MAX_TIMEOUT_MS};

/// The whole config could not be read (it lands under `<config>`).
#[derive(Debug)]
#[non_exhaustive]
pub enum ConfigError {
    /// The input is not an object, a JSON string or a path.
    WrongInput {
        /// What it was (`a number`, ...).
        got: &'static str,
    },
    /// The `mcpServers` / `servers` / `mcp` wrapper is not an object.
    ServerMapNotObject {
        /// What it was.
        got: &'static str,
    },
    /// The text parsed, but not to an object.
    NotJsonObject {
        /// What it was.
        got: &'static str,
    },
    /// The text is not JSON.
    InvalidJson(serde_json::Error),
    /// The config file could not be read.
    CannotRead(std::io::Error),
    /// The path names a FIFO, a device or a directory.
    NotRegularFile,
    /// The config file is larger than the 4 MiB read.
    TooLarge,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::WrongInput { got } => write!(
                f,
                "mcp config must be an object, a JSON string or a path, got {got}"
            ),
            ConfigError::ServerMapNotObject { got } => {
                write!(f, "mcp config server map must be an object, got {got}")
            }
            ConfigError::NotJsonObject { got } => {
                write!(f, "mcp config must be a JSON object, got {got}")
            }
            ConfigError::InvalidJson(e) => write!(f, "mcp config is not valid JSON: {e}"),
            ConfigError::CannotRead(e) => write!(f, "cannot read mcp config file: {e}"),
            ConfigError::NotRegularFile => f.write_str("mcp config path is not a regular file"),
            ConfigError::TooLarge => {
                write!(f, "mcp config file is larger than {MAX_CONFIG_BYTES} bytes")
            }
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::InvalidJson(e) => Some(e),
            ConfigError::CannotRead(e) => Some(e),
            _ => None,
        }
    }
}

/// One server entry cannot be launched or filtered (its own error entry; the others load).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryError {
    /// The entry is not an object.
    NotObject {
        /// What it was.
        got: &'static str,
    },
    /// `timeout` is not a whole number of milliseconds in range.
    Timeout {
        /// The number as written, or the kind of value.
        got: String,
    },
    /// A remote entry without a string `url`.
    MissingUrl,
    /// `cwd` is not a string.
    CwdNotString {
        /// What it was.
        got: &'static str,
    },
    /// `type` is neither `local` nor `remote`.
    UnknownType {
        /// The type given.
        kind: String,
    },
    /// Neither `command` nor `url`.
    NoCommandOrUrl,
    /// A `command` array entry is not a string.
    CommandEntryNotString,
    /// `command` is neither a non-empty string nor a non-empty array.
    CommandEmpty,
    /// `command`'s program is the empty string.
    EmptyProgram,
    /// An `args` entry is not a string.
    ArgsEntryNotString,
    /// `args` is not an array.
    ArgsNotArray {
        /// What it was.
        got: &'static str,
    },
    /// A `headers` / `env` / `environment` value is not a string.
    PairValueNotString {
        /// The field.
        what: String,
        /// The key.
        key: String,
        /// What its value was.
        got: &'static str,
    },
    /// `headers` / `env` / `environment` is not an object.
    PairsNotObject {
        /// The field.
        what: String,
        /// What it was.
        got: &'static str,
    },
    /// A `tools` value is not a boolean.
    ToolsValueNotBool {
        /// The tool name.
        name: String,
    },
    /// `tools` is not an object.
    ToolsNotObject {
        /// What it was.
        got: &'static str,
    },
}

impl fmt::Display for EntryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntryError::NotObject { got } => {
                write!(f, "server entry must be an object, got {got}")
            }
            EntryError::Timeout { got } => write!(
                f,
                "\"timeout\" must be a whole number of milliseconds from 1 to {MAX_TIMEOUT_MS}, got {got}"
            ),
            EntryError::MissingUrl => f.write_str("a remote server needs a string \"url\""),
            EntryError::CwdNotString { got } => write!(f, "\"cwd\" must be a string, got {got}"),
            EntryError::UnknownType { kind } => write!(
                f,
                "unknown server type \"{kind}\" (expected \"local\" or \"remote\")"
            ),
            EntryError::NoCommandOrUrl => {
                f.write_str("a server needs a \"command\" (local) or a \"url\" (remote)")
            }
            EntryError::CommandEntryNotString => f.write_str("\"command\" entries must be strings"),
            EntryError::CommandEmpty => {
                f.write_str("\"command\" must be a non-empty array of strings")
            }
            EntryError::EmptyProgram => f.write_str("\"command\" names an empty program"),
            EntryError::ArgsEntryNotString => f.write_str("\"args\" entries must be strings"),
            EntryError::ArgsNotArray { got } => write!(f, "\"args\" must be an array, got {got}"),
            EntryError::PairValueNotString { what, key, got } => {
                write!(f, "\"{what}\" values must be strings (\"{key}\" is {got})")
            }
            EntryError::PairsNotObject { what, got } => {
                write!(f, "\"{what}\" must be an object, got {got}")
            }
            EntryError::ToolsValueNotBool { name } => {
                write!(f, "\"tools\" values must be booleans (\"{name}\")")
            }
            EntryError::ToolsNotObject { got } => write!(
                f,
                "\"tools\" must be an object of name → boolean, got {got}"
            ),
        }
    }
}

impl std::error::Error for EntryError {}
