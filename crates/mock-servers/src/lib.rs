//! Mock servers any port's tests can start: MCP (stdio and streamable HTTP) and an A2A agent
//! (JSON-RPC over HTTP), driven by JSON scenario files in `mock-servers/scenarios/`.

#![warn(missing_docs)]

pub mod a2a;
pub mod loopback;
pub mod mcp;
