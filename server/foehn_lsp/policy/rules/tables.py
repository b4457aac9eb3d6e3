"""Where each ``[[name]]`` table of a TOML text starts and where each of its keys is, so a
problem can be reported as ``FILE:LINE`` (``tomllib`` keeps no positions). A small scanner: it
reads table headers and ``key =`` lines, which is all rules and hooks use."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*([A-Za-z0-9_-]+|"[^"]*"|'[^']*')\s*=""")


@dataclass(frozen=True, kw_only=True)
class TableAt:
    """One ``[[name]]`` table: the line of its header and of each of its keys."""

    line: int
    keys: dict[str, int] = field(default_factory=dict)
    end: int = 0
    """The last line that belongs to the table (before the next header, or the text's end)."""

    def line_of(self, key: str) -> int:
        return self.keys.get(key, self.line)


def array_tables(text: str, name: str) -> list[TableAt]:
    """Every ``[[name]]`` table of ``text``, in order."""
    found: list[TableAt] = []
    current: TableAt | None = None
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if match := _HEADER.match(line):
            if current is not None:
                found[-1] = TableAt(line=current.line, keys=current.keys, end=number - 1)
            if match[1] == "[[" and match[2] == name:
                current = TableAt(line=number)
                found.append(current)
            else:
                current = None
        elif current is not None and (key := _KEY.match(line)):
            current.keys.setdefault(key[1].strip("\"'"), number)
    if current is not None:
        found[-1] = TableAt(line=current.line, keys=current.keys, end=len(lines))
    return found


def where(file: str, line: int) -> str:
    """A position as rules and problems name it: ``FILE:LINE``."""
    return f"{file}:{line}"
