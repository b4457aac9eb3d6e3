"""Start-up and settings. ``initialize`` only keeps the initialization options, so that it is
answered at once; ``initialized`` starts up (settings, plugins, and a warning on stderr when
programs cannot be sandboxed) and pulls the editor's settings (``FoehnServer.ready``); each
``workspace/didChangeConfiguration`` pulls the ``foehn`` section once and reloads. Runs never
pull: they start on the settings known so far and decide their calls once the first pull is
answered or given up (``FoehnServer.settled_policy``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from lsprotocol import types

from foehn_lsp.lsp import convert
from foehn_lsp.lsp.server import FoehnServer

log = logging.getLogger(__name__)


def initialize(ls: FoehnServer, params: types.InitializeParams) -> None:
    options = params.initialization_options
    ls.init_options = dict(options) if isinstance(options, Mapping) else {}
    settings = ls.init_options.get("settings")
    ls.editor_settings = dict(settings) if isinstance(settings, Mapping) else {}


async def initialized(ls: FoehnServer, params: types.InitializedParams) -> None:
    await ls.ready()
    assert ls.tools is not None
    for problem in ls.tools.problems:
        ls.window_log_message(convert.log(f"Foehn skipped plugin {problem}", error=True))
    if ls.settings_error:
        ls.window_show_message(convert.show(f"Foehn: {ls.settings_error}", error=True))


async def configuration_changed(
    ls: FoehnServer, params: types.DidChangeConfigurationParams
) -> None:
    await ls.ready()
    pushed = params.settings.get("foehn") if isinstance(params.settings, Mapping) else None
    if isinstance(pushed, Mapping):
        ls.editor_settings = {**ls.editor_settings, **pushed}
    else:
        await ls.pull_settings()
    await asyncio.to_thread(ls.reload_settings)
