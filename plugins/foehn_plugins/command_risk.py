"""How risky a command line is, from its arguments alone. Table-driven and fail-closed:
anything not known to be harmless is destructive.

This table decides only when to ask the person. What a program can actually do is decided by
the OS sandbox it runs in (``foehn_lsp.sandbox``): a read-only verdict runs in the
``read-only`` sandbox, so a wrong entry here costs nothing. The table still tries to be right.

Rules, in order (the first that decides wins):
0. A program named with a ``/`` (a script, or a path that may be one) is destructive.
1. A path-like argument that resolves outside the workspace: also after ``--opt=``, attached
   to a short option (``-o/abs``, ``-uo../x``), or a bare name that is a symbolic link out; any
   ``://`` (a URL is the network, and ``x://../..`` is a path in disguise); or a
   redirection-like token (``>``, ``>>``, ``<``, ``|``, ``;``, ``&&``, ``||``, ``&``, backticks,
   ``$(``): destructive. There is no shell, so such tokens only mean the model expected one.
2. What the argv starts, read by the one argv reader (``foehn_lsp.policy.rules.argv``, which
   the person's rules match on too): an argv that may start a program its words do not name
   (a shell, ``sudo``, inline code such as ``python -c``, ``find -exec``, ``sed e``, a runner
   whose options it cannot read exactly) is destructive; otherwise every program it starts is
   classified, and the highest risk wins. A runner's own part (``timeout``, ``nice``, ``env``,
   ``python -m``, ``uv run``…) adds nothing but its own writes (``time -o FILE``); ``xargs``
   gives its program arguments read at run time, so it is destructive.
3. Interpreters: ``--version``/``--help`` alone are read-only; ``python -m MODULE`` is classified
   as MODULE; a script (even one named ``help``), or anything else, is destructive.
4. The tables below, by program and (for ``git``, package managers, formatters) subcommand and
   flags; options that run programs (``tar --to-command``, ``rg --pre``, ``sort
   --compress-program``, ``git grep -O``), write (``uniq IN OUT``, ``xxd -r``, ``pip --log``) or
   reach the network (``pip index``, ``npm view``) are not read-only; nor is git in a
   repository whose own config can run programs or names a file outside the workspace, or
   cargo with a ``.cargo/config``. git is read-only exactly as the ``git`` tool allows
   (``_git_read``, one table for both).
   ``--version``/``--help`` alone are read-only for any known program.
5. Everything else: destructive.

Quote characters are removed from options before matching, so ``-e"x"ec`` is ``-exec``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence

from foehn_lsp import RiskLevel
from foehn_lsp.errors import PathRefusedError
from foehn_lsp.policy.rules.argv import RUNNER_GRAMMAR, Run, command_index, sed_args
from foehn_lsp.policy.rules.argv import view as argv_view
from foehn_lsp.workspace import Workspace
from foehn_plugins._git_read import FILE_KEYS, read_problem
from foehn_plugins._git_read import READ_ONLY as READ_ONLY_GIT

R, W, D = RiskLevel.READ_ONLY, RiskLevel.WRITE, RiskLevel.DESTRUCTIVE

REDIRECTIONS = (">", ">>", "<", "<<", "|", "||", "&&", ";", "&", "2>", "2>&1", "&>", "1>")
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
QUERIES = {"--version", "-V", "--help", "-h"}
"""Alone, these only print; ``-v`` and bare words (``help``, ``version``) are not queries
everywhere (``make help`` runs a target, ``python help`` a script, ``npm version`` bumps)."""

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
    # the read-only subcommands are in _git_read (shared with the git tool)
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
    "bisect": W,
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
}
PACKAGE_MANAGERS: dict[str, tuple[set[str], set[str]]] = {
    # program: (read-only subcommands, write subcommands); anything else is destructive.
    # Read-only means local: subcommands that ask a registry (pip index, npm view, cargo
    # search, yarn info) are the network, and destructive.
    "pip": ({"list", "show", "freeze", "check"}, set()),
    "pip3": ({"list", "show", "freeze", "check"}, set()),
    "uv": (set(), {"lock", "run", "sync"}),
    "npm": ({"ls", "list", "why", "explain"}, {"test", "run", "run-script", "t"}),
    "yarn": ({"list", "why"}, {"test", "run"}),
    "pnpm": ({"list", "ls", "why"}, {"test", "run"}),
    "cargo": (
        {"tree", "metadata"},
        {"build", "check", "test", "clippy", "fmt", "doc", "run", "bench"},
    ),
    "go": ({"version", "doc"}, {"build", "test", "fmt", "run", "mod", "vet"}),
    "poetry": ({"check"}, {"run", "lock"}),
    "gem": ({"list"}, set()),
}
PACKAGE_READ_OPTIONS = {
    # options a read-only subcommand may have and stay local and read-only
    "pip": {
        "-v",
        "--verbose",
        "-q",
        "--quiet",
        "--no-color",
        "--disable-pip-version-check",
        "--format",
        "--format=json",
        "--format=freeze",
        "--format=columns",
        "--not-required",
        "-l",
        "--local",
        "--user",
        "-e",
        "--editable",
        "--exclude-editable",
        "-f",
        "--files",
        "--all",
    },
}
PACKAGE_READ_OPTIONS["pip3"] = PACKAGE_READ_OPTIONS["pip"]


def _strip_quotes(argument: str) -> str:
    return argument.replace('"', "").replace("'", "").replace("\\", "")


def _path_escapes(argument: str, workspace: Workspace, cwd: str) -> bool:
    """Whether ``argument`` names, or may name, a place outside the workspace."""
    if "://" in argument:
        return True  # the network, or a path behind a scheme-like prefix
    return any(_escapes(value, workspace, cwd) for value in _path_candidates(argument))


def _path_candidates(argument: str) -> list[str]:
    """The paths ``argument`` may carry: itself, the value after ``--opt=``, and for a short
    option cluster every tail after its first letter (``-uo/abs`` may be ``-u -o /abs``)."""
    if not argument.startswith("-"):
        return [argument]
    if argument.startswith("--"):
        return [argument.split("=", 1)[1]] if "=" in argument else []
    starts = {i for i in range(2, min(len(argument), MAX_CLUSTER))}
    starts |= {i for i, c in enumerate(argument) if i >= 2 and c in "/~."}
    return [tail for i in sorted(starts) if (tail := argument[i:].lstrip("="))]


MAX_CLUSTER = 64
"""Past this many characters of a short option cluster, only tails that start like a path
(``/``, ``~``, ``.``) are checked: an attached value longer than that which is a bare name of
a symbolic link is not worth quadratic work on every long argument."""


def _escapes(value: str, workspace: Workspace, cwd: str) -> bool:
    if not value:
        return False
    pathlike = "/" in value or value.startswith(("~", ".."))
    if not pathlike and not os.path.islink(os.path.join(workspace.root, cwd, value)):
        return False  # a bare word, unless it is a symbolic link (which may point out)
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
    """The risk of running ``argv`` in ``cwd`` (relative to the workspace root): the highest
    of the programs it starts, as the one argv reader (``policy.rules.argv``) finds them."""
    if not argv:
        return D
    if any(a in REDIRECTIONS or a.startswith(("`", "$(")) or ">" in a[:2] for a in argv):
        return D
    if "/" in argv[0]:
        return D  # a script, or a program the tables cannot know by its name
    if any(_path_escapes(a, workspace, cwd) for a in argv[1:]):
        return D
    program = argv[0]
    if overrides and program in overrides:
        return overrides[program]
    args = [_strip_quotes(a) if a.startswith("-") else a for a in argv[1:]]
    seen = argv_view([program, *args])
    if seen.opaque is not None or not seen.exact:
        return D  # it may start a program Foehn cannot name
    return max((_run_risk(run, workspace, cwd) for run in seen.runs), key=lambda r: r.rank)


def _run_risk(run: Run, workspace: Workspace, cwd: str) -> RiskLevel:
    """The risk of one program an argv starts, by its own part: a runner's own options (the
    program it starts is a run of its own), any other program by the tables, and a read-only
    one destructive where it would run code the workspace configured."""
    if run.open_tail or "/" in run.program:
        return D  # arguments it is given later, or a program the tables cannot know
    args = list(run.args)
    if run.name in RUNNER_GRAMMAR:
        return _runner(run.name, args)
    risk = _by_program(run.name, args)
    if risk is R and _runs_configured_code(run.name, args, workspace, cwd):
        return D
    return risk


def _runner(name: str, args: list[str]) -> RiskLevel:
    """A runner's own part: none, unless its options write (``time -o FILE``) or it runs
    nothing (``nice`` alone); ``env`` and ``xargs`` by their own rules."""
    if name == "env":
        return _env(args)
    if name == "xargs":
        return D  # the program it starts gets arguments it reads at run time
    if command_index(args, RUNNER_GRAMMAR[name]) is None:
        return D
    writes = WRAPPER_WRITES.get(name, ("\0",))
    return W if any(a.startswith("-") and a.startswith(writes) for a in args) else R


def _runs_configured_code(program: str, args: list[str], workspace: Workspace, cwd: str) -> bool:
    """Whether a read-only verdict would run code the workspace configured: git with a
    repository config that names programs (textconv, filters, fsmonitor, pager, aliases…) or a
    ``.git`` file pointing elsewhere; cargo with a ``.cargo/config``."""
    if program == "cargo":
        folders = {workspace.root, workspace.root / cwd}
        return any((f / ".cargo").exists() for f in folders)
    if program != "git" or args[:1] in (["--version"], ["version"], ["--help"], ["help"]):
        return False
    dot_git = workspace.root / ".git"
    if dot_git.is_file() or dot_git.is_symlink():
        return True
    try:
        config = (dot_git / "config").read_text("utf-8", "replace")
    except OSError:
        return False
    if GIT_CONFIG_RUNS_CODE.search(config):
        return True
    return any(
        FILE_KEYS.match(key) and _escapes(value, workspace, ".")
        for key, value in _config_entries(config)
    )


def _config_entries(text: str) -> list[tuple[str, str]]:
    """``section.key`` (``section.sub.key``) and value of each line of a git config file; a
    small reading, enough to find the keys that name files."""
    entries, section = [], ""
    for line in text.splitlines():
        line = line.strip()
        if header := re.fullmatch(r'\[\s*([\w.-]+)(?:\s+"([^"]*)")?\s*\]', line):
            section = header[1] + (f".{header[2]}" if header[2] is not None else "")
        elif (pair := re.fullmatch(r"([\w-]+)\s*=\s*(.*?)\s*", line)) and section:
            entries.append((f"{section}.{pair[1]}", pair[2].strip('"')))
    return entries


GIT_CONFIG_RUNS_CODE = re.compile(
    r"(?im)^\s*(\[\s*(filter|diff|merge|include|includeif|alias|credential)\b"
    r"|(fsmonitor|textconv|pager|external|hookspath|sshcommand|askpass|editor|worktree"
    r"|command|cmd|clean|smudge|process|program)\s*=)"
)


def _by_program(program: str, args: list[str]) -> RiskLevel:
    rule = PROGRAM_RULES.get(program)
    if rule is not None:
        return rule(args)
    if program.startswith("python") and program.removeprefix("python").replace(".", "").isdigit():
        return _interpreter(args)
    if program in INTERPRETERS:
        return _interpreter(args)
    if len(args) == 1 and args[0] in QUERIES and program in KNOWN:
        return R
    if program in READ_ONLY_RULES:
        return READ_ONLY_RULES[program](args)
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
        return _subcommand(args, *PACKAGE_MANAGERS[program], PACKAGE_READ_OPTIONS.get(program))
    return D


WRAPPER_WRITES = {"time": ("-o", "--output", "-a", "--append")}


def _interpreter(args: list[str]) -> RiskLevel:
    """An interpreter's own part: a query prints; ``-m MODULE`` starts the module (a run of
    its own); a script, or anything else, is code the tables cannot know."""
    if len(args) == 1 and args[0] in QUERIES:
        return R
    if len(args) > 1 and args[0] == "-m":
        return R
    return D


def _subcommand(
    args: list[str], read: set[str], write: set[str], read_options: set[str] | None = None
) -> RiskLevel:
    positional = [a for a in args if not a.startswith("-")]
    if not positional:
        return R if any(a in QUERIES for a in args) else D
    if positional[0] in read:
        options = {a for a in args if a.startswith("-")}
        if read_options is not None and not options <= read_options:
            return D  # --log FILE, --outdated (the network), --index-url …
        return R
    if positional[0] in write:
        return W
    return D


def _git(args: list[str]) -> RiskLevel:
    """Read-only exactly when the ``git`` tool would allow it (``_git_read``, the one table);
    otherwise the write and destructive subcommands by the table above, and anything else
    destructive."""
    if not args:
        return D
    if args[0] in QUERIES and len(args) == 1:
        return R
    if args[0].startswith("-"):
        return D  # global options (-c, -C, --exec-path, --git-dir) can change what runs
    command, rest = args[0], args[1:]
    if command in READ_ONLY_GIT:
        if read_problem(command, rest) is None:
            return R
        if command in ("branch", "tag") and not GIT_DELETES & set(rest):
            return W  # creates one, or sets its upstream or description
        return D
    if any(a.startswith(GIT_RUNS_OR_WRITES) for a in rest):
        return D
    if command == "reset" and "--hard" in rest:
        return D
    if command == "stash" and rest[:1] in (["drop"], ["clear"]):
        return D
    return GIT.get(command, D)


GIT_RUNS_OR_WRITES = (
    "--output",
    "--ext-diff",
    "--exec",
    "--upload-pack",
    "--receive-pack",
    "--config",
    "-c",
)
"""Options of git's writing subcommands that run programs or write elsewhere."""
GIT_DELETES = frozenset({"-d", "-D", "--delete", "-m", "-M", "-f", "--force"})


