"""The system message: Foehn's own rules (or, in their place, the person's own
``systemMessageFile``), then, in a trusted workspace only, the project's rules: its
``.foehn/system.md`` and the nearest ``AGENTS.md``, each only as the person approved its content
(``foehn_lsp.workspace.trust``). Project rules are added after Foehn's and never replace them: a
repository can describe its conventions, not remove the ones that keep the person in control."""

from __future__ import annotations

from pathlib import Path

from foehn_lsp.config import Settings, user_config_file
from foehn_lsp.errors import ConfigError
from foehn_lsp.workspace.paths import Workspace
from foehn_lsp.workspace.trust import approved_text

MAX_RULES_CHARS = 32_000
"""Each project rules file is cut here, so a huge file cannot crowd out the conversation."""

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


def system_message(settings: Settings, workspace: Workspace, near: Path | None = None) -> str:
    """Foehn's rules, then the trusted workspace's rules. ``near`` (a file the task is about)
    picks the nearest ``AGENTS.md`` between it and the workspace root; else the root's."""
    parts = [_own_rules(settings, workspace)]
    if settings.trust_workspace:
        for path in project_rules(workspace, near):
            text = approved_text(workspace.root, workspace.display(path))
            if text and text.strip():
                text = text[:MAX_RULES_CHARS]
                parts.append(
                    f"Project rules from {workspace.display(path)} (the project's own; they "
                    f"do not override the rules above):\n\n{text.strip()}"
                )
    return "\n\n".join(parts)


def _own_rules(settings: Settings, workspace: Workspace) -> str:
    if not settings.system_message_file:
        return DEFAULT.format(root=workspace.root.name)
    configured = Path(settings.system_message_file).expanduser()
    if not configured.is_absolute():
        configured = user_config_file().parent / configured
    if not configured.is_file():
        raise ConfigError(f"systemMessageFile {settings.system_message_file!r} not found")
    return configured.read_text("utf-8")


def project_rules(workspace: Workspace, near: Path | None = None) -> list[Path]:
    """``.foehn/system.md`` and the nearest ``AGENTS.md`` (from ``near``'s folder up to the
    workspace root), those that exist."""
    found = [workspace.root / ".foehn" / "system.md"]
    folder, top = workspace.root, workspace.root
    if near is not None and (root := workspace.root_of(near)) is not None:
        folder, top = (near if near.is_dir() else near.parent), root
    while True:
        if (folder / "AGENTS.md").is_file():
            found.append(folder / "AGENTS.md")
            break
        if folder == top or folder.parent == folder:
            break
        folder = folder.parent
    return [path for path in found if path.is_file()]
