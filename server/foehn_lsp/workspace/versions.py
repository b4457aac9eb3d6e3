"""Versions an edit bumped, and where the old version is still given: what an applied edit
tells the model it left behind when a project gives its version in more than one file
(``pyproject.toml`` and ``__version__`` in the package; seen, bench: mt-version, where the
embedded model bumped ``pyproject.toml``, then changed something else and answered).

A bump is read from the lines an edit changed: a line that speaks of a version
(``version = "2.1.0"``, ``__version__ = '2.1.0'``, ``"version": "2.1.0"``) whose one version
number (``2.1.0``, ``1.4``, ``3.0.0rc1``) became another. Where the old number is still given
is found as ``references.appearances`` finds a name (ripgrep, whole words, the editor's
buffers), and only on lines that also speak of a version: a dependency pinned at the same
number elsewhere is not this project's version.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from foehn_lsp.workspace.files import BufferSource
from foehn_lsp.workspace.paths import Workspace
from foehn_lsp.workspace.references import MAX_LISTED, Place, appearances, listed

_VERSION_LINE = re.compile(r"version", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc|\.dev|\.post)\d+)?(?![\w.])")


@dataclass(frozen=True, kw_only=True)
class Bump:
    """A version ``path`` (workspace-relative) gave as ``old`` that an edit changed to ``new``."""

    path: str
    old: str
    new: str


@dataclass(frozen=True, kw_only=True)
class StillGiven:
    """Where a bump's old version is still given: the first ``MAX_LISTED`` places of ``count``."""

    bump: Bump
    places: tuple[Place, ...]
    count: int


def bumped(path: str, before: str, after: str) -> list[Bump]:
    """The versions a change of ``path`` from ``before`` to ``after`` bumped: in each run of
    lines it replaced, the one version number of its version lines that became another."""
    if not _VERSION_LINE.search(before):
        return []
    old_lines, new_lines = before.splitlines(), after.splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    found: list[Bump] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        old, new = _numbers(old_lines[i1:i2]), _numbers(new_lines[j1:j2])
        gone, came = old - new, new - old
        if len(gone) == 1 and len(came) == 1:
            found.append(Bump(path=path, old=gone.pop(), new=came.pop()))
    return list(dict.fromkeys(found))


def _numbers(lines: Sequence[str]) -> set[str]:
    return {n for line in lines if _VERSION_LINE.search(line) for n in _NUMBER.findall(line)}


async def still_given(
    workspace: Workspace, bumps: Sequence[Bump], buffers: BufferSource | None = None
) -> list[StillGiven]:
    """For each of ``bumps``, the lines of the workspace that still give its old version on a
    line that speaks of a version (those given nowhere are left out). Raises ``TimeoutError``
    as ``appearances`` does."""
    found: list[StillGiven] = []
    for bump in bumps:
        places = [
            place
            for place in await appearances(workspace, bump.old, buffers)
            if _VERSION_LINE.search(place.text)
        ]
        if places:
            found.append(
                StillGiven(bump=bump, places=tuple(places[:MAX_LISTED]), count=len(places))
            )
    return found


def note(found: Sequence[StillGiven]) -> str:
    """Where the old versions of ``found`` are still given, and what to do about it: the edit
    of the first place, written out (seen, bench: mo-version, pa-release: told only to change
    the others "(edit_file)", the embedded model copied the note into ``write_file`` or into
    its answer)."""
    return "\n".join(
        f"The version {f.bump.old} became {f.bump.new} in {f.bump.path}, but {f.bump.old} is "
        f"still given in {f.count} place{'s' if f.count != 1 else ''}:\n"
        f"{listed(f.places, f.count)}\n"
        f"Where that is the same version, change it to {f.bump.new} there too: " + _first_edit(f)
        for f in found
    )


def _first_edit(found: StillGiven) -> str:
    place = found.places[0]
    line = place.text.strip()
    return (
        f"edit_file with path {place.path!r} and old_text {line!r}, new_text "
        f"{line.replace(found.bump.old, found.bump.new)!r}."
    )
