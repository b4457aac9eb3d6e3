"""The one grammar of slash commands, for every front end that takes them (``foehn chat``,
ACP; the language server expands custom commands in a turn's task the same way).

    /NAME [ARGUMENTS…]

``NAME`` is letters, digits, ``-`` and ``_``, starting with a letter or digit; the arguments are
the rest of the text, as typed. Text that does not start this way (``/etc/hosts is wrong``, a
lone ``/``) is not a command. Each front end has its own built-in commands; custom commands
(``sessions.commands``) are the same everywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SESSION_COMMANDS = frozenset({"undo", "redo", "compact"})
"""Commands every front end keeps for the session itself (the language server, ``foehn chat``,
ACP); no custom command takes these names. A front end may keep more of its own."""

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_COMMAND = re.compile(rf"/({NAME.pattern})(?:\s+(.*))?", re.DOTALL)


@dataclass(frozen=True, kw_only=True)
class Slash:
    """A typed slash command."""

    name: str
    """Without the ``/``."""
    arguments: str = ""
    """Everything after the name, stripped."""

    @property
    def words(self) -> list[str]:
        return self.arguments.split()


def parse(text: str) -> Slash | None:
    """``text`` as a slash command, or ``None`` if it is not one."""
    match = _COMMAND.fullmatch(text.strip())
    if match is None:
        return None
    return Slash(name=match[1], arguments=(match[2] or "").strip())
