"""What an argument list runs, as the programs themselves read it: the view rules match on.

This is the one reader of what an argv runs: the rules (``policy.rules``) match on its view, the
risk table (``foehn_plugins.command_risk``) classifies the programs it names, and the check for
the repository's own code looks at each of them. One argv runs the program it names and,
through a *runner* (``env``, ``nice``, ``nohup``, ``timeout``, ``time``, ``stdbuf``, ``ionice``,
``setsid``, ``xargs``, ``python -m``, ``uv run``, a program named by a path…), the program that
one starts. ``view`` lists every program the argv may start, each as a ``Run`` with the
arguments it gets. Where a runner's options are read exactly (every option is one Foehn knows,
with its value: ``RUNNER_GRAMMAR``), the program it starts is known (``Run.certain``);
otherwise its options may swallow the next word, so every later bare word is taken as a
possible program (``env --unknown git push`` may run ``git`` or ``push``) and the view is not
``exact``: the list may be too long, never too short.

An argv whose programs cannot all be named from its words is *opaque*: shells and interpreters
given code as text (``sh -c``, ``python -c``, ``awk '…'``, ``sed 'e …'``), programs that run a
command as someone else or elsewhere (``sudo``, ``ssh``), options that name a command
(``env -S``, ``find -exec``, ``xargs -I``, ``tar --to-command``, ``rg --pre``), and git told to
run something of the call's choosing (``-c alias.x=…``, ``-c core.pager=…``, ``--exec-path=``,
a subcommand that is not git's own, which may be an alias). Deny and ask rules that name a
program match an opaque argv; allow rules never look through anything.

What is not seen: a program Foehn does not know as a runner is matched as itself, and code a
program reads from files (a script, a Makefile, package.json scripts, tests) is not the argv.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

MAX_WORDS = 4096
"""Longer argument lists through a runner are opaque rather than read word by word."""


@dataclass(frozen=True, kw_only=True)
class Run:
    """One program an argv may start, with the arguments it would get."""

    program: str
    """The program word as written (a bare name or a path)."""
    args: tuple[str, ...]
    open_tail: bool = False
    """More arguments may be added when it runs (``xargs`` appends what it reads)."""
    via: tuple[str, ...] = ()
    """The runners it is started through, outermost first."""
    certain: bool = True
    """Whether it surely runs: the argv's own program, or one a runner read exactly starts;
    ``False`` for a word that may be a program because the runner's options could not be
    read."""

    @property
    def name(self) -> str:
        """The program's name: argv[0]'s basename."""
        return os.path.basename(self.program.rstrip("/")) or self.program


@dataclass(frozen=True, kw_only=True)
class CommandView:
    """Every program an argv may start, and why it may start one its words do not name."""

    runs: tuple[Run, ...]
    """The argv's own program first."""
    opaque: str | None = None
    """Why the argv may run a program Foehn cannot name, in words; ``None`` if it cannot."""

    @property
    def exact(self) -> bool:
        """Whether every program the argv may start is known for sure (no guessed run)."""
        return all(run.certain for run in self.runs)


ALWAYS_OPAQUE = frozenset(
    """sh bash zsh dash ksh mksh ash fish csh tcsh rbash yash pwsh powershell cmd busybox
    toybox sudo doas su runuser pkexec sg ssh rsync eval exec parallel watch script chroot
    unshare nsenter systemd-run flatpak-spawn expect screen tmux at batch npx pnpx bunx uvx
    pipx gdb lldb make gmake awk gawk mawk nawk sqlite3 psql mysql mariadb vi vim nvim view
    ex ed emacs less more man""".split()  # noqa: SIM905
)
"""Programs whose argument list can carry a command as text (``sh -c``, ``awk 'BEGIN{system…}'``,
``sqlite3 db '.shell …'``, ``less '+!…'``, ``make --eval``) or run one as someone else or
elsewhere (``sudo``, ``ssh``, ``rsync -e``)."""

