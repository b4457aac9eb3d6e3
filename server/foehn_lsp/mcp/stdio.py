"""The stdio transport to an MCP server, reading what it sends with a cap on each message.

The SDK's own stdio client joins every chunk of a line to all that came before it, so one
50 MB result costs time quadratic in its size and all of it in memory. Here each line is read
once, in order, and a message larger than ``max_message_bytes`` is not kept: its first part is
kept (to show the model the beginning, and to find the request it answers), the rest is counted
and dropped as it arrives, and the session receives, in its place, an answer to that request
that says truthfully what was cut (``CUT_META`` in the result's ``_meta``: how many bytes were
sent, how many were read). A server that sends more than ``HARD_LIMIT`` bytes without ending
the line loses its connection (it is restarted like one that crashed).

Requests, responses and notifications otherwise pass through unchanged. The server runs in a
session of its own; closing the transport closes its stdin, then terminates its process group
if it has not exited within ``EXIT_GRACE`` seconds, and kills it after as long again.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
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

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 8 * 1024 * 1024
"""The most Foehn reads of one message from a server (a result, a tool list)."""
HARD_LIMIT = 512 * 1024 * 1024
"""A line longer than this ends the connection: no result is that large."""
KEPT_BYTES = 64 * 1024
"""How much of the start of a cut message is kept (the beginning shown, the id found)."""
EXIT_GRACE = 2.0
CUT_META = "foehn/cut"
"""``_meta`` key of an answer Foehn made for a cut message: ``{"sent", "read"}`` in bytes."""

_HEAD_ID = re.compile(rb'^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"[^"\\]*")')
_TAIL_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"[^"\\]*")\s*\}\s*$')
_TEXT = re.compile(rb'"text"\s*:\s*"')


@dataclass(frozen=True, kw_only=True)
class CutLine:
    """A line longer than the cap: its beginning, its end, and its size."""

    head: bytes
    tail: bytes
    size: int


@dataclass
class LineReader:
    """Splits a byte stream into lines in linear time, cutting lines over ``limit``."""

    limit: int
    _buffer: bytearray = field(default_factory=bytearray)
    _cut: bytearray | None = None
    _tail: bytearray = field(default_factory=bytearray)
    _size: int = 0

    def feed(self, chunk: bytes) -> Iterator[bytes | CutLine]:
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

    def _finish(self) -> bytes | CutLine:
        if self._cut is None:
            line = bytes(self._buffer)
            self._buffer.clear()
            return line
        cut = CutLine(head=bytes(self._cut), tail=bytes(self._tail), size=self._size)
        self._cut, self._tail, self._size = None, bytearray(), 0
        return cut


def answer_for_cut(
    cut: CutLine, pending: list[types.RequestId], limit: int
) -> SessionMessage | Exception:
    """In place of a cut message: an answer to the request it answers (found at its start or
    its end, or the one request waiting), saying what was cut; an error when that is unknown."""
    request = _request_id(cut, pending)
    if request is None:
        return ValueError(
            f"the server sent a message of {cut.size:,} bytes, over Foehn's limit of "
            f"{limit:,}, that answers no request Foehn could find"
        )
    beginning = _text_beginning(cut.head)
    said = (
        f"[Foehn stopped reading this result at {limit:,} bytes: the server sent {cut.size:,} "
        f"bytes in all, more than Foehn reads from one MCP result, and the rest was not read."
    )
    said += (
        f" The start of its text follows.]\n{beginning}"
        if beginning
        else " Nothing of it is shown.]"
    )
    result = {
        "content": [{"type": "text", "text": said}],
        "isError": True,
        "_meta": {CUT_META: {"sent": cut.size, "read": limit}},
    }
    response = types.JSONRPCResponse(jsonrpc="2.0", id=request, result=result)
    return SessionMessage(response)


def _request_id(cut: CutLine, pending: list[types.RequestId]) -> types.RequestId | None:
    for pattern, text in ((_HEAD_ID, cut.head), (_TAIL_ID, cut.tail)):
        if match := pattern.search(text):
            found: types.RequestId = json.loads(match[1])
            if found in pending:
                return found
    return pending[0] if len(pending) == 1 else None


def _text_beginning(head: bytes) -> str:
    """The start of the first text content in the kept bytes, decoded as far as it is whole."""
    match = _TEXT.search(head)
    if match is None:
        return ""
    raw = head[match.end() :].decode("utf-8", "ignore")
    closing = re.search(r'(?<!\\)(?:\\\\)*"', raw)
    if closing is not None:
        raw = raw[: closing.end() - 1]
    raw = re.sub(r"\\(u[0-9a-fA-F]{0,3})?$", "", raw)  # an escape cut in half
    try:
        text: str = json.loads(f'"{raw}"')
    except json.JSONDecodeError:
        return ""
    return text


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
    line: bytes | CutLine, pending: list[types.RequestId], limit: int
) -> SessionMessage | Exception:
    if isinstance(line, CutLine):
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
