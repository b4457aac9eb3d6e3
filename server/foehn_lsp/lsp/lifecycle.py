"""Start-up and settings: ``initialize`` keeps the initialization options, ``initialized`` and
``workspace/didChangeConfiguration`` pull the ``foehn`` section and reload."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from foehn_lsp.lsp import convert
from foehn_lsp.lsp.server import FoehnServer

log = logging.getLogger(__name__)


def initialize(ls: FoehnServer, params: types.InitializeParams) -> None:
    options = params.initialization_options
    ls.init_options = dict(options) if isinstance(options, Mapping) else {}
    settings = ls.init_options.get("settings")
    ls.editor_settings = dict(settings) if isinstance(settings, Mapping) else {}
    ls.reload_settings()


async def initialized(ls: FoehnServer, params: types.InitializedParams) -> None:
    await _pull(ls)
    ls.reload_settings()
    ls.configured.set()
    assert ls.tools is not None
    for problem in ls.tools.problems:
        ls.window_log_message(convert.log(f"Foehn skipped plugin {problem}", error=True))
    if ls.settings_error:
        ls.window_show_message(convert.show(f"Foehn: {ls.settings_error}", error=True))


async def configuration_changed(
    ls: FoehnServer, params: types.DidChangeConfigurationParams
) -> None:
    pushed = params.settings.get("foehn") if isinstance(params.settings, Mapping) else None
    if isinstance(pushed, Mapping):
        ls.editor_settings = {**ls.editor_settings, **pushed}
    else:
        await _pull(ls)
    ls.reload_settings()


async def _pull(ls: FoehnServer) -> None:
    workspace = ls.client_capabilities.workspace
    if not (workspace and workspace.configuration):
        return
    try:
        answer: Any = await ls.workspace_configuration_async(convert.configuration_request())
    except Exception:  # a client that fails to answer keeps the settings it had
        log.warning("workspace/configuration failed", exc_info=True)
        return
    if answer and isinstance(answer[0], Mapping):
        ls.editor_settings = {**ls.editor_settings, **answer[0]}