RUNNERS = frozenset(
    """env nice nohup timeout time stdbuf ionice setsid xargs taskset chrt numactl flock
    unbuffer faketime fakeroot catchsegv strace ltrace valgrind perf command builtin setpriv
    prlimit systemd-inhibit cgexec firejail bwrap proot dbus-run-session xvfb-run torsocks
    proxychains proxychains4 chpst nq""".split()  # noqa: SIM905
)
"""Programs that start the program a later word of their argv names."""

RUNNER_SUBCOMMANDS = {
    # program: subcommands that start the program a later word names
    "npm": {"exec", "x"},
    "pnpm": {"exec", "dlx"},
    "yarn": {"exec", "dlx"},
    "bun": {"x", "exec"},
    "uv": {"run", "tool"},
    "poetry": {"run"},
    "pipenv": {"run"},
    "pdm": {"run"},
    "hatch": {"run"},
    "rye": {"run"},
    "conda": {"run"},
    "mamba": {"run"},
    "bundle": {"exec"},
    "mise": {"exec", "x"},
    "asdf": {"exec"},
    "direnv": {"exec"},
    "docker": {"run", "exec"},
    "podman": {"run", "exec"},
    "kubectl": {"exec"},
    "deno": {"eval"},
}

INLINE_CODE = {
    # interpreter: (option letters, long options) that take code from the command line
    "node": ("ep", ("--eval", "--print")),
    "nodejs": ("ep", ("--eval", "--print")),
    "deno": ("ep", ("--eval", "--print")),
    "bun": ("ep", ("--eval", "--print")),
    "perl": ("eEMm", ()),
    "ruby": ("e", ()),
    "php": ("rBERF", ()),
    "lua": ("e", ()),
    "luajit": ("e", ()),
    "Rscript": ("e", ("--expr",)),
    "R": ("e", ()),
    "julia": ("eE", ("--eval", "--print")),
    "osascript": ("e", ()),
}


@dataclass(frozen=True, kw_only=True)
class Grammar:
    """How a runner reads its own options before the program it starts."""

    values: frozenset[str] = frozenset()
    """Options that take a value: the next word, attached (``-s9``) or after ``=``."""
    flags: frozenset[str] = frozenset()
    """Options that take none."""
    numbers: bool = False
    """``-N`` (a number) is an option too (``nice -5``)."""
    words_before: int = 0
    """Bare words the runner takes before the program (``timeout``'s duration)."""
    assignments: bool = False
    """``NAME=VALUE`` words may come before the program (``env``)."""


RUNNER_GRAMMAR: dict[str, Grammar] = {
    "timeout": Grammar(
        values=frozenset({"-s", "--signal", "-k", "--kill-after"}),
        flags=frozenset({"--preserve-status", "--foreground", "-v", "--verbose"}),
        words_before=1,
    ),
    "nice": Grammar(values=frozenset({"-n", "--adjustment"}), numbers=True),
    "nohup": Grammar(),
    "time": Grammar(
        values=frozenset({"-o", "--output", "-f", "--format"}),
        flags=frozenset(
            {"-a", "--append", "-p", "--portability", "-v", "--verbose", "-q", "--quiet"}
        ),
    ),
    "ionice": Grammar(
        values=frozenset({"-c", "--class", "-n", "--classdata"}),
        flags=frozenset({"-t", "--ignore"}),
    ),
    "stdbuf": Grammar(
        values=frozenset({"-i", "--input", "-o", "--output", "-e", "--error"}),
    ),
    "env": Grammar(
        values=frozenset({"-u", "--unset", "-C", "--chdir"}),
        flags=frozenset({"-i", "--ignore-environment", "-0", "--null", "-"}),
        assignments=True,
    ),
    "xargs": Grammar(
        values=frozenset(
            """-a --arg-file -d --delimiter -E -L --max-lines -n --max-args -P --max-procs -s
            --max-chars --process-slot-var""".split()  # noqa: SIM905
        ),
        flags=frozenset(
            """-0 --null -r --no-run-if-empty -t --verbose -p --interactive -x --exit -o
            --open-tty --show-limits""".split()  # noqa: SIM905
        ),
    ),
}
"""The runners whose options Foehn reads exactly: the program each starts is known when every
option word is one of these (an abbreviated or unknown option makes every later word a possible
program instead)."""

