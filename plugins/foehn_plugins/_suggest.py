"""Nearest names: what a scan or search that found nothing offers instead of a bare "none".

A small model guesses names (``README`` for ``README.md``, ``Changelog`` for ``CHANGELOG.md``)
and concludes "not there" when a tool finds nothing; a larger one wastes a step. The tools
answer an empty result with the workspace's names that look most like the one asked for.
"""

from __future__ import annotations

import difflib
import subprocess
from pathlib import PurePosixPath

from foehn_lsp.workspace import Workspace
from foehn_lsp.workspace.listing import common_args, ripgrep

MAX_NAMES = 5_000
"""Files considered; a workspace larger than this gets suggestions from its first files."""
MAX_SUGGESTIONS = 5


def _stem(wanted: str) -> str:
    """The name part of a glob or path: ``'**/README*'`` → ``'readme'``."""
    name = PurePosixPath(wanted.replace("\\", "/").rstrip("/")).name or wanted
    return name.strip("*?[]{}").removesuffix(".*").lower()


def workspace_names(workspace: Workspace) -> list[str]:
    """Files (and their folders, ending in ``/``) under the workspace root, relative to it,
    as ``scan`` sees them (.gitignore honoured)."""
    rg = ripgrep()
    if rg is None:
        return []
    done = subprocess.run(
        [rg, "--files", *common_args(workspace)],
        cwd=workspace.root,
        capture_output=True,
        check=False,
    )
    files = sorted(done.stdout.decode("utf-8", "replace").splitlines())[:MAX_NAMES]
    folders = {str(parent) + "/" for f in files for parent in PurePosixPath(f).parents}
    folders.discard("./")
    return files + sorted(folders)


def nearest_names(workspace: Workspace, wanted: str) -> list[str]:
    """Paths whose last part starts with, contains, or is spelled like ``wanted``'s name."""
    stem = _stem(wanted)
    if not stem:
        return []
    names = workspace_names(workspace)
    last = {name: PurePosixPath(name.rstrip("/")).name.lower() for name in names}
    ranked = [n for n in names if last[n].startswith(stem)]
    ranked += [n for n in names if stem in last[n] and n not in ranked]
    close = difflib.get_close_matches(
        stem, sorted(set(last.values())), n=MAX_SUGGESTIONS, cutoff=0.6
    )
    ranked += [n for c in close for n in names if last[n] == c and n not in ranked]
    return ranked[:MAX_SUGGESTIONS]


def suggestion(workspace: Workspace, wanted: str) -> str:
    """``'; names like it: README.md, docs/readme.txt'``, or ``''`` when nothing is close."""
    names = nearest_names(workspace, wanted)
    return f"; names like it: {', '.join(names)}" if names else ""


def missing(workspace: Workspace, wanted: str) -> str:
    """What a read of ``wanted``, which is not there, answers: the package a module's name
    stands for, else the names like it, else to scan. Seen (bench: nf-inf-pluralize-empty):
    the model asked for ``tests/test_inflection.py`` four times, read ``test_inflection.py``
    in between, and answered that the file did not exist; and (nc-inf-humanize) it read
    ``inflection.humanize`` as ``inflection.py``, which is ``inflection/__init__.py``."""
    package = wanted.removesuffix(".py") + "/__init__.py"
    if wanted.endswith(".py") and package in workspace_names(workspace):
        name = PurePosixPath(package).parent.name
        return f"{wanted} does not exist; {name} is a package: its code is in {package}"
    near = suggestion(workspace, wanted) or "; use scan to see what is there"
    return f"{wanted} does not exist{near}"
