//! The Rust reference implementation of the toolnexus contract (SPEC 0.16.0).
//!
//! It is an ordinary library: it knows nothing about the harness, the port protocol or
//! the scenarios. The harness reaches it only through the port protocol, answered by the
//! `toolnexus-driver` crate; the workspace's dependency test keeps it so.

pub mod a2a;
pub mod adapters;
pub mod builtins;
pub mod env_expand;
pub mod filter;
pub mod http_tool;
pub mod mcp;
pub mod native;
pub mod sanitize;
pub mod skills;
pub mod suspension;
pub mod tool;
pub mod toolkit;

mod percent;
mod process_group;

pub use tool::{Context, Source, Tool, ToolExec, ToolResult};
pub use toolkit::{Toolkit, ToolkitOptions};
