"""Renames an edit made, and where the old names still appear: what an applied edit tells the
model it left behind, and what the loop checks before a turn that renamed something ends.

A rename is read from a file's definitions before and after an edit (``symbols.outline``): in
one container (a module, a class), definitions whose names went away paired in order with as
many new ones. A name still defined elsewhere in the file (a method of another class) is no
rename's leftover and is not looked for. Where a name appears is found with ripgrep, as whole
words, case-sensitive, under the listing's rules (``.gitignore`` honoured): in code, comments
and strings alike, since any of them may need the new name. A file open in the editor is read
from its buffer, which holds the edits the editor applied before they are saved.
"""

from __future__ import annotations

import asyncio
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


@dataclass(frozen=True, kw_only=True)
class Rename:
    """A definition of ``path`` (workspace-relative) that an edit renamed."""

    path: str
    old: str
    new: str


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


def listed(places: Sequence[Place], count: int) -> str:
    """``places``, one per line, and how many more of ``count`` there are."""
    lines = [f"  {p.path}:{p.line}: {p.text.strip()}" for p in places]
    if count > len(places):
        lines.append(f"  … and {count - len(places)} more")
    return "\n".join(lines)


def renamed(path: str, before: str, after: str) -> list[Rename]:
    """The definitions of ``before`` (the text of ``path``) that ``after`` renamed."""
    old, new = _definitions(path, before), _definitions(path, after)
    defined_after = {name.rsplit(".", 1)[-1] for name in new}
    found: list[Rename] = []
    for container in dict.fromkeys(_container(name) for name in [*old, *new]):
        gone = [n for n in old if _container(n) == container and n not in new]
        added = [n for n in new if _container(n) == container and n not in old]
        if not gone or len(gone) != len(added):
            continue
        for was, now in zip(gone, added, strict=True):
            bare = was.rsplit(".", 1)[-1]
            if bare not in defined_after:
                found.append(Rename(path=path, old=bare, new=now.rsplit(".", 1)[-1]))
    return found


def _definitions(path: str, text: str) -> list[str]:
    return list(dict.fromkeys(s.name for s in outline(path, text).symbols if s.kind != "heading"))


def _container(name: str) -> str:
    return name.rpartition(".")[0]


async def leftovers(
    workspace: Workspace, renames: Sequence[Rename], buffers: BufferSource | None = None
) -> list[Leftovers]:
    """For each of ``renames``, where its old name still appears in the workspace (those whose
    old name appears nowhere are left out), reading a file's open editor buffer, if
    ``buffers`` has one, in place of the disk. Raises ``TimeoutError`` after
    ``SEARCH_SECONDS``."""
    found: list[Leftovers] = []
    for rename in dict.fromkeys(renames):
        places = await appearances(workspace, rename.old, buffers)
        if places:
            found.append(
                Leftovers(rename=rename, places=tuple(places[:MAX_LISTED]), count=len(places))
            )
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
