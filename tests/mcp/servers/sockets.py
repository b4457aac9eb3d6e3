"""A real MCP server (the official SDK's low-level Server, over stdio) that tries the network
its own way: at start it connects straight to an address and to a name, and sends a datagram,
writing what happened to ``STATE/attempts``; its tools fetch a URL the ordinary way (the proxy
variables, as any HTTP library reads them) and connect straight to a host and port.

    python sockets.py STATE_DIR TARGET_PORT GRANTED_NAME SITE_PORT UDP_PORT
"""

from __future__ import annotations

import contextlib
import socket
import sys
import urllib.request
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

STATE = Path(sys.argv[1])
TARGET, NAME, SITE, UDP = int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
URL = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}


def _try(what: str, attempt: object) -> str:
    try:
        assert callable(attempt)
        attempt()
    except OSError as exc:
        return f"{what}: {type(exc).__name__}"
    return f"{what}: went through"


def _connect(host: str, port: int) -> None:
    with socket.create_connection((host, port), 3) as connection:
        connection.sendall(b"CANARY from the server")


def _datagram() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.sendto(b"CANARY", ("127.0.0.1", UDP))


async def list_tools(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="get",
                description="GET a URL.",
                input_schema=URL,
                annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
            )
        ]
    )


async def call_tool(
    ctx: ServerRequestContext, params: types.CallToolRequestParams
) -> types.CallToolResult:
    text = await anyio.to_thread.run_sync(_get, str((params.arguments or {})["url"]))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return str(answer.read().decode("utf-8", "replace"))
    except OSError as exc:
        return f"failed: {exc}"


async def main() -> None:
    attempts = [
        _try("direct to 127.0.0.1", lambda: _connect("127.0.0.1", TARGET)),
        _try("direct to the granted name", lambda: _connect(NAME, SITE)),
        _try("a datagram", _datagram),
    ]
    with contextlib.suppress(OSError):  # a read-only sandbox: nowhere to write
        (STATE / "attempts").write_text("\n".join(attempts) + "\n")
    server = Server("sockets", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
