"""The stdio transport: frames in (``lsp/framing.py``), JSON decoded, messages handed to the
protocol; -32700 for a frame that is not JSON, -32600 for a frame whose length was wrong.

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
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, BinaryIO

from pygls.exceptions import JsonRpcInvalidRequest, JsonRpcParseError

from foehn_lsp.lsp.framing import Frame, Framer, Unrecoverable
from foehn_lsp.lsp.protocol import FoehnProtocol
from foehn_lsp.lsp.writer import ThreadedWriter

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
        chunks: asyncio.Queue[bytes] = asyncio.Queue()

        def read() -> None:
            # A daemon thread: a blocked read must not hold up the process's exit.
            while True:
                try:
                    data = os.read(fd, CHUNK)
                except OSError:
                    data = b""
                loop.call_soon_threadsafe(chunks.put_nowait, data)
                if not data:
                    return

        threading.Thread(target=read, name="foehn-stdin", daemon=True).start()
        return await _serve(protocol, chunks.get, stall)

    try:
        return asyncio.run(main())
    finally:
        writer.close()


def serve_tcp(protocol: FoehnProtocol, host: str, port: int, stall: float = STALL_SECONDS) -> int:
    """Serve one client on ``host:port`` (for debugging), the same way as over stdio."""

    async def main() -> int:
        loop = asyncio.get_running_loop()
        status: asyncio.Future[int] = loop.create_future()

        async def connection(reader: asyncio.StreamReader, stream: asyncio.StreamWriter) -> None:
            writer = ThreadedWriter(
                lambda data: loop.call_soon_threadsafe(stream.write, data),
                lambda: loop.call_soon_threadsafe(stream.close),
            )
            protocol.set_writer(writer)
            try:
                code = await _serve(protocol, lambda: reader.read(CHUNK), stall)
            finally:
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


async def _serve(
    protocol: FoehnProtocol, read: Callable[[], Awaitable[bytes]], stall: float
) -> int:
    framer = Framer()
    while True:
        try:
            data = await asyncio.wait_for(read(), stall if framer.in_body else None)
        except TimeoutError:
            frames = framer.stalled()
        else:
            if not data:
                log.info("the client closed the input stream without exit")
                return 0 if protocol.shutdown_received else 1
            try:
                frames = framer.feed(data)
            except Unrecoverable as exc:
                log.error("the input stream cannot be recovered: %s; exiting", exc)
                return 1
        for frame in frames:
            try:
                _dispatch(protocol, frame)
            except SystemExit as exc:  # pygls's exit handler ends the process this way
                return exc.code if isinstance(exc.code, int) else 1
        if framer.skipped:
            log.warning("skipped %d bytes that were not part of any frame", framer.skipped)
            framer.skipped = 0


def _dispatch(protocol: FoehnProtocol, frame: Frame) -> None:
    try:
        data: Any = json.loads(frame.body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        log.warning("a frame that is not JSON (%s): %s", frame.problem or "length ok", exc)
        protocol.reply_error(None, JsonRpcParseError(f"Parse error: {exc}"))
        return
    if frame.problem is not None:
        request_id = data.get("id") if isinstance(data, dict) and "method" in data else None
        log.warning("a bad frame: %s", frame.problem)
        protocol.reply_error(
            request_id if isinstance(request_id, str | int) else None,
            JsonRpcInvalidRequest(f"Invalid Request: bad frame ({frame.problem})"),
        )
        return
    protocol.receive(data)