OPTIONS_THAT_RUN = {
    # program: (option letters, long options) that name a program for it to run
    "find": ("", ("-exec", "-execdir", "-ok", "-okdir")),
    "fd": ("xX", ("--exec", "--exec-batch")),
    "fdfind": ("xX", ("--exec", "--exec-batch")),
    "tar": (
        "IF",
        (
            "--to-command",
            "--use-compress-program",
            "--info-script",
            "--new-volume-script",
            "--rsh-command",
            "--rmt-command",
            "--checkpoint-action",
        ),
    ),
    "sort": ("", ("--compress-program",)),
    "rg": ("", ("--pre",)),
    "zip": ("", ("--unzip-command", "-TT")),
}
PYTHON = re.compile(r"^(python|pypy)(\d+(\.\d+)?)?$")
SED_SAFE_COMMAND = re.compile(
    r"(\d+|\$|/[^/]*/)?(,(\d+|\$|/[^/]*/))?!?\s*([pdqlnNgGhHxDP=]|s(?P<d>[^\w\s\\])"
    r"(?:(?!(?P=d)).)*(?P=d)(?:(?!(?P=d)).)*(?P=d)[gpiIm0-9]*|y(?P<y>[^\w\s\\])"
    r"(?:(?!(?P=y)).)*(?P=y)(?:(?!(?P=y)).)*(?P=y))"
)
"""A sed command that starts nothing: no ``e`` command, no ``s///e`` flag (both run a shell)."""


def view(argv: Sequence[str]) -> CommandView:
    """Every program ``argv`` may start (its own first) and, if it may start one its words do
    not name, why."""
    words = tuple(argv)
    runs: list[Run] = []
    reasons: list[str] = []
    _collect(words, 0, (), True, runs, reasons, set())
    return CommandView(runs=tuple(runs), opaque=reasons[0] if reasons else None)


def _collect(
    words: tuple[str, ...],
    start: int,
    via: tuple[str, ...],
    certain: bool,
    runs: list[Run],
    reasons: list[str],
    seen: set[int],
) -> None:
    if start in seen or start >= len(words):
        return
    seen.add(start)
    run = Run(
        program=words[start],
        args=words[start + 1 :],
        open_tail="xargs" in via,
        via=via,
        certain=certain,
    )
    runs.append(run)
    if (why := opaque_reason(run)) is not None:
        reasons.append(why)
        return
    exact, guessed = _later_programs(run)
    if (exact is not None or guessed) and len(words) - start > MAX_WORDS:
        reasons.append(f"`{run.name}` starts another program and its argv is too long to read")
        return
    if exact is not None:
        _collect(words, start + 1 + exact, (*via, run.name), certain, runs, reasons, seen)
    for offset in guessed:
        _collect(words, start + 1 + offset, (*via, run.name), False, runs, reasons, seen)


def _later_programs(run: Run) -> tuple[int | None, list[int]]:
    """Where in ``run.args`` the program ``run`` starts is: the index read exactly (or
    ``None``), and the indexes of every word that may be one when it cannot be read exactly."""
    bare = [i for i, word in enumerate(run.args) if word and not word.startswith("-")]
    if "/" in run.program:
        return None, bare  # a program of the workspace's own may start any of its words
    if run.name in RUNNER_GRAMMAR:
        found = command_index(run.args, RUNNER_GRAMMAR[run.name])
        return (found, []) if found is not False else (None, bare)
    if run.name in RUNNERS:
        return None, bare
    if PYTHON.match(run.name):
        # ``python -m MODULE`` runs the module; a script (the first bare word) is code from a
        # file, like any program's.
        modules = [i + 1 for i, word in enumerate(run.args[:-1]) if word == "-m"]
        return (modules[0], modules[1:]) if modules else (None, [])
    subcommands = RUNNER_SUBCOMMANDS.get(run.name)
    if subcommands and bare and run.args[bare[0]] in subcommands:
        after = bare[0] + 1
        if after < len(run.args) and bare[1:2] == [after]:
            return after, []  # the word right after the subcommand is the program
        return None, bare[1:]
    return None, []


