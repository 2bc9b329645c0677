//! Mock servers any port's tests can start: MCP (stdio and streamable HTTP), an A2A agent
//! (JSON-RPC over HTTP) and an LLM (OpenAI and Anthropic wires over HTTP), driven by JSON
//! scenario files in `mock-servers/scenarios/`.

#![warn(missing_docs)]

pub mod a2a;
pub mod llm;
pub mod loopback;
pub mod mcp;
