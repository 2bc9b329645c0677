//! Why a serve profile was refused or `serve` could not start: one kind per refusal, with
//! what makes it specific. The `Display` text is what `serve` raises.

use std::fmt;
use std::path::PathBuf;

use serde_json::Value;

/// A §7B `a2a` or §7C `mcpServer` profile that cannot be read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ProfileError {
    /// The profile is not an object (`profile`: `a2a` or `mcp`).
    NotObject {
        /// Which profile.
        profile: &'static str,
        /// What was given.
        got: Value,
    },
    /// `a2a.provider` is not an object.
    ProviderNotObject {
        /// What was given.
        got: Value,
    },
    /// A name field is not a string.
    NotString {
        /// Which profile.
        profile: &'static str,
        /// The field.
        key: &'static str,
        /// What was given.
        got: Value,
    },
    /// A name list holds something that is not a string.
    EntryNotString {
        /// Which profile.
        profile: &'static str,
        /// The field.
        key: &'static str,
        /// The entry.
        got: Value,
    },
    /// A name list is not an array.
    NotNameArray {
        /// Which profile.
        profile: &'static str,
        /// The field.
        key: &'static str,
        /// What was given.
        got: Value,
    },
    /// A store selector string other than `memory` or `file:<dir>`.
    UnknownStore {
        /// The selector.
        selector: String,
    },
    /// A store selector that is not a string.
    StoreNotString {
        /// What was given.
        got: Value,
    },
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::NotObject { profile, got } => {
                write!(f, "{profile} profile must be an object, got {got}")
            }
            ProfileError::ProviderNotObject { got } => {
                write!(f, "a2a.provider must be an object, got {got}")
            }
            ProfileError::NotString { profile, key, got } => {
                write!(f, "{profile}.{key} must be a string, got {got}")
            }
            ProfileError::EntryNotString { profile, key, got } => {
                write!(f, "{profile}.{key} must hold strings, got {got}")
            }
            ProfileError::NotNameArray { profile, key, got } => {
                write!(f, "{profile}.{key} must be an array of names, got {got}")
            }
            ProfileError::UnknownStore { selector } => write!(
                f,
                "unknown A2A store \"{selector}\" (expected \"memory\" or \"file:<dir>\")"
            ),
            ProfileError::StoreNotString { got } => write!(
                f,
                "A2A store must be \"memory\" or \"file:<dir>\", got {got}"
            ),
        }
    }
}

impl std::error::Error for ProfileError {}

/// The file task store's directory could not be created.
#[derive(Debug)]
pub struct StoreDirError {
    /// The directory.
    pub dir: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

impl fmt::Display for StoreDirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot create task store dir {}: {}",
            self.dir.display(),
            self.source
        )
    }
}

impl std::error::Error for StoreDirError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Why `serve` could not start.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The config file's `a2a` or `mcpServer` block cannot be read.
    ConfigFile(ProfileError),
    /// The A2A task store cannot be opened.
    Store(StoreDirError),
    /// The address cannot be listened on.
    Listen {
        /// The address asked for.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// The bound address cannot be read back.
    BoundAddress(std::io::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::ConfigFile(e) => write!(f, "config file: {e}"),
            ServeError::Store(e) => e.fmt(f),
            ServeError::Listen { addr, source } => write!(f, "cannot listen on {addr}: {source}"),
            ServeError::BoundAddress(e) => write!(f, "cannot read the bound address: {e}"),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServeError::ConfigFile(e) => Some(e),
            ServeError::Store(e) => Some(e),
            ServeError::Listen { source, .. } => Some(source),
            ServeError::BoundAddress(e) => Some(e),
        }
    }
}
