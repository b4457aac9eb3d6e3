"""The shapes of the client's answers to the editor's language requests (``lsp.language_tools``),
checked: each parser returns Foehn's records, or ``None`` when the answer is not of its shape.

    foehn/definition, foehn/references  → {locations: [{uri, range}]}
    foehn/workspaceSymbols              → {symbols: [{name, kind, containerName?, location}]}
    foehn/rename                        → {edit: WorkspaceEdit | null}

Ranges are LSP's: 0-based lines, characters in the client's position encoding. A rename's
``WorkspaceEdit`` is read from its ``documentChanges`` when present, else from its ``changes``
(never both, as LSP says); a resource operation (creating, renaming or deleting a file) is kept
as such, for the tool to refuse.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lsprotocol import types


@dataclass(frozen=True, kw_only=True)
class Spot:
    """A position as the client sent it: 0-based line, character in its encoding."""

    line: int
    character: int


@dataclass(frozen=True, kw_only=True)
class Location:
    uri: str
    start: Spot
    end: Spot


@dataclass(frozen=True, kw_only=True)
class Symbol:
    name: str
    kind: str
    """LSP's ``SymbolKind`` in words (``function``, ``class``), ``symbol`` when unknown."""
    container: str | None
    location: Location


@dataclass(frozen=True, kw_only=True)
class TextChange:
    start: Spot
    end: Spot
    new_text: str


@dataclass(frozen=True, kw_only=True)
class RenameEdit:
    """A rename provider's edit: text changes by document uri, and the uris of any resource
    operations it asks for besides."""

    files: Mapping[str, tuple[TextChange, ...]]
    resource_operations: tuple[str, ...]


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _spot(value: Any) -> Spot | None:
    if not isinstance(value, Mapping):
        return None
    line, character = _count(value.get("line")), _count(value.get("character"))
    if line is None or character is None:
        return None
    return Spot(line=line, character=character)


def _range(value: Any) -> tuple[Spot, Spot] | None:
    if not isinstance(value, Mapping):
        return None
    start, end = _spot(value.get("start")), _spot(value.get("end"))
    if start is None or end is None or (end.line, end.character) < (start.line, start.character):
        return None
    return start, end


def location(value: Any) -> Location | None:
    if not isinstance(value, Mapping) or not isinstance(value.get("uri"), str):
        return None
    found = _range(value.get("range"))
    if found is None:
        return None
    return Location(uri=value["uri"], start=found[0], end=found[1])


def locations(value: Any) -> list[Location] | None:
    """``{locations: Location[]}``."""
    items = value.get("locations") if isinstance(value, Mapping) else None
    if not isinstance(items, list):
        return None
    found = [location(item) for item in items]
    return None if any(f is None for f in found) else [f for f in found if f is not None]


def _kind(value: Any) -> str:
    try:
        return types.SymbolKind(value).name.lower() if isinstance(value, int) else "symbol"
    except ValueError:
        return "symbol"


def symbols(value: Any) -> list[Symbol] | None:
    """``{symbols: [{name, kind, containerName?, location}]}``."""
    items = value.get("symbols") if isinstance(value, Mapping) else None
    if not isinstance(items, list):
        return None
    found = []
    for item in items:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            return None
        at = location(item.get("location"))
        if at is None:
            return None
        container = item.get("containerName")
        found.append(
            Symbol(
                name=item["name"],
                kind=_kind(item.get("kind")),
                container=container if isinstance(container, str) and container else None,
                location=at,
            )
        )
    return found


def _text_changes(value: Any) -> tuple[TextChange, ...] | None:
    if not isinstance(value, list):
        return None
    changes = []
    for edit in value:
        found = _range(edit.get("range")) if isinstance(edit, Mapping) else None
        if found is None or not isinstance(edit.get("newText"), str):
            return None
        changes.append(TextChange(start=found[0], end=found[1], new_text=edit["newText"]))
    return tuple(changes)


def rename_edit(value: Any) -> RenameEdit | None:
    """``{edit: WorkspaceEdit | null}``; ``null`` is an edit of no files. As LSP says, an edit's
    ``documentChanges``, when present, are its edits and its ``changes`` are not read."""
    if not isinstance(value, Mapping) or "edit" not in value:
        return None
    edit = value["edit"]
    if edit is None:
        return RenameEdit(files={}, resource_operations=())
    if not isinstance(edit, Mapping):
        return None
    if edit.get("documentChanges") is not None:
        return _document_changes(edit["documentChanges"])
    changes = edit.get("changes")
    if changes is None:
        return RenameEdit(files={}, resource_operations=())
    if not isinstance(changes, Mapping):
        return None
    files: dict[str, tuple[TextChange, ...]] = {}
    for uri, edits in changes.items():
        found = _text_changes(edits)
        if not isinstance(uri, str) or found is None:
            return None
        files[uri] = found
    return RenameEdit(files=files, resource_operations=())


def _document_changes(value: Any) -> RenameEdit | None:
    if not isinstance(value, list):
        return None
    files: dict[str, tuple[TextChange, ...]] = {}
    operations: list[str] = []
    for change in value:
        if not isinstance(change, Mapping):
            return None
        if isinstance(change.get("kind"), str):
            uri = change.get("uri", change.get("oldUri"))
            operations.append(uri if isinstance(uri, str) else "?")
            continue
        document = change.get("textDocument")
        uri = document.get("uri") if isinstance(document, Mapping) else None
        found = _text_changes(change.get("edits"))
        if not isinstance(uri, str) or found is None:
            return None
        files[uri] = files.get(uri, ()) + found
    return RenameEdit(files=files, resource_operations=tuple(operations))
