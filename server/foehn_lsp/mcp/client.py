"""Connections to MCP servers, kept on one background event loop.

Foehn's front ends each run their own loop (the language server's, ``foehn run``'s, the ACP
agent's), and the tool catalogue is built synchronously, before any of them asks the model
anything. The SDK's connections are anyio task groups that must be entered and left by one
task, so every connection lives on the hub's own loop in a thread, owned by one runner task
per server; callers on any loop reach it through ``asyncio.wrap_future``. Cancelling the
caller's await cancels the call's task on the hub loop, and the SDK answers that by sending
``notifications/cancelled`` to the server.

A server that fails to start is reported, never fatal; one that dies is restarted with
backoff, and its tool list is read again (as it is on ``notifications/tools/list_changed``).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Collection, Coroutine, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO, TypeVar

import anyio
import httpx2
import mcp_types as types
import pydantic
from mcp import ClientSession, StdioServerParameters
from mcp.client.session import IncomingMessage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError

from foehn_lsp.config.folders import state_dir
from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.mcp.egress import (
    GrantedTransport,
    NotGranted,
    origin,
    stdio_access,
    user_grant,
)
from foehn_lsp.mcp.http import CappedTransport
from foehn_lsp.mcp.stdio import stdio_transport
from foehn_lsp.sandbox import SandboxUnavailableError, system_sandbox
from foehn_lsp.sandbox.environment import allowed_environment
from foehn_lsp.sandbox.network import Connection, Report
from foehn_lsp.sandbox.network import environment as network_environment
from foehn_lsp.workspace import Workspace

log = logging.getLogger(__name__)

T = TypeVar("T")
CLIENT_INFO = types.Implementation(name="foehn", version="0.1.0")
MAX_BACKOFF = 30.0
STOP_TIMEOUT = 5.0

ToolsListener = Callable[[str, Sequence[types.Tool]], None]
"""Told (on the hub's thread) each time a server's tool list is read: at start, after a
restart, and after ``notifications/tools/list_changed``."""


class ServerUnavailableError(Exception):
    """A server could not be started or reached; the message says why, for the person and the
    model alike."""


class BadAnswerError(Exception):
    """The server answered a call with something Foehn cannot read (not JSON-RPC, or a result
    of a kind it does not handle)."""


class TransientError(Exception):
    """The server failed to answer this time (an HTTP 5xx, an internal error)."""


class ConnectionLostError(Exception):
    """The connection ended during a call: the server crashed, exited or dropped it."""


@dataclass(frozen=True, kw_only=True)
class ServerStatus:
    name: str
    transport: Literal["stdio", "http"]
    state: Literal["stopped", "starting", "running", "failed"]
    error: str | None = None
    """Why the last start failed, or why the server last stopped."""
    restarts: int = 0


def _unheard(connection: Connection) -> None:
    """A server's connections go unrecorded unless the hub is given a listener."""


def server_environment(config: McpServerConfig) -> dict[str, str]:
    """What a stdio server's program gets: the sandbox's environment allowlist (search path,
    locale, terminal, user name; the person's real home, since servers keep caches there) plus
    the server's own ``env``. Nothing else of Foehn's environment (no API keys) reaches it."""
    return allowed_environment(
        home=os.environ.get("HOME") or str(Path.home()),
        extra={key: value.get_secret_value() for key, value in config.env.items()},
    )


class ServerConnection:
    """One server: started on demand, restarted after a crash. Lives on the hub's loop."""

    def __init__(
        self,
        name: str,
        config: McpServerConfig,
        *,
        root: Path,
        on_tools: ToolsListener,
        report: Report = _unheard,
        workspace: bool = False,
    ) -> None:
        self.name = name
        self.config = config
        self.root = root
        self.report = report
        """Told of each connection the server attempts (``mcp.egress``)."""
        self.workspace = workspace
        """Listed by the workspace's ``mcp.json``: even its own URL must be granted."""
        self.cwd = Path(config.cwd).expanduser() if config.cwd else root
        self.log_file = state_dir() / "mcp" / f"{name}.log"
        """Where a stdio server's stderr goes (appended across starts)."""
        self.on_tools = on_tools
        self.tools: tuple[types.Tool, ...] = ()
        self.state: Literal["stopped", "starting", "running", "failed"] = "stopped"
        self.error: str | None = None
        self.restarts = 0
        self._session: ClientSession | None = None
        self._runner: asyncio.Task[None] | None = None
        self._closed: asyncio.Event | None = None
        self._starting: asyncio.Future[None] | None = None
        self._failures_in_row = 0
        self._not_before = 0.0
        self._last_transport_error: str | None = None

    def status(self) -> ServerStatus:
        return ServerStatus(
            name=self.name,
            transport=self.config.transport,
            state=self.state,
            error=self.error,
            restarts=self.restarts,
        )

    async def session(self) -> ClientSession:
        """The live session, starting the server first if it is not running (one start at a
        time; concurrent callers wait for the same one)."""
        if self._session is not None:
            return self._session
        if self._starting is None or self._starting.done():
            # A task of its own: a caller that is cancelled stops waiting, not the start.
            self._starting = asyncio.get_running_loop().create_task(self._start())
            self._starting.add_done_callback(_retrieved)
        await asyncio.shield(self._starting)
        assert self._session is not None
        return self._session

    async def _start(self) -> None:
        wait = self._not_before - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)  # backoff after a crash or a failed start
        self.state = "starting"
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._closed = asyncio.Event()
        self._runner = asyncio.create_task(self._run(ready, self._closed), name=f"mcp {self.name}")
        try:
            async with asyncio.timeout(self.config.startup_timeout_seconds):
                await asyncio.shield(ready)
        except TimeoutError:
            self._runner.cancel()
            self._failed(
                f"no answer to initialize and tools/list within "
                f"{self.config.startup_timeout_seconds:g} s"
            )
        except Exception as exc:
            self._failed(describe(exc))
        self.state = "running"
        self._failures_in_row = 0
        self.error = None

    def _failed(self, why: str) -> None:
        self.state = "failed"
        self.error = why
        self._failures_in_row += 1
        self._not_before = time.monotonic() + min(MAX_BACKOFF, 0.5 * 2**self._failures_in_row)
        where = f" (its output: {self.log_file})" if self.config.command is not None else ""
        raise ServerUnavailableError(f"MCP server {self.name!r} did not start: {why}{where}")

    async def _run(self, ready: asyncio.Future[None], closed: asyncio.Event) -> None:
        """Own the transport and session from entry to exit (anyio needs one task for both)."""
        live: ClientSession | None = None
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(
                    ClientSession(
                        read, write, message_handler=self._on_message, client_info=CLIENT_INFO
                    )
                )
                await session.initialize()
                self.tools = tuple(await _list_tools(session))
                self._session = live = session
                ready.set_result(None)
                self.on_tools(self.name, self.tools)
                await closed.wait()
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            else:
                log.warning("MCP server %s: connection ended: %s", self.name, describe(exc))
        finally:
            if self._session is live:  # a restart may already have put a new one in place
                self._session = None
            if not ready.done():
                ready.cancel()

    @asynccontextmanager
    async def _transport(
        self,
    ) -> AsyncIterator[tuple[Any, Any]]:
        config = self.config
        if config.command is not None:
            argv = [config.command, *config.args]
            environment = server_environment(config)
            with contextlib.ExitStack() as held:  # a sandbox's placeholders live as long
                if config.sandbox is not None:
                    sandbox = system_sandbox()
                    if not sandbox.available:
                        raise SandboxUnavailableError(f"it is to run sandboxed, but {sandbox.note}")
                    access = stdio_access(self.name, config, self.report)
                    launch = sandbox.launch(
                        argv, Workspace([self.root]), self.cwd, config.sandbox, network=access
                    )
                    argv = held.enter_context(launch)
                    if access is not None:
                        environment |= network_environment()
                params = StdioServerParameters(
                    command=argv[0], args=argv[1:], env=environment, cwd=self.cwd
                )
                errlog = await asyncio.to_thread(_open_log, self.log_file)
                try:
                    async with stdio_transport(params, errlog) as streams:
                        yield streams
                finally:
                    errlog.close()
            return
        assert config.url is not None
        headers = {key: value.get_secret_value() for key, value in config.headers.items()}
        timeout = httpx2.Timeout(30.0, read=300.0)
        granted = GrantedTransport(
            httpx2.AsyncHTTPTransport(),
            server=self.name,
            own=None if self.workspace else origin(config.url),
            grant=user_grant(),
            report=self.report,
            private=headers,
        )
        capped = CappedTransport(granted)
        async with (
            httpx2.AsyncClient(headers=headers, timeout=timeout, transport=capped) as http,
            # The transport caps each message, at the same size as over stdio.
            streamable_http_client(
                config.url, http_client=http, max_sse_event_size=None
            ) as streams,
        ):
            yield streams

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            asyncio.get_running_loop().create_task(self.refresh())
        elif isinstance(message, Exception):
            self._last_transport_error = describe(message)
            log.warning("MCP server %s sent something unreadable: %s", self.name, describe(message))

    async def refresh(self) -> None:
        """Read the tool list again and tell the listener."""
        session = self._session
        if session is None:
            return
        try:
            self.tools = tuple(await _list_tools(session))
        except Exception as exc:
            log.warning("MCP server %s: listing tools failed: %s", self.name, describe(exc))
            return
        self.on_tools(self.name, self.tools)

    async def call(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        within: float,
        progress: Callable[[str], None] | None = None,
    ) -> types.CallToolResult:
        """Send one ``tools/call``. Raises ``ServerUnavailableError`` if the server cannot be
        started, ``ConnectionLostError`` if it dies during the call (a restart is then under
        way), ``TimeoutError`` after ``within`` seconds (the SDK then sends
        ``notifications/cancelled``)."""
        session = await self.session()
        self._last_transport_error = None
        try:
            async with asyncio.timeout(within):
                result = await session.call_tool(
                    tool, dict(arguments), progress_callback=_progress(progress)
                )
        except MCPError as exc:
            if exc.error.code == types.CONNECTION_CLOSED:
                self._lost(exc)
                raise ConnectionLostError(self._why_lost()) from None
            if exc.error.code == types.INTERNAL_ERROR:
                # What the HTTP transport makes of a 5xx, and what a server says when it fails
                # inside: possibly passing, so worth another try when that is safe.
                raise TransientError(
                    f"MCP server {self.name!r} failed to answer: {exc.error.message}"
                ) from None
            raise
        except TimeoutError:
            if self._last_transport_error:
                raise BadAnswerError(
                    f"MCP server {self.name!r} sent data that is not JSON-RPC "
                    f"({self._last_transport_error}) and no answer within {within:g} s"
                ) from None
            raise
        except (
            OSError,
            httpx2.TransportError,
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
            anyio.EndOfStream,
        ) as exc:
            self._lost(exc)
            raise ConnectionLostError(self._why_lost(exc)) from None
        if not isinstance(result, types.CallToolResult):
            raise BadAnswerError(
                f"MCP server {self.name!r} answered with a {type(result).__name__}, "
                "which Foehn does not handle"
            )
        return result

    def _why_lost(self, exc: BaseException | None = None) -> str:
        detail = f" ({describe(exc)})" if exc is not None else ""
        return f"MCP server {self.name!r} stopped during the call{detail}; it is being restarted"

    def _lost(self, exc: BaseException) -> None:
        """The connection is gone: close what is left and start again in the background."""
        if self._closed is None or self._closed.is_set():
            return
        log.warning("MCP server %s stopped: %s", self.name, describe(exc))
        self.state = "failed"
        self.error = f"stopped: {describe(exc)}"
        self._session = None
        self._closed.set()
        self.restarts += 1
        self._failures_in_row += 1
        self._not_before = time.monotonic() + min(
            MAX_BACKOFF, 0.5 * 2 ** (self._failures_in_row - 1)
        )
        asyncio.get_running_loop().create_task(self._restart())

    async def _restart(self) -> None:
        with contextlib.suppress(ServerUnavailableError):
            await self.session()

    async def stop(self) -> None:
        if self._closed is not None:
            self._closed.set()
        if self._runner is not None:
            try:
                async with asyncio.timeout(STOP_TIMEOUT):
                    await asyncio.shield(self._runner)
            except TimeoutError:
                self._runner.cancel()
            except Exception:
                log.debug("MCP server %s: error while stopping", self.name, exc_info=True)
        self.state = "stopped"


