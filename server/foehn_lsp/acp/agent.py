"""``foehn acp``'s agent: the ACP methods over Foehn's sessions.

Each handler converts parameters (``acp/convert.py``), calls the session the builder made, and
converts back; nothing here assembles a provider, a registry or an audit log. One ACP session
is one Foehn session: ``session/new`` builds it in ``cwd`` (the workspace root, confined like
everywhere else), ``session/load`` resumes a saved one and replays its history, and
``session/prompt`` runs one turn. A turn runs in its own task, so a cancelled request or a
client that goes away ends the turn the ordinary way (``cancelled``) and the session is saved.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any, Literal

from acp import schema
from acp.exceptions import RequestError
from acp.helpers import update_agent_message_text
from acp.interfaces import Client

from foehn_lsp.acp import convert
from foehn_lsp.acp.elicit import AcpSignIn
from foehn_lsp.acp.files import ClientFiles
from foehn_lsp.acp.permissions import DEFAULT_TIMEOUT, ClientApprover
from foehn_lsp.acp.trust import review_waiting
from foehn_lsp.acp.updates import UpdateStream
from foehn_lsp.agent.loop import TurnOutcome
from foehn_lsp.config import (
    Settings,
    load_settings,
)
from foehn_lsp.errors import CommandError, ConfigError, FoehnError, MissingApiKeyError
from foehn_lsp.events import ToolCallEvent, ToolResultEvent, TurnEvent
from foehn_lsp.providers.status import provider_status
from foehn_lsp.sessions.builder import FrontEnd, build_session, load_tools
from foehn_lsp.sessions.commands import CustomCommands, load_commands
from foehn_lsp.sessions.session import Session
from foehn_lsp.sessions.store import SessionBusy, SessionNotFound, SessionStore
from foehn_lsp.tools.discovery import ServerCommand
from foehn_lsp.tools.plans import FilePreview
from foehn_lsp.workspace import Workspace

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
"""The one ACP version Foehn speaks; a client asking for any other gets this one (the
protocol's negotiation: the client then decides whether it can go on)."""

SHUTDOWN_GRACE = 10.0
"""Seconds a turn gets to end after its client went away, so the session is saved whole."""

LIST_PAGE = 50
"""Sessions per ``session/list`` page."""

Mode = Literal["ask", "read-only", "plan"]
MODES: tuple[schema.SessionMode, ...] = (
    schema.SessionMode(
        id="ask",
        name="Ask before changes",
        description="Foehn's approval policy: reads run, writes and programs ask first.",
    ),
    schema.SessionMode(
        id="read-only",
        name="Read-only",
        description="Every call that could change something is refused without asking.",
    ),
    schema.SessionMode(
        id="plan",
        name="Plan first",
        description="Each prompt is planned with read-only tools; once you approve the plan, "
        "the same turn carries it out (asking before changes as usual).",
    ),
)
MODE_IDS: tuple[Mode, ...] = ("ask", "read-only", "plan")


MODE_OPTION = "mode"
"""The id of the session config option that mirrors the session modes, for clients that read
only ``configOptions``."""


def _mode(value: object, field_name: str) -> Mode:
    """``value`` as a mode; InvalidParams naming ``field_name`` otherwise."""
    chosen = next((mode for mode in MODE_IDS if mode == value), None)
    if chosen is None:
        raise invalid(field_name, f"unknown mode {value!r}; one of: {', '.join(MODE_IDS)}")
    return chosen


def invalid(field_name: str, message: str) -> RequestError:
    """InvalidParams naming the field."""
    return RequestError(-32602, f"Invalid params: {field_name}: {message}", {"field": field_name})


def with_client_servers(settings: Settings, servers: list[Any]) -> tuple[Settings, list[str]]:
    """``settings`` with the MCP servers the client passed added to the person's own, and a
    note for each one left out. The client starts Foehn and chooses its environment, so its
    servers are trusted like the person's config; on a name both use, the config wins."""
    configs, notes = convert.mcp_servers(servers)
    for name in [n for n in configs if n in settings.mcp.servers]:
        notes.append(f"MCP server {name}: your Foehn config has a server of that name; it wins")
        del configs[name]
    if not configs:
        return settings, notes
    servers_now = {**settings.mcp.servers, **configs}
    mcp = settings.mcp.model_copy(update={"servers": servers_now})
    return settings.model_copy(update={"mcp": mcp}), notes


def _mcp_problems(session: Session, settings: Settings) -> list[str]:
    """Servers that did not start (or whose tools were left out), in words."""
    catalogue = session.tools.servers
    if catalogue is None:
        if settings.mcp.servers:
            return ["MCP servers are configured but this session's tools do not include them"]
        return []
    return [str(problem) for problem in catalogue.problems]


@dataclass(eq=False, kw_only=True)
class LiveSession:
    """One ACP session on this connection."""

    session: Session
    workspace: Workspace
    updates: UpdateStream
    approver: ClientApprover
    files: ClientFiles
    settings: Settings
    """The settings the session was built with (its 'ask' mode)."""
    mode: Mode = "ask"
    stop: asyncio.Event | None = None
    """Set while a turn runs; setting it ends the turn with ``cancelled``."""
    turn: asyncio.Task[TurnOutcome] | None = None
    notes: list[str] = field(default_factory=list)
    """What the person should hear before the next turn (an MCP server that did not start)."""
    commands_sent: bool = False
    """Whether the client has heard the slash commands (sent once, with the first prompt or
    the load, when the client surely knows the session)."""
    unfinished: dict[str, None] = field(default_factory=dict)
    """Calls of the running turn announced and not yet finished, in order."""
    commands: CustomCommands = field(default_factory=CustomCommands)
    """The person's custom commands (``/NAME``), offered with Foehn's own."""
    trust_reviewed: bool = False
    """Whether the workspace's files that wait for approval were put to the person (once,
    before the first turn)."""

    def prompts(self) -> Sequence[ServerCommand]:
        """The MCP servers' prompts, offered as commands."""
        servers = self.session.tools.servers
        return servers.prompt_commands() if servers is not None else ()

    def emit(self, event: TurnEvent) -> None:
        applied: tuple[FilePreview, ...] = ()
        if isinstance(event, ToolCallEvent):
            self.unfinished[event.id] = None
        elif isinstance(event, ToolResultEvent):
            self.unfinished.pop(event.id, None)
            applied = self.files.take_applied(event.tool)
        for update in convert.event_updates(event, self.workspace, applied):
            self.updates.put(update)

    def close_unfinished(self, why: str) -> None:
        """Tell the client the calls the turn left behind will not finish."""
        for call_id in self.unfinished:
            self.updates.put(convert.tool_call_abandoned(call_id, why))
        self.unfinished.clear()


class FoehnAgent:
    """Implements ``acp.interfaces.Agent`` (the SDK routes requests to these methods)."""

    def __init__(
        self,
        *,
        settings: Callable[[], Settings] = load_settings,
        permission_timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.load_settings = settings
        self.permission_timeout = permission_timeout
        self.client: Client | None = None
        self.capabilities = schema.ClientCapabilities()
        self.sessions: dict[str, LiveSession] = {}

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: schema.ClientCapabilities | None = None,
        client_info: schema.Implementation | None = None,
        **kwargs: Any,
    ) -> schema.InitializeResponse:
        self.capabilities = client_capabilities or schema.ClientCapabilities()
        if client_info is not None:
            log.info("client %s %s", client_info.name, client_info.version)
        if protocol_version != PROTOCOL_VERSION:
            log.info(
                "the client asked for ACP %s; Foehn speaks %s", protocol_version, PROTOCOL_VERSION
            )
        return schema.InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                mcp_capabilities=schema.McpCapabilities(http=True, sse=False),
                session_capabilities=schema.SessionCapabilities(
                    list=schema.SessionListCapabilities()
                ),
                prompt_capabilities=schema.PromptCapabilities(
                    image=False, audio=False, embedded_context=True
                ),
            ),
            auth_methods=self._auth_methods(),
            agent_info=schema.Implementation(
                name="foehn", title="Foehn", version=version("foehn-lsp")
            ),
        )

    def _auth_methods(self) -> list[Any]:
        """An environment-variable method when the provider's key is missing, else none."""
        variable = self._missing_key()
        if variable is None:
            return []
        return [
            schema.EnvVarAuthMethod(
                type="env_var",
                id="api-key",
                name="API key",
                description=(
                    f"Set {variable} (or FOEHN_API_KEY) in the environment Foehn is started "
                    "with, or api_key in Foehn's config.toml"
                ),
                vars=[schema.AuthEnvVar(name=variable, label="API key")],
            )
        ]

    def _missing_key(self) -> str | None:
        """The variable to set when the configured hosted provider has no key (the rule of
        ``providers.status``)."""
        try:
            settings = self.load_settings()
        except ConfigError:
            return None  # session/new reports the configuration problem itself
        return provider_status(settings).missing_key

    async def authenticate(self, method_id: str, **kwargs: Any) -> schema.AuthenticateResponse:
        if method_id != "api-key":
            raise invalid("methodId", f"unknown authentication method {method_id!r}")
        if variable := self._missing_key():
            raise RequestError.auth_required(
                {"details": f"{variable} is still not set for the Foehn agent process"}
            )
        return schema.AuthenticateResponse()

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> schema.NewSessionResponse:
        live = await self._open(cwd, mcp_servers, resume=None)
        return schema.NewSessionResponse(
            session_id=live.session.id,
            modes=self._modes(live),
            config_options=self._config_options(live),
            field_meta=self._meta(live),
        )

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> schema.LoadSessionResponse:
        live = self.sessions.get(session_id)
        if live is None:
            live = await self._open(cwd, mcp_servers, resume=session_id)
        elif live.turn is not None:
            raise self._busy(session_id)
        kinds = {tool.name: tool.kind for tool in live.session.tools.registry}
        for update in convert.history_updates(
            live.session.messages, live.workspace, live.session.turns, kinds
        ):
            live.updates.put(update)
        if live.session.todo:
            items = live.session.todo
            live.updates.put(
                convert.plan_update([(i.text, convert.PLAN_STATUS[i.status]) for i in items])
            )
        live.updates.put(convert.available_commands(live.commands, live.prompts()))
        live.commands_sent = True
        await live.updates.flush()
        return schema.LoadSessionResponse(
            modes=self._modes(live),
            config_options=self._config_options(live),
            field_meta=self._meta(live),
        )

    async def _open(
        self, cwd: str, mcp_servers: list[Any] | None, resume: str | None
    ) -> LiveSession:
        root = Path(cwd)
        if not root.is_absolute():
            raise invalid("cwd", f"must be an absolute path, got {cwd!r}")
        if not await asyncio.to_thread(root.is_dir):
            raise invalid("cwd", f"{cwd!r} is not a folder")
        workspace = Workspace([root])
        if workspace.root == Path(workspace.root.anchor):
            raise invalid("cwd", "is the root of the file system; open a project folder")
        try:
            settings = self.load_settings()
        except ConfigError as exc:
            raise RequestError(-32603, str(exc)) from None
        settings, notes = with_client_servers(settings, mcp_servers or [])
        assert self.client is not None, "the SDK connects before it routes requests"
        fs = self.capabilities.fs or schema.FileSystemCapabilities()
        # The session id is known once the builder made the session; nothing is sent before.
        updates = UpdateStream(self.client, "")
        files = ClientFiles(
            self.client,
            "",
            workspace,
            read=bool(fs.read_text_file),
            write=bool(fs.write_text_file),
        )
        approver = ClientApprover(
            self.client,
            "",
            workspace,
            before_asking=updates.flush,
            timeout=self.permission_timeout,
            elicitation=self.capabilities.elicitation,
        )
        signing = AcpSignIn(self.client, self.capabilities.elicitation, asyncio.get_running_loop())
        front = FrontEnd(
            name="acp",
            approver=approver,
            applier=files,
            buffers=files.text,
            sign_in=signing.sign_in(),
        )
        try:
            # Plugin discovery and provider set-up touch the disk; the loop stays free for
            # other requests (and for cancelling) meanwhile.
            session = await asyncio.to_thread(
                build_session, settings, workspace, front, session_id=resume
            )
        except SessionNotFound as exc:
            await updates.close()
            raise invalid("sessionId", str(exc)) from None
        except MissingApiKeyError as exc:
            await updates.close()
            raise RequestError.auth_required({"details": str(exc)}) from None
        except FoehnError as exc:
            await updates.close()
            raise RequestError(-32603, str(exc)) from None
        updates.session_id = files.session_id = approver.session_id = session.id
        signing.bind(session.id, updates)
        commands = await asyncio.to_thread(
            load_commands,
            workspace.root,
            trusted=settings.trust_workspace,
            built_in=convert.BUILT_IN,
        )
        live = LiveSession(
            session=session,
            commands=commands,
            workspace=workspace,
            updates=updates,
            approver=approver,
            files=files,
            settings=settings,
            notes=[*notes, *_mcp_problems(session, settings), *commands.problems],
        )
        for note in live.notes:
            log.warning("session %s: %s", session.id, note)
        self.sessions[session.id] = live
        return live

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> schema.ListSessionsResponse:
        """The workspace's saved sessions, most recent first, a page at a time; a session
        nobody said anything in (no turn, no title) is not one to go back to, and is left out."""
        if cwd is None:
            raise invalid("cwd", "Foehn keeps sessions per workspace; name the workspace")
        root = Path(cwd)
        if not root.is_absolute() or not await asyncio.to_thread(root.is_dir):
            raise invalid("cwd", f"{cwd!r} is not an absolute path to a folder")
        start = int(cursor) if cursor and cursor.isdigit() else 0
        root = Workspace([root]).root
        summaries = [
            s for s in await asyncio.to_thread(SessionStore(root).list) if s.turns or s.title
        ]
        page = summaries[start : start + LIST_PAGE]
        more = start + LIST_PAGE < len(summaries)
        return schema.ListSessionsResponse(
            sessions=[convert.session_info(s, root) for s in page],
            next_cursor=str(start + LIST_PAGE) if more else None,
        )

    def _modes(self, live: LiveSession) -> schema.SessionModeState:
        return schema.SessionModeState(current_mode_id=live.mode, available_modes=list(MODES))

    def _config_options(self, live: LiveSession) -> list[schema.SessionConfigOptionSelect]:
        """The modes again as a ``select`` config option: one state, two ways to reach it."""
        return [
            schema.SessionConfigOptionSelect(
                type="select",
                id=MODE_OPTION,
                name="Mode",
                description="How Foehn asks before a call that could change something",
                category="mode",
                current_value=live.mode,
                options=[
                    schema.SessionConfigSelectOption(
                        value=mode.id, name=mode.name, description=mode.description
                    )
                    for mode in MODES
                ],
            )
        ]

    def _meta(self, live: LiveSession) -> dict[str, Any] | None:
        """What the client should know about the session's MCP servers (``_meta``)."""
        return {"foehn": {"notes": list(live.notes)}} if live.notes else None

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> schema.SetSessionModeResponse:
        live = self._live(session_id)
        self._set_mode(live, _mode(mode_id, "modeId"))
        live.updates.put(
            schema.ConfigOptionUpdate(
                session_update="config_option_update", config_options=self._config_options(live)
            )
        )
        await live.updates.flush()
        return schema.SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> schema.SetSessionConfigOptionResponse:
        """The one config option, ``mode``; the new mode is also told as a
        ``current_mode_update`` for clients that follow the modes."""
        live = self._live(session_id)
        if config_id != MODE_OPTION:
            raise invalid("configId", f"unknown config option {config_id!r}; one of: mode")
        self._set_mode(live, _mode(value, "value"))
        live.updates.put(
            schema.CurrentModeUpdate(
                session_update="current_mode_update", current_mode_id=live.mode
            )
        )
        await live.updates.flush()
        return schema.SetSessionConfigOptionResponse(config_options=self._config_options(live))

    def _set_mode(self, live: LiveSession, mode: Mode) -> None:
        live.mode = mode
        live.approver.read_only = live.mode == "read-only"
        approval = live.settings.approval
        if live.mode == "read-only":
            approval = approval.refusing_changes()
        # A running turn keeps the mode it started with, the next one uses the new one.
        live.session.set_approval(approval)

    async def prompt(
        self, session_id: str, prompt: list[Any], **kwargs: Any
    ) -> schema.PromptResponse:
        live = self._live(session_id)
        if live.turn is not None:
            raise self._busy(session_id)
        try:
            asked = convert.prompt_input(prompt, live.workspace)
        except convert.UnsupportedContent as exc:
            raise invalid("prompt", str(exc)) from None
        if not asked.text and not asked.context:
            raise invalid("prompt", "is empty; send at least one text block")
        try:
            command = convert.slash_command(asked.text)
        except convert.UnsupportedContent as exc:
            raise invalid("prompt", str(exc)) from None
        if command is not None:
            return await self._command(live, command)
        if live.settings.trust_workspace and not live.trust_reviewed:
            await self._review_trust(live)
        task = live.commands.expand(asked.text)
        servers = live.session.tools.servers
        if task is None and servers is not None:
            try:
                task = await servers.expand(asked.text)  # an MCP prompt's command
            except CommandError as exc:
                raise invalid("prompt", str(exc)) from None
        task = task or asked.text
        if not live.commands_sent:
            live.updates.put(convert.available_commands(live.commands, live.prompts()))
            live.commands_sent = True
        for note in live.notes:
            live.updates.put(update_agent_message_text(f"[Foehn] {note}\n\n"))
        live.notes.clear()
        stop = asyncio.Event()
        live.stop = stop
        live.turn = asyncio.create_task(
            live.session.prompt(
                task,
                context=asked.context,
                emit=live.emit,
                stop=stop,
                mode="plan" if live.mode == "plan" else "act",
            )
        )
        try:
            outcome = await asyncio.shield(live.turn)
        except asyncio.CancelledError:
            # The request itself was cancelled: the client went away, or the connection is
            # closing. End the turn the ordinary way so the session is saved, then go.
            stop.set()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                async with asyncio.timeout(SHUTDOWN_GRACE):
                    await asyncio.shield(live.turn)
            raise
        except SessionBusy:
            raise self._busy(session_id) from None
        finally:
            live.turn = None
            live.stop = None
            live.close_unfinished("not finished: the turn was stopped")
        if why := convert.stop_note(outcome.reason, outcome.answer):
            live.updates.put(update_agent_message_text(why))
        await live.updates.flush()
        if outcome.reason == "error":
            raise RequestError(-32603, outcome.answer, {"stopReason": "error"})
        return schema.PromptResponse(stop_reason=convert.stop_reason(outcome.reason))

    async def _review_trust(self, live: LiveSession) -> None:
        """Put the workspace's waiting files to the person; with any approved, the session's
        tools and commands are loaded again so this turn uses them."""
        live.trust_reviewed = True
        assert self.client is not None
        await live.updates.flush()
        approved, notes = await review_waiting(
            self.client, live.session.id, live.workspace.root, within=self.permission_timeout
        )
        live.notes += notes
        if not approved:
            return
        old = live.session.tools
        found = await asyncio.to_thread(load_tools, live.settings, live.workspace.root)
        toolbox = dataclasses.replace(live.session.parts.toolbox, tools=found)
        live.session.parts = dataclasses.replace(live.session.parts, toolbox=toolbox)
        if old.servers is not None:
            await asyncio.to_thread(old.servers.close)
        live.commands = await asyncio.to_thread(
            load_commands, live.workspace.root, trusted=True, built_in=convert.BUILT_IN
        )
        live.updates.put(convert.available_commands(live.commands, live.prompts()))

    async def _command(self, live: LiveSession, command: convert.Command) -> schema.PromptResponse:
        """``/undo``, ``/redo`` and ``/compact``: answered in words, as a turn that ends at
        once."""
        try:
            if command.name == "undo":
                report = await live.session.undo(to_turn=command.turn)
                said = convert.undo_message(report)
            elif command.name == "redo":
                said = convert.undo_message(await live.session.redo(), redo=True)
            else:
                meter = await live.session.compact()
                done = live.session.compacted
                said = (
                    f"Compacted {done.before_tokens:,} tokens to {done.after_tokens:,}; "
                    f"{meter.describe()}."
                    if done is not None
                    else f"Nothing to compact yet; {meter.describe()}."
                )
        except SessionBusy:
            raise self._busy(live.session.id) from None
        live.updates.put(update_agent_message_text(said))
        await live.updates.flush()
        return schema.PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        live = self.sessions.get(session_id)
        if live is None:
            log.info("session/cancel for unknown session %s", session_id)
            return
        if live.stop is not None:
            live.stop.set()

    def _live(self, session_id: str) -> LiveSession:
        live = self.sessions.get(session_id)
        if live is None:
            raise invalid(
                "sessionId",
                f"unknown session {session_id!r}; create one with session/new or resume it "
                "with session/load",
            )
        return live

    def _busy(self, session_id: str) -> RequestError:
        return RequestError(
            -32600,
            f"session {session_id} is busy: a turn is running; wait for it or send session/cancel",
            {"sessionId": session_id},
        )

    async def shutdown(self) -> None:
        """Stop every running turn and wait (briefly) for each to be saved."""
        turns = []
        for live in self.sessions.values():
            if live.stop is not None:
                live.stop.set()
            if live.turn is not None:
                turns.append(live.turn)
        if turns:
            await asyncio.wait(turns, timeout=SHUTDOWN_GRACE)
        for live in self.sessions.values():
            await live.updates.close()
            await live.session.aclose()
            if (servers := live.session.tools.servers) is not None:
                await asyncio.to_thread(servers.close)
