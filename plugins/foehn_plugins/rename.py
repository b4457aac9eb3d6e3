"""``rename``: a definition's new name, in every file of the workspace where its old name
appears as a whole word, in one call and one approval, without an editor.

It renames words, not references: comments, strings and docs that name it change too, as a
person's search-and-replace of a unique name would. So it refuses whatever could make it
change a different thing of the same name: an old name defined in more than one place, a new
name already defined. A rename an ``edit_file`` began at the definition is finished by the same
call (the old name then defined nowhere, the new one once). The editor's ``rename_symbol``,
where a client serves it, follows references instead.
"""

from __future__ import annotations

import ast
import asyncio
import re
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult
from foehn_lsp.errors import PathRefusedError, ToolInputError
from foehn_lsp.workspace import EditPlan, WriteFile
from foehn_lsp.workspace.files import TextFile
from foehn_lsp.workspace.references import appearances
from foehn_lsp.workspace.symbols import outline

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_FILES = 200
"""Files one rename may change."""


class RenameArguments(BaseModel):
    name: Annotated[
        str,
        Field(
            min_length=1,
            description="The function, class, method or variable to rename, as defined "
            "(`Class.method` allowed).",
        ),
    ]
    new_name: Annotated[str, Field(min_length=1, description="Its new name.")]


def _definitions(documents: dict[str, TextFile], name: str) -> list[str]:
    """The files of ``documents`` that define ``name``, once per definition; a Python module's
    names assigned at its top level (``SETTLE_SECONDS = 2.0``) once per file."""
    return [
        *(
            shown
            for shown, document in documents.items()
            for symbol in outline(shown, document.text).symbols
            if symbol.name.rsplit(".", 1)[-1] == name
        ),
        *(
            shown
            for shown, document in documents.items()
            if shown.endswith(".py") and name in _assigned(document.text)
        ),
    ]


