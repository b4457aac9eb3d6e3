"""The text of a workspace's own policy files (``.foehn/rules.toml``, ``.foehn/commands/``)
that the person approved, by content.

DESIGN.md's rule: a trusted workspace's rules, hooks and commands are used only as approved by
their content hash, and a new or changed file waits for the person, who sees the diff. That
approval (trust by content) does not exist yet, so no workspace text is approved: Foehn honours
no workspace rules, hooks or commands until it does. Every reader of such a file goes through
``approved_text``, so the approval lands in this one place.
"""

from __future__ import annotations

from pathlib import Path


def approved_text(workspace_root: Path, relative: str) -> str | None:
    """The approved content of ``relative`` (a path inside the workspace), or ``None`` when
    the person has not approved this exact content (for now: always)."""
    return None
