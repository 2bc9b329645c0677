"""Serves the published Python port's toolkit with the MCP profile (SPEC §7C), the way
benches/serve.rs serves the reference: the mock MCP server (BIN mock mcp --scenario SCENARIO)
plus one native tool `upper`, every other source off. Prints the base URL on one line, then
serves until its standard input closes.

Run with the Python port's venv (`cargo run -- setup python` makes it):
    target/ports/python-0.21.0/venv/bin/python tests/sdk/serve_python.py BIN SCENARIO
"""
import asyncio
import sys

from toolnexus import create_toolkit
from toolnexus.native import tool


@tool(name="upper", description="Upper-cases the text")
def upper(text: str) -> str:
    return text.upper()


async def main() -> None:
    bin_path, scenario = sys.argv[1], sys.argv[2]
    # An array command: the port mishandles a string command with `args` (DIVERGENCES.md).
    config = {"mcpServers": {"mock": {"command": [bin_path, "mock", "mcp", "--transport", "stdio", "--scenario",
                                                  scenario]}}}
    toolkit = await create_toolkit(mcp_config=config, extra_tools=[upper], builtins=False,
                                   disable_tools=["skill"])
    handle = await toolkit.serve("127.0.0.1:0", mcp={"name": "toolnexus-python"})
    print(handle.url, flush=True)
    # Serve until the parent closes our stdin.
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await handle.stop()
    await toolkit.close()


asyncio.run(main())