def _find(args: list[str]) -> RiskLevel:
    dangerous = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls", "-fprintf")
    return D if any(a.startswith(dangerous) for a in args) else R


SED_READ_SCRIPT = re.compile(
    r"(\d+|\$|/[^/]*/)?(,(\d+|\$|/[^/]*/))?!?\s*([pdqlnN=]|s(?P<d>[^\w\s\\])"
    r"(?:(?!(?P=d)).)*(?P=d)(?:(?!(?P=d)).)*(?P=d)[gpiI0-9]*)"
)
"""One sed command that only prints: ``p``, ``d``, ``q``, ``=``, or ``s/a/b/`` with printing
flags (no ``e`` to execute, no ``w`` to write), optionally with an address."""


def _sed(args: list[str]) -> RiskLevel:
    """Read-only only for scripts made of printing commands (as the one argv reader reads
    them): ``e``, ``r``, ``w``, ``s///e`` and script files (``-f``) run programs, read files or
    write them; ``-i`` writes."""
    if any(a.startswith(("-i", "--in-place")) for a in args):
        return W
    read = sed_args(args)
    if any(option not in SED_READ_OPTIONS for option in read.options):
        return D  # -f script files, --follow-symlinks, anything unknown
    return R if all(SED_READ_SCRIPT.fullmatch(c) for c in read.commands) else D


