"""Edits as data, and the atomic disk applier.

Tools never touch the disk: they return an ``EditPlan`` (whole-file writes, moves, deletions,
new directories), which the host shows to the person (``EditPlan.diff``) and then applies, either
through the editor (``lsp/edits.py``, ``workspace/applyEdit``) or here, on disk. Every write
records the content it was computed from; if the file changed since, the change is refused and
nothing is written. A disk write goes to a temporary file in the same directory, is fsynced and
renamed over the target, so a crash leaves the old file or the new one, never a mix.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import hashlib
import os
import shutil
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from foehn_lsp.errors import PathRefusedError
from foehn_lsp.workspace.paths import Workspace, confined_directory, open_confined

DIFF_MAX_LINES = 200


def fingerprint(data: bytes) -> str:
    """Identity of a file's content, to notice changes between planning and applying."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, kw_only=True)
class WriteFile:
    """Create ``path`` or replace its whole content."""

    path: Path
    text: str
    old_text: str | None
    """The content the plan was computed from; ``None`` means the file must not exist yet."""
    old_fingerprint: str | None = None
    """Fingerprint of the bytes on disk when planned (``None`` when read from a buffer)."""


@dataclass(frozen=True, kw_only=True)
class MovePath:
    source: Path
    destination: Path
    overwrite: bool = False


@dataclass(frozen=True, kw_only=True)
class DeletePath:
    path: Path
    recursive: bool = False
    old_text: str | None = None
    """The deleted file's text, for the diff (``None`` for directories and binary files)."""


@dataclass(frozen=True, kw_only=True)
class MakeDirectory:
    path: Path


FileChange = WriteFile | MovePath | DeletePath | MakeDirectory


def changed_paths(plan: EditPlan) -> list[Path]:
    """Every path ``plan`` writes, makes, moves (both ends) or deletes."""
    found: list[Path] = []
    for change in plan.changes:
        if isinstance(change, MovePath):
            found += [change.source, change.destination]
        else:
            found.append(change.path)
    return found


@dataclass(frozen=True, kw_only=True)
class EditPlan:
    """What a call would change, in order; shown before it is applied."""

    tool: str
    """The tool that planned it (labels the edit in the editor's undo history)."""
    changes: tuple[FileChange, ...]
    summary: str
    """One line for the person and the model: 'edit src/app.py (2 blocks)'."""

    def diff(self, workspace: Workspace, max_lines: int = DIFF_MAX_LINES) -> str:
        """A unified diff of every change, cut to ``max_lines`` with a note."""
        lines: list[str] = []
        for change in self.changes:
            lines.extend(_change_diff(workspace, change))
        if len(lines) > max_lines:
            cut = len(lines) - max_lines
            lines = [*lines[:max_lines], f"... ({cut} more diff lines not shown)"]
        return "\n".join(lines)


def _change_diff(workspace: Workspace, change: FileChange) -> list[str]:
    match change:
        case WriteFile(path=path, text=text, old_text=old):
            name = workspace.display(path)
            before = "/dev/null" if old is None else f"a/{name}"
            return _unified(old or "", text, before, f"b/{name}")
        case MovePath(source=src, destination=dst, overwrite=overwrite):
            verb = "move (replacing the destination)" if overwrite else "move"
            return [f"{verb} {workspace.display(src)} -> {workspace.display(dst)}"]
        case DeletePath(path=path, recursive=recursive, old_text=old):
            name = workspace.display(path)
            if old is None:
                return [f"delete {name}{' and everything in it' if recursive else ''}"]
            return _unified(old, "", f"a/{name}", "/dev/null")
        case MakeDirectory(path=path):
            return [f"create directory {workspace.display(path)}/"]


def _unified(old: str, new: str, before: str, after: str, context: int = 2) -> list[str]:
    """A unified diff, like ``difflib.unified_diff``, that matches only the region between the
    common prefix and suffix: a one-line change in a large file costs a linear scan, not a
    sequence match over the whole file."""
    a, b = old.splitlines(), new.splitlines()
    if a == b:
        return []
    lines = [f"--- {before}", f"+++ {after}"]
    for group in _AnchoredMatcher(a, b).get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        lines.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(" " + line for line in a[i1:i2])
                continue
            lines.extend("-" + line for line in a[i1:i2])
            lines.extend("+" + line for line in b[j1:j2])
    return lines


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


_Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


class _AnchoredMatcher(difflib.SequenceMatcher[str]):
    """Opcodes with the common prefix and suffix taken as equal before matching the rest."""

    def __init__(self, a: list[str], b: list[str]) -> None:
        super().__init__(None, a, b)
        self.lines = (a, b)
        limit = min(len(a), len(b))
        prefix = 0
        while prefix < limit and a[prefix] == b[prefix]:
            prefix += 1
        suffix = 0
        while suffix < limit - prefix and a[-1 - suffix] == b[-1 - suffix]:
            suffix += 1
        self.prefix, self.suffix = prefix, suffix

    def get_opcodes(self) -> list[_Opcode]:
        (a, b), p, s = self.lines, self.prefix, self.suffix
        inner = difflib.SequenceMatcher(None, a[p : len(a) - s], b[p : len(b) - s])
        codes: list[_Opcode] = [("equal", 0, p, 0, p)] if p else []
        codes += [(t, i1 + p, i2 + p, j1 + p, j2 + p) for t, i1, i2, j1, j2 in inner.get_opcodes()]
        if s:
            codes.append(("equal", len(a) - s, len(a), len(b) - s, len(b)))
        return codes