def _progress(sink: Callable[[str], None] | None) -> ProgressFnT | None:
    """The SDK's progress callback, as one line for ``sink``: 'step 2 of 5: Indexing'."""
    if sink is None:
        return None

    async def report(progress: float, total: float | None, message: str | None) -> None:
        done = f"{progress:g} of {total:g}" if total else f"{progress:g}"
        sink(f"{done}: {message}" if message else done)

    return report


def _retrieved(task: asyncio.Task[None]) -> None:
    """Mark a start's failure as seen: its callers re-raise it, and there may be none left."""
    if not task.cancelled():
        task.exception()


def _open_log(path: Path) -> TextIO:
    path.parent.mkdir(parents=True, exist_ok=True)
    return open(path, "a", encoding="utf-8")


async def _list_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(100):  # a server that pages forever cannot hang the start
        page = await session.list_tools(
            params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
        )
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def describe(exc: BaseException) -> str:
    """A one-line reason, unwrapping anyio's exception groups to what actually went wrong."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, ServerUnavailableError | ConnectionLostError | SandboxUnavailableError):
        return str(exc)
    if isinstance(exc, MCPError):
        return exc.error.message
    if isinstance(exc, pydantic.ValidationError):
        return "; ".join(str(error["msg"]) for error in exc.errors(include_url=False)[:3])
    if isinstance(exc, FileNotFoundError):
        return f"program not found: {exc.filename or exc}"
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"HTTP {exc.response.status_code} from {exc.request.url.copy_with(query=None)}"
    if isinstance(exc, NotGranted):
        return str(exc)
    if isinstance(exc, httpx2.TransportError):
        return f"cannot reach the server: {type(exc).__name__}"
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class McpHub:
    """The MCP servers of one Foehn process (or one workspace), on a loop in its own thread."""

    def __init__(
        self,
        servers: Mapping[str, McpServerConfig],
        *,
        root: Path,
        on_tools: ToolsListener,
        report: Report | None = None,
        workspace: Collection[str] = (),
    ) -> None:
        """``report`` hears of every connection a server attempts; ``workspace`` names the
        servers a workspace's ``mcp.json`` lists."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="foehn-mcp", daemon=True
        )
        self._thread.start()
        self.servers = {
            name: ServerConnection(
                name,
                config,
                root=root,
                on_tools=on_tools,
                report=report or _unheard,
                workspace=name in workspace,
            )
            for name, config in servers.items()
        }
        self._closed = False
        atexit.register(self.close)

    def _submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def start(self, names: Sequence[str] | None = None) -> dict[str, str | None]:
        """Start servers (all by default) in parallel and wait; each name maps to ``None`` or
        the reason it failed. Each start is bounded by its own timeout."""
        chosen = [self.servers[n] for n in (names if names is not None else self.servers)]

        async def start_all() -> list[BaseException | ClientSession]:
            return await asyncio.gather(*(s.session() for s in chosen), return_exceptions=True)

        outcomes = self._submit(start_all()).result()
        return {
            server.name: None
            if isinstance(outcome, ClientSession)
            else f"did not start: {server.error or describe(outcome)}"
            for server, outcome in zip(chosen, outcomes, strict=True)
        }

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        within: float,
        progress: Callable[[str], None] | None = None,
    ) -> types.CallToolResult:
        """``ServerConnection.call`` from any loop; cancelling the await cancels the call.
        ``progress`` gets the server's progress notifications, on the caller's loop."""
        connection = self.servers[server]
        relay = None
        if progress is not None:
            caller = asyncio.get_running_loop()

            def relay(message: str) -> None:
                caller.call_soon_threadsafe(progress, message)

        return await asyncio.wrap_future(
            self._submit(connection.call(tool, arguments, within=within, progress=relay))
        )

    def statuses(self) -> list[ServerStatus]:
        return [server.status() for server in self.servers.values()]

    def close(self) -> None:
        """Stop every server and the loop; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)

        async def stop_all() -> None:
            await asyncio.gather(*(s.stop() for s in self.servers.values()))

        with contextlib.suppress(Exception):
            self._submit(stop_all()).result(timeout=STOP_TIMEOUT * 2)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=STOP_TIMEOUT)
        if not self._thread.is_alive():
            self._loop.close()


__all__ = [
    "BadAnswerError",
    "ConnectionLostError",
    "McpHub",
    "ServerConnection",
    "ServerStatus",
    "ServerUnavailableError",
    "TransientError",
]
