"""Checkpoints: what a turn changed, and putting it back.

Before a turn first changes a file, its previous content goes to the blob store (by SHA-256, so
an unchanged file costs nothing twice); a file the turn creates is recorded as created. Edits
are seen where they are applied (``CheckpointingApplier`` wraps the front end's applier: editor
edits, disk writes, moves, deletes). Programs that may write (a call whose sandbox policy is
``workspace-write`` or ``full``), and tools that change files themselves (an MCP server's that is
not read-only), are seen by watching the workspace during the call (``ProgramWatch``); the
previous content of a file such a call changed is known when the session held it (read or
written it) or the call named it (an MCP file write), and otherwise recorded as lost.

``plan_restore`` turns checkpoints back into one ``EditPlan`` applied through the session's
applier, so in an editor an undo is one undoable workspace edit. It refuses, listing them, when
files were changed by someone else since the turn (unless forced).
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from foehn_lsp.sessions.store import BlobStore, FileState
from foehn_lsp.tools.contract import ToolResult
from foehn_lsp.tools.registry import Handler, Invocation
from foehn_lsp.workspace.edits import (
    ApplyOutcome,
    DeletePath,
    EditApplier,
    EditPlan,
    FileChange,
    MakeDirectory,
    MovePath,
    WriteFile,
    fingerprint,
)
from foehn_lsp.workspace.files import BufferSource
from foehn_lsp.workspace.ignored import ignored
from foehn_lsp.workspace.paths import Workspace
from foehn_lsp.workspace.watch import Stat, Watch, WatchKeeper, compare, snapshot

log = logging.getLogger(__name__)

WRITING_POLICIES = frozenset({"workspace-write", "full"})
HELD_MAX_BYTES = 4 * 1024 * 1024


class Checkpoint:
    """One turn's record of previous contents, filled as the turn changes files."""

    def __init__(self, workspace: Workspace, blobs: BlobStore, buffers: BufferSource) -> None:
        self.workspace = workspace
        self.blobs = blobs
        self.buffers = buffers
        self.before: dict[str, str | None] = {}
        """Relative path -> digest before the turn (``None``: it did not exist)."""
        self.lost: set[str] = set()
        self.moves: dict[str, str] = {}
        """Destination -> source, for showing moves."""
        self.held: dict[str, tuple[Stat, bytes]] = {}
        """Contents the session saw (read or wrote), to recover what a program overwrote."""
        self.folders: set[str] = set()
        """Folders the turn created."""
        self._first_seen = threading.Lock()
        """A file's state before the turn is the first one recorded: its check and its record
        are one step, as an edit (on the loop) and a program's drain (in a thread) may record
        the same file at once."""

    def relative(self, path: Path) -> str:
        """``path`` as checkpoints name files: relative to the workspace root, with "/"."""
        return self.workspace.display(path)

    def absolute(self, relative: str) -> Path:
        """The path of a file named as checkpoints name it."""
        return self.workspace.root / relative

    def current(self, relative: str) -> bytes | None:
        """The content now: the editor's buffer if the file is open there, else the disk."""
        path = self.absolute(relative)
        buffered = self.buffers(path)
        if buffered is not None:
            return buffered.encode("utf-8")
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                return os.readlink(path).encode() if path.is_symlink() else None
            return path.read_bytes()
        except OSError:
            return None

    def remember(self, relative: str, content: bytes | None) -> None:
        """Record ``relative``'s content before its first change in this turn."""
        with self._first_seen:
            if relative in self.before or relative in self.lost:
                return
            self.before[relative] = None if content is None else self.blobs.put(content)

    def remember_file(self, relative: str) -> None:
        """Record the file's current content, if this turn has not yet."""
        if relative not in self.before:
            self.remember(relative, self.current(relative))

    def remember_tree(self, path: Path) -> None:
        """A file, or every file below a directory."""
        if path.is_dir() and not path.is_symlink():
            for name in snapshot(path):
                self.remember_file(self.relative(path / name))
        else:
            self.remember_file(self.relative(path))

    def before_plan(self, plan: EditPlan) -> None:
        """Record every file ``plan`` would change, before it is applied."""
        for change in plan.changes:
            self._before_change(change)

    def _before_change(self, change: FileChange) -> None:
        match change:
            case WriteFile(path=path, old_text=old):
                relative = self.relative(path)
                if old is None:
                    self.new_folders(path.parent)
                    self.remember(relative, None)
                elif relative not in self.before:
                    self.remember(relative, old.encode("utf-8"))
            case MovePath(source=source, destination=destination):
                self.new_folders(destination.parent)
                if source.is_dir() and not source.is_symlink():
                    for name in snapshot(source):
                        self.remember_file(self.relative(source / name))
                        self.remember_file(self.relative(destination / name))
                        self.moves[self.relative(destination / name)] = self.relative(source / name)
                else:
                    self.remember_file(self.relative(source))
                    self.remember_file(self.relative(destination))
                    self.moves[self.relative(destination)] = self.relative(source)
            case DeletePath(path=path):
                self.remember_tree(path)
            case MakeDirectory(path=path):
                self.new_folders(path)

    def new_folders(self, folder: Path) -> None:
        """Record ``folder`` and its ancestors that do not exist yet: the turn creates them,
        so undo removes them (when nothing else is in them by then)."""
        while folder != self.workspace.root and not folder.exists():
            self.folders.add(self.relative(folder))
            folder = folder.parent

    def hold(self, relative: str) -> None:
        """Keep what the session sees of a file now, in case a program overwrites it."""
        path = self.absolute(relative)
        try:
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or info.st_size > HELD_MAX_BYTES:
                return
            key = (info.st_mtime_ns, info.st_size, info.st_ino, info.st_mode)
            if relative in self.held and self.held[relative][0] == key:
                return
            self.held[relative] = (key, path.read_bytes())
        except OSError:
            return

    def program_changed(
        self, before: dict[str, Stat], paths: Iterable[str], folders: Iterable[str] = ()
    ) -> None:
        """Record files a program created, changed or deleted, given the snapshot from before
        it ran, and the ``folders`` it created."""
        self.folders.update(folders)
        with self._first_seen:
            for relative in paths:
                if relative in self.before or relative in self.lost:
                    continue
                if relative not in before:
                    self.before[relative] = None
                elif relative in self.held and self.held[relative][0] == before[relative]:
                    self.before[relative] = self.blobs.put(self.held[relative][1])
                else:
                    self.lost.add(relative)

    def watched_changes(
        self, created: Iterable[str], existing: Iterable[str], folders: Iterable[str] = ()
    ) -> None:
        """Record files (and ``folders``) a program created, and files that existed and it
        changed or deleted (their previous content known if the session held it just before
        the call)."""
        self.folders.update(folders)
        with self._first_seen:
            for relative in created:
                if relative not in self.before and relative not in self.lost:
                    self.before[relative] = None
            for relative in existing:
                if relative in self.before or relative in self.lost:
                    continue
                if relative in self.held:
                    self.before[relative] = self.blobs.put(self.held[relative][1])
                else:
                    self.lost.add(relative)

    def changes(self) -> tuple[FileState, ...]:
        """Every file whose content differs from before the turn, as it is now (its content
        kept in the blob store); asked again, it looks again."""
        states = []
        for relative in sorted({*self.before, *self.lost}):
            content = self.current(relative)
            after = None if content is None else fingerprint(content)
            if content is not None:
                self.blobs.put(content)
            before = self.before.get(relative)
            if relative not in self.lost and before == after:
                continue
            states.append(
                FileState(
                    path=relative,
                    before=before,
                    after=after,
                    lost=relative in self.lost,
                    source=self.moves.get(relative) if before is None else None,
                )
            )
        states += [
            FileState(path=folder, before=None, after=None, folder=True)
            for folder in sorted(self.folders)
            if self.absolute(folder).is_dir()
        ]
        return tuple(states)


