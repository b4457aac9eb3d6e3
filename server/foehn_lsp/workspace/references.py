"""Renames an edit made, the top-level definitions it took out, and where their old names still
appear: what an applied edit tells the model it left behind, and what the loop checks before a
turn that renamed something ends.

A rename is read from a file's definitions before and after an edit (``symbols.outline``): in
one container (a module, a class), definitions whose names went away paired in order with as
many new ones whose bodies are much the same (``ALIKE``, the names of their parameters aside).
A definition whose place one with another body took was replaced, not renamed, and a top-level
one replaced or gone is taken out: its uses now fail. A name still defined elsewhere in the
file (a method of another class) is neither and is not looked for. Where a name appears is
found with ripgrep, as whole words, case-sensitive, under the listing's rules (``.gitignore``
honoured): in code, comments and strings alike, since any of them may need the new name. A
file open in the editor is read from its buffer, which holds the edits the editor applied
before they are saved.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from foehn_lsp.workspace.files import BufferSource
from foehn_lsp.workspace.listing import common_args, ripgrep
from foehn_lsp.workspace.paths import Workspace
from foehn_lsp.workspace.symbols import outline

SEARCH_SECONDS = 10.0
MAX_LISTED = 12
MAX_COLUMNS = 200
ALIKE = 0.6
"""How alike two definitions' bodies are, at least, for one to be the other renamed: their
tokens' ``difflib`` ratio. Measured: ``mean``'s body against the median's the model put in its
place, 0.4 or less; against itself with a check for an empty list added, or a parameter
renamed and a ``max`` added, 0.7 or more."""


@dataclass(frozen=True, kw_only=True)
class Rename:
    """A definition of ``path`` (workspace-relative) that an edit renamed."""

    path: str
    old: str
    new: str


@dataclass(frozen=True, kw_only=True)
class Removed:
    """A top-level definition of ``path`` (workspace-relative) that an edit took out, and the
    one that took its place (``replaced_by``, empty when none did)."""

    path: str
    name: str
    replaced_by: str


@dataclass(frozen=True, kw_only=True)
class Place:
    """A line of the workspace where a name appears."""

    path: str
    line: int
    text: str


@dataclass(frozen=True, kw_only=True)
class Leftovers:
    """Where a rename's old name still appears: the first ``MAX_LISTED`` places of ``count``."""

    rename: Rename
    places: tuple[Place, ...]
    count: int

    def listed(self) -> str:
        """The places, one per line, and how many more there are."""
        return listed(self.places, self.count)


@dataclass(frozen=True, kw_only=True)
class StillUsed:
    """Where the name of a definition an edit took out still appears: the first
    ``MAX_LISTED`` places of ``count``."""

    removed: Removed
    places: tuple[Place, ...]
    count: int


def listed(places: Sequence[Place], count: int) -> str:
    """``places``, one per line, and how many more of ``count`` there are."""
    lines = [f"  {p.path}:{p.line}: {p.text.strip()}" for p in places]
    if count > len(places):
        lines.append(f"  … and {count - len(places)} more")
    return "\n".join(lines)


@dataclass(frozen=True, kw_only=True)
class Changed:
    """The definitions an edit of one file renamed, and the top-level ones it took out."""

    renames: tuple[Rename, ...]
    removed: tuple[Removed, ...]


