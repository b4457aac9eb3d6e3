"""The ``git`` tool: read-only subcommands with allowed options only, hardened so that nothing
in the repository can make git run a program, and run in the ``read-only`` sandbox.

Hardening, every call: global and system config ignored (``GIT_CONFIG_GLOBAL=/dev/null``,
``GIT_CONFIG_NOSYSTEM``); no pager, fsmonitor, hooks, external diff or textconv; every filter
driver the repository configures switched off; ``GIT_DIR`` and ``GIT_WORK_TREE`` pinned to the
workspace root, so neither a ``.git`` file pointing elsewhere nor ``core.worktree`` can move
git out of it (both are refused with a message); short options checked letter by letter
(``-vD`` is ``-v -D``); ``branch`` only lists.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.errors import PathRefusedError
from foehn_lsp.sandbox import (
    Finished,
    ProgramStartError,
    Sandbox,
    SandboxViewError,
    system_sandbox,
)
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.tools.contract import CallScope
from foehn_plugins._git_read import FILE_KEYS, READ_ONLY, read_problem
from foehn_plugins._running import as_result

SECONDS = 60.0

SAFE_GIT = [
    "--no-pager",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.pager=cat",
    "-c",
    "diff.external=",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.sshCommand=false",
    "-c",
    "credential.helper=",
    "-c",
    "protocol.allow=never",
    "-c",
    "log.showSignature=false",
    # %G? in --format= and showSignature verify signatures with a program the repo may name
    *("-c", "gpg.program=false", "-c", "gpg.openpgp.program=false"),
    *("-c", "gpg.x509.program=false", "-c", "gpg.ssh.program=false"),
]
NO_EXTERNAL = {
    "diff": ["--no-ext-diff", "--no-textconv"],
    "log": ["--no-ext-diff", "--no-textconv"],
    "show": ["--no-ext-diff", "--no-textconv"],
    "blame": ["--no-textconv"],
}
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
FILTER_KEY = re.compile(r"^filter\.(.+)\.(clean|smudge|process|required)$", re.IGNORECASE)
ENVIRONMENT = {
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_ATTR_NOSYSTEM": "1",
}


WRITES_REPOSITORY = frozenset(
    {
        "init",
        "add",
        "commit",
        "tag",
        "push",
        "pull",
        "fetch",
        "merge",
        "rebase",
        "reset",
        "stash",
        "cherry-pick",
        "revert",
        "am",
        "clone",
        "rm",
        "mv",
    }
)
"""git subcommands that write the repository (``.git/``), which sandboxed programs cannot."""
PERSONS = (
    "Commits, tags and pushes are the person's to make: say in your answer what they should "
    "run. A version number is text in files: search for it, read_file and edit_file each file "
    "that states it."
)


def git_write_advice(command: list[str]) -> str | None:
    """For a git command line that writes the repository: one line saying it was not run and
    what to do instead; ``None`` for anything else."""
    if len(command) < 2 or os.path.basename(command[0]) != "git":
        return None
    sub = next((a for a in command[1:] if not a.startswith("-")), "")
    if sub not in WRITES_REPOSITORY:
        return None
    if sub == "init":
        return (
            "git init was not run: create_repository makes a repository (the person is asked); "
            "programs cannot create .git."
        )
    return (
        f"git {sub} was not run: it writes the repository (.git/), which Foehn's programs "
        f"cannot. {PERSONS}"
    )


class GitArguments(BaseModel):
    args: Annotated[
        list[str],
        Field(
            min_length=1,
            description='Subcommand and its arguments, e.g. ["log", "--oneline", '
            '"-n", "5"]. Read-only subcommands only: ' + ", ".join(READ_ONLY) + ".",
        ),
    ]


def check_git(arguments: GitArguments, ctx: ToolContext) -> str | None:
    """Why the call is refused, or ``None``."""
    command, *rest = arguments.args
    if command not in READ_ONLY:
        return git_write_advice(["git", *arguments.args]) or (
            f"git {command!r} is not allowed here; the git tool runs only "
            f"{', '.join(READ_ONLY)}. Use run_command for anything else (it asks "
            "the person first)."
        )
    for argument in rest:
        if CONTROL.search(argument):
            return f"argument {argument!r} contains a control character"
    if problem := read_problem(command, rest):
        return f"{problem}. {PERSONS}" if command in WRITES_REPOSITORY else problem
    after_separator = False
    for argument in rest:
        if argument == "--" and not after_separator:
            after_separator = True
            continue
        if argument.startswith("-") and not after_separator:
            continue
        if "/" in argument or after_separator:
            path = argument.split(":", 1)[-1] if ":" in argument else argument
            try:
                ctx.workspace.resolve(path)
            except PathRefusedError as exc:
                return str(exc)
    return None


def repository_problem(root: Path) -> str | None:
    """Why git may not run on the workspace root's repository, or ``None``."""
    dot_git = root / ".git"
    if dot_git.is_symlink():
        return "the workspace's .git is a symbolic link; the git tool does not follow it"
    if dot_git.is_file():
        return (
            "the workspace's .git is a file pointing to a repository elsewhere (a worktree or "
            "submodule); the git tool works only on a repository inside the workspace"
        )
    if not dot_git.is_dir():
        return "the workspace root is not a git repository (it has no .git folder)"
    return None