def listed(states: Sequence[FileState], workspace: Workspace) -> tuple[FileState, ...]:
    """The states the person's "files changed" lists: without the files the workspace ignores
    (``workspace.ignored``: caches, build output), which stay in the checkpoint and which undo
    puts back all the same."""
    hidden = ignored(workspace.root, [s.path for s in states if not s.folder])
    return tuple(s for s in states if s.path not in hidden)


class CheckpointingApplier:
    """The front end's applier, recording each file's previous content first."""

    def __init__(self, inner: EditApplier, checkpoint: Checkpoint) -> None:
        self.inner = inner
        self.checkpoint = checkpoint

    async def apply(self, plan: EditPlan) -> ApplyOutcome:
        """Record, then apply through the front end's applier."""
        await asyncio.to_thread(self.checkpoint.before_plan, plan)
        return await self.inner.apply(plan)


class ProgramWatch:
    """Middleware: for calls whose sandbox may write, and calls of tools that change files
    themselves (``CallScope.writes``: an MCP server's; the files they name are recorded first),
    find what they changed. On Linux an
    inotify watch on the workspace's folders, set up at the first such call of the session,
    says which files changed during the call, so a call costs nothing more however large the
    tree; elsewhere (or when the watch cannot be set up: no inotify, or its limit reached) stat
    snapshots of the files and folders before and after the call are compared."""

    def __init__(
        self,
        checkpoint: Checkpoint,
        held: Callable[[], Iterable[Path]],
        *,
        keeper: WatchKeeper,
    ) -> None:
        self.checkpoint = checkpoint
        self.held = held
        """The files whose content to keep before each call: those the session has read or
        changed (a program may overwrite them)."""
        self.keeper = keeper
        self.running = 0
        """Calls prepared and not yet ended (their changes found)."""
        self._counting = threading.Lock()
        self._preparing = threading.Lock()
        """One call prepared at a time, and none starts meanwhile."""
        self._lock = asyncio.Lock()

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        writes = invocation.scope.writes
        if invocation.scope.sandbox not in WRITING_POLICIES and writes is None:
            return await next_step(invocation)
        checkpoint = self.checkpoint
        root = checkpoint.workspace.root
        async with self._lock:
            if self.keeper.watch is None:
                self.keeper.watch = await asyncio.to_thread(Watch.start, root)
        watch = self.keeper.watch

        def prepare() -> tuple[dict[str, Stat], set[str]] | None:
            with self._preparing:
                # With no call running, what the watch reads is the person's change between
                # calls, and nothing changes the files while they are held. With one running,
                # what it reads is that call's change (recorded against the contents held before
                # it ran), and the files are not held again: that call may be changing them.
                alone = self.running == 0
                if watch is not None and watch.usable:
                    watch.drain(record=not alone, checkpoint=checkpoint)
                if alone:
                    for path in self.held():
                        checkpoint.hold(checkpoint.relative(path))
                for path in writes or ():
                    if checkpoint.workspace.contains(path):
                        # The path itself too: a tool that makes a folder (create_directory)
                        # names it, and undo removes it if it is a folder by then, whatever the
                        # watch saw.
                        checkpoint.new_folders(path)
                        checkpoint.remember_file(checkpoint.relative(path))
                folders: set[str] = set()
                watched = watch is not None and watch.usable  # the drain may have lost events
                before = None if watched else (snapshot(root, folders), folders)
                with self._counting:
                    self.running += 1
                return before

        def ended(before: tuple[dict[str, Stat], set[str]] | None) -> None:
            """Find what the call changed, then count it out (so that no call's drain takes
            its changes for the person's in between)."""
            try:
                if before is None and watch is not None and watch.usable:
                    watch.drain(record=True, checkpoint=checkpoint)
                elif before is not None:
                    folders: set[str] = set()
                    after = snapshot(root, folders)
                    files, old = before
                    checkpoint.program_changed(files, compare(files, after), folders - old)
            finally:
                self._count_out()

        preparing = asyncio.ensure_future(asyncio.to_thread(prepare))
        try:
            before = await asyncio.shield(preparing)
        except asyncio.CancelledError:  # the thread still prepares and counts the call
            preparing.add_done_callback(self._count_out_prepared)
            raise
        try:
            return await next_step(invocation)
        finally:
            await asyncio.to_thread(ended, before)

    def _count_out(self) -> None:
        with self._counting:
            self.running -= 1

    def _count_out_prepared(self, preparing: asyncio.Future[Any]) -> None:
        """A call cancelled while it was prepared never runs: once its preparation (which
        counted it) ends, it is counted out."""
        if not preparing.cancelled() and preparing.exception() is None:
            self._count_out()