def _assigned(text: str) -> set[str]:
    """The names a Python module assigns at its top level (none if it does not parse). Seen
    (bench: ta-warmup): the rename of a module's constant refused as defined nowhere."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                names |= _bound(target)
        elif isinstance(node, ast.AnnAssign):
            names |= _bound(node.target)
    return names


def _bound(target: ast.expr) -> set[str]:
    """The names an assignment to ``target`` binds (``a``, ``a, b``; not ``a.b`` or ``a[0]``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {name for element in target.elts for name in _bound(element)}
    if isinstance(target, ast.Starred):
        return _bound(target.value)
    return set()


async def _documents(ctx: ToolContext, name: str, *, write: bool) -> dict[str, TextFile]:
    """The files where ``name`` appears as a whole word, as the session reads them (an open
    editor buffer first), by their workspace names."""
    places = await appearances(ctx.workspace, name, ctx.files.buffers)
    shown = sorted({p.path for p in places})
    if len(shown) > MAX_FILES:
        raise ToolInputError(
            f"{name} appears in {len(shown)} files, more than one rename may change "
            f"({MAX_FILES}); nothing was changed"
        )
    documents = {}
    for file in shown:
        try:
            path = ctx.workspace.resolve(file, write=write)
        except PathRefusedError as exc:
            raise ToolInputError(f"{name} appears in {file}, which cannot change: {exc}") from None
        documents[file] = await ctx.files.read(path)
    return documents


async def plan_rename(arguments: RenameArguments, ctx: ToolContext) -> EditPlan | ToolResult:
    old = arguments.name.rsplit(".", 1)[-1]
    new = arguments.new_name
    if (module := _module_file(ctx, arguments.name)) is not None:
        return ToolResult.failure(_module_advice(arguments.name, new, module, ctx))
    for given in (old, new):
        if not _IDENTIFIER.fullmatch(given):
            return ToolResult.failure(f"{given!r} is not a name (letters, digits and _)")
    if old == new:
        return ToolResult.failure(f"new_name is {old!r} already; nothing to rename")
    documents = await _documents(ctx, old, write=True)
    if not documents:
        return ToolResult.failure(
            f"{old} appears nowhere in the workspace; search for the name as it is written"
        )
    with_new = await _documents(ctx, new, write=False)
    # Parsing every file the names appear in is CPU work: off the event loop the server
    # answers on.
    return await asyncio.to_thread(_planned, old, new, documents, with_new)


def _module_file(ctx: ToolContext, dotted: str) -> Path | None:
    """The workspace's module file ``dotted`` names (``weatherlog.units``: ``units.py`` in a
    ``weatherlog`` package at the root or in ``src/``), if it names one."""
    if "." not in dotted or not all(_IDENTIFIER.fullmatch(p) for p in dotted.split(".")):
        return None
    relative = Path(*dotted.split("."))
    for folder in (ctx.workspace.root, ctx.workspace.root / "src"):
        for candidate in (folder / f"{relative}.py", folder / relative / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def _module_advice(dotted: str, new: str, module: Path, ctx: ToolContext) -> str:
    """How to rename the module ``dotted`` (its file ``module``) with the tools there are.
    Seen (bench: um-conversions): ``rename`` of ``weatherlog.units`` to
    ``weatherlog.conversions``, refused as "not a name", then an answer that nothing changed."""
    moved = module.parent if module.name == "__init__.py" else module
    last = new.rsplit(".", 1)[-1]
    target = moved.with_name(last if moved.is_dir() else f"{last}.py")
    shown, to = ctx.workspace.display(moved), ctx.workspace.display(target)
    return (
        f"{dotted} is a module ({shown}); rename changes names defined in code. To rename the "
        f"module: move_path {shown} to {to}, then change each import of it (search for "
        f"{dotted!r}) with edit_file."
    )


def _planned(
    old: str, new: str, documents: dict[str, TextFile], with_new: dict[str, TextFile]
) -> EditPlan | ToolResult:
    """The rename of ``old`` to ``new`` in ``documents`` (the files ``old`` appears in), or why
    it is refused (``with_new``: the files ``new`` appears in)."""
    defined = _definitions(documents, old)
    taken = _definitions(with_new, new)
    if len(defined) > 1:
        return ToolResult.failure(
            f"{old} is defined {len(defined)} times ({', '.join(defined)}): a rename by name "
            "would change every one. edit_file each place you mean instead"
        )
    if defined and taken:
        return ToolResult.failure(
            f"{new} is already defined ({', '.join(taken)}); choose another new_name"
        )
    if not defined and len(taken) != 1:
        return ToolResult.failure(
            f"{old} is used but defined nowhere in the workspace: a rename starts from a "
            "definition (search for def or class and the name to find it)"
        )
    pattern = re.compile(rf"(?<![\w$]){re.escape(old)}(?![\w$])")
    writes, places = [], 0
    for document in documents.values():
        text, count = pattern.subn(new, document.text)
        places += count
        if count:
            writes.append(
                WriteFile(
                    path=document.path,
                    text=text,
                    old_text=document.text,
                    old_fingerprint=document.fingerprint,
                )
            )
    files = f"{len(writes)} file{'' if len(writes) == 1 else 's'}"
    return EditPlan(
        tool="rename",
        changes=tuple(writes),
        summary=f"rename {old} to {new} ({places} place{'' if places == 1 else 's'} in {files})",
    )


def tools() -> list[Tool]:
    return [
        Tool.from_model(
            name="rename",
            description=(
                "Rename a function, class, method or variable: its definition and every place "
                "its name appears as a whole word, in every file of the workspace (comments "
                "and strings too), in one change. Refused when the name is defined more than "
                "once or the new name is taken. Also finishes a rename begun with edit_file. "
                "Returns the diff."
            ),
            model=RenameArguments,
            plan=plan_rename,
            risk=RiskLevel.WRITE,
            kind="edit",
            sequential=True,
        )
    ]
