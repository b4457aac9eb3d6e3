"""Empty placeholders for protected names that do not exist yet, so that a writable sandbox can
bind them read-only.

A mount needs something to mount on, and a workspace root is the person's own folder: bubblewrap
would create that mount point on the host and leave it there. So Foehn makes the placeholder
itself (an empty folder, or an empty read-only file for ``.envrc``), binds it read-only for the
call, and removes it when the last call holding it ends, only if it is still the one Foehn
made and still empty. Inside the sandbox the program can neither write into it nor remove or
rename it (it is a mount point). Outside, for as long as the call runs, the person sees an
empty ``.git``, ``.foehn``, ``.vscode`` or ``.envrc``.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from foehn_lsp.sandbox.view import PROTECTED_FILES


@dataclass(frozen=True, kw_only=True)
class _Made:
    device: int
    inode: int


class Placeholders:
    """The placeholders this process made, counted by the calls that hold them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[Path, tuple[_Made, int]] = {}

    @contextlib.contextmanager
    def holding(self, missing: Sequence[Path], existing: Sequence[Path] = ()) -> Iterator[None]:
        """Placeholders at the ``missing`` paths while the block runs, and a hold on those of
        ``existing`` that are this process's placeholders (another call's), so that none is
        removed while a sandbox has it bound. Raises ``OSError`` naming the path when one
        cannot be made (nothing is left behind)."""
        taken: list[Path] = []
        try:
            for path in missing:
                if self._take(path, make=True):
                    taken.append(path)
            for path in existing:
                if self._take(path, make=False):
                    taken.append(path)
            yield
        finally:
            for path in taken:
                self._release(path)

    def _take(self, path: Path, *, make: bool) -> bool:
        """Hold the placeholder at ``path`` (making it if ``make``); whether it is held."""
        with self._lock:
            if path in self._held:
                made, count = self._held[path]
                self._held[path] = (made, count + 1)
                return True
            if not make:
                return False
            try:
                if path.name in PROTECTED_FILES:
                    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o444))
                else:
                    path.mkdir()
            except FileExistsError:
                return False  # made meanwhile by someone else: the view binds it as it is
            except OSError as exc:
                raise OSError(
                    f"cannot make the placeholder that keeps {path.name} read-only ({path}): "
                    f"{exc.strerror}"
                ) from None
            stat = path.lstat()
            self._held[path] = (_Made(device=stat.st_dev, inode=stat.st_ino), 1)
            return True

    def _release(self, path: Path) -> None:
        with self._lock:
            if path not in self._held:
                return
            made, count = self._held[path]
            if count > 1:
                self._held[path] = (made, count - 1)
                return
            del self._held[path]
            with contextlib.suppress(OSError):
                stat = path.lstat()
                if (stat.st_dev, stat.st_ino) != (made.device, made.inode):
                    return  # replaced by the person meanwhile: theirs now
                if path.is_dir():
                    path.rmdir()  # fails, and keeps it, if the person put something in it
                elif stat.st_size == 0:
                    path.unlink()
