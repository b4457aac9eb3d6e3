"""Connections to MCP servers, kept on one background event loop.

Foehn's front ends each run their own loop (the language server's, ``foehn run``'s, the ACP
agent's), and the tool catalogue is built synchronously, before any of them asks the model
anything. The SDK's connections are anyio task groups that must be entered and left by one
task, so every connection lives on the hub's own loop in a thread, owned by one runner task
per server; callers on any loop reach it through ``asyncio.wrap_future``. Cancelling the
caller's await cancels the call's task on the hub loop, and the SDK answers that by sending
``notifications/cancelled`` to the server.

A server that fails to start is reported, never fatal; one that dies is restarted with
backoff, and its lists are read again (as they are on ``notifications/*/list_changed``).

An HTTP server that asks for authorization is signed in to (``oauth``): with the tokens kept
from an earlier sign-in, refreshed when they expire, or by asking the person through the front
end's ``SignIn`` (the page is shown, the start waits up to the consent timeout). A sign-in the
person does not finish is not asked for again by itself: ``McpHub.login`` (``foehn mcp login``)
asks again. A server that refuses the credentials (401, 403) is named with the status and the
fix. What the server sends besides answers reaches the person: its questions (elicitation)
through the front end of the call that is running, its progress to the call's progress line,
and its log messages to Foehn's log.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import json
import logging
import os
import threading
import time
import warnings
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
from mcp.client.session import ClientRequestContext, IncomingMessage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from foehn_lsp.config.folders import state_dir
from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.errors import McpServerError
from foehn_lsp.mcp import elicitation
from foehn_lsp.mcp.consent import ConsentError, SignIn
from foehn_lsp.mcp.egress import (
    GrantedTransport,
    NotGranted,
    origin,
    stdio_access,
    user_grant,
)
from foehn_lsp.mcp.http import CappedTransport
from foehn_lsp.mcp.oauth import (
    ServerAuth,
    SignInFailed,
    SignInRequired,
    describe_refusal,
    server_auth,
)
from foehn_lsp.mcp.stdio import stdio_transport
from foehn_lsp.mcp.stores import FileStore
from foehn_lsp.mcp.tokens import Credentials, SignedIn
from foehn_lsp.sandbox import SandboxUnavailableError, system_sandbox
from foehn_lsp.sandbox.environment import allowed_environment
from foehn_lsp.sandbox.network import Connection, Report
from foehn_lsp.sandbox.network import environment as network_environment
from foehn_lsp.secrets import Scrubber
from foehn_lsp.tools.elicitation import Elicit, ElicitationAnswer, ElicitationRequest
from foehn_lsp.workspace import Workspace

log = logging.getLogger(__name__)

T = TypeVar("T")
CLIENT_INFO = types.Implementation(name="foehn", version="0.1.0")
MAX_BACKOFF = 30.0
STOP_TIMEOUT = 5.0

LOG_LEVEL: types.LoggingLevel = "info"
"""The least level of the log messages servers are asked to send (they go to Foehn's log)."""
MAX_PAGES = 100
"""A server that pages a list for longer cannot hang the start."""
LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}


@dataclass(frozen=True, kw_only=True)
class Listing:
    """What a server offers: its tools, prompts, resources and resource templates."""

    tools: tuple[types.Tool, ...] = ()
    prompts: tuple[types.Prompt, ...] = ()
    resources: tuple[types.Resource, ...] = ()
    templates: tuple[types.ResourceTemplate, ...] = ()


ListingListener = Callable[[str, Listing], None]
"""Told (on the hub's thread) each time a server's lists are read: at start, after a restart,
and after a ``notifications/*/list_changed``."""
FailureListener = Callable[[str, str], None]
"""Told (on the hub's thread) why a server's start failed, each time one does."""


@dataclass(frozen=True, kw_only=True)
class RunningCall:
    """A call of the server under way: whose front end its questions go to."""

    tool: str
    elicit: Elicit | None


