"""``foehn mcp``: Foehn's own tools for any MCP client, over stdio or streamable HTTP
(``mcp_server.http``).

Everything comes from the one builder (``sessions.builder``), so the tools are exactly Foehn's,
with the same confinement to the workspace, the same sandbox for programs, the same audit log
and the same checkpoints. Each call runs through the same chain as a call of the model's in a
Foehn turn (``agent.chain``; the output capped as the model's is), so an escape attempt is
refused with the very message Foehn itself gives.

A client's calls are turns of one Foehn session per connection (``Connection``: the process
over stdio, one MCP session over HTTP, so that clients of one HTTP server share nothing): each
call is a turn of its own, and calls that overlap in time (a client may send several at once)
share one. Each turn is saved as it ends, with the files it changed, so ``foehn undo`` puts
back what the client's last call changed (``foehn chat --session ID`` with ``/undo N``: every
call from turn N on); ``foehn sessions list`` shows the session as "tool calls from" the
client. "Allow for this session" holds for the whole connection, and so does what the client
was shown of files. What a tool says of its progress goes to the client as progress
notifications when its request asked for them.

What a client may do is the person's choice when starting the server: read-only tools by
default, write tools with ``--allow-writes``, destructive ones with ``--allow-destructive``.
A tool is listed only if its declared risk is allowed, and a call whose assessed risk is above
what was allowed (``run_command`` with ``rm``) is refused with a message naming the flag.
Within what is allowed, Foehn's approval policy decides; where it says ``ask``, the person is
asked through MCP elicitation if the client supports it, and otherwise the call is refused with
a message saying how to allow it.

The user's own MCP servers are not passed on: this server offers Foehn's tools only.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from foehn_lsp.config import Settings, user_config_file
from foehn_lsp.config.mcp import McpSettings
from foehn_lsp.events import ToolProgress, TurnEvent
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalRequest, Approved, Denied
from foehn_lsp.policy.guards import Guards
from foehn_lsp.policy.remember import RememberedScope
from foehn_lsp.providers.messages import ToolCall
from foehn_lsp.providers.nomodel import NoModel
from foehn_lsp.risk import RiskLevel
from foehn_lsp.sessions.builder import FrontEnd, build_session, load_tools
from foehn_lsp.sessions.session import CallsTurn, Session
from foehn_lsp.sessions.store import SessionBusy
from foehn_lsp.tools.contract import Tool, ToolResult
from foehn_lsp.tools.discovery import LoadedTools
from foehn_lsp.tools.registry import Handler, Invocation, ToolRegistry
from foehn_lsp.workspace import ReadLedger, Workspace
from foehn_lsp.workspace.trust import waiting, waiting_summary

log = logging.getLogger(__name__)

FLAGS = {RiskLevel.WRITE: "--allow-writes", RiskLevel.DESTRUCTIVE: "--allow-destructive"}
ASK_OPTIONS = ("allow once", "allow for this session", "deny")
IDLE_SECONDS = 30 * 60.0
"""How long an HTTP session's connection is kept without a request (the SDK ends the session
after as long)."""
_request: contextvars.ContextVar[ServerRequestContext[Any]] = contextvars.ContextVar("request")


def hints_for(tool: Tool, allowed: RiskLevel) -> types.ToolAnnotations:
    """MCP's hints from the tool's risk. A tool whose risk is assessed per call (``run_command``)
    is described by the most this server will let it do."""
    risk = tool.risk if tool.assess is None else allowed
    return types.ToolAnnotations(
        read_only_hint=risk is RiskLevel.READ_ONLY,
        destructive_hint=risk >= RiskLevel.DESTRUCTIVE,
        idempotent_hint=risk is RiskLevel.READ_ONLY,
        # Confined to the workspace; programs reach only the domains the person granted.
        open_world_hint=tool.open_world,
    )


class ElicitingApprover:
    """Asks the person through the client's elicitation, if it has it (and the connection can
    carry a question: a stateless HTTP server's cannot)."""

    def __init__(self, *, can_ask: bool = True) -> None:
        self.can_ask = can_ask

    def _client_asks(self) -> bool:
        capabilities = _request.get().session.client_capabilities
        return self.can_ask and capabilities is not None and capabilities.elicitation is not None

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        ctx = _request.get()
        if not self._client_asks():
            setting = f"approval.{request.risk.replace('read_only', 'readOnly')}"
            return Denied(
                reason=f"policy asks before {request.risk} calls and this MCP client cannot "
                "ask the person (it does not support elicitation); to allow such calls without "
                f'asking, set {setting} = "allow" in Foehn\'s config.toml',
                asked=False,
            )
        message = f"Foehn: allow {request.describe()}?"
        if request.preview:
            message += f"\n\n{request.preview[:4000]}"
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {
                "decision": {"type": "string", "title": "Decision", "enum": list(ASK_OPTIONS)}
            },
            "required": ["decision"],
        }
        try:
            with anyio.fail_after(600):
                answer = await ctx.session.elicit_form(
                    message, schema, related_request_id=ctx.request_id
                )
        except TimeoutError:
            return Denied(reason="no answer within 10 minutes")
        decision = (answer.content or {}).get("decision") if answer.action == "accept" else None
        if decision == "allow once":
            return Approved(scope="once")
        if decision == "allow for this session":
            return Approved(scope="run")
        return Denied(reason=f"the person answered {answer.action}: {decision or 'no decision'}")


