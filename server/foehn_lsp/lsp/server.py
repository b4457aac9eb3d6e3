"""The language server object: pygls's server with Foehn's state, and the protocol hook that
lets ``$/cancelRequest`` reach a running ``foehn.run`` (pygls cancels only its own wrapper
around commands; see the notes on pygls 2.1)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pygls.lsp.server import LanguageServer
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
)

import foehn_lsp
from foehn_lsp.config import Settings, load_settings
from foehn_lsp.errors import ConfigError
from foehn_lsp.lsp.convert import path_of
from foehn_lsp.providers import Provider, create_provider
from foehn_lsp.tools.discovery import Discovery, discover

log = logging.getLogger(__name__)

READY_TIMEOUT = 10.0


def raw_converter() -> Any:
    """pygls's converter, except that custom messages stay dicts (not namedtuples)."""
    converter = default_converter()  # type: ignore[no-untyped-call]
    for cls in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(cls, lambda obj, cls: cls(**obj))
    converter.register_unstructure_hook_func(
        lambda t: isinstance(t, type) and issubclass(t, BaseModel),
        lambda value: value.model_dump(mode="json"),
    )
    return converter


class FoehnProtocol(LanguageServerProtocol):
    """Routes ``$/cancelRequest`` for a running ``foehn.run`` to that run's stop event."""

    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.run_requests: dict[Any, str] = {}
        """Client request id -> run id, while the run is active."""

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        run_id = self.run_requests.pop(msg_id, None)
        if run_id is not None and isinstance(self._server, FoehnServer):
            self._server.runs.cancel(run_id)
        super()._handle_cancel_notification(msg_id)


class FoehnServer(LanguageServer):
    def __init__(self) -> None:
        from foehn_lsp.lsp.runs import RunManager

        super().__init__(
            "foehn",
            foehn_lsp.__version__,
            protocol_cls=FoehnProtocol,
            converter_factory=raw_converter,
        )
        self.init_options: dict[str, Any] = {}
        self.editor_settings: dict[str, Any] = {}
        self.settings: Settings = Settings()
        self.settings_error: str | None = None
        self.tools: Discovery | None = None
        self.runs = RunManager(self)
        self.configured = asyncio.Event()
        """Set once the editor's settings have been pulled after ``initialized``."""
        self._providers: dict[tuple[Any, ...], Provider] = {}

    async def ready(self) -> None:
        """Wait (briefly) for the editor's settings, so the first run uses them."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.configured.wait(), READY_TIMEOUT)

    def reload_settings(self) -> None:
        """Merge the layers again; plugins are reloaded when their folders changed."""
        previous = self.settings
        try:
            self.settings = load_settings(editor=self.editor_settings)
            self.settings_error = None
        except ConfigError as exc:
            self.settings_error = str(exc)
            log.warning("settings: %s", exc)
        if (
            self.tools is None
            or previous.plugin_paths != self.settings.plugin_paths
            or (previous.trust_workspace != self.settings.trust_workspace)
        ):
            self.tools = self._discover()

    def _discover(self) -> Discovery:
        roots = self.workspace_roots()
        return discover(
            folders=self.settings.plugin_folders(roots[0] if roots else None),
            default_timeout=self.settings.tool_timeout_seconds,
        )

    def workspace_roots(self) -> list[Path]:
        try:
            folders = list(self.workspace.folders.values())
            root_uri = self.workspace.root_uri
        except RuntimeError:
            return []
        uris = [folder.uri for folder in folders] or ([root_uri] if root_uri else [])
        paths = [path_of(uri) for uri in uris]
        return [p for p in paths if p is not None and p.is_dir()]

    def provider(self) -> Provider:
        """The provider for the current settings, reused across runs (the local model is
        loaded once)."""
        if self.settings_error:
            raise ConfigError(self.settings_error)
        settings = self.settings
        key = (
            settings.provider,
            settings.model,
            settings.base_url,
            settings.api_key.get_secret_value() if settings.api_key else None,
            settings.timeout_seconds,
            settings.max_retries,
        )
        if key not in self._providers:
            self._providers[key] = create_provider(settings)
        return self._providers[key]
