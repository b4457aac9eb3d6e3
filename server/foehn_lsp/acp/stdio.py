"""Running the agent on stdio: newline-delimited JSON-RPC on stdin and stdout, logs on stderr.

The protocol owns file descriptors 0 and 1. Before anything else runs, both are moved to
private descriptors and 0 and 1 are pointed at /dev/null and stderr, so a plugin that prints or
a child process that reads its standard input cannot corrupt the conversation.

What goes out passes ``NewFileDiffs``: the SDK drops every ``None`` member when it serialises,
so the diff of a new file would go out without ``oldText``, and clients that draw a new file's
diff only when the member is there (as the spec's ``"oldText": null``) show the person nothing
of what they approve. Each such diff gets ``"oldText": null`` back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from typing import Any, cast

from acp import run_agent, stdio_streams
from acp.interfaces import Agent

from foehn_lsp.acp.agent import FoehnAgent

STDIO_LIMIT = 50 * 1024 * 1024
"""Longest line accepted from the client (a prompt with large embedded files)."""


async def serve(agent: FoehnAgent) -> None:
    """Talk to the client on stdio until it closes stdin (or sends SIGTERM); then end running
    turns (they are saved as cancelled) and return."""
    protocol_in = os.fdopen(os.dup(0), "rb", buffering=0)
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    stdin = sys.stdin
    sys.stdin, sys.stdout = protocol_in, protocol_out
    try:
        reader, plain = await stdio_streams(limit=STDIO_LIMIT)
    finally:
        sys.stdin, sys.stdout = stdin, sys.stderr
    loop = asyncio.get_running_loop()
    transport = NewFileDiffs(plain.transport)
    writer = asyncio.StreamWriter(transport, plain._protocol, None, loop)  # type: ignore[attr-defined]
    main = asyncio.current_task()
    assert main is not None
    # An editor that stops its agent with SIGTERM gets the same ending as one that closes stdin.
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main.cancel)
    try:
        # The SDK routes a method to the agent only if it has it (the rest are MethodNotFound),
        # so Foehn implements what it offers, not the whole protocol class.
        await run_agent(cast(Agent, agent), input_stream=writer, output_stream=reader)
    finally:
        await agent.shutdown()


DIFF = b'"type":"diff"'


def with_null_old_text(data: bytes) -> bytes:
    """``data`` (whole JSON lines) with ``"oldText": null`` in every diff that has no
    ``oldText`` (a new file's)."""
    if DIFF not in data:
        return data
    lines = []
    for line in data.split(b"\n"):
        if DIFF in line:
            try:
                message = json.loads(line)
            except ValueError:
                lines.append(line)
                continue
            _fill(message)
            line = json.dumps(message, separators=(",", ":")).encode("utf-8")
        lines.append(line)
    return b"\n".join(lines)


def _fill(value: Any) -> None:
    if isinstance(value, dict):
        if value.get("type") == "diff" and "newText" in value and "oldText" not in value:
            value["oldText"] = None
        for item in value.values():
            _fill(item)
    elif isinstance(value, list):
        for item in value:
            _fill(item)


class NewFileDiffs(asyncio.WriteTransport):
    """The protocol's output transport, every line through ``with_null_old_text``."""

    def __init__(self, inner: asyncio.WriteTransport) -> None:
        super().__init__()
        self._inner = inner

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._inner.write(with_null_old_text(bytes(data)))

    def is_closing(self) -> bool:
        return self._inner.is_closing()

    def close(self) -> None:
        self._inner.close()

    def abort(self) -> None:
        self._inner.abort()

    def can_write_eof(self) -> bool:
        return self._inner.can_write_eof()

    def write_eof(self) -> None:
        self._inner.write_eof()

    def get_write_buffer_size(self) -> int:
        return self._inner.get_write_buffer_size()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._inner.set_write_buffer_limits(high, low)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._inner.get_extra_info(name, default)


def main(*, permission_timeout: float) -> int:
    """``foehn acp``."""
    with contextlib.suppress(asyncio.CancelledError):
        asyncio.run(serve(FoehnAgent(permission_timeout=permission_timeout)))
    return 0
