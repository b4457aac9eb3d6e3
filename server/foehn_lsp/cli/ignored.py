"""Which of a turn's changed files the workspace's git ignores (``__pycache__``,
``.pytest_cache``, build output): the terminal's end-of-turn summary counts them instead of
listing them. The checkpoint still holds them, so ``undo`` puts them back too."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

TIMEOUT = 10.0


def git_ignored(root: Path, paths: Sequence[str]) -> set[str]:
    """The ``paths`` (relative, with "/") that git ignores in ``root``; none when ``root`` is
    not in a git repository, git is missing, or it does not answer in time."""
    git = shutil.which("git")
    if git is None or not paths:
        return set()
    # No fsmonitor: a repository's config must not start a program of its choosing.
    command = [git, "-C", str(root), "-c", "core.fsmonitor=false", "check-ignore"]
    try:
        done = subprocess.run(
            [*command, "--no-index", "-z", "--stdin"],
            input="\0".join(paths).encode() + b"\0",
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return set()
    if done.returncode not in (0, 1):  # 1: none ignored; 128: not a repository
        return set()
    return {p for p in done.stdout.decode("utf-8", "replace").split("\0") if p}
