"""The stdio transport to an MCP server, reading what it sends with a cap on each message.

The SDK's own stdio client joins every chunk of a line to all that came before it, so one
50 MB result costs time quadratic in its size and all of it in memory. Here each line is read
once, in order, and a message larger than ``max_message_bytes`` is not kept: its start and end
are kept, the rest is counted and dropped as it arrives, and the session receives, in its place,
the answer ``cut.answer_for_cut`` makes of it (how many bytes were sent, how many read). A
server that sends more than ``HARD_LIMIT`` bytes without ending the line loses its connection
(it is restarted like one that crashed).

Requests, responses and notifications otherwise pass through unchanged. The server runs in a
session of its own; closing the transport closes its stdin, then terminates its process group
if it has not exited within ``EXIT_GRACE`` seconds, and kills it after as long again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

import anyio
import anyio.abc
import mcp_types as types
from mcp import StdioServerParameters
from mcp.shared.message import SessionMessage

from foehn_lsp.mcp.cut import KEPT_BYTES, MAX_MESSAGE_BYTES, CutMessage, answer_for_cut

log = logging.getLogger(__name__)

HARD_LIMIT = 512 * 1024 * 1024
"""A line longer than this ends the connection: no result is that large."""
EXIT_GRACE = 2.0


@dataclass
class LineReader:
    """Splits a byte stream into lines in linear time, cutting lines over ``limit``."""

    limit: int
    _buffer: bytearray = field(default_factory=bytearray)
    _cut: bytearray | None = None
    _tail: bytearray = field(default_factory=bytearray)
    _size: int = 0

    def feed(self, chunk: bytes) -> Iterator[bytes | CutMessage]:
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            self._take(piece)
            if end < 0:
                return
            yield self._finish()
            start = end + 1

    def _take(self, piece: bytes) -> None:
        if self._cut is None and len(self._buffer) + len(piece) <= self.limit:
            self._buffer += piece
            return
        if self._cut is None:
            self._cut = self._buffer[:KEPT_BYTES]
            self._size = len(self._buffer)
            self._tail = self._buffer[-KEPT_BYTES:]
            self._buffer = bytearray()
        self._size += len(piece)
        self._tail = (self._tail + piece[-KEPT_BYTES:])[-KEPT_BYTES:]
        if self._size > HARD_LIMIT:
            raise OverflowError(f"the server sent more than {HARD_LIMIT:,} bytes in one message")

    def _finish(self) -> bytes | CutMessage:
        if self._cut is None:
            line = bytes(self._buffer)
            self._buffer.clear()
            return line
        cut = CutMessage(head=bytes(self._cut), tail=bytes(self._tail), size=self._size)
        self._cut, self._tail, self._size = None, bytearray(), 0
        return cut


@asynccontextmanager
async def stdio_transport(
    params: StdioServerParameters, errlog: TextIO, *, max_message_bytes: int = MAX_MESSAGE_BYTES
) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's transport streams (read, write) to the program ``params`` names."""
    process = await anyio.open_process(
        [params.command, *params.args],
        env=params.env,
        cwd=params.cwd,
        stderr=errlog,
        start_new_session=True,
    )
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    pending: list[types.RequestId] = []

    async def read() -> None:
        assert process.stdout is not None
        lines = LineReader(limit=max_message_bytes)
        async with read_writer:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError):
                try:
                    async for chunk in process.stdout:
                        for line in lines.feed(chunk):
                            await read_writer.send(_message(line, pending, max_message_bytes))
                except OverflowError as exc:
                    log.warning("MCP server %s: %s; closing the connection", params.command, exc)

    async def write() -> None:
        assert process.stdin is not None
        async with write_reader:
            async for outgoing in write_reader:
                if isinstance(outgoing.message, types.JSONRPCRequest):
                    pending.append(outgoing.message.id)
                data = outgoing.message.model_dump_json(by_alias=True, exclude_unset=True)
                try:
                    await process.stdin.send(data.encode() + b"\n")
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                    await read_writer.aclose()
                    return

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read)
            group.start_soon(write)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    await _stop(process)
                group.cancel_scope.cancel()
    finally:
        with contextlib.suppress(Exception):
            await process.aclose()


def _message(
    line: bytes | CutMessage, pending: list[types.RequestId], limit: int
) -> SessionMessage | Exception:
    if isinstance(line, CutMessage):
        message = answer_for_cut(line, pending, limit)
    else:
        try:
            message = SessionMessage(types.jsonrpc_message_adapter.validate_json(line))
        except ValueError as exc:
            return exc
    if isinstance(message, SessionMessage) and isinstance(
        message.message, types.JSONRPCResponse | types.JSONRPCError
    ):
        with contextlib.suppress(ValueError):
            pending.remove(message.message.id)  # type: ignore[arg-type]
    return message


async def _stop(process: anyio.abc.Process) -> None:
    """Close stdin, then terminate and at last kill the server's process group."""
    if process.stdin is not None:
        with contextlib.suppress(Exception):
            await process.stdin.aclose()
    for sent in (None, signal.SIGTERM, signal.SIGKILL):
        if sent is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sent)
        with anyio.move_on_after(EXIT_GRACE):
            await process.wait()
        if process.returncode is not None:
            return
    log.warning("MCP server process %d did not exit", process.pid)
