"""Which git commands only read: the one table the ``git`` tool allows and the risk table
(``command_risk``) calls read-only, so the two can never drift apart.

Each read-only subcommand lists the options it may have and stay read-only and local (exact,
or a prefix ending in ``=`` for ``--opt=value``); anything else is not read-only. Short options
are checked letter by letter (``-vD`` is ``-v -D``). Some subcommands read only without names:
``branch`` and ``tag`` with a name create one unless they list, ``reflog`` expires or deletes
with a word other than ``show``.

Also here: the configuration keys that make git read a file the repository names
(``blame.ignoreRevsFile``, ``core.excludesFile``…), which must not lead outside the workspace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_LOG = frozenset(
    {
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
    }
)
READ_ONLY: dict[str, frozenset[str]] = {
    "status": frozenset(
        {
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
        }
    ),
    "diff": frozenset(
        {
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
        }
    ),
    "log": _LOG,
    "whatchanged": _LOG,
    "show": frozenset(
        {
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
        }
    ),
    "blame": frozenset(
        {"-L", "-w", "-M", "-C", "-e", "-s", "--porcelain", "--line-porcelain", "--date="}
    ),
    "branch": frozenset(
        {
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
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
            "--sort=",
            "--format=",
            "--color=never",
            "--no-color",
            "--no-column",
            "-i",
            "--ignore-case",
        }
    ),
    "tag": frozenset(
        {"-l", "--list", "-n", "--sort=", "--contains", "--merged", "--no-merged", "--format="}
    ),
    "rev-parse": frozenset(
        {
            "--abbrev-ref",
            "--short",
            "--short=",
            "--show-toplevel",
            "--git-dir",
            "--is-inside-work-tree",
            "--verify",
            "--symbolic-full-name",
            "HEAD",
        }
    ),
    "ls-files": frozenset(
        {
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
        }
    ),
    "ls-tree": frozenset({"-r", "-t", "-d", "-l", "--long", "--name-only", "-z", "--full-tree"}),
    "grep": frozenset(
        {
            "-n",
            "--line-number",
            "-i",
            "--ignore-case",
            "-w",
            "--word-regexp",
            "-v",
            "--invert-match",
            "-l",
            "--files-with-matches",
            "-c",
            "--count",
            "-h",
            "-H",
            "-E",
            "--extended-regexp",
            "-F",
            "--fixed-strings",
            "-I",
            "--cached",
            "--untracked",
            "-C",
            "--color=never",
            "--max-depth=",
        }
    ),
    "describe": frozenset({"--tags", "--all", "--always", "--long", "--abbrev=", "--match="}),
    "shortlog": frozenset({"-s", "--summary", "-n", "--numbered", "-e", "--email", "--all"}),
    "rev-list": frozenset({"--count", "--all", "--max-count=", "-n", "--reverse", "--no-merges"}),
    "cat-file": frozenset({"-t", "-s", "-p", "-e"}),
    "reflog": frozenset({"-n", "--max-count=", "--date=", "--oneline", "--format="}),
    "version": frozenset(),
}
"""Subcommand: the options that keep it read-only."""
VALUE_LETTERS = frozenset("nUSGLMC")
"""Short options whose value may follow attached (``-n5``): the rest of a bundle is a value
(``-M`` and ``-C`` take a number or a percentage only)."""
LISTING = frozenset({"--list", "-l", "--contains", "--merged", "--no-merged", "-a", "--all", "-r"})
"""Options with which ``branch`` and ``tag`` list the names they are given."""

FILE_KEYS = re.compile(
    r"^(blame\.ignorerevsfile|core\.excludesfile|core\.attributesfile|mailmap\.file"
    r"|commit\.template|include\.path|includeif\..*\.path)$",
    re.IGNORECASE,
)
"""Configuration keys whose value is a file git reads."""


def option_problem(argument: str, command: str) -> str | None:
    """Why ``argument`` (an option) keeps ``git command`` from being read-only, or ``None``."""
    allowed = READ_ONLY.get(command, frozenset())
    refused = f"option {argument!r} is not allowed for git {command}"
    if argument.startswith("--"):
        base = argument.split("=", 1)[0] + "=" if "=" in argument else argument
        return None if argument in allowed or base in allowed else refused
    if argument in allowed or (command in ("log", "whatchanged") and argument[1:].isdigit()):
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


def read_problem(command: str, rest: Sequence[str]) -> str | None:
    """Why ``git command rest…`` is not read-only (an option, a name that creates), or
    ``None``. Paths are not checked here (each caller confines them its own way)."""
    if command not in READ_ONLY:
        return f"git {command!r} is not a read-only command"
    positional = []
    after_separator = False
    for argument in rest:
        if argument == "--" and not after_separator:
            after_separator = True
        elif argument.startswith("-") and not after_separator:
            if problem := option_problem(argument, command):
                return problem
        else:
            positional.append(argument)
    if command in ("branch", "tag") and positional and not LISTING & set(rest):
        names = "branches" if command == "branch" else "tags"
        return (
            f"git {command} with a name would create one; the git tool only lists {names} "
            "(add --list to match names against a pattern)"
        )
    if command == "reflog" and positional[:1] not in ([], ["show"]):
        return f"git reflog {positional[0]} changes the reflog; read-only, only show lists it"
    return None