@dataclass(frozen=True, kw_only=True)
class _Limit:
    """Refuses calls above the risk the server was started for."""

    allowed: RiskLevel

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        if invocation.risk <= self.allowed:
            return await next_step(invocation)
        flag = FLAGS[
            RiskLevel.DESTRUCTIVE if invocation.risk > RiskLevel.WRITE else RiskLevel.WRITE
        ]
        return ToolResult.failure(
            f"{invocation.tool.name} was not run: this is a {invocation.risk.value} call and "
            f"this foehn mcp server allows {self.allowed.value} calls only. The person can "
            f"allow it by starting the server with {flag}."
        )


ProgressSender = Callable[[str], Coroutine[Any, Any, None]]


@dataclass(eq=False)
class Connection:
    """One client's connection: its Foehn session, its turn under way, what it was shown and
    what "allow for this session" remembers."""

    front: FrontEnd
    shown: ReadLedger = field(default_factory=ReadLedger)
    """What the client was shown of files: a file read in one call may be edited in the next."""
    session_id: str | None = None
    """The connection's session, once its first call made it."""
    turn: tuple[Session, CallsTurn] | None = None
    running: int = 0
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    progress: dict[str, ProgressSender] = field(default_factory=dict)
    """The calls under way whose requests asked for progress, by call id."""
    used: float = field(default_factory=time.monotonic)

    def emit(self, event: TurnEvent) -> None:
        """A client sees each call's result, not the turn's events (the session records them);
        only a call's progress goes to it, as progress notifications."""
        if isinstance(event, ToolProgress) and (send := self.progress.get(event.id)):
            asyncio.get_running_loop().create_task(send(event.message))