SED_READ_OPTIONS = frozenset(
    {"-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-s", "-u", "-z"}
)


def _sort(args: list[str]) -> RiskLevel:
    if any(a.startswith(("--compress-program", "--files0-from")) for a in args):
        return D
    clusters = [a for a in args if a.startswith("-") and not a.startswith("--")]
    if any(a.startswith(("--output", "--temporary-directory")) for a in args) or any(
        "o" in _letters(a) or "T" in _letters(a) for a in clusters
    ):
        return W
    return R


def _letters(cluster: str) -> str:
    """The option letters of a short cluster before any attached path (``-uo/x`` -> ``uo``)."""
    return re.match(r"-([A-Za-z]*)", cluster).group(1)  # type: ignore[union-attr]


def _uniq(args: list[str]) -> RiskLevel:
    return W if len([a for a in args if not a.startswith("-")]) > 1 else R


def _xxd(args: list[str]) -> RiskLevel:
    if any(a in {"-r", "-revert"} or a.startswith("-r") for a in args):
        return W
    return W if len([a for a in args if not a.startswith("-")]) > 1 else R


def _rg(args: list[str]) -> RiskLevel:
    return D if any(a.startswith(("--pre", "--search-zip", "-z")) for a in args) else R


def _ps(args: list[str]) -> RiskLevel:
    """BSD-style ``e`` shows each process's environment."""
    bsd = [a for a in args if not a.startswith("-")]
    return D if any("e" in a for a in bsd) else R


