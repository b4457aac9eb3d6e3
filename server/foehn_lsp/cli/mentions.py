"""``@path`` in what the person types in ``foehn chat``: each names a workspace file whose
content goes with the turn as context, as an editor's ``@`` mention does.

A mention is an ``@`` at the start of a word; the path is resolved as the file tools resolve
paths (inside the workspace, no home paths), so a mention reaches no file a tool could not
read. A word that names no readable file stays as typed and is listed in ``missing``; an
address such as ``me@example.org`` is no mention. Punctuation that ends a sentence
(``look at @app.py.``) is not part of the path unless the file's name has it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from foehn_lsp.errors import FoehnError
from foehn_lsp.workspace import Workspace

MENTION = re.compile(r"(?<!\S)@(\S+)")
TRAILING = ",.;:!?)]}'\""
MAX_BYTES = 64 * 1024
"""The most of one mentioned file that is sent (the rest is said to be cut)."""


@dataclass(frozen=True, kw_only=True)
class Mentions:
    context: str
    """The mentioned files' contents, labelled, for the turn's context ("" for none)."""
    files: tuple[str, ...] = ()
    """The files attached, as the model sees their paths."""
    missing: tuple[str, ...] = ()
    """``@words`` that name no readable file in the workspace, as typed."""


def mentions(text: str, workspace: Workspace) -> Mentions:
    """The files ``text`` mentions, each once, in the order mentioned."""
    parts: list[str] = []
    files: list[str] = []
    missing: list[str] = []
    for match in MENTION.finditer(text):
        word = match[1]
        found = _file(word, workspace) or _file(word.rstrip(TRAILING), workspace)
        if found is None:
            missing.append(f"@{word.rstrip(TRAILING) or word}")
            continue
        shown, content = found
        if shown in files:
            continue
        files.append(shown)
        end = "" if content.endswith("\n") else "\n"
        parts.append(f"The person mentioned {shown}:\n```\n{content}{end}```")
    return Mentions(context="\n\n".join(parts), files=tuple(files), missing=tuple(missing))


def _file(word: str, workspace: Workspace) -> tuple[str, str] | None:
    if not word:
        return None
    try:
        path = workspace.resolve(word)
    except FoehnError:
        return None
    if not path.is_file():
        return None
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError:
        return None
    if b"\x00" in data:
        return None
    content = data[:MAX_BYTES].decode("utf-8", "replace")
    if len(data) > MAX_BYTES:
        content += f"\n… (cut: only the first {MAX_BYTES // 1024} KiB are included)"
    return workspace.display(path), content
