"""Trust by content: a trusted workspace's own files that make Foehn run code or change what it
does are used only as the person approved them, byte for byte.

The files (``kind_of``): plugins (``.foehn/plugins/*.py``), the workspace's MCP servers
(``.vscode/mcp.json``), its rules and hooks (``.foehn/rules.toml``), its custom commands
(``.foehn/commands/*.md``) and its additions to the system message (``AGENTS.md``,
``.foehn/system.md``). Every reader of one goes through ``approved_text`` (or
``approved_plugins``), which reads the file once, hashes what it read and hands out exactly
those bytes' text when their sha256 is the approved one; so a file that changes after it was
shown, or between the check and the use, is never used in its new form. A file that is new,
changed (by anyone: a person, a program, a tool call of the model), a link, not UTF-8 text or
too large waits, and ``waiting`` lists it with the diff against what was approved.

A gated file is read through descriptors opened one folder at a time without following links,
so no part of its path may be a symbolic link: a link, wherever it points, is refused.
"""

from __future__ import annotations

import difflib
import errno
import hashlib
import os
import stat
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from foehn_lsp.errors import TrustError
from foehn_lsp.workspace import Workspace
from foehn_lsp.workspace.listing import common_args, ripgrep
from foehn_lsp.workspace.trust.store import Approval, Approvals, read_approvals, record_approval

LIST_TIMEOUT = 10.0
"""Seconds the search for ``AGENTS.md`` files in sub-folders may take."""
MAX_BYTES = 1024 * 1024
"""A gated file larger than this is refused: rules, prompts and plugins are small."""

Kind = Literal["plugin", "mcp_servers", "rules", "command", "system_prompt"]
Status = Literal["approved", "new", "changed", "refused"]

FIXED: tuple[str, ...] = (
    ".vscode/mcp.json",
    ".foehn/rules.toml",
    ".foehn/system.md",
    "AGENTS.md",
)
"""The gated files with fixed names; the others are listed from their folders."""


def kind_of(relative: str) -> Kind | None:
    """Which gated kind ``relative`` is, or ``None`` when Foehn does not gate it. ``AGENTS.md``
    counts in any folder: the system message may take it from near the file a task is about."""
    folder, _, name = relative.rpartition("/")
    if name == "AGENTS.md":
        return "system_prompt"
    match folder, name:
        case ".foehn/plugins", _ if _plugin_name(name):
            return "plugin"
        case ".foehn/commands", _ if name.endswith(".md"):
            return "command"
        case ".vscode", "mcp.json":
            return "mcp_servers"
        case ".foehn", "rules.toml":
            return "rules"
        case ".foehn", "system.md":
            return "system_prompt"
    return None


def _plugin_name(name: str) -> bool:
    """The names plugin discovery imports from a folder (``_`` names are helpers, skipped)."""
    return name.endswith(".py") and not name.startswith(("_", "."))


