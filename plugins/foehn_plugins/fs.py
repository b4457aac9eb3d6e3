"""File tools: scan, read_file, write_file, edit_file, move_path, make_directory, delete_path.

Every path goes through the workspace resolver; every change is an ``EditPlan`` that the host
previews, asks about and applies (all or nothing). Outputs are capped for a model's context and
say what was left out and how to get it.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import pathspec
from pydantic import BaseModel, Field

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult
from foehn_lsp.errors import FileReadError, PathRefusedError
from foehn_lsp.tools.contract import CallPaths, Change, PathsOf, ToolKind
from foehn_lsp.workspace import DeletePath, EditPlan, FileChange, MakeDirectory, MovePath, WriteFile
from foehn_lsp.workspace.listing import check_glob, common_args, ripgrep
from foehn_lsp.workspace.symbols import Outline, nested, outline
from foehn_plugins import _syntax
from foehn_plugins._code_checks import code_refusal
from foehn_plugins._failures import LEFT_OUT
from foehn_plugins._matching import (
    Span,
    copied_lines,
    explain_missing,
    explain_multiple,
    joined,
    line_of,
    noted_lines,
    numbered_copies,
    occurrences,
    pointed,
    tool_output,
)
from foehn_plugins._suggest import missing, suggestion
from foehn_plugins._unrun import lifted
from foehn_plugins._window import read_budget

MAX_SCAN_ENTRIES = 500
MAX_READ_LINES = 1000
MAX_READ_CHARS = 60_000
MAX_LINE_CHARS = 2_000


class ScanArguments(BaseModel):
    path: Annotated[str, Field(description="Folder to list, relative to the workspace root.")] = "."
    pattern: Annotated[
        str, Field(description="Glob on file names, e.g. '*.py' or 'test_*'. '*' lists all.")
    ] = "*"
    recursive: Annotated[bool, Field(description="List subfolders too.")] = True


async def scan(arguments: ScanArguments, ctx: ToolContext) -> ToolResult:
    if problem := check_glob(arguments.pattern):
        return ToolResult.failure(problem)
    folder = ctx.workspace.resolve(arguments.path)
    if not folder.is_dir():
        if folder.exists():
            return ToolResult.failure(f"{arguments.path!r} is a file; use read_file")
        near = suggestion(ctx.workspace, arguments.path) or "; scan '.' to look"
        return ToolResult.failure(f"{arguments.path!r} is not there{near}")
    if arguments.recursive:
        count, entries = await asyncio.to_thread(_list_recursive, ctx, folder, arguments.pattern)
    else:
        everything = await asyncio.to_thread(_list_folder, ctx, folder, arguments.pattern)
        count, entries = len(everything), everything[:MAX_SCAN_ENTRIES]
    shown = ctx.workspace.display(folder)
    depth = "recursive" if arguments.recursive else "this folder only"
    how = f"{depth}, pattern {arguments.pattern!r}"
    if not count:
        near = suggestion(ctx.workspace, arguments.pattern)
        notes = ["a pattern matches whole file names, e.g. 'README*'"] if near else []
        if not any(c in arguments.pattern for c in "*?[./"):
            # A bare word may be text the model means to find inside files.
            notes.append(f"to find {arguments.pattern!r} inside files, use search")
        hint = f" ({'; '.join(notes)})" if notes else ""
        return ToolResult.success(
            f"no entries under {shown} ({how}, .gitignore honoured){near}{hint}"
        )
    header = f"{count} entries under {shown} ({how}, .gitignore honoured):"
    listed = entries
    body = "\n".join(listed)
    if count > MAX_SCAN_ENTRIES:
        body += (
            f"\n... {count - MAX_SCAN_ENTRIES} more not shown; narrow the listing with "
            "path= (a subfolder), pattern= (e.g. '*.py') or recursive=false"
        )
    return ToolResult.success(f"{header}\n{body}", data={"count": count})


def _list_recursive(ctx: ToolContext, folder: Path, pattern: str) -> tuple[int, list[str]]:
    """How many files ``rg --files`` lists, and the first ``MAX_SCAN_ENTRIES`` in path order
    (sorted as bytes, which is UTF-8 order; only those are decoded)."""
    rg = ripgrep()
    if rg is None:
        raise FileNotFoundError("ripgrep (rg) is not installed; pip install ripgrep")
    args = [rg, "--files", *common_args(ctx.workspace)]
    if pattern not in ("*", "**", ""):
        args += ["--glob", pattern]
    relative = ctx.workspace.display(folder)
    root = ctx.workspace.root_of(folder) or ctx.workspace.root
    if relative != ".":
        args += ["--", os.fspath(folder.relative_to(root))]
    done = subprocess.run(args, cwd=root, capture_output=True, check=False)
    if done.returncode not in (0, 1):
        raise OSError(done.stderr.decode("utf-8", "replace").strip())
    paths = done.stdout.split(b"\n")
    paths.sort()
    first = paths.count(b"")
    shown = paths[first : first + MAX_SCAN_ENTRIES]
    return len(paths) - first, [p.decode("utf-8", "replace") for p in shown]


def _ignore_specs(ctx: ToolContext, folder: Path) -> list[tuple[Path, pathspec.GitIgnoreSpec]]:
    """The .gitignore files that apply inside ``folder`` (its own and its ancestors') and the
    workspace's .foehnignore, each with the folder its patterns are relative to."""
    root = ctx.workspace.root_of(folder) or ctx.workspace.root
    specs: list[tuple[Path, pathspec.GitIgnoreSpec]] = []
    candidates = [(root, root / ".foehnignore")]
    current = folder
    while True:
        candidates.append((current, current / ".gitignore"))
        if current == root:
            break
        current = current.parent
    for base, file in candidates:
        if file.is_file() and not file.is_symlink():
            lines = file.read_text("utf-8", "replace").splitlines()
            specs.append((base, pathspec.GitIgnoreSpec.from_lines(lines)))
    return specs


def _list_folder(ctx: ToolContext, folder: Path, pattern: str) -> list[str]:
    specs = _ignore_specs(ctx, folder)
    matcher = pathspec.GitIgnoreSpec.from_lines([pattern]) if pattern not in ("*", "") else None
    entries = []
    with os.scandir(folder) as listing:
        for entry in listing:
            if entry.name == ".git":
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            path = Path(entry.path)
            suffix = "/" if is_dir else ""
            ignored = any(
                spec.match_file(path.relative_to(base).as_posix() + suffix) for base, spec in specs
            )
            if ignored or (matcher and not is_dir and not matcher.match_file(entry.name)):
                continue
            entries.append(ctx.workspace.display(path) + suffix)
    return sorted(entries)


class ReadArguments(BaseModel):
    path: Annotated[str, Field(description="File to read, relative to the workspace root.")]
    offset: Annotated[
        int | None, Field(ge=1, description="First line to show (1-based). Default 1.")
    ] = None
    limit: Annotated[
        int | None,
        Field(ge=1, description=f"How many lines to show. Default and maximum {MAX_READ_LINES}."),
    ] = None
    around: Annotated[
        str | None,
        Field(
            description="A line number, a definition's name (function, Class.method) or text "
            "in the file: show the lines around it instead of the file's start."
        ),
    ] = None


REGION_BEFORE = 10
REGION_AFTER = 30
"""Lines shown before and after the line a read is around (a definition is shown whole)."""
MAX_OUTLINE = 40
"""Definitions listed with a region of a long file."""
PAGE_LINES = REGION_BEFORE + REGION_AFTER
"""Lines a read from an offset without a limit shows in a small window (a limit asks for
more). Seen (bench: nu-tz-excepts): ``offset=815`` read the rest of a 1,049-line module, 235
lines, a minute of the embedded model's reading on 2 cores."""


def node_id(path: str) -> tuple[str, str | None]:
    """``path`` as a file and the definition a pytest node id in it names:
    ``tests/test_a.py::TestA::test_b[1]`` is ``tests/test_a.py`` and ``TestA.test_b``."""
    file, separator, rest = path.partition("::")
    if not separator or not rest:
        return file, None
    return file, re.sub(r"\[.*\]$", "", rest).replace("::", ".")


async def read_file(arguments: ReadArguments, ctx: ToolContext) -> ToolResult:
    file, named = node_id(arguments.path)
    if named is not None and arguments.around is None:
        arguments = arguments.model_copy(update={"path": file, "around": named})
    path = ctx.workspace.resolve(file)
    if not path.exists() and ctx.files.buffers(path) is None:
        return ToolResult.failure(missing(ctx.workspace, file))
    document = await ctx.files.read(path)
    lines = document.text.splitlines()
    total = len(lines)
    name = ctx.workspace.display(path)
    if total == 0:
        return ToolResult.success(f"{name} is empty")
    ranged = arguments.offset is not None or arguments.limit is not None
    budget = read_budget(ctx.window, ranged=ranged)
    found = None
    if arguments.around is not None and not ranged:
        found = outline(name, document.text)
        span = _around(arguments.around, lines, found)
        if span is None:
            return ToolResult.failure(_not_around(name, arguments.around, found))
    elif not ranged and budget is not None and len(document.text) > budget:
        found = outline(name, document.text)
        point = ctx.files.shown.last_point(path)
        span = _region(point, lines, found) if point is not None else (1, REGION_AFTER)
    else:
        first = arguments.offset or _from_point(ctx.files.shown.last_point(path), arguments.limit)
        if first > total:
            return ToolResult.failure(f"offset {first} is past the end; {name} has {total} lines")
        page = arguments.limit or (PAGE_LINES if budget is not None else MAX_READ_LINES)
        span = (first, first - 1 + min(page, MAX_READ_LINES))
    shown, last = _numbered(lines, span[0], min(span[1], total), budget or MAX_READ_CHARS)
    ctx.files.shown.saw_file(path)
    source = " (unsaved editor buffer)" if document.from_buffer else ""
    header = f"{name}{source}: lines {span[0]}-{last} of {total}"
    if found is not None and (span[0] > 1 or last < total):
        footer = _partial_footer(name, total, span[0], last, found, arguments.around)
    elif last < total:
        footer = (
            f"\n... {total - last} more lines; call read_file with offset={last + 1} to continue"
        )
    else:
        footer = ""
    if found is None and arguments.offset is None and span[0] > 1:
        footer += (
            f"\n(shown: from line {span[0]}, near where a search, a failing test or a refused "
            "edit last pointed in this file; offset=1 reads it from its first line.)"
        )
    return ToolResult.success(header + "\n" + "\n".join(shown) + footer)


def _from_point(point: int | None, limit: int | None) -> int:
    """Where a read with a ``limit`` and no ``offset`` starts: at the file's first line, or,
    where a tool last pointed (a search hit, a failing test's frame, a refused edit) past the
    first ``limit`` lines, ``REGION_BEFORE`` lines before that line. Seen (bench: bo-indent):
    after a refused edit the model asked for 40 lines and was shown the license."""
    if limit is None or point is None or point <= limit:
        return 1
    return max(1, point - REGION_BEFORE)


def _numbered(lines: list[str], first: int, last: int, budget: int) -> tuple[list[str], int]:
    """Lines ``first``..``last`` numbered as read_file shows them, as many as fit ``budget``
    characters (at least one), and the number of the last one shown."""
    shown: list[str] = []
    size = 0
    end = first - 1
    for number in range(first, last + 1):
        line = lines[number - 1]
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f" … ({len(line) - MAX_LINE_CHARS} more characters)"
        entry = f"{number:>6}\t{line}"
        if size + len(entry) > budget and shown:
            break
        shown.append(entry)
        size += len(entry) + 1
        end = number
    return shown, end


def _region(line: int, lines: list[str], found: Outline) -> tuple[int, int]:
    """The lines shown around ``line``: the definition that holds it, if that is short, else
    ``REGION_BEFORE`` lines before it and ``REGION_AFTER`` after."""
    symbol = found.enclosing(line)
    if symbol is not None and symbol.end - symbol.start <= REGION_BEFORE + REGION_AFTER:
        return symbol.start, symbol.end
    return max(1, line - REGION_BEFORE), min(len(lines), line + REGION_AFTER)


def _around(wanted: str, lines: list[str], found: Outline) -> tuple[int, int] | None:
    """The lines to show around ``wanted``: a line number, a definition (whole), or the first
    line that holds the text; ``None`` when the file has none of them."""
    text = wanted.strip()
    if text.isdigit():
        number = int(text)
        return _region(number, lines, found) if 1 <= number <= len(lines) else None
    symbol = found.find(text)
    if symbol is not None:
        return symbol.start, symbol.end
    hit = next((n for n, line in enumerate(lines, 1) if text in line), None)
    if hit is None and (named := _line_named(text)) is not None and named <= len(lines):
        hit = named
    for copied in copied_lines(wanted) if hit is None else []:
        hit = next((n for n, line in enumerate(lines, 1) if copied.strip() in line), None)
        if hit is not None:
            break
    return _region(hit, lines, found) if hit is not None else None


_A_LINE = re.compile(r"^\W*(?:lines?[\s:]*)?(\d+)\b")


def _line_named(wanted: str) -> int | None:
    """The line number ``wanted`` starts with, written as no file has it: ``line 166``,
    ``{line 166}``, ``{line: 1049}``, ``{271, 272, 273}``. Seen (bench: nq-inf-camelize,
    nq-bo-strip): told a value "comes from line 166", the model asked for the lines around
    ``{line 166}``."""
    found = _A_LINE.match(wanted)
    return int(found[1]) if found is not None and int(found[1]) >= 1 else None


def _not_around(name: str, wanted: str, found: Outline) -> str:
    nearest = found.nearest(wanted.strip())
    near = f"; definitions named like it: {', '.join(nearest)}" if nearest else ""
    return (
        f"{name} has no line, definition or text {wanted!r}{near}. read_file without around "
        "shows its start; search finds text in every file"
    )


def _partial_footer(
    name: str, total: int, first: int, last: int, found: Outline, around: str | None
) -> str:
    """What a read of part of a file adds: for a long file read without a range, its
    definitions; always how to read more."""
    after = f"offset={last + 1}" if last < total else f"offset={max(1, first - 40)}"
    more = (
        "To read more: read_file with around= a name or line number, or with offset and limit "
        f"for a range ({after} limit=40); read_symbol shows one definition."
    )
    if around is not None:
        return f"\n(shown: the lines around {around!r}.) {more}"
    listed = [s for s in found.symbols if s.depth <= 1]
    width = len(str(max((s.end for s in listed), default=1)))
    rows = [
        f"{f'{s.start}-{s.end}':>{2 * width + 1}}  {'  ' * s.depth}{s.signature}"
        for s in listed[:MAX_OUTLINE]
    ]
    if len(listed) > MAX_OUTLINE:
        rows.append(f"... {len(listed) - MAX_OUTLINE} more definitions")
    why = f"{name} has {total} lines, more than this model's window takes at once"
    definitions = "\nIts definitions, lines first-last:\n" + "\n".join(rows) if rows else ""
    return f"\n(shown: {why}.){definitions}\n{more}"


class WriteArguments(BaseModel):
    path: Annotated[str, Field(description="File to create or replace, relative to the root.")]
    content: Annotated[str, Field(description="The complete new content of the file.")]


def _missing_parents(path: Path) -> list[FileChange]:
    return [] if path.parent.is_dir() else [MakeDirectory(path=path.parent)]


async def plan_write(arguments: WriteArguments, ctx: ToolContext) -> EditPlan | ToolResult:
    path = ctx.workspace.resolve(arguments.path, write=True)
    name = ctx.workspace.display(path)
    if path.is_dir():
        return ToolResult.failure(f"{name} is a directory; give a file path")
    if not path.exists():
        if (output := tool_output(arguments.content, "")) is not None:
            return ToolResult.failure(_tool_output_content(name, output))
        change = WriteFile(path=path, text=arguments.content, old_text=None)
        lines = len(arguments.content.splitlines())
        return EditPlan(
            tool="write_file",
            changes=(*_missing_parents(path), change),
            summary=f"create {name} ({lines} line{'' if lines == 1 else 's'})",
        )
    if not ctx.files.shown.read_whole(path):
        return ToolResult.failure(
            f"{name} already exists and has not been read in this session, so it was not "
            f"replaced. read_file {name} first; then use edit_file to change or add lines "
            "(write_file replaces the whole file)"
        )
    current = await ctx.files.read(path)
    text = arguments.content
    if current.newline == "\r\n" and "\r\n" not in text:
        text = text.replace("\n", "\r\n")
    if text == current.text:
        return ToolResult.success(f"{name} already has exactly this content; nothing changed")
    if (output := tool_output(text, current.text)) is not None:
        return ToolResult.failure(_tool_output_content(name, output))
    if numbers := numbered_copies(text, current.text):
        return ToolResult.failure(
            f"no change was made to {name}: content has read_file's line numbers in front of "
            f"its lines ({', '.join(map(str, numbers[:3]))}); write the lines as the file is to "
            "have them, without the numbers"
        )
    if broken := _syntax.breaks(name, current.text, text):
        return ToolResult.failure(_unparsable(name, broken, text, "content"))
    if why := code_refusal(name, current.text, text, path, ctx):
        return ToolResult.failure(why)
    change = WriteFile(
        path=path, text=text, old_text=current.text, old_fingerprint=current.fingerprint
    )
    return EditPlan(tool="write_file", changes=(change,), summary=f"replace {name}")


class EditBlock(BaseModel):
    old_text: Annotated[
        str, Field(description="Exact text to find; must occur exactly once in the file.")
    ]
    new_text: Annotated[str, Field(description="Text to put in its place.")]


class EditArguments(BaseModel):
    path: Annotated[str, Field(description="File to edit, relative to the workspace root.")]
    edits: Annotated[
        list[EditBlock],
        Field(
            min_length=1,
            description="Replacements, all applied or none. Each old_text is matched against "
            "the file as it is now, so blocks must not overlap.",
        ),
    ]


def _left_out(old: str, new: str, text: str) -> str | None:
    """Which of ``old`` and ``new`` has the words a failure's digest shows in place of lines
    it leaves out (``_failures.LEFT_OUT``) that the file does not have, and those words."""
    for which, given in (("old_text", old), ("new_text", new)):
        for found in LEFT_OUT.finditer(given):
            if found[1] not in text:
                return f"{which} has {found[1]!r}"
    return None


def _tool_output_content(name: str, output: str) -> str:
    return (
        f"no change was made to {name}: content has {output}, which a tool's result showed, "
        "not the file's text. Give the file's whole text as it is to be, or change a part of "
        "it with edit_file."
    )


def _unparsable(name: str, broken: _syntax.SyntaxProblem, text: str, field: str) -> str:
    """Why an edit was refused, the line that would not parse shown on its own line with
    nothing after it (seen, bench: nn-bo-drop-nones: shown inside parentheses, the line
    ``…isinstance(new_parent, Set)`` read ``…Set))``)."""
    return (
        f"no change was made to {name}: the result would not parse as {broken.kind}, "
        f"{broken.describe(text)}\nFix {field} (its indentation, brackets, quotes, commas) "
        "and try again."
    )


def _not_read(name: str) -> str:
    return (
        f"no change was made to {name}: it has not been read in this session. read_file {name} "
        "(or read_symbol the definition you mean to change) first, then copy old_text from "
        "what it shows"
    )


def _outside(name: str, text: str, spans: list[Span], ctx: ToolContext, path: Path) -> str | None:
    """Why an edit of a file known only by some of its definitions reaches outside them, or
    ``None`` when every block lies inside a definition the model was shown (as it is now)."""
    known = ctx.files.shown.symbols_of(path)
    found = outline(name, text)
    python = found.language == "Python"
    symbols = {found.find(n) or (nested(text, n) if python else None) for n in known} - {None}
    ranges = sorted((s.start, s.end, s.name) for s in symbols if s is not None)
    outside = []
    for start, end, _, number in spans:
        first = text.count("\n", 0, start) + 1
        last = text.count("\n", 0, max(end - 1, start)) + 1
        if not any(low <= first and last <= high for low, high, _ in ranges):
            outside.append(f"block {number} (lines {first}-{last})")
    if not outside:
        return None
    seen = ", ".join(f"{n} (lines {low}-{high})" for low, high, n in ranges) or "none as it is now"
    return (
        f"no change was made to {name}: {', '.join(outside)} lies outside what this session "
        f"has read of it (read_symbol: {seen}). read_file {name}, or read_symbol the "
        "definition that holds those lines, first"
    )


async def plan_edit(arguments: EditArguments, ctx: ToolContext) -> EditPlan | ToolResult:
    path = ctx.workspace.resolve(arguments.path, write=True)
    name = ctx.workspace.display(path)
    whole = ctx.files.shown.read_whole(path)
    if not whole and not ctx.files.shown.symbols_of(path):
        if not path.is_file():
            await ctx.files.read(path)  # the read's own message: not there, a folder, …
        return ToolResult.failure(_not_read(name))
    document = await ctx.files.read(path)
    text = document.text
    crlf = document.newline == "\r\n"
    problems: list[str] = []
    spans: list[Span] = []
    placed: list[str] = []
    """Blocks found more than once, and the place taken: the one where a tool pointed."""
    for number, block in enumerate(arguments.edits, 1):
        old, new = block.old_text, block.new_text
        if crlf and "\r\n" not in old:
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        if (marker := _left_out(old, new, text)) is not None:
            problems.append(
                f"block {number}: {marker}, which Foehn showed in place of lines it left out; "
                "the file does not have it. Leave those words out and give only the "
                "file's own lines."
            )
            continue
        if numbers := numbered_copies(new, text):
            problems.append(
                f"block {number}: new_text has read_file's line numbers in front of its lines "
                f"({', '.join(map(str, numbers[:3]))}); write the lines as the file has them, "
                "without the numbers"
            )
            continue
        if (output := tool_output(new, text)) is not None:
            problems.append(
                f"block {number}: new_text has {output}, which a tool's result showed; the file "
                "does not have it. Give only the file's own lines."
            )
            continue
        if noted := noted_lines(new, text):
            problems.append(
                f"block {number}: new_text has a note after its code ({noted[0].strip()!r}), as "
                "the traced run marks lines; write the code alone, without the note"
            )
            continue
        if not old:
            last = text.rstrip("\n").rpartition("\n")[2]
            problems.append(
                f"block {number}: old_text is empty; to add lines at the end, give the last line "
                f"({last!r}) as old_text and repeat it in new_text before the new lines"
            )
            continue
        starts = occurrences(text, old)
        point = ctx.files.shown.last_point(path)
        if len(starts) > 1 and (found := pointed(text, old, name, point)) is not None:
            start, definition = found
            placed.append(
                f"block {number}'s old_text is in {len(starts)}{'+' if len(starts) >= 10 else ''}"
                f" places; the one changed is in {definition.name} (line "
                f"{line_of(text, start)}), where a tool last pointed (line {point})"
            )
            starts = [start]
        if not starts:
            problems.append(f"block {number}: old_text not found; {explain_missing(text, old)}")
        elif len(starts) > 1:
            problems.append(f"block {number}: old_text {explain_multiple(text, starts, name)}")
        else:
            spans.append((starts[0], starts[0] + len(old), new, number))
    spans, joins, overlaps = joined(text, sorted(spans))
    problems += overlaps
    if problems:
        listed = "\n".join(f"- {p}" for p in problems)
        return ToolResult.failure(f"no change was made to {name}:\n{listed}")
    pieces, cursor = [], 0
    for start, end, new, _ in spans:
        pieces += [text[cursor:start], new]
        cursor = end
    updated = "".join([*pieces, text[cursor:]])
    if updated == text:
        return ToolResult.failure(f"the edits leave {name} unchanged (new_text equals old_text)")
    if not whole and (why := _outside(name, text, spans, ctx, path)):
        return ToolResult.failure(why)
    if broken := _syntax.breaks(name, text, updated):
        # A read of the file after this opens at the lines the edit meant to change.
        ctx.files.shown.point(path, text.count("\n", 0, spans[0][0]) + 1)
        return ToolResult.failure(_unparsable(name, broken, updated, "new_text"))
    moved: list[str] = []
    if (lift := lifted(name, text, updated)) is not None:
        updated = lift.text
        moved = [
            f"{definition} was indented under {function}, after its end, where it would never "
            f"run: it is put beside {function}"
            for definition, function in lift.moved
        ]
    if why := code_refusal(name, text, updated, path, ctx):
        return ToolResult.failure(why)
    change = WriteFile(path=path, text=updated, old_text=text, old_fingerprint=document.fingerprint)
    blocks = len(spans)
    return EditPlan(
        tool="edit_file",
        changes=(change,),
        summary=f"edit {name} ({blocks} block{'s' if blocks != 1 else ''})"
        + "".join(f"; {p}" for p in [*placed, *joins, *moved]),
    )


class MoveArguments(BaseModel):
    source: Annotated[str, Field(description="File or folder to move or rename.")]
    destination: Annotated[str, Field(description="New path; an existing file there is replaced.")]


def _assess_move(arguments: MoveArguments, ctx: ToolContext) -> RiskLevel:
    try:
        destination = ctx.workspace.resolve(arguments.destination, write=True)
    except PathRefusedError:
        return RiskLevel.WRITE
    return RiskLevel.DESTRUCTIVE if destination.exists() else RiskLevel.WRITE


async def plan_move(arguments: MoveArguments, ctx: ToolContext) -> EditPlan | ToolResult:
    source = ctx.workspace.resolve(arguments.source, write=True)
    destination = ctx.workspace.resolve(arguments.destination, write=True)
    src, dst = ctx.workspace.display(source), ctx.workspace.display(destination)
    if not source.exists():
        return ToolResult.failure(f"{src} does not exist")
    if source in ctx.workspace.roots:
        return ToolResult.failure("the workspace root cannot be moved")
    if destination.is_dir():
        return ToolResult.failure(
            f"{dst} is an existing folder; give the full new path, e.g. {dst}/{source.name}"
        )
    if destination == source:
        return ToolResult.failure("source and destination are the same path")
    if source.is_dir() and destination.is_relative_to(source):
        return ToolResult.failure(f"cannot move {src} into itself")
    overwrite = destination.exists()
    changes: list[FileChange] = [*_missing_parents(destination)]
    changes.append(MovePath(source=source, destination=destination, overwrite=overwrite))
    verb = "move (replacing the existing file)" if overwrite else "move"
    return EditPlan(tool="move_path", changes=tuple(changes), summary=f"{verb} {src} -> {dst}")


class DirectoryArguments(BaseModel):
    path: Annotated[str, Field(description="Folder to create, with any missing parents.")]


async def plan_directory(arguments: DirectoryArguments, ctx: ToolContext) -> EditPlan | ToolResult:
    path = ctx.workspace.resolve(arguments.path, write=True)
    name = ctx.workspace.display(path)
    if path.is_dir():
        return ToolResult.success(f"{name}/ already exists; nothing changed")
    if path.exists():
        return ToolResult.failure(f"{name} exists and is a file")
    return EditPlan(
        tool="make_directory", changes=(MakeDirectory(path=path),), summary=f"create {name}/"
    )


class DeleteArguments(BaseModel):
    path: Annotated[str, Field(description="File or folder to delete.")]
    recursive: Annotated[
        bool, Field(description="Required to delete a folder and everything in it.")
    ] = False


async def plan_delete(arguments: DeleteArguments, ctx: ToolContext) -> EditPlan | ToolResult:
    path = ctx.workspace.resolve(arguments.path, write=True)
    name = ctx.workspace.display(path)
    if path in ctx.workspace.roots:
        return ToolResult.failure("the workspace root cannot be deleted")
    if not path.exists():
        return ToolResult.failure(f"{name} does not exist")
    if path.is_dir():
        if not arguments.recursive:
            return ToolResult.failure(
                f"{name} is a folder; pass recursive=true to delete it and everything in it"
            )
        count = sum(len(files) for _, _, files in os.walk(path))
        return EditPlan(
            tool="delete_path",
            changes=(DeletePath(path=path, recursive=True),),
            summary=f"delete folder {name}/ ({count} files)",
        )
    old_text: str | None
    try:
        old_text = (await ctx.files.read(path)).text
    except FileReadError:
        old_text = None
    return EditPlan(
        tool="delete_path",
        changes=(DeletePath(path=path, old_text=old_text),),
        summary=f"delete {name}",
    )


def _reads(arguments: Mapping[str, Any]) -> CallPaths:
    return CallPaths(reads=(node_id(str(arguments["path"]))[0],), whole=True)


def _writes(arguments: Mapping[str, Any]) -> CallPaths:
    path = str(arguments["path"])
    return CallPaths(changes=(Change(before=path, after=path),), whole=True)


def _edits(arguments: Mapping[str, Any]) -> CallPaths:
    path = str(arguments["path"])
    return CallPaths(changes=(Change(before=path, after=path),))


def _moves(arguments: Mapping[str, Any]) -> CallPaths:
    move = Change(before=str(arguments["source"]), after=str(arguments["destination"]))
    return CallPaths(changes=(move,))


def _makes(arguments: Mapping[str, Any]) -> CallPaths:
    return CallPaths(changes=(Change(before=None, after=str(arguments["path"])),))


def _deletes(arguments: Mapping[str, Any]) -> CallPaths:
    return CallPaths(changes=(Change(before=str(arguments["path"]), after=None),))


def _file_tool(
    name: str,
    description: str,
    model: type[BaseModel],
    plan: Any,
    risk: RiskLevel,
    kind: ToolKind,
    paths: PathsOf,
    **extra: Any,
) -> Tool:
    return Tool.from_model(
        name=name,
        description=description,
        model=model,
        plan=plan,
        risk=risk,
        kind=kind,
        paths=paths,
        sequential=True,
        **extra,
    )


def tools() -> list[Tool]:
    return [*_reading_tools(), *_changing_tools()]


def _reading_tools() -> list[Tool]:
    return [
        Tool.from_model(
            name="scan",
            description=(
                "List files under a folder of the workspace, honouring .gitignore and "
                f".foehnignore. Returns paths relative to the workspace root, at most "
                f"{MAX_SCAN_ENTRIES}; with recursive=false, folders are listed too (ending in /)."
            ),
            model=ScanArguments,
            execute=scan,
            risk=RiskLevel.READ_ONLY,
            kind="read",
        ),
        Tool.from_model(
            name="read_file",
            description=(
                "Read a text file with line numbers (number, tab, text). Shows the editor's "
                f"unsaved changes if the file is open. At most {MAX_READ_LINES} lines per call; "
                "page with offset and limit, or ask for the lines around a line, a definition "
                "or a piece of text with around. For a model with a small context window, a "
                "long file read without a range shows its definitions and the region asked "
                "for (around, or the line a search or a failing test pointed to)."
            ),
            model=ReadArguments,
            execute=read_file,
            risk=RiskLevel.READ_ONLY,
            kind="read",
            paths=_reads,
        ),
    ]


def _changing_tools() -> list[Tool]:
    return [
        _file_tool(
            "write_file",
            "Create a file, or replace the whole content of a file read in this session. "
            "Missing folders are created. To change or add lines in an existing file, use "
            "edit_file. Returns the diff.",
            WriteArguments,
            plan_write,
            RiskLevel.WRITE,
            "edit",
            _writes,
        ),
        _file_tool(
            "edit_file",
            "Change parts of a text file by exact replacement: each old_text must occur exactly "
            "once (copy it from read_file, without the line numbers, or from read_symbol). The "
            "file must have been read in this session (read_symbol counts for edits inside "
            "that definition). All blocks apply or none does; a result that no longer parses "
            "(Python, JSON, TOML, YAML) is refused. Returns the diff.",
            EditArguments,
            plan_edit,
            RiskLevel.WRITE,
            "edit",
            _edits,
        ),
        _file_tool(
            "move_path",
            "Move or rename a file or folder inside the workspace. Replacing an existing file "
            "counts as destructive.",
            MoveArguments,
            plan_move,
            RiskLevel.WRITE,
            "move",
            _moves,
            assess=_assess_move,
        ),
        _file_tool(
            "make_directory",
            "Create a folder and any missing parents.",
            DirectoryArguments,
            plan_directory,
            RiskLevel.WRITE,
            "edit",
            _makes,
        ),
        _file_tool(
            "delete_path",
            "Delete a file, or a folder with recursive=true.",
            DeleteArguments,
            plan_delete,
            RiskLevel.DESTRUCTIVE,
            "delete",
            _deletes,
        ),
    ]