class ServerUnavailableError(McpServerError):
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
    state: Literal["stopped", "starting", "signing-in", "running", "failed"]
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
        on_listing: ListingListener,
        sign_in: SignIn,
        on_failure: FailureListener = lambda name, why: None,
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
        self.on_listing = on_listing
        self.on_failure = on_failure
        self.sign_in = sign_in
        self.listing = Listing()
        self.state: Literal["stopped", "starting", "signing-in", "running", "failed"] = "stopped"
        self.error: str | None = None
        self.restarts = 0
        self.credentials = (
            Credentials(sign_in.store, name, config.url)
            if config.signs_in and config.url is not None
            else None
        )
        """Where the server's sign-in is kept (an HTTP server that may ask for one)."""
        self.waiting_for_person = asyncio.Event()
        """Set while a start waits for the person to sign in."""
        self.no_more_consent: str | None = None
        """Why the person is not asked to sign in again unbidden (their last sign-in failed);
        ``login`` clears it."""
        self.scrubber = Scrubber.from_environment(config.secrets())
        self._auth: ServerAuth | None = None
        self._refused: str | None = None
        """The last 401/403 of the server's endpoint, named with the fix."""
        self._budgets: set[asyncio.Timeout] = set()
        """The running starts' and calls' timeouts: they stop while the person answers."""
        self._calls: list[RunningCall] = []
        self._session: ClientSession | None = None
        self._runner: asyncio.Task[None] | None = None
        self._closed: asyncio.Event | None = None
        self._starting: asyncio.Future[None] | None = None
        self._failures_in_row = 0
        self._not_before = 0.0
        self._last_transport_error: str | None = None

    @property
    def tools(self) -> tuple[types.Tool, ...]:
        return self.listing.tools

    def status(self) -> ServerStatus:
        return ServerStatus(
            name=self.name,
            transport=self.config.transport,
            state=self.state,
            error=self.error,
            restarts=self.restarts,
        )

    def starting(self) -> asyncio.Future[None]:
        """The start under way, or a new one (one at a time; concurrent callers wait for the
        same one)."""
        if self._starting is None or self._starting.done():
            # A task of its own: a caller that is cancelled stops waiting, not the start.
            self._starting = asyncio.get_running_loop().create_task(self._start())
            self._starting.add_done_callback(_retrieved)
        return self._starting

    async def session(self) -> ClientSession:
        """The live session, starting the server first if it is not running."""
        if self._session is not None:
            return self._session
        await asyncio.shield(self.starting())
        assert self._session is not None
        return self._session

    async def _start(self) -> None:
        wait = self._not_before - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)  # backoff after a crash or a failed start
        self.state = "starting"
        self._refused = None
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._closed = asyncio.Event()
        self._runner = asyncio.create_task(self._run(ready, self._closed), name=f"mcp {self.name}")
        try:
            async with asyncio.timeout(self.config.startup_timeout_seconds) as budget:
                self._budgets.add(budget)
                try:
                    await asyncio.shield(ready)
                finally:
                    self._budgets.discard(budget)
        except TimeoutError:
            self._runner.cancel()
            await self._forget_attempt()
            self._failed(
                f"no answer to initialize and tools/list within "
                f"{self.config.startup_timeout_seconds:g} s"
            )
        except Exception as exc:
            why = await self._why_not_started(exc)
            self._failed(why)
        finally:
            self.waiting_for_person.clear()
        self.state = "running"
        self._failures_in_row = 0
        self.error = None

    async def _why_not_started(self, exc: BaseException) -> str:
        """What a failed start's error means for the person; what its sign-in wrote is
        forgotten, and a refused token is dropped."""
        await self._forget_attempt()
        inner = _innermost(exc)
        if isinstance(inner, ConsentError):
            self.no_more_consent = str(inner)
            return f"{inner}; nothing was stored. To try again, {self.sign_in.how(self.name)}"
        if isinstance(inner, SignInFailed):
            self.no_more_consent = f"signing in failed: {inner}"
            return f"signing in failed: {inner}; nothing was stored"
        if isinstance(inner, SignInRequired):
            if self.credentials is not None:
                await self.credentials.forget_tokens()  # they were refused
            return str(inner)
        if (failed := self._sign_in_unreachable(inner)) is not None:
            self.no_more_consent = failed
            return f"{failed}; nothing was stored"
        if self._refused is not None:
            if self.credentials is not None and " 401 " in self._refused:
                await self.credentials.forget_tokens()
            return f"it {self._refused}"
        return describe(exc)

    def _sign_in_unreachable(self, exc: BaseException) -> str | None:
        """The line for a request of the sign-in (metadata, registration, token) that got no
        answer: httpx raises it past the OAuth flow."""
        if self.credentials is None or not isinstance(exc, httpx2.TransportError):
            return None
        try:
            url = exc.request.url
        except RuntimeError:
            return None
        if str(url) == self.config.url:
            return None
        shown = url.copy_with(query=None, fragment=None, userinfo=b"")
        if isinstance(exc, NotGranted):
            return (
                f"signing in failed: {shown} was not reached ({exc}); to sign in there, grant "
                "its domain in [sandbox] network"
            )
        if isinstance(exc, httpx2.TimeoutException):
            within = self.config.oauth.request_timeout_seconds
            return f"signing in failed: {shown} did not answer within {within:g} s"
        return f"signing in failed: cannot reach {shown} ({type(exc).__name__})"

    async def _forget_attempt(self) -> None:
        if self.credentials is not None:
            await self.credentials.discard()

    def _hint(self) -> str:
        how = self.sign_in.how(self.name)
        if self.no_more_consent:
            return f"{how} (the last sign-in ended: {self.no_more_consent})"
        return how

    def _failed(self, why: str) -> None:
        self.error = why
        self._failures_in_row += 1
        self._not_before = time.monotonic() + min(MAX_BACKOFF, 0.5 * 2**self._failures_in_row)
        where = f" (its output: {self.log_file})" if self.config.command is not None else ""
        self.on_failure(self.name, f"{why}{where}")  # told before the state says it
        self.state = "failed"
        raise ServerUnavailableError(f"MCP server {self.name!r} did not start: {why}{where}")

    def _waiting(self, seconds: float) -> None:
        """The sign-in waits for the person: the start's and the calls' clocks wait too."""
        self.state = "signing-in"
        self.waiting_for_person.set()
        self._extend(seconds)

    def _extend(self, seconds: float) -> None:
        now = asyncio.get_running_loop().time()
        for budget in self._budgets:
            when = budget.when()
            if when is not None:
                budget.reschedule(max(when, now) + seconds)

    def _observe(self, request: httpx2.Request, response: httpx2.Response) -> None:
        """Note a 401 or 403 of the server's own endpoint, to name it if the start or a call
        fails for it."""
        if response.status_code in (401, 403) and str(request.url) == self.config.url:
            self._refused = describe_refusal(
                self.name,
                response,
                signs_in=self.credentials is not None,
                hint=self._hint(),
            )

    async def login(self) -> str:
        """Sign in again, asking the person even when tokens are kept (``foehn mcp login``),
        and start the server with the new token; what happened, in one line. Raises
        ``ServerUnavailableError`` when it did not work (nothing new is kept then)."""
        if self.credentials is None:
            return f"MCP server {self.name!r} is not an HTTP server Foehn signs in to"
        self.no_more_consent = None
        await self.stop()
        self._session = None
        self._not_before = 0.0
        await self.credentials.hide_tokens()
        try:
            await asyncio.shield(self.starting())
        finally:
            self.waiting_for_person.clear()
        assert self._auth is not None
        if not self._auth.authorized:
            return f"MCP server {self.name!r} did not ask to sign in; it is running"
        return f"signed in to MCP server {self.name!r}; it is running"

    async def logout(self) -> bool:
        """Forget the sign-in (``foehn mcp logout``) and stop the server; whether there was
        one."""
        await self.stop()
        self._session = None
        return self.credentials is not None and await self.credentials.forget()

    async def _run(self, ready: asyncio.Future[None], closed: asyncio.Event) -> None:
        """Own the transport and session from entry to exit (anyio needs one task for both)."""
        live: ClientSession | None = None
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
                        message_handler=self._on_message,
                        elicitation_callback=self._on_elicit,
                        logging_callback=self._on_log,
                        client_info=CLIENT_INFO,
                        log_level=LOG_LEVEL,
                    )
                )
                started = await session.initialize()
                self.listing = await _read_listing(session, started.capabilities)
                if started.capabilities.logging is not None:
                    # Servers of the handshake versions are told once (later ones read the
                    # level on each request, ``log_level`` above).
                    with contextlib.suppress(Exception), warnings.catch_warnings():
                        warnings.simplefilter("ignore", MCPDeprecationWarning)
                        await session.set_logging_level(LOG_LEVEL)
                self._session = live = session
                self.on_listing(self.name, self.listing)
                if self.credentials is not None:
                    await self.credentials.commit()  # the server took the token
                ready.set_result(None)
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
        capped = CappedTransport(
            granted,
            request_timeout=config.oauth.request_timeout_seconds,
            on_response=self._observe,
        )
        self._auth = None
        if self.credentials is not None:
            self._auth = await server_auth(
                self.name,
                config,
                self.credentials,
                show=None if self.no_more_consent else self.sign_in.show,
                hint=self._hint(),
                on_waiting=self._waiting,
            )
        async with (
            httpx2.AsyncClient(
                headers=headers, timeout=timeout, transport=capped, auth=self._auth
            ) as http,
            # The transport caps each message, at the same size as over stdio.
            streamable_http_client(
                config.url, http_client=http, max_sse_event_size=None
            ) as streams,
        ):
            yield streams

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(
            message,
            types.ToolListChangedNotification
            | types.PromptListChangedNotification
            | types.ResourceListChangedNotification,
        ):
            asyncio.get_running_loop().create_task(self.refresh())
        elif isinstance(message, Exception):
            self._last_transport_error = describe(message)
            log.warning("MCP server %s sent something unreadable: %s", self.name, describe(message))

    async def _on_elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """The server asks the person something: through the front end of the call that runs
        (the first, if several do), with the calls' clocks stopped while they answer."""
        running = self._calls[0] if self._calls else None
        began = asyncio.get_running_loop().time()
        try:
            async with asyncio.timeout(elicitation.ASK_TIMEOUT):
                return await elicitation.answer(
                    self.name,
                    params,
                    running.elicit if running else None,
                    tool=running.tool if running else None,
                )
        except TimeoutError:
            log.warning("MCP server %s: no answer to its question in time; cancelled", self.name)
            return types.ElicitResult(action="cancel")
        finally:
            self._extend(asyncio.get_running_loop().time() - began)

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        """The server's log message, in Foehn's log (its secrets scrubbed)."""
        data = params.data if isinstance(params.data, str) else json.dumps(params.data, default=str)
        logger = logging.getLogger(f"foehn_lsp.mcp.server.{self.name}")
        where = f" [{params.logger}]" if params.logger else ""
        logger.log(
            LOG_LEVELS.get(params.level, logging.INFO),
            "MCP server %s%s: %s",
            self.name,
            where,
            self.scrubber.text(data)[:4000],
        )

    async def refresh(self) -> None:
        """Read the lists again and tell the listener."""
        session = self._session
        if session is None:
            return
        try:
            capabilities = session.server_capabilities or types.ServerCapabilities()
            self.listing = await _read_listing(session, capabilities)
        except Exception as exc:
            log.warning("MCP server %s: listing failed: %s", self.name, describe(exc))
            return
        self.on_listing(self.name, self.listing)

    async def call(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        within: float,
        progress: Callable[[str], None] | None = None,
        elicit: Elicit | None = None,
    ) -> types.CallToolResult:
        """Send one ``tools/call``. Raises ``ServerUnavailableError`` if the server cannot be
        started, ``ConnectionLostError`` if it dies during the call (a restart is then under
        way), ``TimeoutError`` after ``within`` seconds (the SDK then sends
        ``notifications/cancelled``; the time the person takes to answer the server's
        questions or to sign in does not count). ``elicit`` asks the person what the server
        asks during the call."""
        running = RunningCall(tool=tool, elicit=elicit)
        self._calls.append(running)
        try:
            return await self._call(tool, arguments, within=within, progress=progress)
        finally:
            self._calls.remove(running)

    async def request(
        self, method: Callable[[ClientSession], Coroutine[Any, Any, T]], *, within: float
    ) -> T:
        """Another request of the session (a prompt, a resource), started and timed like a
        call; an error of the server is ``BadAnswerError``."""
        session = await self.session()
        try:
            async with asyncio.timeout(within):
                answer = await method(session)
        except MCPError as exc:
            if exc.error.code == types.CONNECTION_CLOSED:
                self._lost(exc)
                raise ConnectionLostError(self._why_lost()) from None
            why = self._refused or f"refused: {exc.error.message}"
            raise BadAnswerError(f"MCP server {self.name!r} {why}") from None
        if self.credentials is not None:
            await self.credentials.commit()
        return answer

    async def _call(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        within: float,
        progress: Callable[[str], None] | None = None,
    ) -> types.CallToolResult:
        session = await self.session()
        self._last_transport_error = None
        self._refused = None
        try:
            async with asyncio.timeout(within) as budget:
                self._budgets.add(budget)
                try:
                    result = await session.call_tool(
                        tool, dict(arguments), progress_callback=_progress(progress)
                    )
                finally:
                    self._budgets.discard(budget)
        except MCPError as exc:
            if exc.error.code == types.CONNECTION_CLOSED:
                self._lost(exc)
                raise ConnectionLostError(self._why_lost()) from None
            if self._refused is not None:
                raise BadAnswerError(f"MCP server {self.name!r} {self._refused}") from None
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
        if self.credentials is not None:
            await self.credentials.commit()  # a refreshed token, now used
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


