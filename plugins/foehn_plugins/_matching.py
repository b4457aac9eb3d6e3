"""Exact-match edit blocks: where each ``old_text`` is, and why it is not found.

A block must match exactly once in the original text, or exactly once inside the definition
that holds the line a tool last pointed the model to in that file (``pointed``). When it does
not, the message shows the closest candidate with line numbers, says when the only difference
is whitespace, and says how to make a multiple match unique. Two blocks that overlap are one
edit when both keep the text they share (``joined``).
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Sequence

from foehn_lsp.workspace.symbols import Symbol, outline

MAX_WINDOWS = 20_000


def occurrences(text: str, needle: str, limit: int = 10) -> list[int]:
    """Start offsets of ``needle`` in ``text`` (overlapping ones too), at most ``limit``."""
    found: list[int] = []
    position = text.find(needle)
    while position != -1 and len(found) < limit:
        found.append(position)
        position = text.find(needle, position + 1)
    return found


Span = tuple[int, int, str, int]
"""A block placed in the text: its start and end offsets, its new text and its number."""


def joined(text: str, spans: Sequence[Span]) -> tuple[list[Span], list[str], list[str]]:
    """``spans`` (in order of their starts) with each block that overlaps the one before it
    joined to it when both keep the text they share: the first block's ``new_text`` ends with
    it and the next one's begins with it, as when a model gives a line as the end of one block
    and the start of the next. Returns the spans, a note per join, and a problem per overlap
    that cannot be joined (the blocks change the shared text, or one holds the other)."""
    out: list[Span] = []
    notes: list[str] = []
    problems: list[str] = []
    for span in spans:
        if not out or span[0] >= out[-1][1]:
            out.append(span)
            continue
        start, end, new, number = out[-1]
        shared = text[span[0] : end]
        if span[1] > end and new.endswith(shared) and span[2].startswith(shared):
            out[-1] = (start, span[1], new + span[2][len(shared) :], number)
            first, last = line_of(text, span[0]), line_of(text, max(end - 1, span[0]))
            lines = f"line {first}" if first == last else f"lines {first}-{last}"
            notes.append(f"blocks {number} and {span[3]} share {lines}, which both keep: joined")
        else:
            problems.append(f"blocks {number} and {span[3]} overlap; merge them into one block")
    return out, notes, problems


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _squash(line: str) -> str:
    return " ".join(line.split())


def explain_missing(text: str, needle: str) -> str:
    """Why ``needle`` is not in ``text``, with the closest lines."""
    lines = text.splitlines()
    wanted = needle.splitlines() or [needle]
    size = len(wanted)
    if not lines:
        return "the file is empty"
    squashed_wanted = [_squash(line) for line in wanted]
    windows = range(max(1, len(lines) - size + 1))
    for start in windows:
        window = lines[start : start + size]
        if [_squash(line) for line in window] == squashed_wanted:
            return (
                f"lines {start + 1}-{start + size} match except for whitespace (indentation, "
                "tabs or trailing spaces differ); copy the exact text from read_file"
            )
    best_ratio, best_start = 0.0, 0
    joined = "\n".join(wanted)
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(joined)
    step = max(1, len(windows) // MAX_WINDOWS)
    for start in windows[::step]:
        matcher.set_seq1("\n".join(lines[start : start + size]))
        if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best_ratio, best_start = ratio, start
    if best_ratio < 0.5:
        return "no similar text was found; read the file again to see its current content"
    shown = "\n".join(
        f"{number:>6}\t{line}"
        for number, line in enumerate(lines[best_start : best_start + size], best_start + 1)
    )
    return (
        f"the closest text ({best_ratio:.0%} similar) is at lines {best_start + 1}-"
        f"{best_start + size}:\n{shown}"
    )


def _innermost(symbols: Sequence[Symbol], line: int) -> Symbol | None:
    """The innermost definition (not a heading) that holds ``line``."""
    inside = [s for s in symbols if s.start <= line <= s.end and s.kind != "heading"]
    return max(inside, key=lambda s: s.start, default=None)


def explain_multiple(text: str, starts: list[int], path: str = "") -> str:
    """Where ``starts`` are, each line with the definition it is in (when ``path`` names a
    language the outline reads): a small model that edited one line of ``first`` found it in
    nine functions and read the whole 5,000-line file to tell them apart."""
    symbols = outline(path, text).symbols if path else ()
    places = []
    for start in starts:
        number = line_of(text, start)
        innermost = _innermost(symbols, number)
        places.append(f"{number} in {innermost.name}" if innermost else str(number))
    more = " or more" if len(starts) >= 10 else ""
    return (
        f"matches {len(starts)}{more} times (at lines {', '.join(places)}); include more "
        "surrounding lines in old_text (the line before or after it, from the definition you "
        "mean) so that it matches exactly once"
    )


def pointed(text: str, needle: str, path: str, point: int | None) -> tuple[int, Symbol] | None:
    """The one place ``needle`` is found (its start) inside the innermost definition that holds
    line ``point``, and that definition; ``None`` when there is no point, no definition holds
    it, or ``needle`` is not found exactly once inside it. ``point`` is the line of the file a
    tool last pointed the model to: the line a failing test's traced call returned at, a frame
    of its traceback, a search hit. Seen (bench: ny-bo-floor, ny-bo-parse-int-list,
    ng-tz-valfilter): right after a failing run that showed one function, the model's edit
    named a line that function shares with another (``if options is None:``), was refused,
    and never found its way back."""
    if point is None:
        return None
    definition = _innermost(outline(path, text).symbols, point)
    if definition is None:
        return None
    inside = [
        start
        for start in occurrences(text, needle, limit=len(text))
        if definition.start <= line_of(text, start)
        and line_of(text, start + len(needle) - 1) <= definition.end
    ]
    return (inside[0], definition) if len(inside) == 1 else None


_NUMBERED = re.compile(r"^\s*\d+\t")
_MARK = re.compile(r"\s+<- (?:returned |raised |[A-Za-z_]\w* = ).*$")
MIN_COPIED = 6
"""Characters a copied line needs (beside spaces) to be looked for."""


_GUTTER = re.compile(r"^\s*(\d{1,6})(?:\t| {2,})(\S.*)$")
LIKE_THE_LINE = 0.75
"""How close to the line it numbers a line behind a copied number must be (a changed copy)."""


def numbered_copies(new: str, text: str) -> list[int]:
    """The line numbers of read_file's results that ``new`` has in front of its lines: a line
    that is a number N, a tab or spaces, then the file's line N or a changed copy of it. Seen
    (bench: nh-tz-partitionby): ``    46        return map(…)`` for line 46, which landed in a
    docstring, where it still parsed."""
    lines = text.splitlines()
    found: list[int] = []
    for line in new.splitlines():
        match = _GUTTER.match(line)
        if match is None or not 0 < (number := int(match[1])) <= len(lines):
            continue
        numbered, copied = lines[number - 1].strip(), match[2].strip()
        if numbered and difflib.SequenceMatcher(None, numbered, copied).ratio() >= LIKE_THE_LINE:
            found.append(number)
    return found


def noted_lines(new: str, text: str) -> list[str]:
    """The lines of ``new`` that carry a note in the traced run's manner (``   <- …`` after the
    code) and are not lines of the file ``text``. Seen (bench: ni-mi-mark-ends):
    ``    for a in it:   <- added a return statement``."""
    have = set(text.splitlines())
    return [line for line in new.splitlines() if _NOTE.search(line) and line not in have]


_NOTE = re.compile(r"\S\s{3,}<- \S")
"""Code, three spaces or more, then ``<-`` and a word: the traced run's mark
(``_tracing``)."""


def tool_output(new: str, text: str) -> str | None:
    """What ``new`` holds of the results Foehn's tools write, that the file ``text`` does not:
    a ``[Foehn]`` note, a diff's header (``--- a/x`` then ``+++ b/x``), or read_file's header
    (``x: lines 1-3 of 3``), or ``None``. Seen (bench: mo-version): ``write_file`` of
    pyproject.toml with the previous edit's diff and its note as the content, in a file no
    parser would have refused it in had it been Markdown; (bench: mt-version) with read_file's
    result, header and numbered lines, as the content."""
    have = set(text.splitlines())
    lines = [line for line in new.splitlines() if line not in have]
    if any(line.startswith("[Foehn] ") for line in lines):
        return "a [Foehn] note"
    for first, second in itertools.pairwise(lines):
        if first.startswith("--- a/") and second.startswith("+++ b/"):
            return f"a diff's header ({first})"
    for line in lines:
        if _READ_HEADER.fullmatch(line):
            return f"read_file's header ({line})"
    return None


_READ_HEADER = re.compile(r"\S+(?: \(unsaved editor buffer\))?: lines \d+-\d+ of \d+")
"""The first line of read_file's result (``fs.read_file``)."""


def copied_lines(text: str) -> list[str]:
    """The lines of code in ``text`` as a file has them, when ``text`` was copied out of a
    result: less read_file's line numbers, a traced line's ``<- returned …`` (or ``<- x = …``)
    mark, and a
    quoting ``>`` in front; lines too short to find are left out. Seen (bench:
    nd-inf-underscore, nd-bo-remap-clone): the model gave read_file's around and search a
    whole traced call, and a line with ``>#`` in front."""
    found: list[str] = []
    for line in text.splitlines():
        line = _MARK.sub("", _NUMBERED.sub("", line)).lstrip(" \t>").rstrip()
        if len(line.replace(" ", "")) >= MIN_COPIED and line not in found:
            found.append(line)
    return found
