"""Where the person's approvals of a workspace's own files live: the user state folder, never
the workspace (a repository must not be able to approve itself).

One JSON file per workspace, named by a hash of the workspace's real path, holds for each
approved file (its path relative to the workspace, with ``/``) the sha256 of the approved bytes
and the approved text itself, so that a later change can be shown as a diff against what the
person saw:

    {"version": 1, "workspace": "/real/path",
     "files": {".foehn/plugins/x.py": {"sha256": "…", "text": "…", "approved_at": "…"}}}

A store that cannot be read approves nothing (fail closed) and says why in ``problem``.
Recording an approval then moves the unreadable file aside (``….unreadable``) rather than
overwrite it, so nothing the person had is lost. Writes are atomic (a temporary file renamed
over the store) and serialised across processes by a lock file.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foehn_lsp.config.folders import state_dir
from foehn_lsp.errors import TrustError

STORE_VERSION = 1
SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True, kw_only=True)
class Approval:
    """One file's approved content."""

    path: str
    """Relative to the workspace root, with ``/``."""
    sha256: str
    """Of the approved bytes."""
    text: str
    """The approved content, for the diff against a later change."""
    approved_at: str
    """When, as an ISO 8601 time in UTC."""


@dataclass(frozen=True, kw_only=True)
class Approvals:
    """What the store holds for one workspace."""

    workspace: Path
    """The workspace's real path."""
    file: Path
    """The store's file."""
    files: Mapping[str, Approval] = field(default_factory=dict)
    problem: str | None = None
    """Why the store could not be read (then ``files`` is empty); ``None`` when it could."""


def store_folder() -> Path:
    return state_dir() / "trust"


def store_file(root: Path) -> Path:
    """The store of the workspace at ``root`` (keyed by its real path)."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:32]
    return store_folder() / f"{digest}.json"


def read_approvals(root: Path) -> Approvals:
    """The approvals recorded for ``root``; never raises (an unreadable store approves nothing)."""
    real = Path(os.path.realpath(root))
    file = store_file(root)
    try:
        raw = file.read_text("utf-8")
    except FileNotFoundError:
        return Approvals(workspace=real, file=file)
    except (OSError, UnicodeDecodeError) as exc:
        return Approvals(workspace=real, file=file, problem=f"{file} cannot be read: {exc}")
    try:
        files = _parse(json.loads(raw), real)
    except (ValueError, TypeError, KeyError) as exc:
        return Approvals(
            workspace=real,
            file=file,
            problem=f"{file} is not a store of approvals Foehn can read ({exc}); nothing in "
            "this workspace counts as approved until it is fixed or you approve again",
        )
    return Approvals(workspace=real, file=file, files=files)


def _parse(document: Any, real: Path) -> dict[str, Approval]:
    if not isinstance(document, dict) or document.get("version") != STORE_VERSION:
        raise ValueError(f"expected an object with version {STORE_VERSION}")
    if document.get("workspace") != str(real):
        raise ValueError(f"it names the workspace {document.get('workspace')!r}, not {real}")
    listed = document.get("files")
    if not isinstance(listed, dict):
        raise ValueError("'files' must be an object")
    files = {}
    for path, entry in listed.items():
        if not isinstance(entry, dict):
            raise ValueError(f"entry {path!r} must be an object")
        sha, text, when = entry.get("sha256"), entry.get("text"), entry.get("approved_at")
        if not isinstance(sha, str) or not SHA256.match(sha):
            raise ValueError(f"entry {path!r}: sha256 must be 64 hex digits")
        if not isinstance(text, str) or not isinstance(when, str):
            raise ValueError(f"entry {path!r}: text and approved_at must be strings")
        if hashlib.sha256(text.encode("utf-8")).hexdigest() != sha:
            raise ValueError(f"entry {path!r}: its text does not have its sha256")
        files[path] = Approval(path=path, sha256=sha, text=text, approved_at=when)
    return files


def record_approval(root: Path, path: str, text: str) -> Approval:
    """Approve ``text`` as the content of ``path`` (relative) in ``root``; replaces an earlier
    approval of that file. Raises ``TrustError`` when the store cannot be written."""
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    when = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    approval = Approval(path=path, sha256=sha, text=text, approved_at=when)
    with _locked(root):
        current = _current_for_update(root)
        _write(root, {**current, path: approval})
    return approval


def forget_approval(root: Path, path: str) -> bool:
    """Withdraw the approval of ``path``; ``False`` if there was none."""
    with _locked(root):
        current = _current_for_update(root)
        if path not in current:
            return False
        _write(root, {k: v for k, v in current.items() if k != path})
    return True


def _current_for_update(root: Path) -> dict[str, Approval]:
    """What the store holds, moving an unreadable store aside first (it is kept, not lost)."""
    approvals = read_approvals(root)
    if approvals.problem is not None and approvals.file.exists():
        aside = approvals.file.with_suffix(".unreadable")
        try:
            os.replace(approvals.file, aside)
        except OSError as exc:
            raise TrustError(f"{approvals.problem}; moving it aside failed: {exc}") from None
    return dict(approvals.files)


def _write(root: Path, files: Mapping[str, Approval]) -> None:
    file = store_file(root)
    document = {
        "version": STORE_VERSION,
        "workspace": os.path.realpath(root),
        "files": {
            path: {"sha256": a.sha256, "text": a.text, "approved_at": a.approved_at}
            for path, a in sorted(files.items())
        },
    }
    partial = file.with_suffix(f".{os.getpid()}.partial")
    try:
        partial.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", "utf-8")
        os.replace(partial, file)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise TrustError(f"cannot record the approval in {file}: {exc}") from None


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    folder = store_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle = open(store_file(root).with_suffix(".lock"), "a")  # noqa: SIM115
    except OSError as exc:
        raise TrustError(f"cannot record approvals in {folder}: {exc}") from None
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
