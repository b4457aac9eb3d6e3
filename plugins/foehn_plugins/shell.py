"""Running programs: ``run_command`` (any program, risk assessed from its arguments) and two
narrow wrappers with fixed programs, ``git`` (read-only subcommands only) and ``run_tests``.
No shell, ever: a command is an argument list."""

from __future__ import annotations

import os
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field, field_validator

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult
from foehn_lsp.errors import PathRefusedError
from foehn_plugins._process import Finished, run_program, scrubbed_environment
from foehn_plugins.command_risk import classify

DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0
TEST_TIMEOUT = 300.0


class CommandArguments(BaseModel):
    command: Annotated[
        list[str],
        Field(
            min_length=1,
            description='Program and arguments as a list, e.g. ["pytest", "-q"]. '
            "No shell: pipes, redirections and globs are not interpreted.",
        ),
    ]
    cwd: Annotated[
        str | None,
        Field(description="Folder to run in, relative to the workspace root. Default: the root."),
    ] = None
    timeout_s: Annotated[
        float | None,
        Field(
            gt=0,
            le=MAX_TIMEOUT,
            description=f"Seconds before the process is killed. Default {DEFAULT_TIMEOUT:g}.",
        ),
    ] = None

    @field_validator("command", mode="before")
    @classmethod
    def _not_a_shell_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            raise ValueError(
                'must be a list of arguments such as ["git", "status"], not a shell string; '
                "Foehn never runs a shell"
            )
        return value


def _cwd(ctx: ToolContext, cwd: str | None) -> Path:
    folder = ctx.workspace.resolve(cwd or ".")
    if not folder.is_dir():
        raise PathRefusedError(f"cwd {cwd!r} is not a folder in the workspace")
    return folder


def _program(ctx: ToolContext, name: str, cwd: Path) -> str:
    """The executable to run: an absolute path, a path inside the workspace, or a program
    found on PATH."""
    if os.path.isabs(name):
        if not (os.path.isfile(name) and os.access(name, os.X_OK)):
            raise PathRefusedError(f"{name!r} is not an executable file")
        return name
    if "/" in name:
        path = ctx.workspace.resolve(os.path.relpath(cwd / name, ctx.workspace.root))
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise PathRefusedError(f"{name!r} is not an executable file in the workspace")
        return str(path)
    found = shutil.which(name)
    if found is None:
        raise PathRefusedError(f"program {name!r} was not found on PATH")
    return found


def _assess(arguments: CommandArguments, ctx: ToolContext) -> RiskLevel:
    cwd = arguments.cwd or "."
    return classify(arguments.command, ctx.workspace, cwd)


def _result(finished: Finished, cwd: str, *, tail_note: str = "") -> ToolResult:
    body = f"{finished.summary(cwd)}\n{finished.output}".rstrip()
    if finished.dropped and tail_note:
        body += f"\n{tail_note}"
    data = {"exit_code": finished.exit_code, "seconds": round(finished.seconds, 3)}
    if finished.exit_code == 0:
        return ToolResult.success(body, data=data)
    return ToolResult.failure(body, data=data)


async def run_command(arguments: CommandArguments, ctx: ToolContext) -> ToolResult:
    cwd = _cwd(ctx, arguments.cwd)
    argv = [_program(ctx, arguments.command[0], cwd), *arguments.command[1:]]
    ctx.progress(f"Running {arguments.command[0]}…")
    finished = await run_program(argv, cwd=cwd, seconds=arguments.timeout_s or DEFAULT_TIMEOUT)
    shown = Finished(**{**finished.__dict__, "argv": tuple(arguments.command)})
    return _result(shown, ctx.workspace.display(cwd))


