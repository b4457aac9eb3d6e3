"""What the person is looking at, in words for the model: the file, the selected lines (numbered
as read_file numbers them), a diagnostic. Front ends (the language server's code actions and
commands, ACP prompts) hand it to a turn as its context."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def editor_context(
    shown: str,
    text: str,
    *,
    lines: tuple[int, int] | None = None,
    diagnostic: Mapping[str, Any] | None = None,
) -> str:
    """``shown`` is the file's name as the model sees paths, ``text`` its content, ``lines`` the
    0-based selected lines (first and last included)."""
    parts = [f"The person is looking at {shown}."]
    if lines is not None:
        first, last = lines
        chosen = text.splitlines()[first : last + 1]
        numbered = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(chosen, first + 1))
        parts.append(f"Selected lines {first + 1}-{last + 1}:\n{numbered}")
    if diagnostic:
        message = diagnostic.get("message", "")
        source = diagnostic.get("source")
        parts.append(f"Diagnostic{f' from {source}' if source else ''}: {message}")
    return "\n\n".join(parts)
