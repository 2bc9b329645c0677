//! Mock servers any port's tests can start: MCP (stdio and streamable HTTP) driven by JSON
//! scenario files in `mock-servers/scenarios/`.

pub mod mcp;
