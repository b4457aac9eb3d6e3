"""Precise reading: ``outline`` (the definitions of a file or folder, with their line ranges) and
``read_symbol`` (one definition's exact text), so a model reads what it needs instead of whole
files, and can quote a definition exactly in an ``edit_file``.

Both see the editor's unsaved buffers like ``read_file``. What ``read_symbol`` shows is recorded
in the session's read ledger: ``edit_file`` then accepts edits inside that definition without
the whole file having been read.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult
from foehn_lsp.errors import FileReadError
from foehn_lsp.tools.contract import CallPaths
from foehn_lsp.workspace.listing import common_args, ripgrep
from foehn_lsp.workspace.symbols import (
    Outline,
    Symbol,
    language_of,
    nested,
    outline,
    symbol_text,
)
from foehn_plugins._suggest import missing, suggestion

MAX_OUTLINE_LINES = 400
"""Lines of one outline (a folder's stops listing files there and says how many were left)."""
MAX_FOLDER_FILES = 200
"""Source files a folder outline parses."""
MAX_SYMBOL_CHARS = 60_000


class OutlineArguments(BaseModel):
    path: Annotated[
        str, Field(description="A file, or a folder (its source files), relative to the root.")
    ]


class SymbolArguments(BaseModel):
    path: Annotated[str, Field(description="The file, relative to the workspace root.")]
    name: Annotated[
        str,
        Field(
            description="The definition's name as outline shows it: a function or class, or "
            "Class.method for a method."
        ),
    ]


def _how(found: Outline) -> str:
    if found.parser == "plain":
        return f"{found.note}; line ranges are guessed from indentation"
    return f"{found.language}, parsed with {found.parser}"


def _lines(found: Outline, *, depth: int | None = None) -> list[str]:
    width = len(str(max((s.end for s in found.symbols), default=1)))
    return [
        f"{f'{s.start}-{s.end}':>{2 * width + 1}}  {'  ' * s.depth}{s.signature}"
        for s in found.symbols
        if depth is None or s.depth <= depth
    ]


async def outline_tool(arguments: OutlineArguments, ctx: ToolContext) -> ToolResult:
    path = ctx.workspace.resolve(arguments.path)
    if path.is_dir():
        return await _folder(path, ctx)
    if not path.exists():
        near = suggestion(ctx.workspace, arguments.path) or "; scan to see what is there"
        return ToolResult.failure(f"{arguments.path!r} is not there{near}")
    document = await ctx.files.read(path)
    found = outline(ctx.workspace.display(path), document.text)
    name = ctx.workspace.display(path)
    if not found.symbols:
        return ToolResult.success(
            f"{name}: no definitions found ({_how(found)}); read_file shows the text",
            data={"parser": found.parser},
        )
    body = _lines(found)
    shown = body[:MAX_OUTLINE_LINES]
    if len(body) > len(shown):
        shown.append(f"... {len(body) - len(shown)} more definitions; read_file with offset")
    example = next((s.name for s in found.symbols if s.depth), found.symbols[0].name)
    header = f"{name}: {len(found.symbols)} definitions ({_how(found)}), lines first-last:"
    footer = f"read_symbol path={name!r} name={example!r} shows one definition's exact text."
    return ToolResult.success("\n".join([header, *shown, footer]), data={"parser": found.parser})


async def _folder(folder: Path, ctx: ToolContext) -> ToolResult:
    files = await asyncio.to_thread(_source_files, ctx, folder)
    shown_name = ctx.workspace.display(folder)
    if not files:
        return ToolResult.success(
            f"no source files Foehn can outline under {shown_name} (Python, JavaScript, "
            "TypeScript, Rust, Go); outline a single file for a plain listing"
        )
    out: list[str] = []
    parsed = skipped = 0
    for path in files[:MAX_FOLDER_FILES]:
        try:
            document = await ctx.files.read(path)
        except FileReadError:
            skipped += 1
            continue
        relative = ctx.workspace.display(path)
        found = outline(relative, document.text)
        parsed += 1
        note = f"  ({found.note})" if found.parser == "plain" else ""
        entry = [f"{relative}:{note}", *(f"  {line}" for line in _lines(found, depth=1))]
        if len(out) + len(entry) > MAX_OUTLINE_LINES:
            break
        out += entry
    left = len(files) - parsed
    header = f"{len(files)} source files under {shown_name}; definitions with line ranges:"
    footer = []
    if left > 0:
        footer.append(f"... {left} more files not outlined; outline a subfolder or a file")
    if skipped:
        footer.append(f"({skipped} files could not be read as text)")
    footer.append("outline a file for all its definitions; read_symbol for one's text.")
    return ToolResult.success("\n".join([header, *out, *footer]), data={"files": len(files)})


def _source_files(ctx: ToolContext, folder: Path) -> list[Path]:
    """The files under ``folder`` that a parser reads, as ``scan`` lists them."""
    rg = ripgrep()
    if rg is None:
        raise FileNotFoundError("ripgrep (rg) is not installed; pip install ripgrep")
    root = ctx.workspace.root_of(folder) or ctx.workspace.root
    args = [rg, "--files", *common_args(ctx.workspace)]
    if folder != root:
        args += ["--", os.fspath(folder.relative_to(root))]
    done = subprocess.run(args, cwd=root, capture_output=True, check=False)
    if done.returncode not in (0, 1):
        raise OSError(done.stderr.decode("utf-8", "replace").strip())
    names = sorted(done.stdout.decode("utf-8", "replace").splitlines())
    return [root / name for name in names if language_of(name) is not None]


async def read_symbol(arguments: SymbolArguments, ctx: ToolContext) -> ToolResult:
    path = ctx.workspace.resolve(arguments.path)
    name = ctx.workspace.display(path)
    if not path.exists() and ctx.files.buffers(path) is None:
        return ToolResult.failure(missing(ctx.workspace, arguments.path))
    document = await ctx.files.read(path)
    found = outline(name, document.text)
    wanted = arguments.name.strip()
    symbol = found.find(wanted) or found.find(_bare(wanted))
    if symbol is None and found.language == "Python":
        symbol = nested(document.text, wanted.replace("::", "."))
    if symbol is None:
        return ToolResult.failure(_not_found(name, wanted, found))
    text = symbol_text(document.text, symbol).replace("\r\n", "\n")
    total = len(document.text.splitlines())
    header = f"{name}: {symbol.name} ({symbol.kind}), lines {symbol.start}-{symbol.end} of {total}"
    if found.parser == "plain":
        header += f" ({found.note}; the range is a guess)"
    if len(text) > MAX_SYMBOL_CHARS:
        cut = text[:MAX_SYMBOL_CHARS].count("\n")
        text = text[:MAX_SYMBOL_CHARS].rpartition("\n")[0] + "\n"
        header += (
            f"; only its first {cut} lines are shown: read_file with offset="
            f"{symbol.start + cut} for the rest"
        )
    else:
        ctx.files.shown.saw_symbol(path, symbol.name)
    return ToolResult.success(
        f"{header}; its exact text:\n{text}",
        data={"name": symbol.name, "start": symbol.start, "end": symbol.end},
    )


_HEADER = re.compile(r"^(?:async\s+def|def|class)\s+|\s*[(:].*$", re.DOTALL)
"""What a name given as its definition's header has around the name: ``def ``, the parameters."""


def _bare(wanted: str) -> str:
    """``wanted`` without what its definition's header has around it: the model asked for
    ``sliced(seq, n, strict=False)`` (bench: nn-mi-sliced), twice, and was told no definition
    had that name."""
    return _HEADER.sub("", wanted)


def _not_found(name: str, wanted: str, found: Outline) -> str:
    tail = wanted.rsplit(".", 1)[-1]
    several = [s.name for s in found.symbols if s.name.rsplit(".", 1)[-1] == tail]
    if len(several) > 1:
        return (
            f"{wanted!r} names {len(several)} definitions in {name}: {', '.join(several)}; "
            "give the qualified name"
        )
    nearest = found.nearest(wanted)
    if nearest:
        return f"no definition named {wanted!r} in {name}; nearest: {', '.join(nearest)}"
    listed = _first_names(found.symbols)
    if listed:
        return f"no definition named {wanted!r} in {name}; it defines: {listed}"
    return f"no definitions found in {name} ({_how(found)}); read_file shows the text"


def _first_names(symbols: tuple[Symbol, ...], count: int = 12) -> str:
    names = [s.name for s in symbols[:count]]
    more = f" and {len(symbols) - count} more" if len(symbols) > count else ""
    return ", ".join(names) + more


def _symbol_paths(arguments: Mapping[str, Any]) -> CallPaths:
    return CallPaths(reads=(str(arguments["path"]),))


def tools() -> list[Tool]:
    return [
        Tool.from_model(
            name="outline",
            description=(
                "The definitions (classes, functions, methods) of a file, or of every source "
                "file under a folder, each with its line range and signature: a map to read "
                "less. Python, JavaScript, TypeScript, Rust and Go are parsed; other files get "
                "a plain listing that says so."
            ),
            model=OutlineArguments,
            execute=outline_tool,
            risk=RiskLevel.READ_ONLY,
            kind="read",
        ),
        Tool.from_model(
            name="read_symbol",
            description=(
                "The exact text of one definition (function, class, or Class.method) with its "
                "line range, without line numbers: quote it as old_text in edit_file. Names "
                "that do not exist get the nearest ones."
            ),
            model=SymbolArguments,
            execute=read_symbol,
            risk=RiskLevel.READ_ONLY,
            kind="read",
            paths=_symbol_paths,
        ),
    ]
