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
from foehn_lsp.sandbox import Finished, Sandbox, system_sandbox
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.tools.contract import CallScope
from foehn_plugins._running import as_result

SECONDS = 60.0

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
VALUE_LETTERS = frozenset("nUSGLMC")
"""Short options whose value may follow attached (``-n5``): the rest of a bundle is a value."""
LISTING = frozenset({"--list", "-l", "--contains", "--merged", "--no-merged", "-a", "--all", "-r"})
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


class GitArguments(BaseModel):
    args: Annotated[
        list[str],
        Field(
            min_length=1,
            description='Subcommand and its arguments, e.g. ["log", "--oneline", '
            '"-n", "5"]. Read-only subcommands only: ' + ", ".join(GIT_SUBCOMMANDS) + ".",
        ),
    ]


def _option_problem(argument: str, allowed: set[str], command: str) -> str | None:
    refused = f"option {argument!r} is not allowed for git {command}"
    if argument.startswith("--"):
        base = argument.split("=", 1)[0] + "=" if "=" in argument else argument
        return None if argument in allowed or base in allowed else refused
    if argument in allowed or (command == "log" and argument[1:].isdigit()):
        return None  # -3 is log's --max-count=3
    for index, letter in enumerate(argument[1:], start=1):
        if f"-{letter}" not in allowed:
            return refused
        if letter in VALUE_LETTERS:
            value = argument[index + 1 :]
            if letter in "MC" and not re.fullmatch(r"[0-9%]*", value):
                return refused
            return None
    return None


def check_git(arguments: GitArguments, ctx: ToolContext) -> str | None:
    """Why the call is refused, or ``None``."""
    command, *rest = arguments.args
    allowed = GIT_SUBCOMMANDS.get(command)
    if allowed is None:
        return (
            f"git {command!r} is not allowed here; the git tool runs only "
            f"{', '.join(GIT_SUBCOMMANDS)}. Use run_command for anything else (it asks "
            "the person first)."
        )
    after_separator = False
    positional = []
    for argument in rest:
        if CONTROL.search(argument):
            return f"argument {argument!r} contains a control character"
        if argument == "--" and not after_separator:
            after_separator = True
            continue
        if argument.startswith("-") and not after_separator:
            if problem := _option_problem(argument, allowed, command):
                return problem
            continue
        positional.append(argument)
        if "/" in argument or after_separator:
            path = argument.split(":", 1)[-1] if ":" in argument else argument
            try:
                ctx.workspace.resolve(path)
            except PathRefusedError as exc:
                return str(exc)
    if command == "branch" and positional and not LISTING & set(rest):
        return (
            "git branch with a name would create a branch; the git tool only lists branches "
            "(add --list to match names against a pattern)"
        )
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
    return sandbox.which("git", ctx.workspace, policy)


def overrides(config: dict[str, str], root: Path) -> list[str] | str:
    """``-c`` options switching off every filter driver ``config`` defines, or why git may not
    run (a ``core.worktree`` elsewhere)."""
    worktree = next((v for k, v in config.items() if k.lower() == "core.worktree"), None)
    if worktree is not None and os.path.realpath(root / worktree) != str(root):
        return (
            f"the repository sets core.worktree to {worktree!r}, outside the workspace root; "
            "the git tool refuses it"
        )
    drivers = sorted({m.group(1) for key in config if (m := FILTER_KEY.match(key))})
    args = []
    for driver in drivers:
        for key, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")):
            args += ["-c", f"filter.{driver}.{key}={value}"]
    return args


def git_scope(arguments: GitArguments, ctx: ToolContext) -> CallScope:
    return CallScope(
        program="git",
        sandbox=system_sandbox().policy_for("read-only"),
        argv=("git", *arguments.args),
    )


async def git(arguments: GitArguments, ctx: ToolContext) -> ToolResult:
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