GIT_SUBCOMMANDS: dict[str, set[str]] = {
    # subcommand: allowed options (exact, or a prefix ending in "=" for --opt=value)
    "status": {
        "-s",
        "--short",
        "-b",
        "--branch",
        "--porcelain",
        "--porcelain=v1",
        "--porcelain=v2",
        "-u",
        "--untracked-files=no",
        "--untracked-files=all",
        "--ignored",
    },
    "diff": {
        "--cached",
        "--staged",
        "--stat",
        "--numstat",
        "--name-only",
        "--name-status",
        "--shortstat",
        "-w",
        "--ignore-all-space",
        "-U",
        "--unified=",
        "--word-diff",
        "--color=never",
        "-M",
        "-R",
        "--merge-base",
        "--diff-filter=",
        "--check",
    },
    "log": {
        "--oneline",
        "-n",
        "--max-count=",
        "--since=",
        "--until=",
        "--author=",
        "--grep=",
        "--stat",
        "--name-only",
        "--name-status",
        "-p",
        "--patch",
        "--graph",
        "--all",
        "--decorate",
        "--format=",
        "--pretty=",
        "--first-parent",
        "--reverse",
        "--follow",
        "-i",
        "--no-merges",
        "--merges",
        "-S",
        "-G",
        "-L",
        "--date=",
    },
    "show": {
        "--stat",
        "--name-only",
        "--name-status",
        "--oneline",
        "-p",
        "--format=",
        "--pretty=",
        "--no-patch",
        "-s",
        "--summary",
    },
    "blame": {"-L", "-w", "-M", "-C", "-e", "-s", "--porcelain", "--line-porcelain", "--date="},
    "branch": {
        "--list",
        "-l",
        "-a",
        "--all",
        "-r",
        "--remotes",
        "-v",
        "-vv",
        "--verbose",
        "--show-current",
        "--contains",
        "--merged",
        "--no-merged",
        "--sort=",
    },
    "rev-parse": {
        "--abbrev-ref",
        "--short",
        "--short=",
        "--show-toplevel",
        "--git-dir",
        "--is-inside-work-tree",
        "--verify",
        "--symbolic-full-name",
        "HEAD",
    },
    "ls-files": {
        "-c",
        "--cached",
        "-m",
        "--modified",
        "-o",
        "--others",
        "--exclude-standard",
        "-d",
        "--deleted",
        "-s",
        "--stage",
        "-z",
        "--full-name",
        "--error-unmatch",
    },
}
SAFE_GIT = [
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.pager=cat",
    "-c",
    "diff.external=",
    "-c",
    "core.hooksPath=/dev/null",
    "--no-pager",
]
NO_EXTERNAL = {
    "diff": ["--no-ext-diff", "--no-textconv"],
    "log": ["--no-ext-diff"],
    "show": ["--no-ext-diff", "--no-textconv"],
    "blame": ["--no-textconv"],
}


class GitArguments(BaseModel):
    args: Annotated[
        list[str],
        Field(
            min_length=1,
            description='Subcommand and its arguments, e.g. ["log", "--oneline", '
            '"-n", "5"]. Read-only subcommands only: ' + ", ".join(GIT_SUBCOMMANDS) + ".",
        ),
    ]


def _check_git(arguments: GitArguments, ctx: ToolContext) -> str | None:
    command, *rest = arguments.args
    allowed = GIT_SUBCOMMANDS.get(command)
    if allowed is None:
        return (
            f"git {command!r} is not allowed here; the git tool runs only "
            f"{', '.join(GIT_SUBCOMMANDS)}. Use run_command for anything else (it asks "
            "the person first)."
        )
    after_separator = False
    for argument in rest:
        if argument == "--":
            after_separator = True
            continue
        if argument.startswith("-") and not after_separator:
            base = argument.split("=", 1)[0] + "=" if "=" in argument else argument
            short = argument[:2] if not argument.startswith("--") else argument
            if argument not in allowed and base not in allowed and short not in allowed:
                return f"option {argument!r} is not allowed for git {command}"
        elif "/" in argument or after_separator:
            path = argument.split(":", 1)[-1] if ":" in argument else argument
            try:
                ctx.workspace.resolve(path)
            except PathRefusedError as exc:
                return str(exc)
    return None


