"""Which environment and test runner a project uses, found the way the person's own tools find
them. The one place that answers it: ``run_tests`` runs what ``find_runner`` finds, and the
checkers after edits (ruff, mypy…) look first in the environment ``python_environment`` finds.

The order (the first that applies wins):

1. ``[tool.foehn] test-command`` in the workspace's ``pyproject.toml`` (an argv);
2. an activated environment: ``VIRTUAL_ENV``, else ``CONDA_PREFIX``, when the sandbox shows
   its folder (the view binds it as one of the person's toolchains);
3. the workspace's own ``.venv`` or ``venv``;
4. a uv, Poetry, Hatch, PDM or tox project, by its files, only when that tool is on the
   person's ``PATH`` as the sandbox sees it;
5. ``package.json``'s ``test`` script (``pnpm``/``yarn``/``npm`` by lock file), then
   ``Cargo.toml`` (``cargo test``), ``go.mod`` (``go test ./...``) and a ``Makefile`` with a
   ``test`` target (``make test``).

Steps 2 and 3 run ``python -m pytest`` with that environment's own interpreter. Foehn's own
interpreter is never used unless the person configured it; where nothing applies the answer is
one line naming what to install or configure (``NoRunner``).
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Which = Callable[[str], str | None]
"""A program's name to the executable a workspace-write call would start (``None``: not on
the ``PATH`` the sandbox shows)."""
Shows = Callable[[Path], bool]
"""Whether the sandbox shows a (real) path."""

PYTEST = ("-m", "pytest")
NPM_PLACEHOLDER = "no test specified"
"""What ``npm init`` writes as the ``test`` script: not a test suite."""
MAKE_TEST = re.compile(r"^test\s*:(?!=)", re.MULTILINE)
VENV_NAMES = (".venv", "venv")


@dataclass(frozen=True, kw_only=True)
class PythonEnvironment:
    """A Python environment: a virtual environment or a conda environment."""

    prefix: Path
    """Its folder (``sys.prefix`` inside it)."""
    why: str
    """Why it was chosen, for the person: ``the workspace's .venv``."""
    variable: str = "VIRTUAL_ENV"
    """The variable that names it for programs (``CONDA_PREFIX`` for conda)."""

    @property
    def python(self) -> Path:
        return self.prefix / "bin" / "python"

    @property
    def bin(self) -> Path:
        return self.prefix / "bin"


@dataclass(frozen=True, kw_only=True)
class ProjectRunner:
    """The command that runs a project's tests."""

    argv: tuple[str, ...]
    why: str
    """Why this one, in words: ``the workspace's .venv``, ``Cargo.toml``."""
    pytest: bool
    """Whether it takes pytest's ``-k`` and paths."""
    environment: PythonEnvironment | None = None
    """The Python environment it runs in, when one was chosen (steps 2 and 3)."""


@dataclass(frozen=True, kw_only=True)
class NoRunner:
    """No runner applies: one line naming what to install or configure."""

    message: str


def python_environment(
    root: Path, environ: Mapping[str, str] | None = None, *, shows: Shows = lambda path: True
) -> PythonEnvironment | None:
    """The Python environment of the project at ``root``: the activated one (``VIRTUAL_ENV``,
    else ``CONDA_PREFIX``) whose folder the sandbox ``shows``, else the workspace's ``.venv`` or
    ``venv``; ``None`` when there is none."""
    environ = os.environ if environ is None else environ
    for variable, kind in (("VIRTUAL_ENV", "virtual"), ("CONDA_PREFIX", "conda")):
        written = environ.get(variable, "")
        if not os.path.isabs(written):
            continue
        prefix = Path(os.path.realpath(written))
        if (prefix / "bin" / "python").is_file() and shows(prefix):
            return PythonEnvironment(
                prefix=prefix,
                why=f"the activated {kind} environment, {variable}",
                variable=variable,
            )
    for name in VENV_NAMES:
        folder = root / name
        if (folder / "pyvenv.cfg").is_file() and not folder.is_symlink():
            return PythonEnvironment(prefix=folder, why=f"the workspace's {name}")
    return None


def find_runner(
    root: Path,
    *,
    which: Which,
    environ: Mapping[str, str] | None = None,
    shows: Shows = lambda path: True,
) -> ProjectRunner | NoRunner:
    """The runner of the project at ``root``, in the order of the module's docstring."""
    pyproject, problem = _pyproject(root)
    if problem:
        return NoRunner(message=problem)
    tool = _table(pyproject, "tool")
    configured = _table(tool, "foehn").get("test-command")
    if configured is not None:
        if not (
            isinstance(configured, list)
            and configured
            and all(isinstance(a, str) and a for a in configured)
        ):
            return NoRunner(
                message="[tool.foehn] test-command in pyproject.toml must be a list of strings, "
                'such as ["python", "-m", "pytest"]; fix it to run the tests'
            )
        return ProjectRunner(
            argv=tuple(configured), why="[tool.foehn] test-command in pyproject.toml", pytest=True
        )
    environment = python_environment(root, environ, shows=shows)
    if environment is not None:
        return ProjectRunner(
            argv=(str(environment.python), *PYTEST),
            why=environment.why,
            pytest=True,
            environment=environment,
        )
    missing: list[str] = []
    for found in (_python_tools(root, tool), _other_runners(root)):
        for program, argv, why, pytest in found:
            executable = which(program)
            if executable is None:
                missing.append(f"{why} asks for {program}, which is not on PATH")
                continue
            return ProjectRunner(argv=(executable, *argv), why=why, pytest=pytest)
    return NoRunner(message=_nothing(root, missing))


