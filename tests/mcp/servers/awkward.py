"""A real MCP server (the official SDK's low-level Server, over stdio) with the awkward cases
the published servers do not have: an unannotated tool, a tool whose schema is not a schema,
a tool that crashes the server mid-call, one that hangs, one that answers with invalid JSON,
one far over the output cap, one of fifty megabytes, one that sends a file's text twice (as
text and as structured content), one that records whether it was cancelled, and one that changes
the tool list.

    python awkward.py STATE_DIR            (stdio)
    python awkward.py STATE_DIR --http PORT (streamable HTTP on 127.0.0.1; the first tools/call
                                             of ``flaky`` is answered with HTTP 503)
    python awkward.py STATE_DIR --http PORT --json (the same, answering with JSON bodies, not
                                                    server-sent events)

STATE_DIR collects evidence for the tests: ``started`` (one line per start), ``cancelled``
(written when a call is cancelled by the client), ``calls`` (one line per tools/call).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

STATE = Path(sys.argv[1])
WIRE = os.dup(1)
"""The protocol pipe, kept before the SDK diverts fd 1 to stderr (which it does so that a stray
print cannot corrupt the protocol): the garbage tool needs to corrupt it on purpose."""
OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EMPTY = {"type": "object", "properties": {}}
extra_tools: list[types.Tool] = []


def _tools() -> list[types.Tool]:
    return [
        types.Tool(
            name="plain_echo", description="Echo text (no annotations).", input_schema=OBJECT
        ),
        types.Tool(
            name="read.echo",
            description="Echo text (read-only).",
            input_schema=OBJECT,
            annotations=types.ToolAnnotations(read_only_hint=True),
        ),
        types.Tool(
            name="bad_schema",
            description="Broken.",
            input_schema={"type": "object", "properties": {"x": {"type": "no-such-type"}}},
        ),
        types.Tool(name="crash", description="Exits mid-call.", input_schema=EMPTY),
        types.Tool(
            name="crash_once",
            description="Exits mid-call the first time only (read-only).",
            input_schema=EMPTY,
            annotations=types.ToolAnnotations(read_only_hint=True),
        ),
        types.Tool(name="hang", description="Never answers.", input_schema=EMPTY),
        types.Tool(name="garbage", description="Writes invalid JSON.", input_schema=EMPTY),
        types.Tool(name="huge", description="A megabyte of text.", input_schema=EMPTY),
        types.Tool(
            name="flood",
            description="Fifty megabytes of text (read-only).",
            input_schema=EMPTY,
            annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        ),
        types.Tool(
            name="file_like",
            description="A file's text as text and as structured content, as file servers do.",
            input_schema=EMPTY,
            annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        ),
        types.Tool(name="slow", description="Sleeps; notes cancellation.", input_schema=EMPTY),
        types.Tool(name="fail", description="Returns isError.", input_schema=EMPTY),
        types.Tool(name="grow", description="Adds a tool.", input_schema=EMPTY),
        types.Tool(
            name="flaky",
            description="Read-only; over HTTP its first call gets a 503.",
            input_schema=EMPTY,
            annotations=types.ToolAnnotations(read_only_hint=True),
        ),
        *extra_tools,
    ]


def _note(name: str, text: str) -> None:
    with open(STATE / name, "a", encoding="utf-8") as handle:
        handle.write(text + "\n")


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_tools())


def _text(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    name, arguments = params.name, params.arguments or {}
    _note("calls", name)
    if name in ("plain_echo", "read.echo", "added"):
        return _text(str(arguments.get("text", "")))
    if name == "crash" or (name == "crash_once" and not (STATE / "crashed").exists()):
        (STATE / "crashed").touch()
        os._exit(3)
    if name == "crash_once":
        return _text("survived")
    if name == "hang":
        await anyio.sleep_forever()
    if name == "garbage":
        os.write(WIRE, b"{this is not json\n")
        await anyio.sleep_forever()
    if name == "huge":
        return _text("x" * 1_000_000)
    if name == "flood":
        return _text("start of the flood " + "x" * 50_000_000)
    if name == "file_like":
        text = "line one\nline two\n"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content={"content": text},
        )
    if name == "slow":
        try:
            await anyio.sleep(60)
        except anyio.get_cancelled_exc_class():
            _note("cancelled", "slow")
            raise
        return _text("slept")
    if name == "fail":
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="the disk is on fire")], is_error=True
        )
    if name == "flaky":
        return _text("steady")
    if name == "grow":
        extra_tools.append(
            types.Tool(name="added", description="Added later.", input_schema=OBJECT)
        )
        await ctx.session.send_tool_list_changed()
        return _text("grown")
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"unknown tool {name}")], is_error=True
    )


async def main() -> None:
    _note("started", str(os.getpid()))
    server = Server("awkward", on_list_tools=list_tools, on_call_tool=call_tool)
    options = server.create_initialization_options(
        notification_options=NotificationOptions(tools_changed=True)
    )
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        app = _flaky_first(server.streamable_http_app(json_response="--json" in sys.argv))
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        await uvicorn.Server(config).serve()
        return
    async with stdio_server() as (read, write):
        await server.run(read, write, options)


def _flaky_first(app: Any) -> Any:
    """The first POST that calls ``flaky`` gets HTTP 503, as from an overloaded proxy."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        if b'"flaky"' in body and not (STATE / "flaked").exists():
            (STATE / "flaked").touch()
            _note("calls", "flaky (503)")
            headers = [(b"content-type", b"text/plain")]
            await send({"type": "http.response.start", "status": 503, "headers": headers})
            await send({"type": "http.response.body", "body": b"overloaded"})
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await app(scope, replay, send)

    return wrapped


if __name__ == "__main__":
    anyio.run(main)