async def git(arguments: GitArguments, ctx: ToolContext) -> ToolResult:
    if problem := _check_git(arguments, ctx):
        return ToolResult.failure(problem)
    program = shutil.which("git")
    if program is None:
        return ToolResult.failure("git is not installed")
    command, *rest = arguments.args
    argv = [program, *SAFE_GIT, command, *NO_EXTERNAL.get(command, []), *rest]
    environment = scrubbed_environment()
    environment.update({"GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"})
    environment.pop("GIT_EXTERNAL_DIFF", None)
    finished = await run_program(
        argv, cwd=ctx.workspace.root, seconds=DEFAULT_TIMEOUT, env=environment
    )
    shown = Finished(**{**finished.__dict__, "argv": ("git", *arguments.args)})
    return _result(shown, ".")


class TestArguments(BaseModel):
    paths: Annotated[
        list[str] | None,
        Field(description="Test files or folders to run, relative to the root. Default: all."),
    ] = None
    keyword: Annotated[
        str | None, Field(description="Only tests whose names match this pytest -k expression.")
    ] = None


def _test_command(root: Path) -> list[str]:
    """``[tool.foehn] test-command`` in the workspace's pyproject.toml, else pytest with the
    workspace's own virtual environment if it has one."""
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            configured = (
                tomllib.loads(pyproject.read_text("utf-8"))
                .get("tool", {})
                .get("foehn", {})
                .get("test-command")
            )
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            configured = None
        if (
            isinstance(configured, list)
            and configured
            and all(isinstance(a, str) for a in configured)
        ):
            return list(configured)
    for venv in (".venv", "venv"):
        python = root / venv / "bin" / "python"
        if python.is_file():
            return [str(python), "-m", "pytest"]
    return [sys.executable, "-m", "pytest"]


async def run_tests(arguments: TestArguments, ctx: ToolContext) -> ToolResult:
    root = ctx.workspace.root
    argv = _test_command(root)
    argv[0] = (
        _program(ctx, argv[0], root)
        if "/" not in argv[0] or not os.path.isabs(argv[0])
        else argv[0]
    )
    if arguments.keyword:
        argv += ["-k", arguments.keyword]
    for path in arguments.paths or []:
        resolved = ctx.workspace.resolve(path)
        argv.append(ctx.workspace.display(resolved))
    ctx.progress("Running the tests…")
    finished = await run_program(
        argv, cwd=root, seconds=TEST_TIMEOUT, keep_head=2_000, keep_tail=30_000
    )
    return _result(
        finished, ".", tail_note="(the start of the output was cut; the summary is at the end)"
    )


def tools() -> list[Tool]:
    return [
        Tool.from_model(
            name="run_command",
            description=(
                "Run a program with arguments (a list; no shell) in the workspace and return "
                "the exit code and output (stdout and stderr together, long output cut in the "
                "middle). A non-zero exit is a failure. Read-only commands may run without "
                "asking; anything else asks the person."
            ),
            model=CommandArguments,
            execute=run_command,
            risk=RiskLevel.READ_ONLY,
            assess=_assess,
            timeout=MAX_TIMEOUT + 30,
        ),
        Tool.from_model(
            name="git",
            description=(
                "Read the repository with git: status, diff, log, show, blame, branch (list), "
                "rev-parse, ls-files. Only read-only options are accepted."
            ),
            model=GitArguments,
            execute=git,
            risk=RiskLevel.READ_ONLY,
        ),
        Tool.from_model(
            name="run_tests",
            description=(
                "Run the workspace's tests (pytest, or [tool.foehn] test-command in "
                "pyproject.toml), optionally only some paths or a -k keyword. Returns the "
                "exit code and the end of the output."
            ),
            model=TestArguments,
            execute=run_tests,
            risk=RiskLevel.WRITE,
            timeout=TEST_TIMEOUT + 30,
        ),
    ]
