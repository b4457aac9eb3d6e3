"""The workspace's own checkers, run in the read-only sandbox to check files after edits.

Which checkers: ``[tool.foehn] check-command`` in the workspace's ``pyproject.toml`` (an argv,
run as given from the root; every output line ``FILE:LINE[:COL]: MESSAGE`` or
``FILE(LINE,COL): MESSAGE`` that names a checked file is a problem), else those the workspace
configures: ruff (``[tool.ruff]``, ``ruff.toml``), mypy (``[tool.mypy]``, ``mypy.ini``,
``setup.cfg``'s ``[mypy]``), pyright (``[tool.pyright]``, ``pyrightconfig.json``), tsc
(``tsconfig.json``) and eslint (its config files). Programs are found in
``node_modules/.bin``, then in the project's Python environment as ``run_tests`` finds it
(``foehn_lsp.sandbox.project``: the activated one, else the workspace's ``.venv``), then on
the sandbox's ``PATH``; they run read-only (nothing writable, no network), so running the
workspace's code this way asks nobody. Each run is bounded in time and output: a checker
that is missing, hangs, floods or fails to start is skipped with one line.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from foehn_lsp.checks.checking import CheckReport, Problem
from foehn_lsp.sandbox.project import python_environment
from foehn_lsp.sandbox.runner import ProgramStartError, SandboxUnavailableError, system_sandbox
from foehn_lsp.workspace.paths import Workspace

CHECK_SECONDS = 60.0
"""How long one checker may run."""
MAX_OUTPUT = 200_000
"""Characters of output kept; a checker that prints more floods and is skipped."""
_PYTHON = frozenset({".py", ".pyi"})
_SCRIPT = frozenset({".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"})
_TYPESCRIPT = frozenset({".ts", ".tsx", ".mts", ".cts"})
_COLON = re.compile(r"^\s*(?P<path>[^\s:()]+):(?P<line>\d+)(?::\d+)?(?::| -)\s*(?P<message>\S.*)$")
_PAREN = re.compile(r"^\s*(?P<path>[^\s:()]+)\((?P<line>\d+),\d+\):\s*(?P<message>\S.*)$")
_ESLINT_FILES = (
    "eslint.config.js",
    "eslint.config.mjs",
    "eslint.config.cjs",
    "eslint.config.ts",
    ".eslintrc",
    ".eslintrc.js",
    ".eslintrc.cjs",
    ".eslintrc.json",
    ".eslintrc.yml",
    ".eslintrc.yaml",
)


@dataclass(frozen=True, kw_only=True)
class Checker:
    name: str
    argv: tuple[str, ...]
    """The command; with ``per_file`` the files to check follow it."""
    suffixes: frozenset[str] | None
    """The files it checks (``None``: whatever its output names)."""
    per_file: bool
    parse: Callable[[str], list[tuple[str, int, str]]]
    """Its output as (file, line, message)."""


@dataclass(frozen=True, kw_only=True)
class Found:
    checkers: tuple[Checker, ...] = ()
    problems: tuple[str, ...] = ()
    """Why a configured checker cannot be used, one line each."""


def parse_lines(output: str) -> list[tuple[str, int, str]]:
    """``FILE:LINE[:COL]: MESSAGE``, ``FILE:LINE:COL - MESSAGE`` and ``FILE(LINE,COL):
    MESSAGE`` lines; notes (mypy's ``note:``) are not problems."""
    found = []
    for line in output.splitlines():
        match = _COLON.match(line) or _PAREN.match(line)
        if match is None:
            continue
        message = match["message"].strip()
        if message.startswith("note:"):
            continue
        found.append((match["path"].strip(), int(match["line"]), message))
    return found


def parse_eslint(output: str) -> list[tuple[str, int, str]]:
    """eslint's ``--format json``."""
    try:
        files = json.loads(output)
    except json.JSONDecodeError:
        return []
    found = []
    for entry in files if isinstance(files, list) else []:
        for message in entry.get("messages", []) if isinstance(entry, dict) else []:
            if not isinstance(message, dict) or not isinstance(message.get("message"), str):
                continue
            rule = f" [{message['ruleId']}]" if message.get("ruleId") else ""
            found.append(
                (
                    str(entry.get("filePath", "")),
                    int(message.get("line") or 1),
                    message["message"] + rule,
                )
            )
    return found


def find_checkers(root: Path) -> Found:
    """The checkers of the workspace at ``root`` (see the module's docstring)."""
    pyproject: dict[str, object] = {}
    path = root / "pyproject.toml"
    if path.is_file():
        try:
            pyproject = tomllib.loads(path.read_text("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
            return Found(problems=(f"pyproject.toml could not be read ({exc}); no checks",))
    tool = pyproject.get("tool")
    tool = tool if isinstance(tool, dict) else {}
    foehn = tool.get("foehn")
    configured = foehn.get("check-command") if isinstance(foehn, dict) else None
    if configured is not None:
        return _configured(configured)
    return Found(checkers=tuple(_detected(root, tool)))


def _configured(command: object) -> Found:
    """``[tool.foehn] check-command``: the one checker, over the whole workspace."""
    if not (
        isinstance(command, list) and command and all(isinstance(a, str) and a for a in command)
    ):
        return Found(problems=("[tool.foehn] check-command must be a list of strings; no checks",))
    name = os.path.basename(command[0])
    checker = Checker(
        name=name, argv=tuple(command), suffixes=None, per_file=False, parse=parse_lines
    )
    return Found(checkers=(checker,))


def _detected(root: Path, tool: dict[str, object]) -> list[Checker]:
    """The checkers the workspace's own configuration files name."""
    found: list[Checker] = []
    if "ruff" in tool or (root / "ruff.toml").is_file() or (root / ".ruff.toml").is_file():
        found.append(
            Checker(
                name="ruff",
                argv=("ruff", "check", "--no-cache", "--output-format", "concise"),
                suffixes=_PYTHON,
                per_file=True,
                parse=parse_lines,
            )
        )
    if (
        "mypy" in tool
        or any((root / n).is_file() for n in ("mypy.ini", ".mypy.ini"))
        or (_has_section(root / "setup.cfg", "[mypy]"))
    ):
        found.append(
            Checker(
                name="mypy",
                argv=("mypy", "--cache-dir", os.devnull, "--no-error-summary", "--no-pretty"),
                suffixes=_PYTHON,
                per_file=True,
                parse=parse_lines,
            )
        )
    elif "pyright" in tool or (root / "pyrightconfig.json").is_file():
        found.append(
            Checker(
                name="pyright",
                argv=("pyright",),
                suffixes=_PYTHON,
                per_file=True,
                parse=parse_lines,
            )
        )
    if (root / "tsconfig.json").is_file():
        found.append(
            Checker(
                name="tsc",
                argv=("tsc", "--noEmit", "--pretty", "false", "-p", "."),
                suffixes=_TYPESCRIPT,
                per_file=False,
                parse=parse_lines,
            )
        )
    if any((root / n).is_file() for n in _ESLINT_FILES):
        found.append(
            Checker(
                name="eslint",
                argv=("eslint", "--format", "json"),
                suffixes=_SCRIPT,
                per_file=True,
                parse=parse_eslint,
            )
        )
    return found


def _has_section(path: Path, section: str) -> bool:
    try:
        return path.is_file() and section in path.read_text("utf-8", "replace")
    except OSError:
        return False


class SandboxCheckers:
    """A ``ProblemSource``: the workspace's checkers, each run in the read-only sandbox."""

    def __init__(self, workspace: Workspace, *, seconds: float = CHECK_SECONDS) -> None:
        self.workspace = workspace
        self.seconds = seconds

    async def check(self, paths: Sequence[str]) -> CheckReport:
        found = find_checkers(self.workspace.root)
        skipped = list(found.problems)
        problems: list[Problem] = []
        sandbox = system_sandbox()
        if found.checkers and not sandbox.available:
            return CheckReport(skipped=(f"no checks: no sandbox to run them in ({sandbox.note})",))
        for checker in found.checkers:
            wanted = [
                p for p in paths if checker.suffixes is None or Path(p).suffix in checker.suffixes
            ]
            if not wanted:
                continue
            got, why = await self._run(checker, wanted)
            if why is not None:
                skipped.append(f"{checker.name} skipped: {why}")
            problems += [p for p in got if p.path in wanted]
        return CheckReport(problems=tuple(problems), skipped=tuple(skipped))

    async def _run(self, checker: Checker, paths: list[str]) -> tuple[list[Problem], str | None]:
        root = self.workspace.root
        program = self._program(checker.argv[0])
        if program is None:
            return [], f"{checker.argv[0]} is not installed where the sandbox can see it"
        argv = [program, *checker.argv[1:]]
        if checker.per_file:
            argv += ["--", *paths] if checker.name != "eslint" else paths
        sandbox = system_sandbox()
        try:
            finished = await sandbox.run(
                argv,
                workspace=self.workspace,
                cwd=root,
                policy="read-only",
                seconds=self.seconds,
                keep_head=MAX_OUTPUT,
                keep_tail=0,
            )
        except (SandboxUnavailableError, ProgramStartError) as exc:
            return [], str(exc)
        if finished.stopped is not None:
            return [], finished.stopped
        if finished.limit is not None:
            return [], f"stopped by the sandbox: {finished.limit}"
        if finished.dropped > 0:
            return [], f"it printed more than {MAX_OUTPUT // 1000} kB"
        problems = [
            Problem(path=shown, line=line, message=message, source=checker.name)
            for path, line, message in checker.parse(finished.output)
            if (shown := self._relative(path)) is not None
        ]
        if not problems and finished.exit_code not in (0, 1):
            first = next((ln for ln in finished.output.splitlines() if ln.strip()), "no output")
            return [], f"exit {finished.exit_code}: {first[:200]}"
        return problems, None

    def _program(self, name: str) -> str | None:
        root = self.workspace.root
        sandbox = system_sandbox()
        if os.path.isabs(name):
            visible = os.access(name, os.X_OK) and not sandbox.hides(
                name, self.workspace, "read-only"
            )
            return name if visible else None
        if "/" in name:
            local = (root / name).resolve()
            inside = local.is_relative_to(root) and os.access(local, os.X_OK)
            return str(local) if inside else None
        node = root / "node_modules" / ".bin" / name
        if node.is_file() and os.access(node, os.X_OK):
            return str(node)
        environment = python_environment(
            root, shows=lambda path: not sandbox.hides(str(path), self.workspace, "read-only")
        )
        if environment is not None:
            own = environment.bin / name
            if own.is_file() and os.access(own, os.X_OK):
                return str(own)
        return sandbox.which(name, self.workspace, "read-only", workspace_programs=True)

    def _relative(self, path: str) -> str | None:
        """``path`` as the checker printed it, relative to the root; ``None`` outside."""
        root = self.workspace.root
        full = Path(path) if os.path.isabs(path) else root / path
        normal = Path(os.path.normpath(full))
        if not normal.is_relative_to(root):
            return None
        return normal.relative_to(root).as_posix()