def _files_from(args: list[str]) -> RiskLevel:
    """Programs that read a list of file names from a file, which may name any file."""
    return D if any(a.startswith("--files0-from") for a in args) else R


def _file(args: list[str]) -> RiskLevel:
    """``file -f LIST`` reads the names to look at from LIST; ``-m`` loads other magic."""
    return D if any(a.startswith(("-f", "--files-from", "-m", "--magic-file")) for a in args) else R


def _chmod(args: list[str]) -> RiskLevel:
    return D if any(a in {"-R", "--recursive"} for a in args) else W


TAR_RUNS = (
    "--to-command",
    "--checkpoint-action",
    "--use-compress-program",
    "-I",
    "--info-script",
    "--new-volume-script",
    "-F",
    "--rsh-command",
    "--rmt-command",
    "-T",
    "--files-from",
)


def _tar(args: list[str]) -> RiskLevel:
    if any(a.startswith(TAR_RUNS) for a in args):
        return D
    flags = "".join(a.lstrip("-") for a in args[:1])
    if "t" in flags or "--list" in args:
        return R
    return W


def _env(args: list[str]) -> RiskLevel:
    """``env`` alone or with assignments prints; any command or ``-S`` runs something."""
    harmless = {"-i", "--ignore-environment", "-0", "--null"}
    if any(a.startswith("-") and a not in harmless for a in args):
        return D
    return R if not [a for a in args if "=" not in a] else D


def _ruff(args: list[str]) -> RiskLevel:
    if args[:1] == ["format"]:
        return R if {"--check", "--diff"} & set(args) else W
    writes = ("--fix", "--unsafe-fixes", "--add-noqa", "--output-file", "-o", "--watch")
    return W if any(a.startswith(writes) for a in args) else R


READ_ONLY_RULES: dict[str, Callable[[list[str]], RiskLevel]] = {
    "uniq": _uniq,
    "xxd": _xxd,
    "rg": _rg,
    "ps": _ps,
    "wc": _files_from,
    "du": _files_from,
    "file": _file,
}
"""Programs in ``READ_ONLY_PROGRAMS`` with arguments that make them write, run or leak."""

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
