//! The Rust reference implementation of the toolnexus contract (SPEC 0.16.0).
//!
//! It is an ordinary library: it knows nothing about the harness, the port protocol or
//! the scenarios. The harness reaches it only through the port protocol, answered by the
//! `toolnexus-driver` crate; the workspace's dependency test keeps it so.
//!
//! Build a toolkit with one native tool (builtins and the skill tool off) and execute it; an unknown name is an
//! error result, never a panic (SPEC §4):
//!
//! ```
//! use serde_json::json;
//! use toolnexus_reference::native::{define_tool, NativeReturn};
//! use toolnexus_reference::{Context, Toolkit, ToolkitOptions};
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let greet = define_tool(
//!     "greet",
//!     "Greets someone.",
//!     json!({"type": "object", "properties": {"who": {"type": "string"}}}),
//!     |args, _ctx| async move {
//!         let who = args["who"].as_str().unwrap_or("world").to_string();
//!         Ok(NativeReturn::Text(format!("hello, {who}")))
//!     },
//! );
//! let mut toolkit = Toolkit::build(ToolkitOptions {
//!     builtins: Some(json!(false)),
//!     extra_tools: vec![greet],
//!     disable_tools: vec!["skill".to_string()],
//!     ..ToolkitOptions::default()
//! })
//! .await;
//! let names: Vec<&str> = toolkit.tools().iter().map(|t| t.name.as_str()).collect();
//! assert_eq!(names, ["greet"]);
//!
//! let ctx = Context::default();
//! let result = toolkit.execute("greet", json!({"who": "port"}), &ctx).await;
//! assert_eq!((result.output.as_str(), result.is_error), ("hello, port", false));
//!
//! let unknown = toolkit.execute("nope", json!({}), &ctx).await;
//! assert_eq!((unknown.output.as_str(), unknown.is_error), ("Unknown tool: nope", true));
//! toolkit.close().await;
//! # });
//! ```

#![warn(missing_docs)]

pub mod a2a;
pub mod adapters;
pub mod agent;
pub mod builtins;
pub mod classifier;
pub mod client;
pub mod compact;
pub mod content;
pub mod env_expand;
pub mod filter;
pub mod http_client;
pub mod http_tool;
pub mod mcp;
pub mod native;
pub mod relay;
pub mod sanitize;
pub mod serve;
pub mod skills;
pub mod suspension;
pub mod tool;
pub mod toolkit;

mod percent;

pub use tool::{Context, Source, Tool, ToolExec, ToolResult};
pub use toolkit::{Toolkit, ToolkitOptions};
