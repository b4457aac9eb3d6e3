"""What a third-party MCP tool's file write would do, shown before it is approved.

An MCP server writes files itself, so Foehn cannot plan and apply its edit (``tools.plans``);
it can only read the file as it is now and show the diff the call would make. ``WRITE_SHAPES``
is the small table of argument shapes recognised as a file write (the filesystem reference
server's ``write_file`` and ``edit_file``): a ``path`` plus ``content`` (the whole new text) or
``edits`` (``oldText``/``newText`` pairs applied in turn). The preview is read-only and best
effort: where it cannot be computed it says why, and the server still decides what it writes.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from foehn_lsp.workspace.paths import Workspace

MAX_PREVIEW_BYTES = 1_000_000
"""A larger current file is not read for a preview."""
MAX_DIFF_CHARS = 20_000


class WriteShape(Enum):
    WHOLE = "content"
    """``content`` replaces the file's whole text."""
    EDITS = "edits"
    """``edits``: ``oldText`` replaced by ``newText``, one after the other."""


WRITE_SHAPES: Mapping[str, WriteShape] = {
    "write_file": WriteShape.WHOLE,
    "edit_file": WriteShape.EDITS,
}
"""A server's tool name and the shape of its write."""


@dataclass(frozen=True, kw_only=True)
class WritePreview:
    path: Path
    """The file written, resolved (links followed) as the server will find it."""
    note: str
    """One line for the person: which file, and plainly whether it is outside the workspace."""
    diff: str | None
    """The unified diff the write would make to the current file; ``None`` if it cannot be
    computed (the note says why)."""


def preview_write(
    tool: str, arguments: Mapping[str, Any], workspace: Workspace, *, cwd: str | None = None
) -> WritePreview | None:
    """The preview of a call of the server's tool ``tool``, or ``None`` if it is no file write
    in a recognised shape (or an ``edit_file`` dry run, which writes nothing). A relative path
    is taken from ``cwd`` (the server's, else the workspace root), as a server without allowed
    directories would."""
    shape = WRITE_SHAPES.get(tool)
    path = arguments.get("path")
    if shape is None or not isinstance(path, str) or not path:
        return None
    if shape is WriteShape.EDITS and arguments.get("dryRun") is True:
        return None
    target = Path(path).expanduser()
    if not target.is_absolute():
        target = Path(cwd or workspace.root) / target
    real = target.resolve()
    where = (
        f"writes {workspace.display(real)} in the workspace"
        if workspace.contains(real)
        else f"writes {real}, which is OUTSIDE the workspace"
    )
    before, why_not = _current(real)
    if why_not is not None:
        return WritePreview(path=real, note=f"{where}; no preview: {why_not}", diff=None)
    after, why_not = _after(shape, arguments, before)
    if after is None:
        return WritePreview(path=real, note=f"{where}; no preview: {why_not}", diff=None)
    name = str(real)
    diff = "".join(
        difflib.unified_diff(
            (before or "").splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile="/dev/null" if before is None else name,
            tofile=name,
        )
    )
    if len(diff) > MAX_DIFF_CHARS:
        diff = diff[:MAX_DIFF_CHARS] + "\n… (diff cut)\n"
    created = " (a new file)" if before is None else ""
    return WritePreview(path=real, note=f"{where}{created}", diff=diff or "(no change)\n")


def _current(path: Path) -> tuple[str | None, str | None]:
    """(text, None) for a readable file, (None, None) for one that does not exist yet, or
    (None, why) when it cannot be previewed."""
    try:
        if path.stat().st_size > MAX_PREVIEW_BYTES:
            return None, f"the file is larger than {MAX_PREVIEW_BYTES:,} bytes"
        return path.read_text(encoding="utf-8").replace("\r\n", "\n"), None
    except FileNotFoundError:
        return None, None
    except UnicodeDecodeError:
        return None, "the file is not UTF-8 text"
    except OSError as exc:
        return None, f"it cannot be read ({exc.strerror or exc})"


def _after(
    shape: WriteShape, arguments: Mapping[str, Any], before: str | None
) -> tuple[str | None, str]:
    if shape is WriteShape.WHOLE:
        content = arguments.get("content")
        if not isinstance(content, str):
            return None, "'content' is not text"
        return content, ""
    edits = arguments.get("edits")
    if before is None:
        return None, "the file does not exist, so there is nothing to edit"
    if not isinstance(edits, Sequence) or isinstance(edits, str):
        return None, "'edits' is not a list"
    text = before
    for number, edit in enumerate(edits, 1):
        old = edit.get("oldText") if isinstance(edit, Mapping) else None
        new = edit.get("newText") if isinstance(edit, Mapping) else None
        if not isinstance(old, str) or not isinstance(new, str):
            return None, f"edit {number} lacks oldText or newText"
        old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        if old not in text:
            # The server may still match it ignoring indentation; show nothing rather than
            # guess what it would write.
            return None, f"edit {number}'s oldText is not found exactly in the file"
        text = text.replace(old, new, 1)
    return text, ""
