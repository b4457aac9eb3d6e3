"""How risky a command line is, from its arguments alone. Table-driven and fail-closed:
anything not known to be harmless is destructive.

Rules, in order (the first that decides wins):
1. A path-like argument (also after ``--opt=``) that resolves outside the workspace, or a
   redirection-like token (``>``, ``>>``, ``<``, ``|``, ``;``, ``&&``, ``||``, ``&``, backticks,
   ``$(``): destructive. There is no shell, so such tokens only mean the model expected one.
2. Shells (``sh -c`` …), privilege changers (``sudo``), and programs that run other programs
   from their arguments (``xargs``, ``env CMD``, ``find -exec``/``-delete``): destructive.
   ``timeout``/``nice``/``nohup``/``time`` are classified by the command they wrap.
3. Interpreters: ``--version`` is read-only; inline code (``-c``, ``-e``, ``--eval``, ``-p``,
   ``-r``) is destructive; ``python -m MODULE`` is classified as MODULE; a script is destructive.
4. The tables below, by program and (for ``git``, package managers, formatters) subcommand and
   flags. ``--version``/``--help`` alone are read-only for any known program.
5. Everything else: destructive.

Quote characters are removed from options before matching, so ``-e"x"ec`` is ``-exec``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from foehn_lsp import RiskLevel
from foehn_lsp.errors import PathRefusedError
from foehn_lsp.workspace import Workspace

R, W, D = RiskLevel.READ_ONLY, RiskLevel.WRITE, RiskLevel.DESTRUCTIVE

REDIRECTIONS = (">", ">>", "<", "<<", "|", "||", "&&", ";", "&", "2>", "2>&1", "&>", "1>")
SHELLS = {
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "csh",
    "tcsh",
    "pwsh",
    "powershell",
    "cmd",
    "busybox",
}
RUNS_OTHERS = {
    "sudo",
    "doas",
    "su",
    "xargs",
    "exec",
    "eval",
    "parallel",
    "watch",
    "chroot",
    "setsid",
    "unshare",
    "nsenter",
    "ssh",
    "script",
}
WRAPPERS = {"timeout", "nice", "nohup", "time", "ionice", "stdbuf"}
INTERPRETERS = {
    "python",
    "python3",
    "node",
    "nodejs",
    "ruby",
    "perl",
    "php",
    "lua",
    "deno",
    "bun",
    "Rscript",
    "julia",
    "osascript",
    "tclsh",
    "awk",
    "gawk",
    "mawk",
}
INLINE_CODE = {"-c", "-e", "--eval", "-p", "--print", "-r", "--exec", "-E", "-x"}
QUERIES = {"--version", "-V", "-v", "--help", "-h", "version", "help"}

READ_ONLY_PROGRAMS = {
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "pwd",
    "echo",
    "printf",
    "date",
    "whoami",
    "uname",
    "which",
    "file",
    "stat",
    "du",
    "df",
    "tree",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "diff",
    "cmp",
    "uniq",
    "cut",
    "tr",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "printenv",
    "true",
    "false",
    "id",
    "hostname",
    "nproc",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "jq",
    "column",
    "comm",
    "nl",
    "od",
    "hexdump",
    "xxd",
    "locale",
    "cal",
    "seq",
    "test",
    "[",
    "ps",
    "free",
    "uptime",
    "lsb_release",
    "getconf",
    "type",
}
WRITE_PROGRAMS = {
    "touch",
    "mkdir",
    "cp",
    "ln",
    "tee",
    "patch",
    "zip",
    "gzip",
    "gunzip",
    "unzip",
    "bzip2",
    "xz",
}
DESTRUCTIVE_PROGRAMS = {
    "rm",
    "rmdir",
    "shred",
    "dd",
    "mkfs",
    "truncate",
    "mv",
    "chown",
    "chgrp",
    "kill",
    "pkill",
    "killall",
    "reboot",
    "shutdown",
    "halt",
    "curl",
    "wget",
    "scp",
    "sftp",
    "ftp",
    "rsync",
    "nc",
    "ncat",
    "netcat",
    "telnet",
    "socat",
    "npx",
    "pnpx",
    "apt",
    "apt-get",
    "dpkg",
    "dnf",
    "yum",
    "brew",
    "snap",
    "make",
    "crontab",
    "systemctl",
    "service",
    "mount",
    "umount",
    "docker",
    "podman",
    "kubectl",
}
TEST_RUNNERS = {
    "pytest",
    "mypy",
    "tox",
    "nox",
    "unittest",
    "jest",
    "vitest",
    "mocha",
    "ruff",
    "flake8",
    "pylint",
    "eslint",
    "tsc",
    "pyright",
    "coverage",
}
FORMATTERS: dict[str, tuple[bool, set[str], set[str]]] = {
    # program: (writes files by default, flags that make it only report, flags that make it write)
    "black": (True, {"--check", "--diff"}, set()),
    "isort": (True, {"--check", "--check-only", "--diff"}, set()),
    "rustfmt": (True, {"--check"}, set()),
    "prettier": (False, set(), {"--write", "-w"}),
    "gofmt": (False, set(), {"-w"}),
    "clang-format": (False, set(), {"-i"}),
    "autopep8": (False, set(), {"-i", "--in-place"}),
    "yapf": (False, set(), {"-i", "--in-place"}),
}

GIT: dict[str, RiskLevel] = {
    "status": R,
    "diff": R,
    "log": R,
    "show": R,
    "blame": R,
    "rev-parse": R,
    "ls-files": R,
    "grep": R,
    "describe": R,
    "shortlog": R,
    "rev-list": R,
    "cat-file": R,
    "ls-tree": R,
    "whatchanged": R,
    "reflog": R,
    "version": R,
    "help": R,
    "add": W,
    "commit": W,
    "stash": W,
    "switch": W,
    "mv": W,
    "merge": W,
    "rebase": W,
    "cherry-pick": W,
    "revert": W,
    "init": W,
    "notes": W,
    "am": W,
    "apply": W,
    "reset": W,
    "checkout": D,
    "restore": D,
    "rm": D,
    "clean": D,
    "push": D,
    "pull": D,
    "fetch": D,
    "clone": D,
    "remote": D,
    "submodule": D,
    "gc": D,
    "prune": D,
    "filter-branch": D,
    "update-ref": D,
    "config": D,
    "worktree": D,
    "bisect": W,
    "branch": R,
    "tag": R,
}
PACKAGE_MANAGERS: dict[str, tuple[set[str], set[str]]] = {
    # program: (read-only subcommands, write subcommands); anything else is destructive
    "pip": ({"list", "show", "freeze", "check", "index", "search"}, set()),
    "pip3": ({"list", "show", "freeze", "check", "index", "search"}, set()),
    "uv": ({"tree", "version"}, {"lock", "run", "sync"}),
    "npm": (
        {"ls", "list", "view", "outdated", "audit", "why", "explain"},
        {"test", "run", "run-script", "t"},
    ),
    "yarn": ({"list", "info", "why", "outdated"}, {"test", "run"}),
    "pnpm": ({"list", "ls", "why", "outdated"}, {"test", "run"}),
    "cargo": (
        {"tree", "metadata", "search", "version"},
        {"build", "check", "test", "clippy", "fmt", "doc", "run", "bench"},
    ),
    "go": ({"version", "env", "list", "doc", "vet"}, {"build", "test", "fmt", "run", "mod"}),
    "poetry": ({"show", "check", "version"}, {"run", "lock"}),
    "gem": ({"list", "search"}, set()),
}


def _strip_quotes(argument: str) -> str:
    return argument.replace('"', "").replace("'", "").replace("\\", "")


def _path_escapes(argument: str, workspace: Workspace, cwd: str) -> bool:
    value = argument.split("=", 1)[1] if argument.startswith("-") and "=" in argument else argument
    if not value or not ("/" in value or value.startswith(("~", "..")) or value == ".."):
        return False
    if "://" in value:
        return False  # a URL: network tools are judged by the table
    candidate = value if os.path.isabs(value) or value.startswith("~") else f"{cwd}/{value}"
    try:
        workspace.resolve(candidate)
    except PathRefusedError:
        return True
    return False


def classify(
    argv: Sequence[str],
    workspace: Workspace,
    cwd: str = ".",
    overrides: Mapping[str, RiskLevel] | None = None,
) -> RiskLevel:
    """The risk of running ``argv`` in ``cwd`` (relative to the workspace root)."""
    if not argv:
        return D
    if any(a in REDIRECTIONS or a.startswith(("`", "$(")) or ">" in a[:2] for a in argv):
        return D
    if any(_path_escapes(a, workspace, cwd) for a in argv[1:]):
        return D
    program = os.path.basename(argv[0])
    if overrides and program in overrides:
        return overrides[program]
    return _by_program(program, [_strip_quotes(a) if a.startswith("-") else a for a in argv[1:]])


def _by_program(program: str, args: list[str]) -> RiskLevel:
    rule = PROGRAM_RULES.get(program)
    if rule is not None:
        return rule(args)
    if program.startswith("python") and program.removeprefix("python").replace(".", "").isdigit():
        return _interpreter(args)
    if program in SHELLS or program in RUNS_OTHERS:
        return D
    if program in WRAPPERS:
        rest = [a for a in args if not a.startswith("-")]
        if program == "timeout" and rest:
            rest = rest[1:]  # the duration
        return _by_program(os.path.basename(rest[0]), rest[1:]) if rest else D
    if program in INTERPRETERS:
        return _interpreter(args)
    if len(args) == 1 and args[0] in QUERIES and program in KNOWN:
        return R
    if program in READ_ONLY_PROGRAMS:
        return R
    if program in WRITE_PROGRAMS:
        return W
    if program in TEST_RUNNERS:
        return W
    if program in FORMATTERS:
        by_default, report, write = FORMATTERS[program]
        if any(a in write for a in args):
            return W
        if any(a in report for a in args):
            return R
        return W if by_default else R
    if program in PACKAGE_MANAGERS:
        return _subcommand(args, *PACKAGE_MANAGERS[program])
    return D


def _interpreter(args: list[str]) -> RiskLevel:
    if not args:
        return D
    if len(args) == 1 and args[0] in QUERIES:
        return R
    if any(a in INLINE_CODE or (a.startswith("-c") and len(a) > 2) for a in args):
        return D
    if args[0] == "-m" and len(args) > 1:
        return _by_program(args[1], args[2:])
    return D


def _subcommand(args: list[str], read: set[str], write: set[str]) -> RiskLevel:
    positional = [a for a in args if not a.startswith("-")]
    if not positional:
        return R if any(a in QUERIES for a in args) else D
    if positional[0] in read:
        return R
    if positional[0] in write:
        return W
    return D


def _git(args: list[str]) -> RiskLevel:
    if not args:
        return D
    if args[0] in QUERIES and len(args) == 1:
        return R
    if args[0].startswith("-"):
        return D  # global options (-c, -C, --exec-path, --git-dir) can change what runs
    command, rest = args[0], args[1:]
    risk = GIT.get(command, D)
    if any(
        a.startswith(
            (
                "--output",
                "--ext-diff",
                "--exec",
                "--upload-pack",
                "--receive-pack",
                "--config",
                "-c",
            )
        )
        for a in rest
    ):
        return D
    if command == "reset" and "--hard" in rest:
        return D
    if command == "branch" and any(
        a in {"-d", "-D", "--delete", "-m", "-M", "-f", "--force"} for a in rest
    ):
        return D
    if (
        command == "branch"
        and [a for a in rest if not a.startswith("-")]
        and not any(a in {"--list", "-l", "-a", "-r", "--contains", "--merged"} for a in rest)
    ):
        return W  # creates a branch
    if (
        command == "tag"
        and [a for a in rest if not a.startswith("-")]
        and "-l" not in rest
        and "--list" not in rest
    ):
        return W
    if command == "stash" and rest[:1] in (["drop"], ["clear"]):
        return D
    return risk


def _find(args: list[str]) -> RiskLevel:
    dangerous = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls", "-fprintf")
    return D if any(a.startswith(dangerous) for a in args) else R


def _sed(args: list[str]) -> RiskLevel:
    return W if any(a.startswith(("-i", "--in-place")) for a in args) else R


def _sort(args: list[str]) -> RiskLevel:
    return W if any(a.startswith(("-o", "--output")) for a in args) else R


def _chmod(args: list[str]) -> RiskLevel:
    return D if any(a in {"-R", "--recursive"} for a in args) else W


def _tar(args: list[str]) -> RiskLevel:
    flags = "".join(a.lstrip("-") for a in args[:1])
    if "t" in flags or "--list" in args:
        return R
    return W


def _env(args: list[str]) -> RiskLevel:
    return R if not [a for a in args if "=" not in a and not a.startswith("-")] else D


def _ruff(args: list[str]) -> RiskLevel:
    if args[:1] == ["format"]:
        return R if {"--check", "--diff"} & set(args) else W
    return W if "--fix" in args else R


PROGRAM_RULES: dict[str, Callable[[list[str]], RiskLevel]] = {
    "git": _git,
    "find": _find,
    "sed": _sed,
    "sort": _sort,
    "chmod": _chmod,
    "tar": _tar,
    "env": _env,
    "ruff": _ruff,
}
KNOWN = (
    READ_ONLY_PROGRAMS
    | WRITE_PROGRAMS
    | DESTRUCTIVE_PROGRAMS
    | TEST_RUNNERS
    | set(FORMATTERS)
    | set(PACKAGE_MANAGERS)
    | set(PROGRAM_RULES)
    | INTERPRETERS
)
