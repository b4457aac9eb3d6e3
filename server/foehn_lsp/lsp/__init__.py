"""The language server: ``create_server`` registers LSP's lifecycle and code actions, and every
command of the protocol table (``lsp.table``), in one place."""

from __future__ import annotations

from lsprotocol import types

from foehn_lsp.lsp import code_actions, lifecycle
from foehn_lsp.lsp.server import FoehnServer
from foehn_lsp.lsp.table import answered, command_table


def create_server() -> FoehnServer:
    server = FoehnServer()
    server.feature(types.INITIALIZE)(lifecycle.initialize)
    server.feature(types.INITIALIZED)(lifecycle.initialized)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(lifecycle.configuration_changed)
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=code_actions.KINDS),
    )(code_actions.code_action)
    for command in command_table():
        server.command(command.name)(answered(command.handler))
    return server


__all__ = ["FoehnServer", "create_server"]
