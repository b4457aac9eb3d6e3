"""Confinement: the one resolver every file and process tool uses.

A path from the model is resolved the way the kernel would resolve it, one component at a time,
from the workspace root; every symlink on the way is followed and its target checked, so neither
``..``, an absolute path, nor a symlink (final or intermediate, or a chain of them) can lead out.
This is code, not an ignore file. Because the file system can change between this check and the
use, ``open_confined`` and ``confined_directory`` check again on the opened file descriptor.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from foehn_lsp.errors import PathRefusedError

MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255
PROTECTED_DIRS = frozenset({".git"})


class Workspace:
    """The roots a run may touch. Relative paths resolve against the first root."""

    def __init__(self, roots: Sequence[str | os.PathLike[str]]) -> None:
        if not roots:
            raise ValueError("a workspace needs at least one root")
        real = []
        for root in roots:
            path = Path(os.path.realpath(root))
            if not path.is_dir():
                raise ValueError(f"workspace root {os.fspath(root)!r} is not a directory")
            real.append(path)
        self.roots: tuple[Path, ...] = tuple(real)

    @property
    def root(self) -> Path:
        return self.roots[0]

    def __repr__(self) -> str:
        return f"Workspace({[str(r) for r in self.roots]!r})"

    def root_of(self, real: Path | str) -> Path | None:
        """The root that contains the resolved path ``real``, if any."""
        text = os.fspath(real)
        for root in self.roots:
            base = os.fspath(root)
            if text == base or text.startswith(base.rstrip(os.sep) + os.sep):
                return root
        return None

    def contains(self, real: Path | str) -> bool:
        return self.root_of(real) is not None

    def display(self, real: Path) -> str:
        """How a resolved path is shown to the model: relative to its root, with ``/``."""
        root = self.root_of(real)
        if root is None:
            return os.fspath(real)
        relative = real.relative_to(root).as_posix()
        if root != self.root:
            return os.fspath(real)
        return relative or "."

    def resolve(self, path: str, *, write: bool = False) -> Path:
        """The real location of ``path`` inside the workspace, or ``PathRefusedError`` saying why.

        The path need not exist (a file about to be created); what exists of it is checked.
        """
        if not isinstance(path, str):
            raise PathRefusedError(f"path must be a string, got {type(path).__name__}")
        if "\x00" in path:
            raise PathRefusedError("path contains a NUL byte; send a plain relative path")
        if not path.strip():
            raise PathRefusedError("path is empty; use '.' for the workspace root")
        encoded = os.fsencode(path)
        if len(encoded) > MAX_PATH_BYTES:
            raise PathRefusedError(f"path is too long ({len(encoded)} bytes; at most 4096)")
        if any(len(os.fsencode(part)) > MAX_NAME_BYTES for part in path.split("/")):
            raise PathRefusedError("a path component is too long (at most 255 bytes each)")
        if path.startswith("~"):
            raise PathRefusedError(
                f"{path!r}: home-directory paths are not allowed; use a path relative to the "
                "workspace root"
            )
        if os.path.isabs(path):
            base, parts = self._split_absolute(path)
        else:
            base, parts = self.root, path.split("/")
        resolved = self._walk(base, parts, path)
        self._check_kind(resolved, path)
        if write:
            self._check_writable(resolved, path)
        return resolved

    def _split_absolute(self, path: str) -> tuple[Path, list[str]]:
        normal = os.path.normpath(path)
        for root in self.roots:
            base = os.fspath(root)
            if normal == base or normal.startswith(base + os.sep):
                rest = path[len(base) :] if path.startswith(base) else normal[len(base) :]
                return root, rest.split("/")
        raise PathRefusedError(
            f"{path!r} is outside the workspace; use a path relative to the workspace root"
        )

    def _walk(self, base: Path, parts: list[str], original: str) -> Path:
        current = base
        hops = 0
        for part in parts:
            if part in ("", "."):
                continue
            if part == "..":
                current = current.parent
                if not self.contains(current):
                    raise PathRefusedError(
                        f"{original!r} escapes the workspace via '..'; stay inside the root"
                    )
                continue
            step = current / part
            if os.path.islink(step):
                hops += 1
                if hops > 40:
                    raise PathRefusedError(f"{original!r}: too many levels of symbolic links")
                target = os.readlink(step)
                real = Path(os.path.realpath(step))
                if not self.contains(real):
                    shown = self.display(step) if self.contains(step) else os.fspath(step)
                    raise PathRefusedError(
                        f"{original!r} escapes the workspace via symlink {shown} -> {target}"
                    )
                current = real
            else:
                current = step
        return current

    def _check_kind(self, resolved: Path, original: str) -> None:
        try:
            mode = os.lstat(resolved).st_mode
        except FileNotFoundError:
            return
        except OSError as exc:
            raise PathRefusedError(f"{original!r}: {exc.strerror}") from None
        if stat.S_ISLNK(mode):
            raise PathRefusedError(f"{original!r} is a symbolic link that never resolves (a loop)")
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            kind = (
                "a FIFO"
                if stat.S_ISFIFO(mode)
                else "a socket"
                if stat.S_ISSOCK(mode)
                else "a device file"
                if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "not a regular file"
            )
            raise PathRefusedError(
                f"{original!r} is {kind}; only regular files and directories can be used"
            )

    def _check_writable(self, resolved: Path, original: str) -> None:
        root = self.root_of(resolved)
        assert root is not None  # _walk only returns paths inside a root
        parts = resolved.relative_to(root).parts
        if any(part.lower() in PROTECTED_DIRS for part in parts):
            raise PathRefusedError(
                f"{original!r} is inside .git/; Foehn never writes there (use the git tool to "
                "read history)"
            )

    def check_descriptor(self, fd: int, shown: str) -> None:
        """Refuse an opened descriptor whose real location is outside the roots (the path was
        swapped for a symlink after it was resolved)."""
        real = descriptor_path(fd)
        if real is not None and not self.contains(real):
            raise PathRefusedError(
                f"{shown!r} changed while it was being used and now leads outside the "
                "workspace; nothing was read or written"
            )


def descriptor_path(fd: int) -> str | None:
    """Where an open descriptor really is, from the kernel (``None`` if it cannot tell)."""
    try:
        import fcntl

        if hasattr(fcntl, "F_GETPATH"):  # macOS
            raw: bytes = fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024))
            return os.fsdecode(raw.rstrip(b"\x00"))
    except OSError:
        return None
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def open_confined(workspace: Workspace, path: Path, flags: int = os.O_RDONLY) -> int:
    """Open ``path`` (already resolved) without following a final symlink, and check the
    descriptor's real location. The caller closes the descriptor."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: the final component became a symlink
            raise PathRefusedError(
                f"{workspace.display(path)!r} was replaced by a symlink; nothing was read"
            ) from None
        raise
    try:
        workspace.check_descriptor(fd, workspace.display(path))
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise PathRefusedError(f"{workspace.display(path)!r} is not a regular file")
    except BaseException:
        os.close(fd)
        raise
    os.set_blocking(fd, True)
    return fd


@contextlib.contextmanager
def confined_directory(workspace: Workspace, directory: Path) -> Iterator[int]:
    """A descriptor for ``directory`` checked to be inside the workspace, for ``*at`` calls."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        workspace.check_descriptor(fd, workspace.display(directory))
        yield fd
    finally:
        os.close(fd)
