"""Running programs: ``run_command`` (any program, risk assessed from its arguments) and narrow
wrappers with fixed programs, ``git`` (read-only subcommands only), ``run_tests`` and
``create_repository``. No shell, ever: a command is an argument list. Every program starts
through the sandbox (``foehn_lsp.sandbox``) under the policy of the call's scope, which the
person saw: the risk table decides when to ask, the sandbox decides what can happen.

A program the table calls read-only is found among the system's and the person's toolchains'
programs only, never the workspace's; running the workspace's own code (``./x``,
``.venv/bin/x``, ``python file.py``, ``python -m NAME`` that is the workspace's) is at least
``workspace-write``, asked, and the person is told (``_repository_code``)."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult
from foehn_lsp.errors import PathRefusedError, ToolInputError
from foehn_lsp.sandbox import Finished, ProgramStartError, SandboxViewError, system_sandbox
from foehn_lsp.sandbox.policy import SANDBOX_ORDER, SandboxPolicy
from foehn_lsp.sandbox.project import NoRunner, ProjectRunner, find_runner
from foehn_lsp.tools.contract import CallScope
from foehn_lsp.workspace.ignored import ignored
from foehn_lsp.workspace.testfiles import is_test_file
from foehn_plugins import _tracing
from foehn_plugins._failures import digest
from foehn_plugins._git import (
    GitArguments,
    RepositoryArguments,
    create_repository,
    git,
    git_scope,
    git_write_advice,
    repository_scope,
)
from foehn_plugins._repository_code import NOTE, repository_code
from foehn_plugins._running import as_result, granted, network_access
from foehn_plugins._suggest import nearest_names
from foehn_plugins._window import is_small, read_budget
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
    sandbox: Annotated[
        Literal["workspace-write", "full"] | None,
        Field(
            description="Only when the default is not enough. Commands run in a sandbox that "
            "shows the system, the person's toolchains and the workspace: read-only commands "
            "see the workspace read-only and have no network, others may write in it and "
            "reach the domains the person granted (through a proxy, by name). "
            "'workspace-write' lets a read-only command write in the workspace; 'full' runs "
            "with the person's own rights and the network, and always asks the person."
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


FULL_ADVICE = ", or ask for sandbox='full' (the person is always asked)"


def _program(
    ctx: ToolContext, name: str, cwd: Path, policy: SandboxPolicy, advice: str = ""
) -> str:
    """The executable to run: an absolute path, a path inside the workspace, or a program
    found as a ``policy`` call finds it (``read-only``: never the workspace's). ``advice``
    ends a message about a program the sandbox does not show (only what the tool accepts)."""
    try:
        return _found(ctx, name, cwd, policy, advice)
    except SandboxViewError as exc:
        raise PathRefusedError(str(exc)) from None


def _found(ctx: ToolContext, name: str, cwd: Path, policy: SandboxPolicy, advice: str) -> str:
    sandbox = system_sandbox()
    if os.path.isabs(name):
        if not (os.path.isfile(name) and os.access(name, os.X_OK)):
            raise PathRefusedError(f"{name!r} is not an executable file")
        if sandbox.hides(name, ctx.workspace, policy):
            raise PathRefusedError(
                f"{name!r} is not visible inside the {policy} sandbox (it is outside the "
                "system folders, the person's toolchains and the workspace); the person can "
                f"add its folder to [sandbox] readable in the user config{advice}"
            )
        return name
    if "/" in name:
        path = ctx.workspace.resolve(os.path.relpath(cwd / name, ctx.workspace.root))
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise PathRefusedError(f"{name!r} is not an executable file in the workspace")
        return str(path)
    found = sandbox.which(name, ctx.workspace, policy)
    if found is None:
        raise PathRefusedError(_not_found(name, ctx, policy))
    return found


def _not_found(name: str, ctx: ToolContext, policy: SandboxPolicy) -> str:
    message = f"program {name!r} was not found on PATH"
    if policy == "full" or not system_sandbox().available:
        return message
    for written, why in system_sandbox().machine().dropped:
        if os.path.isabs(written) and os.access(os.path.join(written, name), os.X_OK):
            return f"{message}: it is in {written}, which the sandbox leaves out ({why})"
    return message


def _resolver(ctx: ToolContext, policy: SandboxPolicy) -> Callable[[str], Path | None]:
    def resolve(name: str) -> Path | None:
        found = system_sandbox().which(name, ctx.workspace, policy)
        return None if found is None else Path(found)

    return resolve


def _verdict(arguments: CommandArguments, ctx: ToolContext) -> tuple[RiskLevel, str | None]:
    """The call's risk, and what of the repository's own it runs (which makes it at least a
    write, so it is asked)."""
    cwd = arguments.cwd or "."
    risk = classify(arguments.command, ctx.workspace, cwd)
    if arguments.sandbox:
        risk = max(risk, RiskLevel.WRITE)
    folder = ctx.workspace.root / cwd
    sandbox = system_sandbox()
    wanted: SandboxPolicy = "read-only" if risk is RiskLevel.READ_ONLY else "workspace-write"
    try:
        resolve = _resolver(ctx, sandbox.policy_for(wanted))
        program = arguments.command[0]
        if (
            wanted == "read-only"
            and sandbox.available
            and "/" not in program
            and not resolve(program)
        ):
            # Not among the system's and the toolchains' programs: the workspace's, if any.
            resolve = _resolver(ctx, "workspace-write")
        note = repository_code(arguments.command, ctx.workspace, folder, resolve)
    except SandboxViewError as exc:
        raise PathRefusedError(f"{arguments.command[0]} was not run: {exc}") from None
    return (max(risk, RiskLevel.WRITE), note) if note else (risk, None)


def _assess(arguments: CommandArguments, ctx: ToolContext) -> RiskLevel:
    try:
        return _verdict(arguments, ctx)[0]
    except PathRefusedError:
        return RiskLevel.DESTRUCTIVE  # the scope refuses the call with the reason


def _command_scope(arguments: CommandArguments, ctx: ToolContext) -> CallScope:
    """A read-only verdict runs ``read-only``; anything else ``workspace-write``; ``full`` only
    when the model asked for it (and then the person is always asked). ``git init`` is
    refused here, before anyone is asked: ``create_repository`` is the call for it."""
    if arguments.command[:2] == ["git", "init"]:
        raise ToolInputError(git_write_advice(arguments.command) or "")
    risk, note = _verdict(arguments, ctx)
    least: SandboxPolicy = "read-only" if risk is RiskLevel.READ_ONLY else "workspace-write"
    wanted = arguments.sandbox or least
    policy = system_sandbox().policy_for(max(least, wanted, key=SANDBOX_ORDER.index))
    return CallScope(
        program=arguments.command[0],
        sandbox=policy,
        argv=tuple(arguments.command),
        note=note,
        network=granted(policy),
    )


async def run_command(arguments: CommandArguments, ctx: ToolContext) -> ToolResult:
    # The scope the registry fixed (and the person saw); called without the registry, its own.
    policy = ctx.scope.sandbox or _command_scope(arguments, ctx).sandbox or "full"
    if policy != "full" and (advice := git_write_advice(arguments.command)):
        # It would fail in the sandbox (.git/ is read-only there): say what to do instead.
        return ToolResult.failure(advice)
    cwd = _cwd(ctx, arguments.cwd)
    argv = [_program(ctx, arguments.command[0], cwd, policy, FULL_ADVICE), *arguments.command[1:]]
    ctx.progress(f"Running {arguments.command[0]}…")
    try:
        finished = await system_sandbox().run(
            argv,
            workspace=ctx.workspace,
            cwd=cwd,
            policy=policy,
            seconds=arguments.timeout_s or DEFAULT_TIMEOUT,
            network=network_access(ctx),
        )
    except (SandboxViewError, ProgramStartError) as exc:
        return ToolResult.failure(f"{arguments.command[0]} was not run: {exc}")
    shown = Finished(**{**finished.__dict__, "argv": tuple(arguments.command)})
    result = as_result(shown, ctx.workspace.display(cwd))
    if result.ok:
        return result
    command = arguments.command
    note = _joined_options(command) or _source_folder(command, result.output, ctx, cwd)
    if note is None:
        return result
    return ToolResult.failure(f"{result.output}\n{note}", data=result.data)


def _joined_options(command: Sequence[str]) -> str | None:
    """For a failed command that passed an option and its value as one item ("-m pytest"):
    each item is one argument, as a shell would split it. Seen (bench: nf-tz-partition-all):
    ``["python", "-m pytest", "-- tests/…"]`` failed with "No module named  pytest", three
    times over."""
    joined = [item for item in command[1:] if re.match(r"-[^\s=]*\s+\S", item)]
    if not joined:
        return None
    split = [part for item in command for part in (item.split() if item in joined else [item])]
    return (
        f"{', '.join(repr(item) for item in joined)}: each item of command is one argument, so "
        f"this passed an option and its value as one. As separate items: {json.dumps(split)}"
    )


def _source_folder(command: Sequence[str], output: str, ctx: ToolContext, cwd: Path) -> str | None:
    """For a failed ``python -m``/``-c`` that did not find a module the workspace has in a
    folder of its own (``src/``, ``lib/`` or another top folder it does not ignore): where it
    finds it. Seen (bench: ta-no-station): ``python -m weatherlog.cli 20`` in a project whose
    package is in ``src/`` and not installed, and the answer that it must be installed first."""
    if not _PYTHON.fullmatch(PurePosixPath(command[0]).name) or not {"-m", "-c"} & {*command}:
        return None
    missing = _NO_MODULE.search(output)
    if missing is None:
        return None
    top = missing.group(1).split(".", 1)[0]
    root = ctx.workspace.root
    tops = [d.name for d in root.iterdir() if d.is_dir() and not d.name.startswith(".")]
    for name in sorted(tops, key=lambda name: (name not in ("src", "lib"), name)):
        folder = root / name
        module = f"{name}/{top}/" if (folder / top).is_dir() else f"{name}/{top}.py"
        if folder == cwd or not (root / module).exists() or ignored(root, [module]):
            continue
        shown = ctx.workspace.display(folder)
        return (
            f"{top} is the workspace's own, in {shown}/, and this Python has not installed "
            f"it. python -m and -c find it when they run in that folder: the same command "
            f'with cwd "{shown}".'
        )
    return None


_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)*)?")
_NO_MODULE = re.compile(r"No module named '?([\w.]+)")
"""Python's words for a module it did not find: quoted from an import, bare from ``-m``."""


class TestArguments(BaseModel):
    paths: Annotated[
        list[str] | None,
        Field(description="Test files or folders to run, relative to the root. Default: all."),
    ] = None
    keyword: Annotated[
        str | None, Field(description="Only tests whose names match this pytest -k expression.")
    ] = None


def _runner(ctx: ToolContext) -> ProjectRunner:
    """The project's own test runner (``foehn_lsp.sandbox.project``: the configured command, the
    activated environment, the workspace's venv, its tool's files); raises
    ``PathRefusedError`` with the one line naming what to install or configure."""
    sandbox = system_sandbox()
    policy = sandbox.policy_for("workspace-write")

    def which(name: str) -> str | None:
        return sandbox.which(name, ctx.workspace, policy)

    def shows(path: Path) -> bool:
        return not sandbox.hides(str(path), ctx.workspace, policy)

    try:
        found = find_runner(ctx.workspace.root, which=which, shows=shows)
    except SandboxViewError as exc:
        raise PathRefusedError(f"the tests were not run: {exc}") from None
    if isinstance(found, NoRunner):
        raise PathRefusedError(found.message)
    return found


def _test_argv(arguments: TestArguments, ctx: ToolContext) -> tuple[list[str], ProjectRunner]:
    """The exact command ``run_tests`` starts, and the runner it comes from: the runner's
    command, then (pytest only) ``-k`` and the keyword, ``--`` and the paths (so a path can
    never be read as an option)."""
    root = ctx.workspace.root
    runner = _runner(ctx)
    argv = list(runner.argv)
    argv[0] = _program(ctx, argv[0], root, system_sandbox().policy_for("workspace-write"))
    if not runner.pytest and (arguments.keyword is not None or arguments.paths):
        raise PathRefusedError(
            f"paths and keyword are pytest's, and this project's tests run with "
            f"{shlex.join([os.path.basename(argv[0]), *argv[1:]])} ({runner.why}): call "
            "run_tests without them, or run_command for a narrower run"
        )
    if arguments.keyword is not None:
        if arguments.keyword.startswith("-"):
            raise PathRefusedError(f"keyword {arguments.keyword!r} may not start with '-'")
        argv += ["-k", arguments.keyword]
    if arguments.paths:
        argv.append("--")
        argv += [_test_path(path, ctx) for path in arguments.paths]
    return argv, runner


def _test_path(path: str, ctx: ToolContext) -> str:
    """``path`` (a file, a folder or a node id) as the command line names it. A file that is
    not there is taken for the one test file of that name elsewhere in the workspace (a model
    wrote ``tests/test_x.py`` for ``test_x.py``); with none or several, nothing runs and the
    message names them."""
    file, separator, rest = path.partition("::")
    if not ctx.workspace.resolve(file).exists():
        names = nearest_names(ctx.workspace, file)
        names = [n for n in names if is_test_file(n)] or names
        same = [n for n in names if PurePosixPath(n).name == PurePosixPath(file).name]
        if len(same) != 1:
            near = f"; names like it: {', '.join(names)}" if names else "; scan lists them"
            raise PathRefusedError(f"{file!r} is not there, so no test was run{near}")
        file = same[0]
    return ctx.workspace.display(ctx.workspace.resolve(file)) + separator + rest


def _tests_scope(arguments: TestArguments, ctx: ToolContext) -> CallScope:
    """The whole command line, so the person sees (and an approval remembers) exactly what
    runs, including a test command the workspace configured."""
    argv, runner = _test_argv(arguments, ctx)
    policy = system_sandbox().policy_for("workspace-write")
    return CallScope(
        program=shlex.join(argv),
        sandbox=policy,
        argv=tuple(argv),
        note=f"{NOTE}: its tests ({runner.why})",
        network=granted(policy),
    )


def _shown(argv: list[str], ctx: ToolContext) -> tuple[str, ...]:
    """``argv`` as the result's first line shows it: paths in the workspace relative to it."""
    shown = []
    for argument in argv:
        path = Path(argument)
        inside = path.is_absolute() and ctx.workspace.root_of(path) is not None
        shown.append(ctx.workspace.display(path) if inside else argument)
    return tuple(shown)


async def run_tests(arguments: TestArguments, ctx: ToolContext) -> ToolResult:
    argv, runner = _test_argv(arguments, ctx)
    shown = _tests_scope(arguments, ctx) if ctx.scope.program is None else ctx.scope
    if shown.program != shlex.join(argv):
        return ToolResult.failure(
            f"the test command changed since it was shown (now {shlex.join(argv)}); nothing was run"
        )
    assert shown.sandbox is not None
    ctx.progress("Running the tests…")
    environment = runner.environment
    variables = None if environment is None else {environment.variable: str(environment.prefix)}
    try:
        finished = await system_sandbox().run(
            argv,
            workspace=ctx.workspace,
            cwd=ctx.workspace.root,
            policy=shown.sandbox,
            seconds=TEST_TIMEOUT,
            keep_head=2_000,
            keep_tail=30_000,
            env=variables,
            network=network_access(ctx),
        )
    except (SandboxViewError, ProgramStartError) as exc:
        return ToolResult.failure(f"the tests were not run: {exc}")
    notes = ["(the start of the output was cut; the summary is at the end)"]
    if arguments.keyword is not None and finished.exit_code == NO_TESTS and _is_pytest(argv):
        notes.append(
            f"-k {arguments.keyword!r} selected no test: no test name matches it (run without "
            "keyword, or with paths only, to see the names)"
        )
    named = Finished(**{**finished.__dict__, "argv": _shown(argv, ctx)})
    result = as_result(named, ".", tail_note=notes[0], why=runner.why)
    if len(notes) > 1:
        return ToolResult.failure(f"{result.output}\n{notes[1]}", data=result.data)
    if result.ok:
        return result
    python = _tracing.pytest_python(argv)

    async def tracer(
        node: str, lines: tuple[int, int], focus: int, errors: Sequence[str]
    ) -> _tracing.Traced:
        assert python is not None
        return await _tracing.trace(python, variables, node, lines, focus, errors, ctx)

    if (found := await digest(finished.output, ctx, tracer if python else None)) is not None:
        head = "\n".join(result.output.split("\n", 2)[:2])
        return ToolResult.failure(
            _with_digest(head, finished.output, found, ctx.window), data=result.data
        )
    if (budget := read_budget(ctx.window)) is not None:
        return ToolResult.failure(_end_within(result.output, budget), data=result.data)
    return result


def _end_within(output: str, budget: int) -> str:
    """A failing run with no digest, for a small window: how it ran (its first two lines) and
    as much of its end as fits ``budget`` characters. Seen (bench: nh-tz-interleave): a run
    that ran out of memory showed pytest's whole INTERNALERROR traceback, and the embedded
    model was still reading it when its 300 s ran out."""
    if len(output) <= budget:
        return output
    lines = output.split("\n")
    head, rest = lines[:2], lines[2:]
    kept: list[str] = []
    room = budget - sum(len(line) + 1 for line in head) - len(_LEFT_OUT.format(len(rest))) - 1
    for line in reversed(rest):
        if len(line) + 1 > room:
            break
        kept.insert(0, line)
        room -= len(line) + 1
    return "\n".join([*head, _LEFT_OUT.format(len(rest) - len(kept)), *kept])


_LEFT_OUT = "({} lines of the output are left out to fit the model's window; its end follows)"


_COUNTS = re.compile(r"^=*\s*(\d+ (failed|passed|error|errors|skipped)\b.*?)\s*=*$")


def _with_digest(head: str, output: str, found: str, window: int | None) -> str:
    """A failing run as the model reads it: ``head`` (how it ran) and the counts, the digest,
    then the output itself, unless the model's window is small (the digest holds what it
    needs)."""
    lines = output.splitlines()
    counts = next((m[1] for line in reversed(lines) if (m := _COUNTS.match(line))), "")
    head += f"\n{counts}" if counts else ""
    if is_small(window):
        return f"{head}\n{found}\n(pytest's own report is left out to fit the model's window)"
    return f"{head}\n{found}\n\npytest's report:\n{output}".rstrip()


NO_TESTS = 5
"""pytest's exit code when it collected or selected no test."""


def _is_pytest(argv: list[str]) -> bool:
    return (
        os.path.basename(argv[0]).startswith("pytest") or _tracing.pytest_python(argv) is not None
    )


def tools() -> list[Tool]:
    return [
        Tool.from_model(
            name="run_command",
            description=(
                "Run a program with arguments (a list; no shell) in the workspace and return "
                "the exit code and output (stdout and stderr together, long output cut in the "
                "middle). A non-zero exit is a failure. Every command runs in a sandbox that "
                "shows the system, the person's toolchains and the workspace, with limits on "
                "memory, processes, file size and CPU time: read-only commands may run without "
                "asking and cannot write anything; others ask the person and may write in the "
                "workspace (not in .git/, .foehn/, .vscode/ or .envrc). The network is off, "
                "except the domains the person granted, which calls that may write reach "
                "through a proxy. "
                "Programs and scripts of the repository itself always ask."
            ),
            model=CommandArguments,
            execute=run_command,
            risk=RiskLevel.READ_ONLY,
            kind="execute",
            assess=_assess,
            scope=_command_scope,
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
            kind="execute",
            scope=git_scope,
        ),
        Tool.from_model(
            name="create_repository",
            description=(
                "Create a git repository in the workspace root (git init), which programs "
                "cannot do: the person is asked. Fails if the workspace already has .git."
            ),
            model=RepositoryArguments,
            execute=create_repository,
            risk=RiskLevel.WRITE,
            kind="execute",
            scope=repository_scope,
        ),
        Tool.from_model(
            name="run_tests",
            description=(
                "Run the project's own tests as the person's shell would: [tool.foehn] "
                "test-command, else pytest with the activated environment's or the "
                "workspace's .venv interpreter, else the project's uv, Poetry, Hatch, PDM or "
                "tox, npm/pnpm/yarn test, cargo test, go test ./... or make test. paths and a "
                "-k keyword narrow a pytest run. Returns the command and why it was chosen, "
                "the exit code and the end of the output."
            ),
            model=TestArguments,
            execute=run_tests,
            risk=RiskLevel.WRITE,
            kind="execute",
            scope=_tests_scope,
            timeout=TEST_TIMEOUT + 30,
        ),
    ]
