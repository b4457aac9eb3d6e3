"""One call's proxy, outside the sandbox: the only way its programs reach the network.

It listens on a unix socket in a private folder. The bridge inside the sandbox (``bridge``)
connects to it once and hands over, one descriptor at a time, each TCP connection a program
makes to the proxy's address inside; any other program that connects to the socket and does the
same is served the same way (it has the same grant). Each connection carries one request:

- ``CONNECT host:port``: the grant and the name's addresses are checked (``grant``), the tunnel
  is opened, and the first bytes through it must be a TLS ClientHello whose server name is the
  name asked for (``tls``); only then is the server connected to and the hello passed on;
- ``GET http://host/path`` (any method, absolute form): checked the same way, sent in origin
  form with ``Host`` from the URL and ``Connection: close`` (``http``), its body as long as its
  ``Content-Length`` says.

A request whose head (the name asked for included) carries one of the person's keys or tokens
is refused before the name is resolved, unless it is a plain request whose keys are all in
headers the person allowed for its domain (``keys``).

Everything else is answered with an error and closed. A refusal is a ``403`` whose status line
says why ("refused: evil.example is not granted"). Bytes are counted each way; a connection
idle for ``Limits.idle_seconds`` is closed, and so is every connection of a call once it has
received ``Limits.max_bytes_in`` in all. Every attempt, allowed or refused, becomes one
``Connection`` record, given to the call's ``report`` when the connection ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import stat
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foehn_lsp.sandbox.network import http
from foehn_lsp.sandbox.network.grant import Destination, Grant, Refused, destination
from foehn_lsp.sandbox.network.keys import carried
from foehn_lsp.sandbox.network.tls import NotTls, client_hello, server_name
from foehn_lsp.secrets import Scrubber

CHUNK = 256 * 1024
BUFFER = 1024 * 1024
"""How much of a connection's bytes are read ahead, each way."""
MAX_RECORDS = 10_000
"""Attempts recorded one by one per call; more are counted in one last record."""


@dataclass(frozen=True, kw_only=True)
class Connection:
    """One connection attempt, as the audit log and the ``network`` event record it."""

    call: str
    """The call it belongs to (its id), or ``mcp:NAME`` for an MCP server's own."""
    host: str
    port: int
    allowed: bool
    reason: str
    """Why it was allowed (the grant's entry and where it is written) or refused; for an
    allowed one that ended early, why (cut, idle, could not connect)."""
    bytes_out: int = 0
    """Bytes sent to the server (the request, the client's data)."""
    bytes_in: int = 0
    """Bytes of the server's passed on to the client."""


Report = Callable[[Connection], None]
"""Told of each attempt when it ends, on the proxy's own thread."""


def _nobody(connection: Connection) -> None:
    """Attempts go only to the call's own list unless someone listens."""


@dataclass(frozen=True, kw_only=True)
class Access:
    """What one call may reach and who hears of its attempts."""

    grant: Grant
    call: str
    report: Report = _nobody
    secrets: Scrubber | None = None
    """What a request head must not carry (the person's keys and tokens)."""


@dataclass(frozen=True, kw_only=True)
class Limits:
    idle_seconds: float = 60.0
    """A connection with no byte either way for this long is closed."""
    head_seconds: float = 10.0
    """For the request head, and for a tunnel's ClientHello."""
    connect_seconds: float = 10.0
    max_bytes_in: int = 4 * 1024**3
    """What one call may receive in all; its connections are closed past it."""
    max_connections: int = 64
    """Open at once per call; more are refused until some end."""


class _Cut(Exception):
    """A connection stopped by a limit; the message says which."""


@dataclass
class _Tally:
    host: str = "?"
    port: int = 0
    allowed: bool = False
    reason: str = "no request"
    bytes_out: int = 0
    bytes_in: int = 0
    last: float = field(default_factory=time.monotonic)


