"""The language server: ``create_server`` registers LSP's lifecycle and code actions, and every
command of the protocol table (``table.py``), in one place. Handlers convert and call the
domain; the wire (``wire/``) is kept apart.

    table.py             every custom command, request and notification; errors mapped once
    server.py            pygls's server with Foehn's state (settings, tools, providers)
    lifecycle.py         initialize, initialized, settings
    arguments.py         command arguments checked (``BadArguments``)
    convert.py           the one module that knows lsprotocol's types and Foehn's
    commands.py          ``foehn.run``, ``foehn.cancel``, ``foehn.tools``
    turns.py             one turn for the editor; running.py, the turns running now
    running.py           each running turn's id, stop event and progress
    sessions.py          the session commands; chat.py, what the chat view asks besides
    chat.py              the provider in use, the workspace's files, a file before a turn
    rules.py             rules, explain and custom commands; trust.py, trust by content
    trust.py             what of a trusted workspace waits for approval, and approving it
    confirm.py           asking the person (``foehn/confirm`` or a message)
    elicit.py            an MCP server's question (``foehn/elicit`` or message buttons)
    mcp_servers.py       ``foehn.mcp.*``: the MCP servers' states, signing in and out
    mcp_sign_in.py       signing in through the editor, the tokens in its secret storage
    edits.py             edits and reads through the editor (``workspace/applyEdit``)
    lines.py             lines as LSP and VS Code count them
    code_actions.py      code actions that call ``foehn.run``
    editor_checks.py     the editor's diagnostics for a turn's edits
    language_tools.py    the editor's language intelligence as tools
    language_answers.py  the shapes of the client's answers to those requests, checked
    wire/                framing, transport, protocol, writer, client, answers
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from foehn_lsp.lsp import code_actions, lifecycle
from foehn_lsp.lsp.server import FoehnServer
from foehn_lsp.lsp.table import COMMANDS, answered

if TYPE_CHECKING:
    from foehn_lsp.mcp.consent import SignIn


def _sign_in(server: FoehnServer) -> SignIn:
    """How the person signs in to an MCP server from this editor; imported only once tools are
    loaded (the MCP client is not part of the server's start-up)."""
    from foehn_lsp.lsp.mcp_sign_in import editor_sign_in

    return editor_sign_in(server)


def create_server() -> FoehnServer:
    server = FoehnServer(sign_in=_sign_in)
    server.feature(types.INITIALIZE)(lifecycle.initialize)
    server.feature(types.INITIALIZED)(lifecycle.initialized)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(lifecycle.configuration_changed)
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=code_actions.KINDS),
    )(code_actions.code_action)
    for command in COMMANDS:
        server.command(command.name)(answered(command.function()))
    return server


__all__ = ["FoehnServer", "create_server"]
