"""Whether a rule covers a call: on the argv and the paths, never on shell text.

Deny and ask rules match every call that *may* do what their shape says, in any spelling the
program accepts: argv[0] as a path (``/usr/bin/git``, ``./git``, a link or copy of it), through
runners (``env git push``, ``timeout 5 git push``, ``xargs git push``), git's global options
(``git -C dir -c x=y push``), options anywhere and in any order, abbreviated (``--forc``), with
``=value`` or the value apart, in clusters (``-fu``), or under another spelling Foehn knows
(``-f`` is ``--force``); an opaque argv (``sh -c``, see ``policy.rules.argv``) may do anything,
so it matches every deny and ask rule that names a program. Paths match as written and as resolved
(through links), and a folder matches when something under it would.

Allow rules match exactly what they say: argv[0] is the bare program name (resolved on the
``PATH``, never a file of the workspace's), no runner in between, the program runs in the
workspace root, and the words after it are the shape's words in order, ``?`` one word and
``*`` the rest. A file rule allows a call only when
every path it names matches.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from foehn_lsp.config.network import Domain
from foehn_lsp.errors import PathRefusedError
from foehn_lsp.policy.rules.argv import Run, git_view, view
from foehn_lsp.policy.rules.ruleset import Rule, tool_matches
from foehn_lsp.risk import RiskLevel
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.workspace import Workspace

PATH_KEYS = ("path", "source", "destination")
"""Arguments that name one path; ``paths`` names several."""


@dataclass(frozen=True, kw_only=True)
class Call:
    """What a rule looks at in one call (after validation and risk assessment)."""

    tool: str
    arguments: Mapping[str, Any]
    risk: RiskLevel
    argv: tuple[str, ...] | None = None
    """For calls that start a program: the argument list, argv[0] as written."""
    sandbox: SandboxPolicy | None = None
    """For calls that start a program: the policy the assessment chose."""
    cwd: str = "."
    """For calls that start a program: where, relative to the workspace root."""
    outside: str | None = None
    """For a call whose arguments may leave this computer: where they go (``CallScope``)."""
    network: tuple[Domain, ...] = ()
    """The domains the call may reach (``CallScope``)."""
    granted: str | None = None
    """For a call that starts no program: where the person granted all of ``network``."""
    changes: tuple[str, ...] = ()
    """The files and folders the call's plan changes, workspace-relative (a ``rename``'s or an
    editor rename's, which its arguments do not name)."""
    workspace: Workspace


@dataclass(frozen=True, kw_only=True)
class Match:
    """How a deny or ask rule matched: ``why`` is set when only because the argv may run any
    program."""

    rule: Rule
    why: str | None = None


def matches(rule: Rule, call: Call) -> Match | None:
    """Whether a deny or ask ``rule`` covers ``call``: any call that may do what it says."""
    if not tool_matches(rule.tool, call.tool):
        return None
    if rule.program is not None:
        if call.argv is None:
            return None
        return _program_may_match(rule, call)
    if rule.paths is not None:
        candidates = [*_named_paths(call)]
        if call.argv is not None:
            candidates += _argv_paths(call)
        return (
            Match(rule=rule) if any(_may_touch(p, rule.paths, call) for p in candidates) else None
        )
    return Match(rule=rule)


def covers(rule: Rule, call: Call) -> bool:
    """Whether an allow ``rule`` covers ``call`` exactly as its shape says."""
    if not tool_matches(rule.tool, call.tool):
        return False
    if rule.program is not None:
        argv = call.argv
        if not argv or argv[0] != rule.program or "/" in argv[0]:
            return False
        if posixpath.normpath(call.cwd) != ".":
            return False  # the shape's words are read from the workspace root
        return rule.args is None or _literal(rule.args, argv[1:])
    if rule.paths is not None:
        if call.argv is not None:
            return False
        named = list(_named_paths(call))
        return bool(named) and all(_inside(p, rule.paths, call.workspace) for p in named)
    return True


def _literal(shape: Sequence[str], words: Sequence[str]) -> bool:
    for index, pattern in enumerate(shape):
        if pattern == "*":
            return True
        if index >= len(words) or (pattern != "?" and pattern != words[index]):
            return False
    return len(words) == len(shape)


