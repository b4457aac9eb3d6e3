"""Which files the workspace ignores: its ``.gitignore`` files (the root's and each folder's on
the way to a file, the deeper one deciding, as git does; in a git repository or not),
``.git/info/exclude`` and the workspace's ``.foehnignore``.

What "files changed" lists leaves these out (``__pycache__``, build output): they are still in
the turn's checkpoint, and undo puts them back.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import pathspec

IGNORE_FILES = (".gitignore",)
ROOT_ONLY = (".git/info/exclude", ".foehnignore")


def ignored(root: Path, paths: Iterable[str]) -> set[str]:
    """The ``paths`` (relative to ``root``, with "/") that the workspace ignores."""
    found = set()
    for relative in paths:
        if _ignored(root, relative):
            found.add(relative)
    return found


def _ignored(root: Path, relative: str) -> bool:
    parts = relative.split("/")
    decided: bool | None = None
    for name in ROOT_ONLY:
        decided = _check(root / name, relative, decided)
    for depth in range(len(parts)):
        folder = root.joinpath(*parts[:depth])
        inside = "/".join(parts[depth:])
        for name in IGNORE_FILES:
            decided = _check(folder / name, inside, decided)
    return bool(decided)


def _check(file: Path, relative: str, decided: bool | None) -> bool | None:
    """``decided`` as the ignore file ``file`` leaves it for ``relative`` (relative to the
    file's folder): its last matching pattern decides, or nothing changes."""
    spec = _spec(file, *_stamp(file))
    if spec is None:
        return decided
    include = spec.check_file(relative).include
    return decided if include is None else include


def _stamp(file: Path) -> tuple[int, int]:
    try:
        info = file.stat()
    except OSError:
        return (0, -1)
    return (info.st_mtime_ns, info.st_size)


@lru_cache(maxsize=256)
def _spec(file: Path, mtime: int, size: int) -> pathspec.GitIgnoreSpec | None:
    """The patterns of ``file`` (read again when it changes); ``None`` without one."""
    if size < 0 or file.is_symlink():
        return None
    try:
        lines = file.read_text("utf-8", "replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)
