"""The system message: a default that describes the workspace and the tools' conventions, or
the text of a file that replaces it (``systemMessageFile``, else ``.foehn/system.md``)."""

from __future__ import annotations

from pathlib import Path

from foehn_lsp.config import Settings
from foehn_lsp.errors import ConfigError
from foehn_lsp.workspace.paths import Workspace

DEFAULT = """\
You are Foehn, a careful software engineer working in the project at the workspace root \
"{root}". You act through tools; the person sees every call, and is asked before anything \
that changes files.

Conventions:
- Paths are relative to the workspace root and use "/". Nothing outside the workspace can be \
read or changed.
- Look before you act: use scan and search to find things, and read_file before you edit.
- edit_file replaces exact text: copy old_text from read_file output without the line \
numbers, include enough lines to match exactly once, and keep the file's indentation.
- Prefer small, reviewable edits; write_file is for new files or complete rewrites.
- If a tool fails, read its message: it says what to change. Do not repeat a failed call \
unchanged. If the person denies a call, do not retry it; continue another way or explain.
- When you are done, answer briefly: what you found or changed, and anything left to do."""


def system_message(settings: Settings, workspace: Workspace) -> str:
    """The configured file's text if there is one, else the default."""
    if settings.system_message_file:
        configured = Path(settings.system_message_file).expanduser()
        path = configured if configured.is_absolute() else workspace.root / configured
        if not path.is_file():
            raise ConfigError(f"systemMessageFile {settings.system_message_file!r} not found")
        return path.read_text("utf-8")
    local = workspace.root / ".foehn" / "system.md"
    if local.is_file():
        return local.read_text("utf-8")
    return DEFAULT.format(root=workspace.root.name)