def _nothing(root: Path, missing: list[str]) -> str:
    """The one line for a project whose runner cannot be found."""
    advice = 'set [tool.foehn] test-command (such as ["python", "-m", "pytest"]) in pyproject.toml'
    if missing:
        return (
            f"the tests were not run: {'; '.join(missing)}. Install it where your shell finds "
            f"it (then restart Foehn), or {advice}"
        )
    python = any(root.glob("*.py")) or any(
        (root / n).exists() for n in ("pyproject.toml", "setup.py", "setup.cfg", "tests")
    )
    if python:
        return (
            "the tests were not run: this Python project has no environment Foehn can find "
            "(no activated VIRTUAL_ENV or CONDA_PREFIX, no .venv or venv in the workspace). "
            "Make one (python -m venv .venv, then .venv/bin/pip install pytest and the "
            f"project's dependencies), start Foehn with it activated, or {advice}"
        )
    return (
        "the tests were not run: no test runner found (no Python environment, package.json "
        f"test script, Cargo.toml, go.mod or Makefile test target); {advice}"
    )


def _python_tools(root: Path, tool: Mapping[str, Any]) -> list[tuple[str, list[str], str, bool]]:
    """Step 4: (program, its arguments, why, takes pytest's arguments) by the project's files."""
    found: list[tuple[str, list[str], str, bool]] = []
    run_pytest = ["run", "python", *PYTEST]
    if (root / "uv.lock").is_file() or "uv" in tool:
        found.append(("uv", run_pytest, _which_file(root, "uv.lock", "[tool.uv]"), True))
    if (root / "poetry.lock").is_file() or "poetry" in tool:
        why = _which_file(root, "poetry.lock", "[tool.poetry]")
        found.append(("poetry", run_pytest, why, True))
    hatch = _table(tool, "hatch")
    if (root / "hatch.toml").is_file() or "envs" in hatch:
        why = _which_file(root, "hatch.toml", "[tool.hatch.envs]")
        found.append(("hatch", ["test", "--"], why, True))
    if (root / "pdm.lock").is_file() or "pdm" in tool:
        found.append(("pdm", run_pytest, _which_file(root, "pdm.lock", "[tool.pdm]"), True))
    if (root / "tox.ini").is_file() or "tox" in tool:
        found.append(("tox", [], _which_file(root, "tox.ini", "[tool.tox]"), False))
    return found


def _other_runners(root: Path) -> list[tuple[str, list[str], str, bool]]:
    """Step 5."""
    found: list[tuple[str, list[str], str, bool]] = []
    if _npm_test(root / "package.json"):
        if (root / "pnpm-lock.yaml").is_file():
            manager = "pnpm"
        elif (root / "yarn.lock").is_file():
            manager = "yarn"
        else:
            manager = "npm"
        found.append((manager, ["test"], "package.json's test script", False))
    if (root / "Cargo.toml").is_file():
        found.append(("cargo", ["test"], "Cargo.toml", False))
    if (root / "go.mod").is_file():
        found.append(("go", ["test", "./..."], "go.mod", False))
    for name in ("GNUmakefile", "makefile", "Makefile"):
        if _make_test(root / name):
            found.append(("make", ["test"], f"the test target of {name}", False))
            break
    return found


def _which_file(root: Path, file: str, table: str) -> str:
    return file if (root / file).is_file() else f"{table} in pyproject.toml"


def _pyproject(root: Path) -> tuple[Mapping[str, Any], str | None]:
    path = root / "pyproject.toml"
    if not path.is_file():
        return {}, None
    try:
        return tomllib.loads(path.read_text("utf-8")), None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        return {}, f"the tests were not run: pyproject.toml cannot be read ({exc}); fix it first"


def _table(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}


def _npm_test(path: Path) -> bool:
    """Whether ``package.json`` has a test script other than ``npm init``'s placeholder."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return False
    scripts = data.get("scripts") if isinstance(data, dict) else None
    script = scripts.get("test") if isinstance(scripts, dict) else None
    return isinstance(script, str) and bool(script.strip()) and NPM_PLACEHOLDER not in script


def _make_test(path: Path) -> bool:
    try:
        return path.is_file() and MAKE_TEST.search(path.read_text("utf-8", "replace")) is not None
    except OSError:
        return False