def command_index(args: Sequence[str], grammar: Grammar) -> int | Literal[False] | None:
    """The index in ``args`` of the program a runner with ``grammar`` starts, read exactly:
    ``None`` when it starts none (its options alone), ``False`` when a word is not one the
    grammar knows (so the program cannot be told)."""
    index, before = 0, grammar.words_before
    while index < len(args):
        word = args[index]
        name = word.split("=", 1)[0]
        if word == "--":
            index += 1
            break
        if not word.startswith("-") or (word == "-" and "-" not in grammar.flags):
            break
        if word in grammar.flags:
            index += 1
        elif word in grammar.values:
            index += 2
        elif word.startswith("--") and name in grammar.values:
            index += 1  # --option=value
        elif not word.startswith("--") and word[:2] in grammar.values:
            index += 1  # -s9: the value attached
        elif grammar.numbers and word[1:].isdigit():
            index += 1
        else:
            return False
    while grammar.assignments and index < len(args) and _assignment(args[index]):
        index += 1
    index += before
    return index if index < len(args) else None


def _assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and bool(name) and not name.startswith("-")


def opaque_reason(run: Run) -> str | None:
    """Why ``run`` may start a program its words do not name, or ``None``."""
    name, args = run.name, run.args
    if args in (("--version",), ("--help",)):
        return None  # it prints and starts nothing
    if name in ALWAYS_OPAQUE:
        return f"`{name}` can run commands given as text, which Foehn does not read"
    if PYTHON.match(name):
        return _python(name, args)
    if name in INLINE_CODE and (option := find_option(args, *INLINE_CODE[name])):
        return f"`{name} {option}` runs code given on the command line"
    if name in ("node", "nodejs", "deno", "bun") and any("data:" in a for a in args):
        return f"`{name}` is given a module as text (a data: URL)"
    if name in OPTIONS_THAT_RUN and (option := find_option(args, *OPTIONS_THAT_RUN[name])):
        return f"`{name} {option}` runs a program named in its arguments"
    if name == "sed":
        return _sed(args)
    if name == "env":
        return _env(args)
    if name == "xargs":
        return _xargs(args)
    if name == "git":
        return git_view(args).opaque
    if name == "deno" and args[:1] == ("eval",):
        return "`deno eval` runs code given on the command line"
    return None


def find_option(args: Sequence[str], letters: str, longs: Sequence[str]) -> str | None:
    """The first word of ``args`` that may be one of these options, in any spelling a program
    might accept: a short option alone or inside a cluster (``-ne`` holds ``-e``), a long one
    exact, with ``=value``, or abbreviated to a prefix of at least two letters. Words after the
    script or ``--`` count too: some programs read options anywhere, and a rule is better
    matched once too often than once too few."""
    for word in args:
        if word.startswith("--") and len(word) > 2:
            option = word.split("=", 1)[0]
            if any(len(option) >= 4 and long.startswith(option) for long in longs):
                return option
        elif word.startswith("-") and len(word) > 1:
            if word in longs:  # single-dash long options (find -exec, zip -TT)
                return word
            if any(letter in letters for letter in word[1:]):
                return word
    return None