async def _read_listing(session: ClientSession, offered: types.ServerCapabilities) -> Listing:
    """The server's tools, and its prompts and resources where it offers them."""
    tools = await _pages(session.list_tools, "tools")
    prompts = await _pages(session.list_prompts, "prompts") if offered.prompts else []
    resources, templates = [], []
    if offered.resources:
        resources = await _pages(session.list_resources, "resources")
        templates = await _pages(session.list_resource_templates, "resource_templates")
    return Listing(
        tools=tuple(tools),
        prompts=tuple(prompts),
        resources=tuple(resources),
        templates=tuple(templates),
    )


async def _pages(method: Callable[..., Coroutine[Any, Any, Any]], field: str) -> list[Any]:
    found: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await method(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        found.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            break
    return found


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    """A one-line reason, unwrapping anyio's exception groups to what actually went wrong."""
    exc = _innermost(exc)
    if isinstance(
        exc,
        ServerUnavailableError
        | ConnectionLostError
        | SandboxUnavailableError
        | SignInRequired
        | SignInFailed
        | ConsentError,
    ):
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
        on_listing: ListingListener,
        sign_in: SignIn | None = None,
        on_failure: FailureListener = lambda name, why: None,
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
        self.sign_in = sign_in or SignIn(store=FileStore())
        self.servers = {
            name: ServerConnection(
                name,
                config,
                root=root,
                on_listing=on_listing,
                sign_in=self.sign_in,
                on_failure=on_failure,
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
        the reason it failed. Each start is bounded by its own timeout; a start that waits for
        the person to sign in goes on by itself, and its server maps to the line that says
        so (its tools come when they have signed in)."""
        chosen = [self.servers[n] for n in (names if names is not None else self.servers)]

        async def start_one(server: ServerConnection) -> str | None:
            start = server.starting()
            waiting = asyncio.ensure_future(server.waiting_for_person.wait())
            either: set[asyncio.Future[Any]] = {start, waiting}
            try:
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiting.cancel()
            if not start.done():
                return (
                    "is waiting for you to sign in (the page was shown); its tools come "
                    "once you have"
                )
            if start.cancelled():
                return "did not start: cancelled"
            failed = start.exception()
            return None if failed is None else f"did not start: {server.error or describe(failed)}"

        async def start_all() -> list[str | None]:
            return list(await asyncio.gather(*(start_one(s) for s in chosen)))

        outcomes = self._submit(start_all()).result()
        return {server.name: outcome for server, outcome in zip(chosen, outcomes, strict=True)}

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        within: float,
        progress: Callable[[str], None] | None = None,
        elicit: Elicit | None = None,
    ) -> types.CallToolResult:
        """``ServerConnection.call`` from any loop; cancelling the await cancels the call.
        ``progress`` gets the server's progress notifications and ``elicit`` its questions,
        both on the caller's loop."""
        connection = self.servers[server]
        caller = asyncio.get_running_loop()
        relay = None
        if progress is not None:

            def relay(message: str) -> None:
                caller.call_soon_threadsafe(progress, message)

        asking: Elicit | None = None
        if elicit is not None:
            ask = elicit

            async def asking(request: ElicitationRequest) -> ElicitationAnswer:
                async def there() -> ElicitationAnswer:
                    return await ask(request)

                return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(there(), caller))

        return await asyncio.wrap_future(
            self._submit(
                connection.call(tool, arguments, within=within, progress=relay, elicit=asking)
            )
        )

    async def request(
        self,
        server: str,
        method: Callable[[ClientSession], Coroutine[Any, Any, T]],
        *,
        within: float,
    ) -> T:
        """``ServerConnection.request`` from any loop."""
        connection = self.servers[server]
        return await asyncio.wrap_future(self._submit(connection.request(method, within=within)))

    def ready(self, server: str) -> None:
        """Wait until ``server`` has started (a start under way, a sign-in included, is waited
        for); ``ServerUnavailableError`` when it does not."""
        self._submit(self.servers[server].session()).result()

    def login(self, server: str) -> str:
        """Sign in to ``server`` again (see ``ServerConnection.login``); waits for it."""
        return self._submit(self.servers[server].login()).result()

    def logout(self, server: str) -> bool:
        return self._submit(self.servers[server].logout()).result()

    def signed_in(self, server: str) -> SignedIn | None:
        """What is kept of ``server``'s sign-in (``None``: it is not one Foehn signs in to)."""
        credentials = self.servers[server].credentials
        if credentials is None:
            return None
        return self._submit(credentials.state()).result()

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
