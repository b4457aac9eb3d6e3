"""The stdio transport: frames in (``lsp/wire/framing.py``), JSON decoded, messages handed to the
protocol; -32700 for a frame that is not JSON, -32600 for a frame whose length was wrong. A
frame that is not JSON but names one of Foehn's pending requests fails that request at once.

Replaces pygls's ``start_io`` loop, which cannot recover from a bad frame. The exit status
follows the LSP: 0 after ``shutdown`` then ``exit``, 1 for ``exit`` alone, for the client
closing the stream without ``exit``, or for a stream that cannot be recovered (logged first), so
that the client restarts the server instead of talking to a deaf one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import select
import sys
import threading
from typing import Any, BinaryIO

from pygls.exceptions import JsonRpcInvalidRequest, JsonRpcParseError

from foehn_lsp.lsp.wire.framing import Frame, Framer, Unrecoverable
from foehn_lsp.lsp.wire.protocol import FoehnProtocol
from foehn_lsp.lsp.wire.writer import ThreadedWriter

log = logging.getLogger(__name__)

CHUNK = 64 * 1024
STALL_SECONDS = 2.0
"""A body still incomplete after this long without new bytes had a wrong (too large) length."""


def serve_stdio(
    protocol: FoehnProtocol,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    stall: float = STALL_SECONDS,
) -> int:
    """Serve until ``exit`` or the end of input; returns the process exit status."""
    fd = (stdin or sys.stdin.buffer).fileno()
    output = stdout or sys.stdout.buffer

    def send(data: bytes) -> None:
        output.write(data)
        output.flush()

    writer = ThreadedWriter(send, output.close)
    protocol.set_writer(writer)

    async def main() -> int:
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue[Any] = asyncio.Queue()
        reader = Reader(protocol)

        def read() -> None:
            # Frames are read, decoded and (when cheap) answered on this thread, so that a busy
            # event loop delays none of it. A daemon thread: a blocked read must not hold up
            # the process's exit.
            while True:
                if not _readable(fd, stall if reader.in_body else None):
                    messages = reader.stalled()
                else:
                    try:
                        data = os.read(fd, CHUNK)
                    except OSError:
                        data = b""
                    if not data:
                        loop.call_soon_threadsafe(inbox.put_nowait, END)
                        return
                    try:
                        messages = reader.feed(data)
                    except Unrecoverable as exc:
                        loop.call_soon_threadsafe(inbox.put_nowait, exc)
                        return
                for message in messages:
                    loop.call_soon_threadsafe(inbox.put_nowait, message)

        threading.Thread(target=read, name="foehn-stdin", daemon=True).start()
        return await _handle(protocol, inbox)

    try:
        return asyncio.run(main())
    finally:
        writer.close()


def _readable(fd: int, within: float | None) -> bool:
    """Whether ``fd`` has input within ``within`` seconds (None: wait as long as it takes).
    Where ``select`` cannot wait on a pipe (Windows), reads block and stalls go unnoticed."""
    try:
        return bool(select.select([fd], [], [], within)[0])
    except (OSError, ValueError):
        return True


def serve_tcp(protocol: FoehnProtocol, host: str, port: int, stall: float = STALL_SECONDS) -> int:
    """Serve one client on ``host:port`` (for debugging), the same way as over stdio."""

    async def main() -> int:
        loop = asyncio.get_running_loop()
        status: asyncio.Future[int] = loop.create_future()

        async def connection(stream_in: asyncio.StreamReader, stream: asyncio.StreamWriter) -> None:
            writer = ThreadedWriter(
                lambda data: loop.call_soon_threadsafe(stream.write, data),
                lambda: loop.call_soon_threadsafe(stream.close),
            )
            protocol.set_writer(writer)
            inbox: asyncio.Queue[Any] = asyncio.Queue()
            pump = asyncio.ensure_future(_pump(Reader(protocol), stream_in, inbox, stall))
            try:
                code = await _handle(protocol, inbox)
            finally:
                pump.cancel()
                writer.close()
            if not status.done():
                status.set_result(code)

        server = await asyncio.start_server(connection, host, port)
        log.info("serving on %s:%d", host, port)
        async with server:
            code = await status
        await asyncio.sleep(0)  # let the last writes reach the socket
        return code

    return asyncio.run(main())


async def _pump(
    reader: Reader, stream: asyncio.StreamReader, inbox: asyncio.Queue[Any], stall: float
) -> None:
    while True:
        try:
            data = await asyncio.wait_for(stream.read(CHUNK), stall if reader.in_body else None)
        except TimeoutError:
            messages = reader.stalled()
        else:
            if not data:
                inbox.put_nowait(END)
                return
            try:
                messages = reader.feed(data)
            except Unrecoverable as exc:
                inbox.put_nowait(exc)
                return
        for message in messages:
            inbox.put_nowait(message)


async def _handle(protocol: FoehnProtocol, inbox: asyncio.Queue[Any]) -> int:
    """Hand the decoded messages to the protocol, in order, until the stream ends."""
    while True:
        message = await inbox.get()
        if message is END:
            log.info("the client closed the input stream without exit")
            return 0 if protocol.shutdown_received else 1
        if isinstance(message, Unrecoverable):
            log.error("the input stream cannot be recovered: %s; exiting", message)
            return 1
        try:
            protocol.receive(message)
        except SystemExit as exc:  # pygls's exit handler ends the process this way
            return exc.code if isinstance(exc.code, int) else 1


class Reader:
    """Bytes to messages: frames, JSON, the answers to bad frames, and the answers to requests
    that need nothing but their parameters (``FoehnProtocol.answer_now``). What is left goes to
    the event loop."""

    def __init__(self, protocol: FoehnProtocol) -> None:
        self.protocol = protocol
        self.framer = Framer()

    @property
    def in_body(self) -> bool:
        return self.framer.in_body

    def feed(self, data: bytes) -> list[Any]:
        return self._messages(self.framer.feed(data))

    def stalled(self) -> list[Any]:
        return self._messages(self.framer.stalled())

    def _messages(self, frames: list[Frame]) -> list[Any]:
        messages = []
        for frame in frames:
            decoded = self._decode(frame)
            # A tuple is several answers made of one garbled frame; a JSON array (a batch,
            # which LSP has not) is one message, refused as such.
            for message in decoded if isinstance(decoded, tuple) else [decoded]:
                if message is not SKIP and not self.protocol.answer_now(message):
                    messages.append(message)
        if self.framer.skipped:
            log.warning("skipped %d bytes that were not part of any frame", self.framer.skipped)
            self.framer.skipped = 0
        return messages

    def _decode(self, frame: Frame) -> Any:
        protocol = self.protocol
        try:
            data: Any = json.loads(frame.body)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            log.warning("a frame that is not JSON (%s): %s", frame.problem or "length ok", exc)
            protocol.reply_error(None, JsonRpcParseError(f"Parse error: {exc}"))
            return _failed_answers(frame.body, exc, protocol.confirming())
        if frame.problem is not None:
            request_id = data.get("id") if isinstance(data, dict) and "method" in data else None
            log.warning("a bad frame: %s", frame.problem)
            protocol.reply_error(
                request_id if isinstance(request_id, str | int) else None,
                JsonRpcInvalidRequest(f"Invalid Request: bad frame ({frame.problem})"),
            )
            return SKIP
        return data


END = object()
"""The client closed the stream."""
SKIP = object()
"""A frame that was answered (or dropped) where it was read."""


OUR_ID = re.compile(rb'"id"\s*:\s*"(foehn-[0-9]+)"')
"""The id of one of Foehn's own requests (``lsp.wire.client``) in a body that is not JSON."""


def _failed_answers(body: bytes, exc: ValueError, confirming: list[str]) -> Any:
    """A body that is not JSON but names one of Foehn's pending requests is that request's
    answer, garbled: it becomes an error answer to it, so whoever waits (a confirmation, an
    edit) goes on at once with a recorded failure instead of waiting out its timeout. One that
    names no request (and is no request itself) while confirmations wait is taken as their
    answer: each becomes a recorded denial, never a wait for the person's timeout."""
    if b'"method"' in body:
        return SKIP
    named = OUR_ID.search(body)
    ids = [named[1].decode()] if named is not None else confirming
    return (
        tuple(
            {
                "jsonrpc": "2.0",
                "id": msg_id,
                "error": {"code": -32700, "message": f"its answer was not JSON ({exc})"},
            }
            for msg_id in ids
        )
        or SKIP
    )
