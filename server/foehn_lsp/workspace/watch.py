"""Watching a workspace for what programs change: a stat snapshot compared before and after
(anywhere), or an inotify watch on every folder (Linux) that says which files changed without
walking the tree. ``.git`` and ``.foehn`` are left out: no sandboxed program can write them.
A session's checkpoints (``sessions/checkpoints.py``) record what is found."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import logging
import os
import struct
import sys
import threading
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger(__name__)

SKIPPED_DIRECTORIES = frozenset({".git", ".foehn"})
"""Never writable by a sandboxed program, so never compared."""

Stat = tuple[int, int, int, int]
"""mtime_ns, size, inode, mode: enough to notice a change without reading the file."""


def snapshot(root: Path, folders: set[str] | None = None) -> dict[str, Stat]:
    """Every regular file and symlink below ``root`` (``.git`` and ``.foehn`` left out), by
    relative path, and, into ``folders`` if given, every folder. Costs one ``lstat`` per file
    and reads nothing."""
    found: dict[str, Stat] = {}
    stack = [(str(root), "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                name = prefix + entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in SKIPPED_DIRECTORIES or prefix:
                            stack.append((entry.path, name + "/"))
                            if folders is not None:
                                folders.add(name)
                        continue
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                found[name] = (info.st_mtime_ns, info.st_size, info.st_ino, info.st_mode)
    return found


def compare(before: dict[str, Stat], after: dict[str, Stat]) -> list[str]:
    """Paths created, changed or deleted between two snapshots."""
    changed = [path for path, info in after.items() if before.get(path) != info]
    changed += [path for path in before if path not in after]
    return sorted(changed)


class WatchedChanges(Protocol):
    """Where a watch reports the files that changed (a session's checkpoint)."""

    def watched_changes(self, created: list[str], existing: list[str], folders: list[str]) -> None:
        """``created`` did not exist before, ``existing`` did; ``folders`` were created."""
        ...


class WatchKeeper:
    """Keeps a session's watch from turn to turn, so it is set up once per session (between
    turns its events only keep the list of files current); ``close`` when the session ends."""

    def __init__(self) -> None:
        self.watch: Watch | None = None

    def refresh(self) -> None:
        """At a turn's start: a watch that lost events is dropped (set up again if needed)."""
        if self.watch is not None and not self.watch.usable:
            self.watch.close()
            self.watch = None

    def close(self) -> None:
        """Stop watching."""
        if self.watch is not None:
            self.watch.close()
            self.watch = None


_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_Q_OVERFLOW, _IN_IGNORED, _IN_ISDIR = 0x4000, 0x8000, 0x40000000
_IN_ONLYDIR, _IN_DONT_FOLLOW = 0x1000000, 0x2000000
_WATCHED = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_ONLYDIR
    | _IN_DONT_FOLLOW
)
_EVENT = struct.Struct("iIII")


class Watch:
    """inotify on every folder of the workspace (``.git`` and ``.foehn`` left out), and the
    files known to exist, kept up to date from the events. ``usable`` is false where inotify is
    missing, the watch limit is reached, or events were lost; callers then compare snapshots.
    Calls that end together drain it from several threads: one drain at a time."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.usable = False
        self.fd = -1
        self.folders: dict[int, str] = {}
        """Watch descriptor -> folder relative to the root ("" for the root)."""
        self.known: set[str] = set()
        self._add_watch: Any = None
        self._draining = threading.Lock()

    @classmethod
    def start(cls, root: Path) -> Watch:
        """Watch ``root``'s folders; check ``usable`` before relying on it."""
        watch = cls(root)
        if not sys.platform.startswith("linux"):
            return watch
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            watch._add_watch = libc.inotify_add_watch
            watch.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
            if watch.fd < 0:
                return watch
            watch.usable = watch._add_tree("")
        except (OSError, AttributeError):
            watch.usable = False
        if not watch.usable:
            watch.close()
        return watch

    def _add_tree(
        self, folder: str, added: list[str] | None = None, folders: list[str] | None = None
    ) -> bool:
        """Watch ``folder`` and everything below it; its files become known (and are listed
        in ``added``, its folders, itself included, in ``folders``)."""
        stack = [folder]
        while stack:
            relative = stack.pop()
            path = os.fsencode(self.root / relative if relative else self.root)
            wd = self._add_watch(self.fd, path, _WATCHED)
            if wd < 0:
                return ctypes.get_errno() in (errno.ENOENT, errno.ENOTDIR)
            self.folders[wd] = relative
            if folders is not None:
                folders.append(relative)
            try:
                entries = os.scandir(self.root / relative if relative else self.root)
            except OSError:
                continue
            with entries:
                for entry in entries:
                    name = f"{relative}/{entry.name}" if relative else entry.name
                    if entry.is_dir(follow_symlinks=False):
                        if relative or entry.name not in SKIPPED_DIRECTORIES:
                            stack.append(name)
                    else:
                        self.known.add(name)
                        if added is not None:
                            added.append(name)
        return True

    def drain(self, *, record: bool, checkpoint: WatchedChanges) -> None:
        """Read the events so far; with ``record``, the files they touched go to the
        checkpoint (created if they were not known before), and the folders they created."""
        with self._draining:
            self._drain(record, checkpoint)

    def _drain(self, record: bool, checkpoint: WatchedChanges) -> None:
        existed: dict[str, bool] = {}
        folders: list[str] = []
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                self.usable = False
                break
            offset = 0
            while offset < len(data):
                wd, mask, _cookie, size = _EVENT.unpack_from(data, offset)
                raw = data[offset + _EVENT.size : offset + _EVENT.size + size]
                offset += _EVENT.size + size
                if mask & _IN_Q_OVERFLOW:
                    log.warning("too many changes at once to follow; comparing snapshots now")
                    self.usable = False
                    continue
                if mask & _IN_IGNORED or wd not in self.folders:
                    self.folders.pop(wd, None)
                    continue
                name = os.fsdecode(raw.rstrip(b"\0"))
                folder = self.folders[wd]
                relative = f"{folder}/{name}" if folder else name
                self._event(mask, relative, existed, folders)
        if record:
            created = [p for p, before in existed.items() if not before]
            existing = [p for p, before in existed.items() if before]
            checkpoint.watched_changes(created, existing, folders)

    def _event(
        self, mask: int, relative: str, existed: dict[str, bool], folders: list[str]
    ) -> None:
        """One event: ``existed`` learns whether the file it names existed before the drain,
        ``folders`` the folders it created."""
        if mask & _IN_ISDIR:
            if mask & (_IN_CREATE | _IN_MOVED_TO):
                added: list[str] = []
                self._add_tree(relative, added, folders)
                for path in added:
                    existed.setdefault(path, False)
            elif mask & (_IN_DELETE | _IN_MOVED_FROM):
                prefix = relative + "/"
                for path in [p for p in self.known if p.startswith(prefix)]:
                    existed.setdefault(path, True)
                    self.known.discard(path)
            return
        existed.setdefault(relative, relative in self.known)
        if mask & (_IN_DELETE | _IN_MOVED_FROM):
            self.known.discard(relative)
        elif mask & (_IN_CREATE | _IN_MOVED_TO):
            self.known.add(relative)

    def close(self) -> None:
        """Release the inotify descriptor (once no drain reads it)."""
        with self._draining:
            if self.fd >= 0:
                os.close(self.fd)
                self.fd = -1
            self.usable = False

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # a session that was never closed
            self.close()