@dataclass(frozen=True, kw_only=True)
class Reviewed:
    """One gated file as it is now, against what the person approved."""

    path: str
    """Relative to the workspace root, with ``/``."""
    kind: Kind
    status: Status
    sha256: str | None
    """Of the bytes read now; ``None`` when the file was refused."""
    text: str | None
    """The content read now; ``None`` when refused."""
    approved: Approval | None
    """What the person approved before, if anything."""
    reason: str | None = None
    """Why a refused file cannot be used or approved."""

    def diff(self) -> str:
        """The change against the approved content (all lines added for a new file)."""
        if self.text is None:
            return ""
        before = self.approved.text if self.approved is not None else ""
        lines = difflib.unified_diff(
            before.splitlines(keepends=True),
            self.text.splitlines(keepends=True),
            "/dev/null" if self.approved is None else f"a/{self.path} (approved)",
            f"b/{self.path}",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def json(self) -> dict[str, Any]:
        """As ``foehn trust --json`` and ``foehn.trust.list`` show it."""
        return {
            "path": self.path,
            "kind": self.kind,
            "status": self.status,
            "sha256": self.sha256,
            "approvedSha256": self.approved.sha256 if self.approved else None,
            "approvedAt": self.approved.approved_at if self.approved else None,
            "reason": self.reason,
            "before": self.approved.text if self.approved else None,
            "after": self.text,
            "diff": self.diff(),
        }


def review(root: Path, relative: str, approvals: Approvals | None = None) -> Reviewed:
    """``relative`` (a gated file of the workspace at ``root``) read now and judged."""
    kind = kind_of(relative)
    if kind is None:
        raise ValueError(f"{relative!r} is not a file Foehn gates")
    approvals = approvals or read_approvals(root)
    approved = approvals.files.get(relative)
    try:
        data = read_gated(root, relative)
    except _Refused as exc:
        return Reviewed(
            path=relative, kind=kind, status="refused", sha256=None, text=None,
            approved=approved, reason=str(exc),
        )  # fmt: skip
    sha = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Reviewed(
            path=relative, kind=kind, status="refused", sha256=sha, text=None,
            approved=approved, reason="it is not UTF-8 text",
        )  # fmt: skip
    if approved is not None and approved.sha256 == sha and approvals.problem is None:
        status: Status = "approved"
    else:
        status = "new" if approved is None else "changed"
    return Reviewed(
        path=relative, kind=kind, status=status, sha256=sha, text=text, approved=approved
    )


def approved_text(root: Path, relative: str) -> str | None:
    """The content of ``relative`` if it is exactly what the person approved, else ``None``
    (missing, new, changed or refused). The text returned is the text that was hashed."""
    reviewed = review(root, relative)
    return reviewed.text if reviewed.status == "approved" else None


@dataclass(frozen=True, kw_only=True)
class ApprovedPlugin:
    """A workspace plugin file whose content the person approved: import ``text``, never the
    file again."""

    path: Path
    text: str


def approved_plugins(root: Path | None) -> list[ApprovedPlugin]:
    """The approved ``.foehn/plugins/*.py`` of the (trusted) workspace at ``root``."""
    if root is None:
        return []
    approvals = read_approvals(root)
    found = []
    for relative in _listed(root, ".foehn/plugins"):
        reviewed = review(root, relative, approvals)
        if reviewed.status == "approved" and reviewed.text is not None:
            found.append(ApprovedPlugin(path=root / relative, text=reviewed.text))
    return found


def gated_files(root: Path) -> list[str]:
    """Every gated file that exists in the workspace (links included: they are refused)."""
    found = [path for path in FIXED if os.path.lexists(root / path)]
    found += _listed(root, ".foehn/plugins") + _listed(root, ".foehn/commands")
    found += _nested_agents_files(root)
    return sorted(set(found))


def _nested_agents_files(root: Path) -> list[str]:
    """``AGENTS.md`` files in sub-folders, as ripgrep lists them (``.gitignore`` honoured);
    none without ripgrep or when listing takes longer than ``LIST_TIMEOUT``."""
    binary = ripgrep()
    if binary is None:
        return []
    command = [binary, "--files", *common_args(Workspace([root])), "--glob", "**/AGENTS.md"]
    try:
        done = subprocess.run(
            command, cwd=root, capture_output=True, text=True, timeout=LIST_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    listed = (line.removeprefix("./") for line in done.stdout.splitlines())
    return [path for path in listed if "/" in path and kind_of(path) == "system_prompt"]


def _listed(root: Path, folder: str) -> list[str]:
    """The gated files in ``folder``; through a link too, so that they are listed as refused."""
    try:
        names = os.listdir(root / folder)
    except OSError:
        return []
    return sorted(p for name in names if kind_of(p := f"{folder}/{name}") is not None)


def waiting(root: Path, extra: Sequence[str] = ()) -> list[Reviewed]:
    """The gated files of ``root`` (and ``extra`` ones) that are not approved as they are."""
    approvals = read_approvals(root)
    paths = dict.fromkeys([*gated_files(root), *extra])
    reviewed = [review(root, path, approvals) for path in paths]
    return [r for r in reviewed if r.status != "approved"]


def waiting_summary(items: Sequence[Reviewed]) -> str:
    """What waits, in one clause for a front end to end with how to approve it there."""
    shown = ", ".join(f"{item.path} ({item.status})" for item in items[:4])
    more = f" and {len(items) - 4} more" if len(items) > 4 else ""
    count = f"{len(items)} file{'s' if len(items) != 1 else ''}"
    verb = "waits" if len(items) == 1 else "wait"
    return (
        f"{count} of this trusted workspace {verb} for your approval and "
        f"{'was' if len(items) == 1 else 'were'} not loaded: {shown}{more}"
    )


def approve(root: Path, relative: str, sha256: str) -> Approval:
    """Approve the content of ``relative`` that has the hash ``sha256`` (at least 12 hex digits
    of it: what the person was shown). Raises ``TrustError`` when the file now has other
    content, cannot be approved, or the approval cannot be recorded."""
    if kind_of(relative) is None:
        raise TrustError(f"{relative} is not a file Foehn asks about; nothing to approve")
    wanted = sha256.strip().lower()
    if len(wanted) < 12 or any(c not in "0123456789abcdef" for c in wanted):
        raise TrustError(f"{sha256!r} is not a sha256 (give at least its first 12 hex digits)")
    reviewed = review(root, relative)
    if reviewed.text is None or reviewed.sha256 is None:
        raise TrustError(f"{relative} cannot be approved: {reviewed.reason}")
    if not reviewed.sha256.startswith(wanted):
        raise TrustError(
            f"{relative} changed since it was shown (its sha256 is now {reviewed.sha256[:12]}…, "
            f"not {wanted[:12]}…); review it again"
        )
    return record_approval(root, relative, reviewed.text)


class _Refused(Exception):
    """A gated file that cannot be read as it must be (a link, not a regular file, too big)."""


def read_gated(root: Path, relative: str) -> bytes:
    """The bytes of ``relative`` under ``root``, each folder opened without following a link
    (``O_NOFOLLOW`` relative to its parent's descriptor), so no component can be a link, and
    the file only if it is a regular file of at most ``MAX_BYTES``."""
    parts = relative.split("/")
    if any(part in ("", ".", "..") for part in parts) or os.path.isabs(relative):
        raise _Refused(f"{relative!r} is not a plain relative path")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        folder = os.open(os.path.realpath(root), flags | os.O_DIRECTORY)
    except OSError as exc:
        raise _Refused(f"the workspace cannot be opened: {exc.strerror}") from None
    try:
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            try:
                fd = os.open(
                    part,
                    flags | (os.O_NONBLOCK if last else os.O_DIRECTORY),
                    dir_fd=folder,
                )
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) or os.path.islink(
                    os.path.join(root, *parts[: index + 1])
                ):
                    shown = "/".join(parts[: index + 1])
                    raise _Refused(
                        f"{shown} is a symbolic link; Foehn uses a workspace's own files only "
                        "as they are in it, never through a link"
                    ) from None
                raise _Refused(f"it cannot be read: {exc.strerror}") from None
            os.close(folder)
            folder = fd
        info = os.fstat(folder)
        if not stat.S_ISREG(info.st_mode):
            raise _Refused("it is not a regular file")
        if info.st_size > MAX_BYTES:
            raise _Refused(f"it is {info.st_size:,} bytes, over the {MAX_BYTES:,}-byte limit")
        with os.fdopen(os.dup(folder), "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise _Refused(f"it is over the {MAX_BYTES:,}-byte limit")
        return data
    finally:
        os.close(folder)