def _python(name: str, args: Sequence[str]) -> str | None:
    """``python -c`` (alone or in a cluster such as ``-Ic``), read the way python does: ``-W``
    and ``-X`` take a value, ``-m`` ends python's options."""
    index = 0
    while index < len(args):
        word = args[index]
        if word == "--" or not word.startswith("-") or word == "-":
            return None
        if word.startswith("--"):
            index += 2 if word == "--check-hash-based-pycs" else 1
            continue
        for position, letter in enumerate(word[1:], start=1):
            if letter == "c":
                return f"`{name} -c` runs code given on the command line"
            if letter == "m":
                return None
            if letter in "WX":
                if position == len(word) - 1:
                    index += 1  # the value is the next word
                break
        index += 1
    return None


def _env(args: Sequence[str]) -> str | None:
    """GNU env's options read as env reads them: ``-u``/``-C`` take a value, ``-S`` splits a
    string into a command (which Foehn does not read); assignments end at the command."""
    index = 0
    while index < len(args):
        word = args[index]
        if word == "--" or word == "-" or not word.startswith("-"):
            return None
        if word.startswith("--"):
            name, equals, _ = word.partition("=")
            if len(name) >= 3 and "--split-string".startswith(name):
                return "`env --split-string` splits a string into a command"
            takes = any(len(name) >= 3 and long.startswith(name) for long in ("--unset", "--chdir"))
            index += 2 if takes and not equals else 1
            continue
        for position, letter in enumerate(word[1:], start=1):
            if letter == "S":
                return "`env -S` splits a string into a command"
            if letter in "uC":
                if position == len(word) - 1:
                    index += 1
                break
        index += 1
    return None


XARGS_VALUES = "adEILnPs"
"""xargs's short options that take a value (attached, or the next word)."""


def _xargs(args: Sequence[str]) -> str | None:
    """``xargs -I``/``-i``/``--replace`` builds the command from what it reads."""
    index = 0
    while index < len(args):
        word = args[index]
        if word == "--" or not word.startswith("-") or word == "-":
            return None
        if word.startswith("--"):
            name, equals, _ = word.partition("=")
            if len(name) >= 4 and "--replace".startswith(name):
                return "`xargs --replace` builds the command from what it reads"
            longs = ("--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars",
                     "--process-slot-var")  # fmt: skip
            takes = any(len(name) >= 4 and long.startswith(name) for long in longs)
            index += 2 if takes and not equals else 1
            continue
        for position, letter in enumerate(word[1:], start=1):
            if letter in "Ii":
                return "`xargs -I` builds the command from what it reads"
            if letter in XARGS_VALUES:
                if position == len(word) - 1:
                    index += 1
                break
            if letter in "el":
                break  # an optional value, attached
        index += 1
    return None


@dataclass(frozen=True, kw_only=True)
class SedArgs:
    """sed's arguments as sed reads them."""

    commands: tuple[str, ...]
    """The script's commands (split at ``;`` and new lines), stripped."""
    options: tuple[str, ...]
    """Every option word but the script's own (``-e``, ``--expression``)."""
    from_file: bool
    """A script comes from a file (``-f``, ``--file``), which the argv does not show."""


def sed_args(args: Sequence[str]) -> SedArgs:
    """The script given on the command line (each ``-e``, else the first bare word), the other
    options, and whether a script comes from a file."""
    scripts: list[str] = []
    options: list[str] = []
    bare: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word in ("-e", "--expression") and index + 1 < len(args):
            scripts.append(args[index + 1])
            index += 2
            continue
        if word.startswith("--expression="):
            scripts.append(word.split("=", 1)[1])
        elif word.startswith("-e") and len(word) > 2:
            scripts.append(word[2:])
        elif word.startswith("-"):
            options.append(word)
        else:
            bare.append(word)
        index += 1
    if not scripts and bare:
        scripts.append(bare[0])
    commands = [c.strip() for script in scripts for c in re.split(r"[;\n]", script)]
    return SedArgs(
        commands=tuple(c for c in commands if c),
        options=tuple(options),
        from_file=any(o.startswith(("-f", "--file")) for o in options),
    )