@dataclass(frozen=True, kw_only=True)
class RestorePlan:
    """What an undo will do: one edit plan, and what it leaves out and why."""

    plan: EditPlan
    binary: tuple[tuple[str, bytes], ...]
    """Files whose previous content is not UTF-8 text, written on disk directly."""
    restored: tuple[str, ...]
    conflicts: tuple[str, ...]
    """Files changed since the turn by someone else."""
    unrestorable: tuple[str, ...]
    """Files whose previous content is unknown."""


def merge(turns: Sequence[Sequence[FileState]]) -> dict[str, tuple[FileState, str | None]]:
    """For turns in order: per path, the state before the first of them and the content
    expected now (after the last)."""
    merged: dict[str, tuple[FileState, str | None]] = {}
    for states in turns:
        for state in states:
            first = merged[state.path][0] if state.path in merged else state
            merged[state.path] = (first, state.after)
    return merged


def plan_restore(
    merged: dict[str, tuple[FileState, str | None]],
    checkpoint: Checkpoint,
    *,
    force: bool,
    label: str,
) -> RestorePlan:
    """The plan that puts every file in ``merged`` back to its state before."""
    changes: list[FileChange] = []
    binary: list[tuple[str, bytes]] = []
    restored, conflicts, unrestorable = [], [], []
    folders = sorted(
        (relative for relative, (first, _) in merged.items() if first.folder),
        key=lambda name: name.count("/"),
        reverse=True,
    )
    for relative, (first, expected) in sorted(merged.items()):
        if first.folder:
            continue
        if first.lost:
            unrestorable.append(relative)
            continue
        content = checkpoint.current(relative)
        now = None if content is None else fingerprint(content)
        if now != expected and now != first.before:
            conflicts.append(relative)
            if not force:
                continue
        if now == first.before:
            continue
        restored.append(relative)
        path = checkpoint.absolute(relative)
        checkpoint.remember(relative, content)
        if first.before is None:
            changes.append(DeletePath(path=path, recursive=False))
            continue
        previous = checkpoint.blobs.get(first.before)
        try:
            text = previous.decode("utf-8")
            old = None if content is None else content.decode("utf-8")
        except UnicodeDecodeError:
            binary.append((relative, previous))
            continue
        if content is None and not path.parent.exists():
            changes.append(MakeDirectory(path=path.parent))
        buffered = checkpoint.buffers(path) is not None
        changes.append(
            WriteFile(
                path=path,
                text=text,
                old_text=old,
                old_fingerprint=None if buffered or content is None else now,
            )
        )
    deleted = {checkpoint.relative(c.path) for c in changes if isinstance(c, DeletePath)}
    for relative in folders:  # the deepest first, so a parent sees its children go
        path = checkpoint.absolute(relative)
        if path.is_dir() and not path.is_symlink() and _emptied(path, relative, deleted):
            changes.append(DeletePath(path=path, recursive=True))
            deleted.add(relative)
    if conflicts and not force:
        restored, changes, binary = [], [], []
    summary = f"{label}: restore {len(restored)} file{'s' if len(restored) != 1 else ''}"
    return RestorePlan(
        plan=EditPlan(tool="undo", changes=tuple(changes), summary=summary),
        binary=tuple(binary),
        restored=tuple(restored),
        conflicts=tuple(conflicts),
        unrestorable=tuple(unrestorable),
    )


def _emptied(path: Path, relative: str, deleted: set[str]) -> bool:
    """Whether everything in the folder is being deleted (so removing it loses nothing)."""
    for folder, subfolders, files in os.walk(path):
        inside = relative + folder[len(str(path)) :].replace(os.sep, "/")
        for name in [*subfolders, *files]:
            if f"{inside}/{name}" not in deleted:
                return False
    return True
