"""The protocol table is the server's whole command surface: every command registered comes
from it, each says what it takes and returns, and every message the server sends is named in
it."""

from __future__ import annotations

import re
from pathlib import Path

from foehn_lsp.lsp import create_server
from foehn_lsp.lsp.table import COMMANDS, NOTIFICATIONS, REQUESTS

LSP = Path(__file__).parents[2] / "server" / "foehn_lsp" / "lsp"


def test_the_server_registers_the_table_and_nothing_else() -> None:
    table = COMMANDS
    registered = set(create_server().protocol.fm.commands)
    assert registered == {command.name for command in table}
    assert len(registered) == len(table), "a command is in the table twice"
    assert all(command.takes and command.returns for command in table)


def test_every_message_the_server_sends_is_named_in_the_table() -> None:
    named = set(REQUESTS) | set(NOTIFICATIONS)
    for module in LSP.rglob("*.py"):
        if module.name == "table.py":
            continue
        for method in re.findall(r'"(foehn/[A-Za-z]+)"', module.read_text()):
            assert method in named, f"{module.name} sends {method}, which the table lacks"
