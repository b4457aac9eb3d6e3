"""The VS Code extension's protocol table (vscode-extension/src/protocol.ts) declares every
command the server registers and every request and notification it sends the editor: a name
added on one side only fails here."""

from __future__ import annotations

import re
from pathlib import Path

from foehn_lsp.lsp import create_server

REPO = Path(__file__).resolve().parents[2]
PROTOCOL = REPO / "vscode-extension" / "src" / "protocol.ts"
NOT_METHODS = {"foehn/cut"}
"""Wire strings that are not methods: ``foehn/cut`` is a key of a tool result's ``_meta``."""


def _declared(kind: str) -> set[str]:
    text = PROTOCOL.read_text()
    return set(re.findall(rf'\b{kind}<.*?>\(\s*"([^"]+)"\s*,?\s*\)', text, flags=re.DOTALL))


def test_every_command_the_server_registers_is_in_the_typescript_table() -> None:
    registered = set(create_server().protocol.fm.commands)
    assert registered == _declared("command")


def test_every_request_and_notification_the_server_sends_is_in_the_typescript_table() -> None:
    sent: set[str] = set()
    for source in (REPO / "server" / "foehn_lsp").rglob("*.py"):
        sent |= set(re.findall(r'"(foehn/[A-Za-z]+)"', source.read_text()))
    assert sent - NOT_METHODS == _declared("request") | _declared("notification")
