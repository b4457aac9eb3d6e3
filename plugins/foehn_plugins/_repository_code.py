"""Whether a command runs the repository's own code: a program of the workspace (``./x``,
``.venv/bin/x``, ``node_modules/.bin/x``, or a name only the workspace's ``.venv`` has), a
script of it given to an interpreter (``python file.py``), or a module an interpreter would
import from it (``python -m NAME`` where ``NAME`` is the workspace's).

Such a call is at least ``workspace-write``, is always asked, and the person is told that it
runs the repository's code: the risk table knows programs by their names, and a repository
can name its programs like the system's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from foehn_lsp.policy.rules.argv import PYTHON, Run, view
from foehn_lsp.workspace import Workspace
from foehn_plugins.command_risk import INTERPRETERS

NOTE = "runs the repository's own code"
Resolve = Callable[[str], Path | None]
"""A program's name to the executable a call would start (``None``: not found)."""
PYTHON_VALUE_OPTIONS = frozenset({"-W", "-X", "--check-hash-based-pycs"})
"""Python options whose value is the next argument (``-c`` and ``-m`` end the options)."""
MODULE_SUFFIXES = (".py", ".pyc", ".so", ".pyd", ".pth")


def repository_code(
    argv: Sequence[str], workspace: Workspace, cwd: Path, resolve: Resolve
) -> str | None:
    """What of the repository's own ``argv`` would run, as one line for the person, or
    ``None``: each program the argv may start (``policy.rules.argv``), looked at in turn.
    ``resolve`` finds a bare program name as the call would."""
    for run in view(argv).runs:
        if run.via and PYTHON.match(run.via[-1]):
            continue  # a module python -m imports, which the interpreter's own run reads
        if found := _run_code(run, workspace, cwd, resolve):
            return found
    return None


def _run_code(run: Run, workspace: Workspace, cwd: Path, resolve: Resolve) -> str | None:
    executable = _executable(run.program, workspace, cwd, resolve)
    if executable is not None and _inside(executable, workspace):
        return f"{NOTE}: {workspace.display(executable)}"
    if run.name in INTERPRETERS or _is_python(run.name):
        return _interpreted(run.name, list(run.args), workspace, cwd)
    return None


def _executable(program: str, workspace: Workspace, cwd: Path, resolve: Resolve) -> Path | None:
    if "/" not in program:
        return resolve(program)
    path = Path(os.path.normpath(cwd / program))
    return path if path.is_file() else None


def _interpreted(name: str, args: list[str], workspace: Workspace, cwd: Path) -> str | None:
    python = _is_python(name)
    index = 0
    while index < len(args):
        argument = args[index]
        if python and argument == "-m" and index + 1 < len(args):
            top = args[index + 1].split(".", 1)[0]
            if _module_in(cwd, top):
                return f"{NOTE}: python -m {args[index + 1]} imports the workspace's {top}"
            return None
        if argument in ("-c", "-e", "--eval", "-p", "--print"):
            return None  # inline code: risky, and asked, but not the repository's file
        if python and argument in PYTHON_VALUE_OPTIONS:
            index += 2
            continue
        if argument.startswith("-"):
            index += 1
            continue
        script = Path(os.path.realpath(cwd / argument))
        if script.is_file() and _inside(script, workspace):
            return f"{NOTE}: the script {workspace.display(script)}"
        return None
    return None


def _module_in(folder: Path, top: str) -> bool:
    """Whether ``folder`` holds a module or package named ``top``."""
    if not top or (folder / top).is_dir():
        return bool(top)
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    return any(n.split(".", 1)[0] == top and n.endswith(MODULE_SUFFIXES) for n in names)


def _is_python(name: str) -> bool:
    version = name.removeprefix("python")
    return name.startswith("python") and (not version or version.replace(".", "").isdigit())


def _inside(path: Path, workspace: Workspace) -> bool:
    """Whether ``path`` is in the workspace, its own name not followed: a ``.venv``'s
    ``bin/python`` links to an interpreter elsewhere, but runs with the workspace's packages."""
    real = Path(os.path.realpath(path.parent)) / path.name
    return any(real == root or root in real.parents for root in workspace.roots)