async def _config(
    sandbox: Sandbox, ctx: ToolContext, policy: SandboxPolicy
) -> dict[str, str] | str:
    """The repository's own configuration (names and values), read by git itself, sandboxed."""
    finished = await sandbox.run(
        [_git_program(sandbox, ctx, policy) or "git", "config", "--list"],
        workspace=ctx.workspace,
        cwd=ctx.workspace.root,
        policy=policy,
        seconds=SECONDS,
        env=_environment(ctx.workspace.root),
    )
    if finished.exit_code not in (0, 1):
        return f"git could not read the repository's configuration:\n{finished.output}"
    entries = {}
    for line in finished.output.splitlines():  # a value with a newline can only add names
        name, _, value = line.partition("=")
        if name:
            entries[name] = value  # as git prints it: a subsection keeps its case
    return entries


def _environment(root: Path) -> dict[str, str]:
    return {**ENVIRONMENT, "GIT_DIR": str(root / ".git"), "GIT_WORK_TREE": str(root)}


def _git_program(sandbox: Sandbox, ctx: ToolContext, policy: SandboxPolicy) -> str | None:
    """The system's (or a toolchain's) git, never one of the workspace's."""
    return sandbox.which("git", ctx.workspace, policy, workspace_programs=False)


def overrides(config: dict[str, str], root: Path) -> list[str] | str:
    """``-c`` options switching off every filter driver ``config`` defines, or why git may not
    run (a ``core.worktree`` elsewhere)."""
    worktree = next((v for k, v in config.items() if k.lower() == "core.worktree"), None)
    if worktree is not None and os.path.realpath(root / worktree) != str(root):
        return (
            f"the repository sets core.worktree to {worktree!r}, outside the workspace root; "
            "the git tool refuses it"
        )
    for key, value in config.items():
        if FILE_KEYS.match(key) and value and outside(value, root):
            return (
                f"the repository's config names a file outside the workspace ({key} = "
                f"{value}); the git tool does not read it"
            )
    drivers = sorted({m.group(1) for key in config if (m := FILTER_KEY.match(key))})
    args = []
    for driver in drivers:
        for key, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")):
            args += ["-c", f"filter.{driver}.{key}={value}"]
    return args


def outside(value: str, root: Path) -> bool:
    """Whether a file named in the repository's config (relative to the root, or with ``~``)
    lies outside ``root``."""
    path = Path(os.path.expanduser(value))
    real = Path(os.path.realpath(path if path.is_absolute() else root / path))
    return real != root and root not in real.parents


def git_scope(arguments: GitArguments, ctx: ToolContext) -> CallScope:
    return CallScope(
        program="git",
        sandbox=system_sandbox().policy_for("read-only"),
        argv=("git", *arguments.args),
    )


async def git(arguments: GitArguments, ctx: ToolContext) -> ToolResult:
    try:
        return await _git(arguments, ctx)
    except (SandboxViewError, ProgramStartError) as exc:
        return ToolResult.failure(f"git was not run: {exc}")


async def _git(arguments: GitArguments, ctx: ToolContext) -> ToolResult:
    if problem := check_git(arguments, ctx) or repository_problem(ctx.workspace.root):
        return ToolResult.failure(problem)
    sandbox = system_sandbox()
    policy: SandboxPolicy = ctx.scope.sandbox or system_sandbox().policy_for("read-only")
    program = _git_program(sandbox, ctx, policy)
    if program is None:
        return ToolResult.failure("git is not installed")
    config = await _config(sandbox, ctx, policy)
    if isinstance(config, str):
        return ToolResult.failure(config)
    extra = overrides(config, ctx.workspace.root)
    if isinstance(extra, str):
        return ToolResult.failure(extra)
    command, *rest = arguments.args
    argv = [program, *SAFE_GIT, *extra, command, *NO_EXTERNAL.get(command, []), *rest]
    finished = await sandbox.run(
        argv,
        workspace=ctx.workspace,
        cwd=ctx.workspace.root,
        policy=policy,
        seconds=SECONDS,
        env=_environment(ctx.workspace.root),
    )
    return as_result(Finished(**{**finished.__dict__, "argv": ("git", *arguments.args)}), ".")


class RepositoryArguments(BaseModel):
    initial_branch: Annotated[
        str | None,
        Field(
            pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$",
            description="Name of the first branch. Default: git's own.",
        ),
    ] = None


def _init_argv(arguments: RepositoryArguments) -> list[str]:
    branch = ["-b", arguments.initial_branch] if arguments.initial_branch else []
    return ["git", "init", "-q", *branch]


def repository_scope(arguments: RepositoryArguments, ctx: ToolContext) -> CallScope:
    return CallScope(
        program=" ".join(_init_argv(arguments)),
        sandbox=system_sandbox().policy_for("workspace-write"),
        note="creates a git repository (.git/) in the workspace root",
    )


async def create_repository(arguments: RepositoryArguments, ctx: ToolContext) -> ToolResult:
    """``git init`` in the workspace root: the one call that may create ``.git`` (the system's
    git, fixed arguments, no configuration but git's own defaults)."""
    root = ctx.workspace.root
    if (root / ".git").is_symlink() or (root / ".git").exists():
        return ToolResult.failure("the workspace already has .git; nothing was changed")
    sandbox = system_sandbox()
    policy: SandboxPolicy = ctx.scope.sandbox or sandbox.policy_for("workspace-write")
    program = _git_program(sandbox, ctx, policy)
    if program is None:
        return ToolResult.failure("git is not installed")
    argv = [program, *_init_argv(arguments)[1:]]
    try:
        finished = await sandbox.run(
            argv,
            workspace=ctx.workspace,
            cwd=root,
            policy=policy,
            seconds=SECONDS,
            env=ENVIRONMENT,
            unprotected=(".git",),
        )
    except (SandboxViewError, ProgramStartError) as exc:
        return ToolResult.failure(f"git init was not run: {exc}")
    return as_result(Finished(**{**finished.__dict__, "argv": tuple(_init_argv(arguments))}), ".")