@dataclass(frozen=True, kw_only=True)
class ApplyOutcome:
    applied: bool
    reason: str = ""
    """Why nothing was applied, in words for the model."""


class EditApplier(Protocol):
    """Applies a plan all at once, or not at all."""

    async def apply(self, plan: EditPlan) -> ApplyOutcome: ...


class StaleFileError(Exception):
    """A file changed between planning and applying."""


class DiskApplier:
    """Applies plans directly on disk, atomically, re-checking confinement on descriptors."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def apply(self, plan: EditPlan) -> ApplyOutcome:
        return await asyncio.to_thread(self.apply_sync, plan)

    def apply_sync(self, plan: EditPlan) -> ApplyOutcome:
        try:
            for change in plan.changes:
                self.check(change)
            for change in plan.changes:
                self._apply(change)
        except (StaleFileError, PathRefusedError) as exc:
            return ApplyOutcome(applied=False, reason=str(exc))
        except OSError as exc:
            return ApplyOutcome(applied=False, reason=f"{exc.strerror or exc}")
        return ApplyOutcome(applied=True)

    def check(self, change: FileChange) -> None:
        """Raise ``StaleFileError`` if the disk no longer matches what ``change`` was planned
        on."""
        if isinstance(change, WriteFile):
            shown = self.workspace.display(change.path)
            current = _read_bytes(self.workspace, change.path)
            if change.old_text is None and current is not None:
                raise StaleFileError(f"{shown} was created by someone else meanwhile; read it")
            if change.old_text is not None:
                if current is None:
                    raise StaleFileError(f"{shown} was deleted meanwhile; nothing was written")
                if change.old_fingerprint and fingerprint(current) != change.old_fingerprint:
                    raise StaleFileError(
                        f"{shown} changed on disk since it was read; read it again and retry"
                    )

    def _apply(self, change: FileChange) -> None:
        match change:
            case WriteFile(path=path, text=text):
                atomic_write(self.workspace, path, text.encode("utf-8"))
            case MovePath(source=src, destination=dst, overwrite=overwrite):
                with (
                    confined_directory(self.workspace, src.parent) as src_dir,
                    confined_directory(self.workspace, dst.parent) as dst_dir,
                ):
                    if not overwrite and _exists_at(dst.name, dst_dir):
                        raise StaleFileError(f"{self.workspace.display(dst)} exists now")
                    os.rename(src.name, dst.name, src_dir_fd=src_dir, dst_dir_fd=dst_dir)
            case DeletePath(path=path, recursive=recursive):
                with confined_directory(self.workspace, path.parent) as parent:
                    mode = os.stat(path.name, dir_fd=parent, follow_symlinks=False).st_mode
                    if stat.S_ISDIR(mode):
                        if not recursive:
                            raise StaleFileError(f"{self.workspace.display(path)} is a directory")
                        shutil.rmtree(path.name, dir_fd=parent)
                    else:
                        os.unlink(path.name, dir_fd=parent)
            case MakeDirectory(path=path):
                make_directories(self.workspace, path)


def _exists_at(name: str, dir_fd: int) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _read_bytes(workspace: Workspace, path: Path) -> bytes | None:
    try:
        fd = open_confined(workspace, path)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def atomic_write(workspace: Workspace, path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: temporary file, fsync, rename; permissions kept."""
    with confined_directory(workspace, path.parent) as directory:
        try:
            st = os.stat(path.name, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        else:
            if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
                raise PathRefusedError(
                    f"{workspace.display(path)!r} is no longer a regular file; nothing written"
                )
            mode = stat.S_IMODE(st.st_mode)
        temporary = f".{path.name[:200]}.{uuid.uuid4().hex[:8]}.foehn-tmp"
        fd = os.open(
            temporary,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            mode,
            dir_fd=directory,
        )
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, mode, dir_fd=directory)
            os.replace(temporary, path.name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary, dir_fd=directory)
            raise
        os.fsync(directory)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def make_directories(workspace: Workspace, path: Path) -> None:
    """Create ``path`` and its missing parents, each step confined."""
    root = workspace.root_of(path)
    if root is None:
        raise PathRefusedError(f"{path} is outside the workspace")
    current = root
    for part in path.relative_to(root).parts:
        with confined_directory(workspace, current) as parent:
            if not _exists_at(part, parent):
                os.mkdir(part, dir_fd=parent)
        current = current / part