def _sed(args: Sequence[str]) -> str | None:
    """sed's ``e`` command and ``s///e`` flag run a shell; a script from a file (``-f``) cannot
    be read from the argv."""
    read = sed_args(args)
    if read.from_file:
        return "`sed -f` runs a script from a file, which may start programs"
    if all(SED_SAFE_COMMAND.fullmatch(c) for c in read.commands if c not in "{}"):
        return None
    return "`sed` is given a script that may run a shell (`e`), which Foehn does not read"


GIT_COMMANDS = frozenset(
    """add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr
    check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick
    clean clone column commit commit-graph commit-tree config count-objects credential
    credential-cache credential-store daemon describe diagnose diff diff-files diff-index
    diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg
    for-each-ref for-each-repo format-patch fsck fsck-objects gc get-tar-commit-id grep
    hash-object help hook http-backend http-fetch http-push imap-send index-pack init
    init-db instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit
    maintenance merge merge-base merge-file merge-index merge-octopus merge-one-file
    merge-ours merge-recursive merge-recursive-ours merge-recursive-theirs merge-resolve
    merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes
    pack-objects pack-redundant pack-refs patch-id pickaxe prune prune-packed pull push
    quiltimport range-diff read-tree rebase receive-pack reflog remote remote-ext remote-fd
    remote-ftp remote-ftps remote-http remote-https repack replace request-pull rerere reset
    restore rev-list rev-parse revert rm send-pack shell shortlog show show-branch
    show-index show-ref sparse-checkout stage stash status stripspace submodule subtree
    switch symbolic-ref tag unpack-file unpack-objects update-index update-ref
    update-server-info upload-archive upload-pack var verify-commit verify-pack verify-tag
    version whatchanged worktree write-tree""".split()  # noqa: SIM905
)
"""git's own commands (``git --list-cmds=main,nohelpers``). git runs one of these before it
looks for an alias, so only another word can be an alias or an external ``git-NAME``."""

GIT_NEXT_VALUE = frozenset({"-C", "-c"})
"""Global options whose value is always the next word."""
GIT_EITHER_VALUE = frozenset(
    {"--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--attr-source"}
)
"""Global options whose value follows ``=`` or is the next word."""
GIT_FLAGS = frozenset(
    """-p --paginate -P --no-pager --no-replace-objects --bare --literal-pathspecs
    --no-literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs
    --no-optional-locks --no-lazy-fetch --no-advice""".split()  # noqa: SIM905
)
GIT_PRINTS = frozenset({"--exec-path", "--html-path", "--man-path", "--info-path"})
"""Alone, these print a path and run nothing."""
GIT_AS_COMMAND = {"--help": "help", "-h": "help", "--version": "version", "-v": "version"}
"""git reads these as the commands ``help`` and ``version``."""

GIT_SAFE_CONFIG = re.compile(
    r"^(color\..*|user\..*|author\..*|committer\..*|advice\..*|i18n\..*|log\..*|status\..*"
    r"|column\..*|core\.(quotepath|autocrlf|safecrlf|filemode|ignorecase|abbrev)"
    r"|init\.defaultbranch|commit\.gpgsign|tag\.gpgsign|merge\.conflictstyle"
    r"|diff\.(renames|algorithm|context|noprefix|mnemonicprefix|relative|indentheuristic)"
    r"|pull\.(rebase|ff)|push\.(default|autosetupremote)|safe\.directory)$",
    re.IGNORECASE,
)
"""Config keys a call may set with ``-c`` without giving git a program to run; any other key
(``alias.*``, ``core.pager``, ``core.sshCommand``, ``core.hooksPath``, filters…) may."""