def changed(path: str, before: str, after: str) -> Changed:
    """The definitions of ``before`` (the text of ``path``) that ``after`` renamed or took
    out. A definition gone whose place a new one took, with a body much the same (``ALIKE``),
    was renamed; with another body, it was replaced (seen, bench: mt-median, where ``def mean``
    became ``def median`` and its body the median's: called a rename of ``mean``, the model was
    told to rename its uses). A top-level definition gone and not renamed, replaced or not, was
    taken out: its name is defined nowhere in ``after``."""
    old, new = _definitions(path, before), _definitions(path, after)
    defined_after = {name.rsplit(".", 1)[-1] for name in new}
    renames: list[Rename] = []
    removed: list[Removed] = []
    for container in dict.fromkeys(_container(name) for name in [*old, *new]):
        gone = [n for n in old if _container(n) == container and n not in new]
        added = [n for n in new if _container(n) == container and n not in old]
        paired = zip(gone, added, strict=True) if gone and len(gone) == len(added) else ()
        taken = dict(paired)
        for was in gone:
            bare = was.rsplit(".", 1)[-1]
            if bare in defined_after:
                continue
            now = taken.get(was)
            if now is not None and _alike(old[was], new[now], bare, now.rsplit(".", 1)[-1]):
                renames.append(Rename(path=path, old=bare, new=now.rsplit(".", 1)[-1]))
            elif not container:
                replaced_by = now.rsplit(".", 1)[-1] if now is not None else ""
                removed.append(Removed(path=path, name=bare, replaced_by=replaced_by))
    return Changed(renames=tuple(renames), removed=tuple(removed))


def _definitions(path: str, text: str) -> dict[str, list[str]]:
    """Each definition's qualified name and its lines (the first of a name)."""
    lines = text.splitlines()
    found: dict[str, list[str]] = {}
    for symbol in outline(path, text).symbols:
        if symbol.kind != "heading":
            found.setdefault(symbol.name, lines[symbol.start - 1 : symbol.end])
    return found


def _alike(old: list[str], new: list[str], old_name: str, new_name: str) -> bool:
    """Whether the body of a definition's lines ``new`` is much the same as that of ``old``
    (``ALIKE`` of their tokens), its own name and its parameters' names aside."""
    a, b = _body(old, old_name), _body(new, new_name)
    return difflib.SequenceMatcher(a=a, b=b, autojunk=False).ratio() >= ALIKE


_TOKEN = re.compile(r"\w+|\S")


def _body(lines: list[str], name: str) -> list[str]:
    """A definition's tokens after its header, its own name as ``NAME`` and the names of its
    parameters numbered (``P0``, ``P1``…), so that a renamed parameter is the same token."""
    tokens = _TOKEN.findall("\n".join(lines))
    start = tokens.index(name) + 1 if name in tokens else 0
    depth, end = 0, start
    for end in range(start, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[end], 0)
        if depth == 0 and tokens[end] == ":":
            break
    header, body = tokens[start:end], tokens[end + 1 :]
    params = [t for i, t in enumerate(header) if i and header[i - 1] in "(,*" and t.isidentifier()]
    numbered = {param: f"P{i}" for i, param in enumerate(params)} | {name: "NAME"}
    return [numbered.get(token, token) for token in body]


def _container(name: str) -> str:
    return name.rpartition(".")[0]


async def leftovers(
    workspace: Workspace, renames: Sequence[Rename], buffers: BufferSource | None = None
) -> list[Leftovers]:
    """For each of ``renames``, where its old name still appears in the workspace (those whose
    old name appears nowhere are left out), reading a file's open editor buffer, if
    ``buffers`` has one, in place of the disk. Raises ``TimeoutError`` after
    ``SEARCH_SECONDS``."""
    where = await _where(workspace, [r.old for r in renames], buffers)
    return [
        Leftovers(rename=r, places=tuple(where[r.old][:MAX_LISTED]), count=len(where[r.old]))
        for r in dict.fromkeys(renames)
        if r.old in where
    ]


async def still_used(
    workspace: Workspace, removed: Sequence[Removed], buffers: BufferSource | None = None
) -> list[StillUsed]:
    """For each of ``removed``, where its name still appears, as ``leftovers`` finds an old
    name."""
    where = await _where(workspace, [r.name for r in removed], buffers)
    return [
        StillUsed(removed=r, places=tuple(where[r.name][:MAX_LISTED]), count=len(where[r.name]))
        for r in dict.fromkeys(removed)
        if r.name in where
    ]


