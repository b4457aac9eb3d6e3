"""Listing a workspace with ripgrep (the binary the ``ripgrep`` package installs): the rules
every listing follows (``.gitignore`` honoured, hidden files but ``.git``, ``.foehnignore``), for
the listing and search tools and for the editor's ``@`` mentions."""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from functools import cache
from pathlib import Path

from foehn_lsp.workspace import Workspace


@cache
def ripgrep() -> str | None:
    """The ``rg`` next to this interpreter's scripts, else the one on ``PATH``."""
    search = os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])
    return shutil.which("rg", path=search)


def common_args(workspace: Workspace) -> list[str]:
    """Arguments shared by listing and searching: .gitignore honoured even outside a git repo,
    hidden files shown except .git, symlinks not followed, the workspace's .foehnignore."""
    args = ["--hidden", "--no-require-git", "--glob", "!.git", "--no-config", "--color", "never"]
    ignore = Path(workspace.root, ".foehnignore")
    if ignore.is_file() and not ignore.is_symlink():
        args += ["--ignore-file", str(ignore)]
    return args


def check_glob(glob: str) -> str | None:
    """Why ``glob`` is refused (it reaches outside the listed folder), or ``None``."""
    parts = glob.replace("\\", "/").split("/")
    if glob.startswith(("/", "~")) or ".." in parts or "\x00" in glob:
        return (
            f"pattern {glob!r} may not be absolute or contain '..'; patterns match names "
            "inside the listed folder"
        )
    return None


def list_files(workspace: Workspace, *, timeout: float) -> list[str]:
    """Every file ripgrep lists under the workspace's first root, relative with "/", sorted;
    empty without ripgrep. Raises ``TimeoutError`` after ``timeout`` seconds."""
    binary = ripgrep()
    if binary is None:
        return []
    command = [binary, "--files", *common_args(workspace)]
    try:
        done = subprocess.run(
            command,
            cwd=workspace.root,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise TimeoutError(f"listing the files took more than {timeout:g} s") from None
    return sorted(line.removeprefix("./") for line in done.stdout.splitlines() if line)
