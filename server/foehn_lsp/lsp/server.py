"""The language server object: pygls's server with Foehn's state. Settings, plugins and
providers are loaded after ``initialize`` has been answered, so that the editor gets its answer
as fast as an empty pygls server would give it."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.lsp.server import LanguageServer

import foehn_lsp
from foehn_lsp.errors import NoWorkspaceError
from foehn_lsp.lsp import convert
from foehn_lsp.lsp.running import RunningTurns
from foehn_lsp.lsp.wire import answers, client
from foehn_lsp.lsp.wire.protocol import FoehnProtocol, raw_converter

if TYPE_CHECKING:
    from foehn_lsp.config import ApprovalSettings, Settings
    from foehn_lsp.mcp.consent import SignIn
    from foehn_lsp.providers import Provider
    from foehn_lsp.sessions.builder import ProviderCache
    from foehn_lsp.tools.discovery import LoadedTools
    from foehn_lsp.workspace import Workspace

log = logging.getLogger(__name__)

RESTRICTED = "Restricted Mode: only read-only tools run; trust the folder to allow changes"
"""Why a call that could change something is refused while the editor does not trust the
workspace: the card and the model both read it."""


class FoehnServer(LanguageServer):
    protocol: FoehnProtocol

    def __init__(self, sign_in: Callable[[FoehnServer], SignIn]) -> None:
        super().__init__(
            "foehn",
            foehn_lsp.__version__,
            protocol_cls=FoehnProtocol,
            converter_factory=raw_converter,
        )
        self.init_options: dict[str, Any] = {}
        self.editor_settings: dict[str, Any] = {}
        self._settings: Settings | None = None
        self.settings_error: str | None = None
        self.tools: LoadedTools | None = None
        self.timeouts = client.ClientTimeouts()
        self.running = RunningTurns()
        self.protocol.on_cancel = self.running.cancel_request
        self._known: asyncio.Future[None] | None = None
        self._configured: asyncio.Future[None] | None = None
        self._providers: ProviderCache | None = None
        self.main_loop: asyncio.AbstractEventLoop | None = None
        """The loop the server runs on, once it has started (the MCP servers' loop, in
        another thread, reaches the editor through it)."""
        self.sign_in = sign_in
        """How the person signs in to an MCP server from this editor (``lsp.mcp_sign_in``,
        given by ``create_server``)."""
        self.trust_told: tuple[tuple[str, str | None], ...] = ()
        """The waiting workspace files the person was last told about (``lsp.trust``)."""

    def serve_stdio(self) -> int:
        """Serve over stdin/stdout; returns the exit status (see ``lsp/wire/transport.py``)."""
        from foehn_lsp.lsp.wire.transport import serve_stdio

        try:
            return serve_stdio(self.protocol)
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    def serve_tcp(self, host: str, port: int) -> int:
        """Serve one client over TCP (debugging), through the same transport."""
        from foehn_lsp.lsp.wire.transport import serve_tcp

        try:
            return serve_tcp(self.protocol, host, port)
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from foehn_lsp.config import Settings

            self._settings = Settings()
        return self._settings

    async def known(self) -> None:
        """Start-up, once: the settings known without the editor's answer (initialization
        options, the user's config file, defaults), the plugins, and the warning on stderr
        when programs cannot be sandboxed; what a run starts on. The pull of the editor's
        settings starts here and goes on in the background (``ready``)."""
        self._start_configuring()
        assert self._known is not None
        await asyncio.shield(self._known)  # a cancelled turn must not cancel it

    async def ready(self) -> None:
        """``known``, then the first pull of the editor's settings (bounded by its timeout)
        applied. Later requests find it done and never wait."""
        self._start_configuring()
        assert self._configured is not None
        await asyncio.shield(self._configured)

    @property
    def settled(self) -> bool:
        """The first pull of the editor's settings has been answered or given up."""
        return self._configured is not None and self._configured.done()

    async def settled_policy(self) -> ApprovalSettings:
        """The approval policy once the first pull has been answered or given up: what a run
        that started on the known settings decides its calls with (a stricter policy may be
        on its way; a call must not run under a looser one than the person set)."""
        await self.ready()
        return self.settings.approval

    def _start_configuring(self) -> None:
        self.main_loop = asyncio.get_running_loop()
        if self._known is None:
            self._known = asyncio.ensure_future(self._start_up())
            self._configured = asyncio.ensure_future(self._configure(self._known))

    async def _start_up(self) -> None:
        from foehn_lsp.sandbox import startup_warning

        await asyncio.to_thread(self.reload_settings)
        # ``foehn`` prints this before other commands run; the server once ``initialize`` is
        # answered (finding the sandbox would double the time to that answer), and before
        # answering anything that waits for start-up.
        if warning := await asyncio.to_thread(startup_warning):
            print(f"foehn: {warning}", file=sys.stderr)

    async def _configure(self, known: asyncio.Future[None]) -> None:
        await known
        if await self.pull_settings():
            await asyncio.to_thread(self.reload_settings)

    async def pull_settings(self) -> bool:
        """Ask the editor for the ``foehn`` section, once (at start and per change); whether
        it answered with settings to merge."""
        workspace = self.client_capabilities.workspace
        if not (workspace and workspace.configuration):
            return False
        reply = await client.request(
            self.protocol,
            "workspace/configuration",
            convert.configuration_request(),
            self.timeouts.configuration,
        )
        if isinstance(reply, client.NoAnswer):
            log.warning("workspace/configuration: %s; the settings stay as they were", reply.reason)
            return False
        entries = answers.configuration(reply.value, 1)
        if isinstance(entries, str):
            log.warning("workspace/configuration: %s; the settings stay as they were", entries)
            self.window_log_message(convert.log(f"Foehn ignored its settings: {entries}", True))
            return False
        if entries[0] is None:
            return False
        self.editor_settings = {**self.editor_settings, **entries[0]}
        return True

    def reload_settings(self) -> None:
        """Merge the layers again; plugins are reloaded when their folders changed."""
        from foehn_lsp.config import load_settings
        from foehn_lsp.errors import ConfigError

        previous = self._settings
        self.timeouts = client.ClientTimeouts.from_editor(self.editor_settings)
        try:
            settings = load_settings(editor=self.editor_settings)
            if self.init_options.get("restrictedMode") is True:
                # The editor does not trust the workspace (VS Code's Restricted Mode): reads
                # only, and nothing the workspace could bring in (plugins, rules, MCP servers).
                settings = settings.model_copy(
                    update={
                        "approval": settings.approval.refusing_changes(RESTRICTED),
                        "trust_workspace": False,
                    }
                )
            self._settings = settings
            self.settings_error = None
        except ConfigError as exc:
            self.settings_error = str(exc)
            log.warning("settings: %s", exc)
        current = self.settings
        if (
            self.tools is None
            or previous is None
            or previous.plugin_paths != current.plugin_paths
            or previous.trust_workspace != current.trust_workspace
            or previous.mcp != current.mcp
        ):
            self.tools = self._discover()

    def rediscover(self) -> None:
        """Discover the tools again (the person approved a workspace plugin or MCP list); runs
        already under way keep the tools they started with."""
        self.tools = self._discover()

    def _discover(self) -> LoadedTools:
        from foehn_lsp.sessions.builder import load_tools

        if self.tools is not None and self.tools.servers is not None:
            self.tools.servers.close()  # the new tools start its own MCP servers
        roots = self.workspace_roots()
        return load_tools(self.settings, roots[0] if roots else None, sign_in=self.sign_in(self))

    def opened(self) -> Workspace:
        """The workspace of the editor's open folders; ``NoWorkspaceError`` if none is."""
        from foehn_lsp.workspace import Workspace

        roots = self.workspace_roots()
        if not roots:
            raise NoWorkspaceError("Foehn needs a workspace folder: open a folder first")
        return Workspace(roots)

    def workspace_roots(self) -> list[Path]:
        try:
            folders = list(self.workspace.folders.values())
            root_uri = self.workspace.root_uri
        except RuntimeError:
            return []
        uris = [folder.uri for folder in folders] or ([root_uri] if root_uri else [])
        paths = [convert.path_of(uri) for uri in uris]
        return [p for p in paths if p is not None and p.is_dir()]

    def provider(self) -> Provider:
        """The provider for the current settings, reused across turns (the local model is
        loaded once)."""
        from foehn_lsp.errors import ConfigError
        from foehn_lsp.sessions.builder import ProviderCache

        if self.settings_error:
            raise ConfigError(self.settings_error)
        if self._providers is None:
            self._providers = ProviderCache()
        return self._providers.provider(self.settings)