def _program_may_match(rule: Rule, call: Call) -> Match | None:
    assert call.argv is not None
    assert rule.program is not None
    seen = view(call.argv)
    if seen.opaque is not None:
        return Match(rule=rule, why=seen.opaque)
    for run in seen.runs:
        if not runs_program(run, rule.program, call):
            continue
        if rule.args is None or any(
            _shape_may_match(rule.args, words, run.open_tail, rule.program, sub)
            for words, sub in _forms(run, rule.program)
        ):
            return Match(rule=rule)
    return None


def runs_program(run: Run, program: str, call: Call) -> bool:
    """Whether ``run`` may start ``program``: by name, by the name of the file its argv[0]
    resolves to (through links), or because that file is the very program (a hard link or a
    copy)."""
    if run.name == program:
        return True
    path = _resolved(run.program, call)
    if path is None:
        return False
    if path.name == program:
        return True
    real = _on_path(program, call.workspace)
    return real is not None and _same_file(path, real)


def _resolved(word: str, call: Call) -> Path | None:
    if "/" in word:
        base = call.workspace.root / call.cwd
        candidate = Path(os.path.realpath(base / word))
    else:
        found = _on_path(word, call.workspace)
        if found is None:
            return None
        candidate = found
    return candidate if candidate.is_file() else None


def _on_path(program: str, workspace: Workspace) -> Path | None:
    """``program`` as the sandbox's ``PATH`` finds it (the workspace's virtual environment
    first), as a real path."""
    from foehn_lsp.sandbox import system_sandbox

    search = system_sandbox().environment(workspace).get("PATH", os.defpath)
    found = shutil.which(program, path=search)
    return Path(os.path.realpath(found)) if found else None


MAX_COMPARED = 256 * 1024 * 1024


def _same_file(a: Path, b: Path) -> bool:
    try:
        first, second = a.stat(), b.stat()
    except OSError:
        return False
    if (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino):
        return True
    if first.st_size != second.st_size or first.st_size > MAX_COMPARED:
        return False
    return _digest(a, first.st_mtime_ns) == _digest(b, second.st_mtime_ns)


@cache
def _digest(path: Path, mtime: int) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _forms(run: Run, program: str) -> Iterator[tuple[tuple[str, ...], str | None]]:
    """The argument lists a shape is tried against, with the subcommand they start with: the
    words as given and, for git, the subcommand and its words without the global options (plus
    what a refspec implies: ``+main`` forces, ``:main`` deletes)."""
    yield run.args, None
    if program != "git":
        return
    git = git_view(run.args)
    if git.subcommand is None:
        return
    rest = git.rest
    if git.subcommand == "push":
        refspecs = [w for w in rest if not w.startswith("-")]
        implied = []
        if any(w.startswith("+") for w in refspecs):
            implied.append("--force")
        if any(w.startswith(":") for w in refspecs):
            implied.append("--delete")
        rest = (*rest, *implied)
    yield (git.subcommand, *rest), git.subcommand


SPELLINGS: dict[tuple[str, str | None], tuple[frozenset[str], ...]] = {
    # the spellings of one option that a program accepts; a rule naming one names them all
    ("git", "push"): (
        frozenset({"-f", "--force"}),
        frozenset({"-d", "--delete"}),
        frozenset({"-n", "--dry-run"}),
        frozenset({"-u", "--set-upstream"}),
        frozenset({"-q", "--quiet"}),
        frozenset({"-v", "--verbose"}),
        frozenset({"--no-verify"}),
        frozenset({"--mirror"}),
        frozenset({"--all", "--branches"}),
        frozenset({"--tags"}),
    ),
    ("git", "clean"): (
        frozenset({"-f", "--force"}),
        frozenset({"-n", "--dry-run"}),
        frozenset({"-i", "--interactive"}),
        frozenset({"-q", "--quiet"}),
        frozenset({"-d"}),
        frozenset({"-x"}),
        frozenset({"-X"}),
    ),
    ("git", "branch"): (
        frozenset({"-d", "--delete", "-D"}),
        frozenset({"-f", "--force", "-D", "-M", "-C"}),
        frozenset({"-m", "--move", "-M"}),
        frozenset({"-c", "--copy", "-C"}),
    ),
    ("git", "tag"): (frozenset({"-d", "--delete"}), frozenset({"-f", "--force"})),
    ("git", "checkout"): (frozenset({"-f", "--force"}), frozenset({"-b", "-B"})),
    ("git", "switch"): (
        frozenset({"-f", "--force", "--discard-changes"}),
        frozenset({"-c", "--create", "-C", "--force-create"}),
    ),
    ("git", "commit"): (
        frozenset({"-a", "--all"}),
        frozenset({"-n", "--no-verify"}),
        frozenset({"-m", "--message"}),
    ),
    ("git", "reset"): (frozenset({"--hard"}),),
    ("git", "rebase"): (frozenset({"-i", "--interactive"}),),
    ("git", "stash"): (),
    ("rm", None): (
        frozenset({"-r", "-R", "--recursive"}),
        frozenset({"-f", "--force"}),
        frozenset({"-d", "--dir"}),
        frozenset({"-v", "--verbose"}),
        frozenset({"-i", "-I", "--interactive"}),
    ),
    ("cp", None): (frozenset({"-r", "-R", "--recursive"}), frozenset({"-f", "--force"})),
    ("mv", None): (frozenset({"-f", "--force"}),),
    ("chmod", None): (frozenset({"-R", "--recursive"}),),
    ("chown", None): (frozenset({"-R", "--recursive"}),),
    ("npm", None): (frozenset({"-g", "--global"}), frozenset({"-f", "--force"})),
    ("pip", None): (frozenset({"-U", "--upgrade"}), frozenset({"-e", "--editable"})),
}


