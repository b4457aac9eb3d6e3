"""Lines as LSP and VS Code count them: only ``\\r\\n``, ``\\r`` and ``\\n`` end a line.

``str.splitlines`` also breaks at ``\\f``, ``\\v``, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028 and
U+2029, so its line numbers drift from the client's in a file that holds one of them; every
position the server exchanges with a client is counted with ``lsp_lines``.
"""

from __future__ import annotations

import re

_BREAK = re.compile(r"\r\n|\r|\n")


def lsp_lines(text: str, *, keepends: bool = False) -> list[str]:
    """``text``'s lines as a client counts them, with their line ends when ``keepends``; like
    ``str.splitlines``, a final line end starts no empty line."""
    lines, start = [], 0
    for end in _BREAK.finditer(text):
        lines.append(text[start : end.end() if keepends else end.start()])
        start = end.end()
    if start < len(text):
        lines.append(text[start:])
    return lines