GIT_RUNS_FROM_ARGS: dict[str, tuple[str, tuple[str, ...]] | None] = {
    # subcommand: None if it can always run a command of the call's choosing, else the
    # (option letters, long options) with which it does
    "submodule": None,
    "bisect": None,
    "filter-branch": None,
    "config": None,
    "worktree": None,
    "daemon": None,
    "instaweb": None,
    "hook": None,
    "shell": None,
    "credential": None,
    "rebase": ("x", ("--exec",)),
    "difftool": ("xt", ("--extcmd", "--tool")),
    "mergetool": ("t", ("--tool",)),
    "fetch": ("", ("--upload-pack",)),
    "pull": ("", ("--upload-pack",)),
    "clone": ("u", ("--upload-pack", "--template")),
    "ls-remote": ("", ("--upload-pack",)),
    "push": ("", ("--receive-pack", "--exec")),
    "archive": ("", ("--exec", "--remote")),
    "send-pack": ("", ("--receive-pack", "--exec")),
    "fetch-pack": ("", ("--upload-pack", "--exec")),
    "grep": ("O", ("--open-files-in-pager",)),
}


@dataclass(frozen=True, kw_only=True)
class GitView:
    """``git``'s arguments split as git reads them."""

    global_options: tuple[str, ...]
    """The words before the subcommand."""
    subcommand: str | None
    """``None`` when git runs no command (``git --exec-path``, or nothing after the options)."""
    rest: tuple[str, ...]
    """The words after the subcommand."""
    opaque: str | None = None
    """Why git may run a program of the call's choosing, or ``None``."""


def git_view(args: Sequence[str]) -> GitView:
    """Split git's arguments the way git's own option loop does: global options exactly (git
    accepts no abbreviation there), in any order, before the subcommand."""
    args = tuple(args)
    index, opaque = 0, None
    while index < len(args) and args[index].startswith("-"):
        word = args[index]
        name, equals, value = word.partition("=")
        if word in GIT_AS_COMMAND:
            return GitView(
                global_options=args[:index],
                subcommand=GIT_AS_COMMAND[word],
                rest=args[index + 1 :],
                opaque=opaque,
            )
        if word in GIT_NEXT_VALUE or (name in GIT_EITHER_VALUE and not equals):
            value = args[index + 1] if index + 1 < len(args) else ""
            index += 2
        elif (name in GIT_EITHER_VALUE or name in ("--exec-path", "--list-cmds")) and equals:
            index += 1
        elif word in GIT_PRINTS:
            return GitView(global_options=args, subcommand=None, rest=(), opaque=opaque)
        elif word in GIT_FLAGS:
            index += 1
            continue
        else:
            # git refuses an option it does not know, but a newer git may know it (and take a
            # value): read on, and count the call as one that may run anything.
            opaque = opaque or f"git's global option {name!r} is not one Foehn knows"
            index += 1
            continue
        opaque = opaque or _git_option_runs(name, value)
    if index >= len(args):
        return GitView(global_options=args, subcommand=None, rest=(), opaque=opaque)
    subcommand, rest = args[index], args[index + 1 :]
    if subcommand not in GIT_COMMANDS:
        opaque = opaque or (
            f"`git {subcommand}` is not one of git's own commands: it may be an alias or "
            "another program"
        )
    elif subcommand in GIT_RUNS_FROM_ARGS:
        options = GIT_RUNS_FROM_ARGS[subcommand]
        if options is None or find_option(rest, *options):
            opaque = opaque or f"`git {subcommand}` can run a command of the call's choosing"
    return GitView(global_options=args[:index], subcommand=subcommand, rest=rest, opaque=opaque)


def _git_option_runs(name: str, value: str) -> str | None:
    if name == "--exec-path":
        return "`git --exec-path=` runs git's commands from a folder of the call's choosing"
    if name == "--config-env":
        return "`git --config-env` sets configuration the call chose"
    if name == "-c" and not GIT_SAFE_CONFIG.match(value.split("=", 1)[0]):
        return f"`git -c {value.split('=', 1)[0]}=…` may make git run another program"
    return None