def known_spellings(program: str, subcommand: str | None) -> bool:
    """Whether Foehn knows the other spellings of the options of ``program`` (``subcommand``)."""
    return (program, subcommand) in SPELLINGS or (program, None) in SPELLINGS


def _spellings(option: str, program: str, subcommand: str | None) -> frozenset[str]:
    for key in ((program, subcommand), (program, None)):
        for group in SPELLINGS.get(key, ()):
            if option in group:
                return group
    return frozenset({option})


def _shape_may_match(
    shape: Sequence[str],
    words: Sequence[str],
    open_tail: bool,
    program: str,
    subcommand: str | None,
) -> bool:
    options = [p for p in shape if p.startswith("-") and len(p) > 1]
    positional = [p for p in shape if not (p.startswith("-") and len(p) > 1)]
    if subcommand is None and positional and positional[0] in _subcommands_of(program):
        subcommand = positional[0]
    for option in options:
        if not _option_may_be_there(option, words, program, subcommand, open_tail):
            return False
    return _positionals_may_match(tuple(positional), tuple(words), open_tail)


def _subcommands_of(program: str) -> frozenset[str]:
    return frozenset(sub for (name, sub) in SPELLINGS if name == program and sub)


def _option_may_be_there(
    option: str, words: Sequence[str], program: str, subcommand: str | None, open_tail: bool
) -> bool:
    """Whether every option ``option`` names may be among ``words``. Each spelling counts: a
    long option abbreviated, or as a prefix of a longer one (``--force-with-lease`` forces
    too), with ``=value`` or the value in the next word; a short one alone or in a cluster."""
    if open_tail:
        return True  # what xargs appends may hold it
    name, equals, value = option.partition("=")
    if name.startswith("--") or len(name) == 2:
        wanted = [(name, value if equals else None)]
    else:
        wanted = [(f"-{letter}", None) for letter in name[1:]]  # a cluster: each letter
    for each, required in wanted:
        spellings = _spellings(each, program, subcommand)
        if not any(_present(spelling, required, words) for spelling in spellings):
            return False
    return True


def _present(spelling: str, value: str | None, words: Sequence[str]) -> bool:
    for index, word in enumerate(words):
        following = words[index + 1] if index + 1 < len(words) else None
        if spelling.startswith("--"):
            if not word.startswith("--"):
                continue
            name, equals, attached = word.partition("=")
            long_enough = len(name) >= 3
            if not (
                name == spelling
                or (long_enough and spelling.startswith(name))
                or name.startswith(spelling + "-")
            ):
                continue
            if value is None or (attached if equals else following) == value:
                return True
        else:
            if not word.startswith("-") or word.startswith("--") or len(word) < 2:
                continue
            letters = word[1:]
            position = letters.find(spelling[1])
            if position < 0:
                continue
            attached = letters[position + 1 :]
            if value is None or (attached or following) == value:
                return True
    return False


