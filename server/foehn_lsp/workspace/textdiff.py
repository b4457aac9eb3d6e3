"""The smallest single replacement that turns one text into another: the common prefix and
suffix kept, the middle replaced. Editors get edits this small (so cursors, folds and undo
history outside the change stay put) instead of whole-file replacements."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Region:
    """Replace ``old[start:end]`` with ``text``."""

    start: int
    end: int
    text: str


def changed_region(old: str, new: str) -> Region:
    """The one region of ``old`` to replace to get ``new``; empty (``start == end`` and no
    text) when they are equal. Offsets are in code points of ``old``."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    return Region(start=start, end=len(old) - end, text=new[start : len(new) - end])
