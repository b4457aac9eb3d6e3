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
2. Shells (``sh -c`` …), privilege changers (``sudo``), and programs that run other programs
   from their arguments (``xargs``, ``env CMD``, ``find -exec``/``-delete``): destructive.
   ``timeout``/``nice``/``nohup``/``time`` are classified by the command they wrap (their own
   options' values skipped; ``time -o FILE`` writes).
3. Interpreters: ``--version``/``--help`` alone are read-only; inline code (``-c``, ``-e``,
   ``--eval``, ``-p``, ``-r``) is destructive; ``python -m MODULE`` is classified as MODULE; a
   script (even one named ``help``) is destructive.
4. The tables below, by program and (for ``git``, package managers, formatters) subcommand and
   flags; options that run programs (``sed e``, ``tar --to-command``, ``rg --pre``, ``sort
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
from foehn_lsp.workspace import Workspace
from foehn_plugins._git_read import FILE_KEYS, read_problem
from foehn_plugins._git_read import READ_ONLY as READ_ONLY_GIT

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
    """The risk of running ``argv`` in ``cwd`` (relative to the workspace root)."""
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
    risk = _by_program(program, args)
    if risk is R and _runs_configured_code(program, args, workspace, cwd):
        return D
    return risk


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
    if program in SHELLS or program in RUNS_OTHERS:
        return D
    if program in WRAPPERS:
        return _wrapped(program, args)
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


WRAPPER_VALUES = {
    # options of the wrappers that take a value (the next argument, unless attached)
    "time": {"-o", "--output", "-f", "--format"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u"},
    "stdbuf": {"-i", "--input", "-o", "--output", "-e", "--error"},
}
WRAPPER_WRITES = {"time": ("-o", "--output", "-a", "--append")}


def _wrapped(program: str, args: list[str]) -> RiskLevel:
    """A wrapper's risk is its command's; ``time -o FILE`` also writes FILE."""
    rest = wrapped_command(program, args)
    options = args[: len(args) - len(rest)]
    writes = WRAPPER_WRITES.get(program, ("\0",))
    floor = W if any(a.startswith("-") and a.startswith(writes) for a in options) else R
    if not rest or "/" in rest[0]:
        return D
    return max(floor, _by_program(rest[0], rest[1:]), key=lambda r: r.rank)


def wrapped_command(program: str, args: Sequence[str]) -> list[str]:
    """The command a wrapper (``timeout``, ``nice``…) runs: ``args`` after its own options and
    their values (and ``timeout``'s duration); empty if there is none."""
    values = WRAPPER_VALUES.get(program, set())
    index = 0
    while index < len(args) and args[index].startswith("-"):
        if args[index] in values:
            index += 1  # its value is the next argument
        index += 1
    rest = list(args[index:])
    if program == "timeout" and rest:
        rest = rest[1:]  # the duration
    return rest


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
    """Read-only only for scripts made of printing commands: ``e``, ``r``, ``w``, ``s///e``
    and script files (``-f``) run programs, read files or write them."""
    if any(a.startswith(("-i", "--in-place")) for a in args):
        return W
    scripts: list[str] = []
    options = {"-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-s", "-u", "-z"}
    index, files = 0, []
    while index < len(args):
        a = args[index]
        if a in ("-e", "--expression") and index + 1 < len(args):
            scripts.append(args[index + 1])
            index += 2
            continue
        if a.startswith("--expression="):
            scripts.append(a.split("=", 1)[1])
        elif a.startswith("-e") and len(a) > 2:
            scripts.append(a[2:])
        elif a.startswith("-") and a not in options:
            return D  # -f script files, --follow-symlinks, anything unknown
        elif not a.startswith("-"):
            files.append(a)
        index += 1
    if not scripts and files:
        scripts.append(files.pop(0))
    commands = [c.strip() for script in scripts for c in re.split(r"[;\n]", script)]
    return R if all(SED_READ_SCRIPT.fullmatch(c) for c in commands if c) else D


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