class FoehnMcpServer:
    """The tools of one workspace, and how calls to them run: as turns of one session per
    connection."""

    def __init__(
        self, settings: Settings, root: Path, *, allowed: RiskLevel, stateless: bool = False
    ) -> None:
        own = settings.model_copy(update={"mcp": McpSettings()})
        found = load_tools(own, root)
        for problem in found.problems:
            log.warning("plugin skipped: %s", problem)
        if settings.trust_workspace and (items := waiting(root)):
            log.warning(
                "%s; approve them with: foehn trust --workspace %s", waiting_summary(items), root
            )
        self.allowed = allowed
        self.withheld = {t.name: t.risk for t in found.registry if t.risk > allowed}
        """Foehn's tools not offered for their risk, so a call to one can name the flag."""
        self.registry = ToolRegistry(
            (t for t in found.registry if t.risk <= allowed),
            default_timeout=settings.tool_timeout_seconds,
        )
        self.settings = settings
        self.workspace = Workspace([root])
        self.approver = ElicitingApprover(can_ask=not stateless)
        self.guards = Guards(
            user_config_file(), self.workspace.root, trusted=settings.trust_workspace
        )
        self.stateless = stateless
        self._ids = itertools.count(1)
        self._connections: dict[str, Connection] = {}
        self._shared: Connection | None = None

    def connection(self, session_id: str | None) -> Connection:
        """The connection a request came on: that of its MCP session (``Mcp-Session-Id``), or
        (stdio, a stateless HTTP server) the one of the whole server. Connections idle for
        longer than ``IDLE_SECONDS`` are forgotten (their sessions and turns are saved)."""
        if self.stateless or session_id is None:
            if self._shared is None:
                self._shared = self._new_connection()
            return self._shared
        now = time.monotonic()
        for stale in [
            key
            for key, known in self._connections.items()
            if now - known.used > IDLE_SECONDS and not known.running
        ]:
            del self._connections[stale]
        found = self._connections.get(session_id)
        if found is None:
            found = self._connections[session_id] = self._new_connection()
        found.used = now
        return found

    def _new_connection(self) -> Connection:
        remembered: set[RememberedScope] = set()  # "for this session": the whole connection
        front = FrontEnd(
            name="mcp",
            approver=self.approver,
            checks=(_Limit(allowed=self.allowed),),
            remembered=remembered,
        )
        return Connection(front=front)

    def list_tools(self) -> list[types.Tool]:
        return [
            types.Tool(
                name=tool.name,
                description=tool.description,
                input_schema=dict(tool.parameters),
                annotations=hints_for(tool, self.allowed),
            )
            for tool in self.registry
        ]

    async def call(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        *,
        client: str = "an MCP client",
        connection: Connection | None = None,
        progress: ProgressSender | None = None,
    ) -> types.CallToolResult:
        """Run one call as (part of) a turn of the connection's session."""
        connection = connection or self.connection(None)
        if name in self.withheld:
            risk = self.withheld[name]
            flag = FLAGS[RiskLevel.DESTRUCTIVE if risk > RiskLevel.WRITE else RiskLevel.WRITE]
            return _failed(
                f"{name} is not offered: it makes {risk.value} calls and this foehn mcp server "
                f"allows {self.allowed.value} calls only. The person can offer it by starting "
                f"the server with {flag}."
            )
        call = ToolCall(
            id=f"mcp-{next(self._ids)}", name=name, arguments=json.dumps(arguments or {})
        )
        try:
            turn = await self._join(connection, client)
        except SessionBusy as exc:  # ``foehn undo`` (or a chat) holds the session right now
            return _failed(f"{name} was not run: {exc}")
        if progress is not None:
            connection.progress[call.id] = progress
        try:
            result = await turn.call(call)
        finally:
            connection.progress.pop(call.id, None)
            with anyio.CancelScope(shield=True):  # the turn is saved even if the call is not
                await self._leave(connection)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.content)],
            is_error=result.is_error,
        )

    async def _join(self, connection: Connection, client: str) -> CallsTurn:
        """The connection's turn running now, or a new one."""
        async with connection.lock:
            if connection.turn is None:
                connection.turn = await anyio.to_thread.run_sync(self._begin, connection, client)
            connection.running += 1
            return connection.turn[1]

    def _begin(self, connection: Connection, client: str) -> tuple[Session, CallsTurn]:
        # The session is read afresh for each turn: ``foehn undo`` may have added one since.
        session = build_session(
            self.settings,
            self.workspace,
            connection.front,
            session_id=connection.session_id,
            provider=NoModel("foehn mcp asks no model"),
            tools=LoadedTools(registry=self.registry),
            guards=self.guards,
        )
        connection.session_id = session.id
        return session, session.calls_from(client, emit=connection.emit, shown=connection.shown)

    async def _leave(self, connection: Connection) -> None:
        """One call less; the last one out saves the turn."""
        async with connection.lock:
            connection.running -= 1
            if connection.running or connection.turn is None:
                return
            (session, turn), connection.turn = connection.turn, None
            try:
                await anyio.to_thread.run_sync(turn.end)
            finally:
                await session.aclose()


def _failed(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def create_server(foehn: FoehnMcpServer) -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=foehn.list_tools())

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        token = _request.set(ctx)
        client = ctx.session.client_params
        who = client.client_info.name if client is not None else "an MCP client"
        try:
            return await foehn.call(
                params.name,
                params.arguments,
                client=who,
                connection=foehn.connection(_session_id(ctx)),
                progress=_progress_to(ctx, params),
            )
        finally:
            _request.reset(token)

    return Server(
        "foehn",
        version="0.1.0",
        instructions=(
            f"Foehn's tools for the workspace {foehn.workspace.root.name}: paths are relative "
            "to it and nothing outside it can be read or changed."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _session_id(ctx: ServerRequestContext[Any]) -> str | None:
    """The MCP session an HTTP request belongs to; ``None`` over stdio."""
    headers = getattr(ctx.request, "headers", None)
    found = headers.get("mcp-session-id") if headers is not None else None
    return found if isinstance(found, str) else None


def _progress_to(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> ProgressSender | None:
    """How a call's progress reaches the client: notifications with the request's
    ``progressToken``, if it gave one."""
    token = (params.meta or {}).get("progress_token")
    if token is None:
        return None
    steps = itertools.count(1)

    async def send(message: str) -> None:
        await ctx.session.send_progress_notification(
            token, float(next(steps)), message=message, related_request_id=str(ctx.request_id)
        )

    return send


def serve(settings: Settings, root: Path, *, allowed: RiskLevel) -> None:
    """Serve over stdio until the client closes the connection."""
    server = create_server(FoehnMcpServer(settings, root, allowed=allowed))

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