class CallProxy:
    """The proxy of one call, on the network thread's loop (``service``)."""

    def __init__(self, access: Access, path: Path, limits: Limits) -> None:
        self.access = access
        self.path = path
        self.limits = limits
        self.attempts: list[Connection] = []
        """Every attempt so far, in the order they ended."""
        self._listener: socket.socket | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._open = 0
        self._bytes_in = 0
        self._unrecorded = 0

    async def start(self) -> None:
        """Listen on ``path`` (raises ``OSError`` when it cannot)."""
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(self.path))
            listener.listen(16)
            listener.setblocking(False)
        except OSError:
            listener.close()
            raise
        self._listener = listener
        self._spawn(self._accept(listener))

    async def close(self) -> None:
        """Stop listening and end every connection (each is recorded). The listening socket is
        closed only once its accept has ended: the loop, shared by every call's proxy, would
        otherwise still watch its descriptor number, which the next socket opened on the loop
        is given (that socket's connect then failed with ENOENT)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._listener is not None:
            self._listener.close()
        if self._unrecorded:
            self._record(
                Connection(
                    call=self.access.call,
                    host="*",
                    port=0,
                    allowed=False,
                    reason=f"{self._unrecorded:,} more attempts, not recorded one by one",
                ),
                counted=False,
            )

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _accept(self, listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            link, _ = await loop.sock_accept(listener)
            self._spawn(self._descriptors(link))

    async def _descriptors(self, link: socket.socket) -> None:
        """Each descriptor sent over ``link`` is a client connection; anything else ends it."""
        loop = asyncio.get_running_loop()
        with link:
            while True:
                await _readable(loop, link)
                try:
                    data, fds, _, _ = socket.recv_fds(link, 16, 16)
                except BlockingIOError:
                    continue
                except OSError:
                    return
                for fd in fds:
                    self._client_fd(fd)
                if not data:
                    return

    def _client_fd(self, fd: int) -> None:
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISSOCK(mode):
                raise OSError("not a socket")
            client = socket.socket(fileno=fd)
        except OSError:
            os.close(fd)
            return
        if client.type != socket.SOCK_STREAM or client.family not in (
            socket.AF_INET,
            socket.AF_INET6,
        ):
            client.close()
            return
        if self._open >= self.limits.max_connections:
            client.close()
            self._record(self._refused("*", 0, "too many connections open at once"))
            return
        self._open += 1
        self._spawn(self._serve(client))

    async def _serve(self, client: socket.socket) -> None:
        tally = _Tally()
        writer: asyncio.StreamWriter | None = None
        try:
            client.setblocking(False)
            reader, writer = await asyncio.open_connection(sock=client, limit=http.MAX_HEAD)
            await self._request(reader, writer, tally)
        except _Cut as exc:
            tally.reason = str(exc)
        except (OSError, asyncio.IncompleteReadError) as exc:
            ended = _ended(exc)
            tally.reason = f"{tally.reason}; {ended}" if tally.allowed else ended
        finally:
            self._open -= 1
            if writer is not None:
                writer.close()
            else:
                client.close()
            self._record(
                Connection(
                    call=self.access.call,
                    host=tally.host,
                    port=tally.port,
                    allowed=tally.allowed,
                    reason=tally.reason,
                    bytes_out=tally.bytes_out,
                    bytes_in=tally.bytes_in,
                )
            )

    async def _request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, tally: _Tally
    ) -> None:
        limits = self.limits
        try:
            async with asyncio.timeout(limits.head_seconds):
                head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.LimitOverrunError, ValueError):
            return await self._refuse(writer, tally, "the request head is too long", status=400)
        except TimeoutError:
            raise _Cut(f"no request within {limits.head_seconds:g} s") from None
        try:
            request = http.parse_head(head)
            tunnel = request.method == "CONNECT"
            if tunnel:
                tally.host, tally.port = http.connect_target(request.target)
                path, length = "", 0
            else:
                tally.host, tally.port, path = http.absolute_target(request.target)
                length = http.body_length(request)
        except http.BadRequest as exc:
            return await self._refuse(writer, tally, str(exc), status=400)
        access = self.access
        keys = carried(
            head, tally.host, tally.port, secrets=access.secrets, grant=access.grant, tunnel=tunnel
        )
        if keys.refused:  # before the name is even resolved (DNS leaks too)
            return await self._refuse(writer, tally, keys.refused)
        found = await destination(tally.host, tally.port, access.grant)
        if isinstance(found, Refused):
            return await self._refuse(writer, tally, found.reason)
        tally.host = found.host
        tally.allowed = True
        tally.reason = f"granted: {found.domain.shown()} ({found.domain.source or 'a rule'})"
        if keys.allowed:
            tally.reason += f", carrying {keys.allowed}"
        if tunnel:
            await self._tunnel(reader, writer, found, tally)
        else:
            await self._forward(request, path, length, reader, writer, found, tally)

    async def _refuse(
        self, writer: asyncio.StreamWriter, tally: _Tally, reason: str, *, status: int = 403
    ) -> None:
        tally.allowed = False
        tally.reason = reason
        writer.write(http.answer(status, f"refused: {reason}", f"Foehn refused this: {reason}"))
        with contextlib.suppress(OSError):
            await writer.drain()

    async def _tunnel(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        found: Destination,
        tally: _Tally,
    ) -> None:
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        try:
            async with asyncio.timeout(self.limits.head_seconds):
                hello, body = await client_hello(reader)
            named = server_name(body)
        except TimeoutError:
            raise _Cut(f"no TLS handshake within {self.limits.head_seconds:g} s") from None
        except NotTls as exc:
            tally.allowed = False
            tally.reason = f"{exc}: only TLS goes through a tunnel"
            return
        if named != found.host:
            tally.allowed = False
            tally.reason = (
                f"the TLS handshake names {named}, not {found.host}"
                if named
                else f"the TLS handshake names no server (asked for {found.host})"
            )
            return
        upstream_reader, upstream_writer = await self._connect(found)
        try:
            upstream_writer.write(hello)
            tally.bytes_out += len(hello)
            await self._relay(reader, writer, upstream_reader, upstream_writer, tally)
        finally:
            upstream_writer.close()

    async def _forward(
        self,
        request: http.Request,
        path: str,
        length: int,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        found: Destination,
        tally: _Tally,
    ) -> None:
        upstream_reader, upstream_writer = await self._connect(found)
        try:
            head = http.forwarded_head(request, found.host, found.port, path)
            upstream_writer.write(head)
            tally.bytes_out += len(head)
            await self._relay(
                reader, writer, upstream_reader, upstream_writer, tally, request_bytes=length
            )
        finally:
            upstream_writer.close()

    async def _connect(
        self, found: Destination
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to the first of the checked addresses that answers."""
        problems = []
        for address in found.addresses:
            try:
                async with asyncio.timeout(self.limits.connect_seconds):
                    return await asyncio.open_connection(address, found.port, limit=BUFFER)
            except (OSError, TimeoutError) as exc:
                problems.append(f"{address}: {_ended(exc)}")
        raise OSError(f"could not connect ({'; '.join(problems)})")

    async def _relay(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        upstream_reader: asyncio.StreamReader,
        upstream_writer: asyncio.StreamWriter,
        tally: _Tally,
        *,
        request_bytes: int | None = None,
    ) -> None:
        """Bytes both ways until the server is done (and, for a tunnel, the client too);
        ``request_bytes``: for a plain request, only that much of the client's body goes on."""
        outward = asyncio.ensure_future(
            self._pump(reader, upstream_writer, tally, outward=True, most=request_bytes)
        )
        try:
            await self._pump(upstream_reader, writer, tally, outward=False)
        finally:
            outward.cancel()
            await asyncio.gather(outward, return_exceptions=True)

    async def _pump(
        self,
        source: asyncio.StreamReader,
        sink: asyncio.StreamWriter,
        tally: _Tally,
        *,
        outward: bool,
        most: int | None = None,
    ) -> None:
        idle = self.limits.idle_seconds
        left = most
        while left is None or left > 0:
            wanted = CHUNK if left is None else min(CHUNK, left)
            try:
                chunk = await asyncio.wait_for(source.read(wanted), idle)
            except TimeoutError:
                if time.monotonic() - tally.last >= idle:
                    raise _Cut(f"cut: nothing either way for {idle:g} s") from None
                continue
            if not chunk:
                break
            tally.last = time.monotonic()
            room = self.limits.max_bytes_in - self._bytes_in
            cut = not outward and len(chunk) > room
            if cut:
                chunk = chunk[:room]  # the call gets exactly its limit, then the cut
            if outward:
                tally.bytes_out += len(chunk)
            else:
                tally.bytes_in += len(chunk)
                self._bytes_in += len(chunk)
            if left is not None:
                left -= len(chunk)
            sink.write(chunk)
            await sink.drain()
            if cut:
                raise _Cut(f"cut: the call received more than {self.limits.max_bytes_in:,} bytes")
        if outward and sink.can_write_eof():
            with contextlib.suppress(OSError):
                sink.write_eof()

    def _refused(self, host: str, port: int, reason: str) -> Connection:
        return Connection(call=self.access.call, host=host, port=port, allowed=False, reason=reason)

    def _record(self, connection: Connection, *, counted: bool = True) -> None:
        if counted and len(self.attempts) >= MAX_RECORDS:
            self._unrecorded += 1
            return
        self.attempts.append(connection)
        self.access.report(connection)


def _ended(exc: BaseException) -> str:
    """One line for a connection that ended with ``exc``."""
    if isinstance(exc, asyncio.IncompleteReadError):
        return "the client closed the connection"
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


async def _readable(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> None:
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():  # the reader may fire again before it is removed, or after a cancel
            ready.set_result(None)

    loop.add_reader(sock.fileno(), wake)
    try:
        await ready
    finally:
        loop.remove_reader(sock.fileno())