async def _where(
    workspace: Workspace, names: Sequence[str], buffers: BufferSource | None
) -> dict[str, list[Place]]:
    """Where each of ``names`` appears, those that appear nowhere left out."""
    found: dict[str, list[Place]] = {}
    for name in dict.fromkeys(names):
        if places := await appearances(workspace, name, buffers):
            found[name] = places
    return found


async def appearances(
    workspace: Workspace, name: str, buffers: BufferSource | None = None
) -> list[Place]:
    """The lines of the workspace's first root where ``name`` appears as a whole word (none
    without ripgrep). ripgrep reads the disk; a file with an open buffer (``buffers``) is read
    from the buffer instead: an editor applies edits to its buffers before they are saved."""
    binary = ripgrep()
    if binary is None:
        return []
    command = [binary, "--null", "--line-number", "--no-heading", "--word-regexp"]
    command += ["--fixed-strings", "--case-sensitive", *common_args(workspace)]
    command += ["--max-columns", str(MAX_COLUMNS), "--max-columns-preview"]
    command += ["--regexp", name, "--", "."]
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=os.fspath(workspace.root),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        output, _ = await asyncio.wait_for(process.communicate(), SEARCH_SECONDS)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise TimeoutError(f"looking for {name!r} took more than {SEARCH_SECONDS:g} s") from None
    places: list[Place] = []
    for line in output.decode("utf-8", "replace").splitlines():
        path, _, rest = line.partition("\0")
        number, _, text = rest.partition(":")
        if number.isdigit():
            places.append(Place(path=path.removeprefix("./"), line=int(number), text=text))
    if buffers is None:
        return places
    word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    read: list[Place] = []
    for path in dict.fromkeys(place.path for place in places):
        buffer = buffers(workspace.root / path)
        if buffer is None:
            read += [place for place in places if place.path == path]
            continue
        read += [
            Place(path=path, line=number, text=line[:MAX_COLUMNS])
            for number, line in enumerate(buffer.splitlines(), 1)
            if word.search(line)
        ]
    return read


def note(found: Sequence[Leftovers]) -> str:
    """Where the old names of ``found`` still appear, and what to do about it."""
    return "\n".join(
        f"`{f.rename.old}` was renamed to `{f.rename.new}` in {f.rename.path}, but "
        f"`{f.rename.old}` still appears in {f.count} place{'s' if f.count != 1 else ''}:\n"
        f"{f.listed()}\nUse the new name there too: rename with name `{f.rename.old}` and "
        f"new_name `{f.rename.new}` changes every one in one call; then run_tests."
        for f in found
    )


def removed_note(found: Sequence[StillUsed]) -> str:
    """Where the names of definitions an edit took out still appear, and what to do."""
    notes: list[str] = []
    for f in found:
        old, new, path = f.removed.name, f.removed.replaced_by, f.removed.path
        place = f" (`{new}` took its place)" if new else ""
        beside = f" and add `{new}` beside it" if new else ""
        notes.append(
            f"`{old}` is no longer defined in {path}{place}, but `{old}` still appears in "
            f"{f.count} place{'s' if f.count != 1 else ''}:\n"
            f"{listed(f.places, f.count)}\nThose uses fail "
            f"now. Unless the task is to take `{old}` out, put it back (the diff above shows "
            f"its lines){beside}."
        )
    return "\n".join(notes)


def statement(found: Sequence[Leftovers]) -> str:
    """What the person reads after an answer that left old names behind."""
    return (
        "[Foehn] "
        + "; ".join(
            f"`{f.rename.old}` (renamed to `{f.rename.new}` in {f.rename.path}) still appears in "
            f"{f.count} place{'s' if f.count != 1 else ''}: "
            + ", ".join(f"{p.path}:{p.line}" for p in f.places)
            + (" …" if f.count > len(f.places) else "")
            for f in found
        )
        + "."
    )