def _positionals_may_match(shape: tuple[str, ...], words: tuple[str, ...], open_tail: bool) -> bool:
    """Whether the bare words of ``words`` may be ``shape``'s, reading each word every way a
    program might: an option, the value of the option before it, or an argument."""

    @cache
    def fits(i: int, j: int, after_option: bool) -> bool:
        if j < len(shape) and shape[j] == "*":
            return True
        if i == len(words):
            return j == len(shape) or open_tail
        word = words[i]
        if word == "--":
            return fits(i + 1, j, False) or (j < len(shape) and _fits(shape[j], word)
                                             and fits(i + 1, j + 1, False))  # fmt: skip
        if word.startswith("-") and len(word) > 1:
            if fits(i + 1, j, "=" not in word):
                return True
        elif after_option and fits(i + 1, j, False):
            return True  # the value of the option before it
        return j < len(shape) and _fits(shape[j], word) and fits(i + 1, j + 1, False)

    return fits(0, 0, False)


def _fits(pattern: str, word: str) -> bool:
    return pattern == "?" or pattern == word


def _named_paths(call: Call) -> Iterator[str]:
    for key in PATH_KEYS:
        if isinstance(value := call.arguments.get(key), str):
            yield value
    if isinstance(listed := call.arguments.get("paths"), list):
        yield from (p for p in listed if isinstance(p, str))
    yield from call.changes


def _argv_paths(call: Call) -> list[str]:
    """The words of a program's argv that may name paths, relative to the workspace root."""
    assert call.argv is not None
    found = []
    for word in call.argv[1:]:
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if value and not value.startswith("-"):
            found.append(posixpath.join(call.cwd, value) if not value.startswith("/") else value)
    return found


def _forms_of_path(path: str, workspace: Workspace) -> list[str]:
    """A path as written (normalised) and as it resolves (through links), relative to the
    workspace root; a path outside the workspace has no form (the resolver refuses it)."""
    forms = []
    written = posixpath.normpath(path)
    if written.startswith("/"):
        root = str(workspace.root)
        written = posixpath.relpath(written, root) if written.startswith(root) else ""
    if written and not written.startswith(".."):
        forms.append(written)
    try:
        resolved = workspace.resolve(path)
    except (PathRefusedError, OSError, ValueError):
        return forms
    shown = workspace.display(resolved)
    if shown not in forms:
        forms.append(shown)
    return forms


def _inside(path: str, globs: Sequence[str], workspace: Workspace) -> bool:
    forms = _forms_of_path(path, workspace)
    return bool(forms) and all(any(glob_match(g, f) for g in globs) for f in forms)


def _may_touch(path: str, globs: Sequence[str], call: Call) -> bool:
    for form in _forms_of_path(path, call.workspace):
        if any(glob_match(g, form) for g in globs):
            return True
        folder = call.workspace.root / form
        if folder.is_dir() and any(_may_hold(form, g, call.workspace.root) for g in globs):
            return True
    return False


def _may_hold(folder: str, glob: str, root: Path) -> bool:
    """Whether something below ``folder`` may match ``glob``: the glob's fixed folders lead
    through ``folder``, and those below it exist (a folder that is not there holds nothing
    yet; a program that creates it is a write the rule's own tool list decides)."""
    parts = [] if folder in (".", "") else folder.split("/")
    fixed: list[str] = []
    for segment in glob.split("/"):
        if any(c in segment for c in "*?["):
            break
        fixed.append(segment)
    else:
        fixed = fixed[:-1]  # a glob without wildcards names one path; its folders hold it
    common = min(len(parts), len(fixed))
    if parts[:common] != fixed[:common]:
        return False
    return root.joinpath(*fixed).is_dir() if len(fixed) > len(parts) else True


@cache
def _glob_regex(glob: str) -> re.Pattern[str]:
    out, index = "", 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out += "(?:.*/)?"
            index += 3
            continue
        if glob.startswith("**", index):
            out += ".*"
            index += 2
            continue
        if char == "*":
            out += "[^/]*"
        elif char == "?":
            out += "[^/]"
        elif char == "[" and (end := glob.find("]", index + 1)) > index + 1:
            out += "[" + glob[index + 1 : end].replace("\\", "\\\\").replace("!", "^", 1) + "]"
            index = end
        else:
            out += re.escape(char)
        index += 1
    return re.compile(out)


def glob_match(glob: str, path: str) -> bool:
    """``glob`` (``*`` within a folder, ``**`` across folders, ``?``, ``[abc]``) against a
    path relative to the workspace root."""
    return _glob_regex(glob).fullmatch(path) is not None
