"""The language server: ``create_server`` registers every handler in one place."""

from __future__ import annotations

from lsprotocol import types

from foehn_lsp.lsp import (
    chat,
    code_actions,
    commands,
    lifecycle,
    mcp_servers,
    rules,
    sessions,
    trust,
)
from foehn_lsp.lsp.server import FoehnServer


def create_server() -> FoehnServer:
    server = FoehnServer()
    server.feature(types.INITIALIZE)(lifecycle.initialize)
    server.feature(types.INITIALIZED)(lifecycle.initialized)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(lifecycle.configuration_changed)
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=code_actions.KINDS),
    )(code_actions.code_action)
    server.command("foehn.run")(commands.run)
    server.command("foehn.cancel")(commands.cancel)
    server.command("foehn.tools")(commands.tools)
    chat.register(server)
    sessions.register(server)
    rules.register(server)
    trust.register(server)
    mcp_servers.register(server)
    return server


__all__ = ["FoehnServer", "create_server"]
