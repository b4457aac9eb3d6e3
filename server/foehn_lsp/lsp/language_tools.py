"""The editor's language intelligence as tools, where the client serves it
(``initializationOptions.languageTools: true``): ``definition``, ``references``,
``workspace_symbols`` (read-only) and ``rename_symbol`` (a write, planned and approved like any
edit). Nowhere else: the CLI, ACP, MCP and a client without the option never have them.

The model names a symbol by file, 1-based line and the identifier written on that line; the
server finds its column in the file's text (the open buffer first) and asks the client:

    foehn/definition       {runId, uri, position}           → {locations: Location[]}
    foehn/references       {runId, uri, position}           → {locations: Location[]}
    foehn/workspaceSymbols {runId, query}                   → {symbols: [{name, kind,
                                                               containerName?, location}]}
    foehn/rename           {runId, uri, position, newName}  → {edit: WorkspaceEdit | null}

Positions are LSP's (0-based, in the negotiated encoding). Each request waits at most
``foehn.clientTimeouts.languageSeconds``; no answer, an error or an answer of another shape is
a failed call saying so, and the turn goes on. Locations are shown as workspace-relative
``path:line:col`` with the line's text, at most ``MAX_SHOWN``; a location outside the workspace
is named as outside and not read. ``rename_symbol``: the client returns the rename provider's
edit without applying it; it becomes one plan of whole-file writes (every file inside the
workspace and resolved as for ``edit_file``, else the rename is refused whole), which the
person approves from its diff and the host applies (``workspace/applyEdit``) through the
turn's checkpoint, so undo reverts it.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from lsprotocol import types
from pydantic import BaseModel, Field
from pygls.workspace import PositionCodec

from foehn_lsp.errors import PathRefusedError, ToolInputError
from foehn_lsp.lsp import convert
from foehn_lsp.lsp import language_answers as answers
from foehn_lsp.lsp.lines import lsp_lines
from foehn_lsp.lsp.table import DEFINITION, REFERENCES, RENAME, WORKSPACE_SYMBOLS
from foehn_lsp.lsp.wire import client
from foehn_lsp.risk import RiskLevel
from foehn_lsp.tools.contract import Tool, ToolContext, ToolResult
from foehn_lsp.tools.discovery import LoadedTools
from foehn_lsp.tools.registry import ToolRegistry
from foehn_lsp.workspace.edits import EditPlan, WriteFile

if TYPE_CHECKING:
    from foehn_lsp.lsp.server import FoehnServer

MAX_SHOWN = 50
"""Locations or symbols listed per call; the rest are counted."""
MAX_LINE_CHARS = 200


def serves_language_tools(server: FoehnServer) -> bool:
    return server.init_options.get("languageTools") is True


def offered(server: FoehnServer, tools: LoadedTools, run_id: str) -> LoadedTools:
    """``tools``, with the language tools for run ``run_id`` when the client serves them (a
    new registry: ``tools`` is the server's). A loaded tool of the same name keeps its name."""
    if not serves_language_tools(server):
        return tools
    ours = [
        t for t in language_tools(EditorLanguage(server, run_id)) if t.name not in tools.registry
    ]
    registry = ToolRegistry(
        [*tools.registry, *ours], default_timeout=tools.registry.default_timeout
    )
    return dataclasses.replace(tools, registry=registry)


class EditorLanguage:
    """The client's language requests for one run."""

    def __init__(self, server: FoehnServer, run_id: str) -> None:
        self.server = server
        self.run_id = run_id

    @property
    def codec(self) -> PositionCodec:
        return self.server.workspace.position_codec

    async def ask(self, tool: str, method: str, params: Mapping[str, Any]) -> Any:
        """The client's answer to ``method``; ``ToolInputError`` when there is none in time."""
        reply = await client.request(
            self.server.protocol,
            method,
            {"runId": self.run_id, **params},
            self.server.timeouts.language,
        )
        if isinstance(reply, client.NoAnswer):
            raise ToolInputError(
                f"{tool}: the editor did not answer {method} ({reply.reason}); nothing was "
                "changed. Use search or read_symbol instead"
            )
        return reply.value


class SymbolAt(BaseModel):
    path: Annotated[str, Field(description="File the symbol is written in, relative to the root.")]
    line: Annotated[int, Field(ge=1, description="1-based line the name is written on.")]
    name: Annotated[
        str,
        Field(
            min_length=1,
            description="The identifier as written on that line (its first occurrence there "
            "is used); `obj.attr` points at `attr`.",
        ),
    ]


class SymbolQuery(BaseModel):
    query: Annotated[str, Field(min_length=1, description="A symbol name or part of one.")]


class RenameArguments(SymbolAt):
    new_name: Annotated[str, Field(min_length=1, description="The symbol's new name.")]


@dataclass(frozen=True, kw_only=True)
class Target:
    """Where the model pointed: its uri and the position as the client counts it."""

    shown: str
    """``path:line:col`` as the model reads it."""
    uri: str
    position: dict[str, int]


_IDENTIFIER = r"[\w$]"


def _occurrences(text: str, name: str) -> list[int]:
    pattern = re.compile(rf"(?<!{_IDENTIFIER}){re.escape(name)}(?!{_IDENTIFIER})")
    return [m.start() for m in pattern.finditer(text)]


async def target(arguments: SymbolAt, ctx: ToolContext, codec: PositionCodec) -> Target:
    """The position of ``arguments.name`` on its line, or ``ToolInputError`` saying why none."""
    path = ctx.workspace.resolve(arguments.path)
    name = ctx.workspace.display(path)
    lines = lsp_lines((await ctx.files.read(path)).text)
    if arguments.line > len(lines):
        raise ToolInputError(
            f"line {arguments.line} is past the end of {name}, which has {len(lines)} lines"
        )
    text = lines[arguments.line - 1]
    found = _occurrences(text, arguments.name)
    if not found:
        elsewhere = [n for n, line in enumerate(lines, 1) if _occurrences(line, arguments.name)]
        hint = (
            f"it is on line{'s' if len(elsewhere) > 1 else ''} "
            + ", ".join(map(str, elsewhere[:5]))
            + (" …" if len(elsewhere) > 5 else "")
            if elsewhere
            else f"it is nowhere in {name}"
        )
        raise ToolInputError(
            f"{arguments.name!r} is not written on line {arguments.line} of {name} "
            f"({_cut(text.strip())!r}); {hint}"
        )
    last = arguments.name.rsplit(".", 1)[-1]
    column = found[0] + len(arguments.name) - len(last)
    position = codec.position_to_client_units(
        lines, types.Position(line=arguments.line - 1, character=column)
    )
    return Target(
        shown=f"{name}:{arguments.line}:{column + 1}",
        uri=convert.uri_of(path),
        position={"line": position.line, "character": position.character},
    )


def _cut(text: str) -> str:
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + " …"


def _inside(uri: str, ctx: ToolContext, *, write: bool = False) -> Path | None:
    """The resolved file ``uri`` names inside the workspace, or ``None`` (another scheme, or
    outside the roots)."""
    path = convert.path_of(uri) if uri.startswith("file:") else None
    if path is None:
        return None
    try:
        return ctx.workspace.resolve(os.fspath(path), write=write)
    except PathRefusedError:
        return None


class _Lines:
    """The files locations point into, each read once per call."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self._read: dict[Path, list[str] | str] = {}

    async def of(self, path: Path) -> list[str] | str:
        """The file's lines, or why it cannot be read."""
        if path not in self._read:
            try:
                self._read[path] = lsp_lines((await self.ctx.files.read(path)).text)
            except ToolInputError as exc:
                self._read[path] = str(exc)
        return self._read[path]


async def _shown(
    at: answers.Location, ctx: ToolContext, codec: PositionCodec, lines: _Lines
) -> tuple[str, str | None]:
    """``path:line:col`` of ``at`` (1-based, in characters) and the line's text, if read."""
    line = at.start.line + 1
    path = _inside(at.uri, ctx)
    if path is None:
        where = convert.path_of(at.uri) if at.uri.startswith("file:") else None
        named = os.fspath(where) if where is not None else at.uri
        return f"{named}:{line}:{at.start.character + 1} (outside the workspace; not read)", None
    name = ctx.workspace.display(path)
    text = await lines.of(path)
    if isinstance(text, str):
        return f"{name}:{line}:{at.start.character + 1} (cannot be read: {text})", None
    if at.start.line >= len(text):
        return f"{name}:{line}:{at.start.character + 1}", None
    column = _column(text[at.start.line], at.start.character, codec)
    return f"{name}:{line}:{column + 1}", _cut(text[at.start.line].strip())


def _column(line: str, character: int, codec: PositionCodec) -> int:
    """The 0-based column in characters of a client's ``character`` on ``line``."""
    if character >= codec.client_num_units(line):
        return len(line)
    position = codec.position_from_client_units([line], types.Position(line=0, character=character))
    return position.character


def _more(total: int) -> str:
    return f"\n… and {total - MAX_SHOWN} more (showing {MAX_SHOWN})" if total > MAX_SHOWN else ""


def _not_shaped(method: str, shape: str) -> ToolInputError:
    return ToolInputError(f"the editor's answer to {method} was not {shape}; nothing was changed")


async def _locations(
    language: EditorLanguage, tool: str, method: str, arguments: SymbolAt, ctx: ToolContext
) -> ToolResult:
    where = await target(arguments, ctx, language.codec)
    value = await language.ask(tool, method, {"uri": where.uri, "position": where.position})
    found = answers.locations(value)
    if found is None:
        raise _not_shaped(method, "{locations: [{uri, range}]}")
    what = "definition of" if tool == "definition" else "references to"
    if not found:
        return ToolResult.success(f"the editor knows no {what} {arguments.name} at {where.shown}")
    lines = _Lines(ctx)
    listed = []
    for at in found[:MAX_SHOWN]:
        place, text = await _shown(at, ctx, language.codec, lines)
        listed.append(f"{place}: {text}" if text is not None else place)
    count = f"{len(found)} location{'' if len(found) == 1 else 's'}"
    header = f"{what} {arguments.name} at {where.shown} ({count}):"
    return ToolResult.success("\n".join([header, *listed]) + _more(len(found)))


async def _symbols(
    language: EditorLanguage, arguments: SymbolQuery, ctx: ToolContext
) -> ToolResult:
    value = await language.ask("workspace_symbols", WORKSPACE_SYMBOLS, {"query": arguments.query})
    found = answers.symbols(value)
    if found is None:
        raise _not_shaped(WORKSPACE_SYMBOLS, "{symbols: [{name, kind, location}]}")
    if not found:
        return ToolResult.success(f"the editor knows no symbol matching {arguments.query!r}")
    lines = _Lines(ctx)
    listed = []
    for symbol in found[:MAX_SHOWN]:
        place, _ = await _shown(symbol.location, ctx, language.codec, lines)
        inside = f" in {symbol.container}" if symbol.container else ""
        listed.append(f"{symbol.name} ({symbol.kind}{inside}) {place}")
    header = f"symbols matching {arguments.query!r} ({len(found)}):"
    return ToolResult.success("\n".join([header, *listed]) + _more(len(found)))


def _offsets(text: str, codec: PositionCodec) -> Callable[[answers.Spot], int]:
    """A function from a client's position in ``text`` to the string offset it names."""
    lines = lsp_lines(text, keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(spot: answers.Spot) -> int:
        if spot.line >= len(lines):
            return len(text)
        body = lines[spot.line].rstrip("\r\n")
        return starts[spot.line] + _column(body, spot.character, codec)

    return offset


def renamed(text: str, changes: Sequence[answers.TextChange], codec: PositionCodec) -> str | None:
    """``text`` with the rename provider's ``changes`` made, or ``None`` when they overlap."""
    offset = _offsets(text, codec)
    # Ties keep the provider's order: inserts at one position go in as LSP lists them.
    spans = sorted((offset(c.start), offset(c.end), index) for index, c in enumerate(changes))
    pieces, cursor = [], 0
    for start, end, index in spans:
        if start < cursor:
            return None
        pieces += [text[cursor:start], changes[index].new_text]
        cursor = end
    return "".join([*pieces, text[cursor:]])


async def plan_rename(
    language: EditorLanguage, arguments: RenameArguments, ctx: ToolContext
) -> EditPlan | ToolResult:
    if arguments.new_name == arguments.name.rsplit(".", 1)[-1]:
        return ToolResult.failure(f"new_name is {arguments.name!r} already; nothing to rename")
    where = await target(arguments, ctx, language.codec)
    value = await language.ask(
        "rename_symbol",
        RENAME,
        {"uri": where.uri, "position": where.position, "newName": arguments.new_name},
    )
    edit = answers.rename_edit(value)
    if edit is None:
        raise _not_shaped(RENAME, "{edit: WorkspaceEdit | null}")
    if edit.resource_operations:
        return ToolResult.failure(
            "rename_symbol refused: the editor's rename would also create, rename or delete "
            f"files ({', '.join(edit.resource_operations)}); nothing was changed"
        )
    if not any(edit.files.values()):
        return ToolResult.failure(
            f"the editor's rename provider changed nothing for {arguments.name} at "
            f"{where.shown}; nothing was changed"
        )
    paths = {uri: _inside(uri, ctx, write=True) for uri in edit.files}
    if outside := [uri for uri, path in paths.items() if path is None]:
        named = ", ".join(_uri_shown(uri) for uri in outside[:5])
        return ToolResult.failure(
            "rename_symbol refused: the rename would also change files outside the workspace "
            f"({named}); nothing was changed"
        )
    by_path: dict[Path, list[answers.TextChange]] = {}
    for uri, path in paths.items():
        assert path is not None
        by_path.setdefault(path, []).extend(edit.files[uri])
    writes = []
    for path, changes in by_path.items():
        current = await ctx.files.read(path)
        text = renamed(current.text, changes, language.codec)
        if text is None:
            raise ToolInputError(
                f"the editor's rename edits of {ctx.workspace.display(path)} overlap; nothing "
                "was changed"
            )
        if text != current.text:
            writes.append(
                WriteFile(
                    path=path,
                    text=text,
                    old_text=current.text,
                    old_fingerprint=current.fingerprint,
                )
            )
    count = f"{len(writes)} file{'' if len(writes) == 1 else 's'}"
    return EditPlan(
        tool="rename_symbol",
        changes=tuple(writes),
        summary=f"rename {arguments.name} to {arguments.new_name} ({count})",
    )


def _uri_shown(uri: str) -> str:
    path = convert.path_of(uri) if uri.startswith("file:") else None
    return os.fspath(path) if path is not None else uri


@functools.cache
def definitions() -> dict[str, Tool]:
    """The four tools' definitions (descriptions, schemas, validators), built once: a pydantic
    schema each is too dear to derive on every turn. ``language_tools`` binds their calls to a
    run (``execute``, or ``plan`` for the rename)."""
    return {
        tool.name: tool
        for tool in (
            Tool.from_model(
                name="definition",
                description=(
                    "Where the editor's language server says a symbol is defined: give the "
                    "file, the 1-based line and the name as written there. Returns "
                    "path:line:col and the line's text for each definition (at most "
                    f"{MAX_SHOWN})."
                ),
                model=SymbolAt,
                risk=RiskLevel.READ_ONLY,
                kind="search",
            ),
            Tool.from_model(
                name="references",
                description=(
                    "Every use of a symbol the editor's language server knows of, across the "
                    "workspace: give the file, the 1-based line and the name as written there. "
                    f"Returns path:line:col and the line's text (at most {MAX_SHOWN})."
                ),
                model=SymbolAt,
                risk=RiskLevel.READ_ONLY,
                kind="search",
            ),
            Tool.from_model(
                name="workspace_symbols",
                description=(
                    "Find definitions by name across the workspace through the editor's "
                    f"language servers. Returns name, kind and path:line:col (at most "
                    f"{MAX_SHOWN})."
                ),
                model=SymbolQuery,
                risk=RiskLevel.READ_ONLY,
                kind="search",
            ),
            Tool.from_model(
                name="rename_symbol",
                description=(
                    "Rename a symbol everywhere it is used, as the editor's rename does: give "
                    "the file, the 1-based line, the name as written there and new_name. Every "
                    "file it touches is changed at once, after approval; returns the diff."
                ),
                model=RenameArguments,
                risk=RiskLevel.WRITE,
                kind="edit",
                sequential=True,
            ),
        )
    }


def language_tools(language: EditorLanguage) -> list[Tool]:
    """The four tools, asking the client through ``language``: their definitions with calls
    bound to it (no schema is derived again)."""

    async def definition(arguments: SymbolAt, ctx: ToolContext) -> ToolResult:
        return await _locations(language, "definition", DEFINITION, arguments, ctx)

    async def references(arguments: SymbolAt, ctx: ToolContext) -> ToolResult:
        return await _locations(language, "references", REFERENCES, arguments, ctx)

    async def workspace_symbols(arguments: SymbolQuery, ctx: ToolContext) -> ToolResult:
        return await _symbols(language, arguments, ctx)

    async def plan(arguments: RenameArguments, ctx: ToolContext) -> EditPlan | ToolResult:
        return await plan_rename(language, arguments, ctx)

    defined = definitions()
    return [
        dataclasses.replace(defined["definition"], execute=definition),
        dataclasses.replace(defined["references"], execute=references),
        dataclasses.replace(defined["workspace_symbols"], execute=workspace_symbols),
        dataclasses.replace(defined["rename_symbol"], plan=plan),
    ]
