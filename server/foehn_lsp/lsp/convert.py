"""The one module that knows both lsprotocol's types and Foehn's.

Handlers call these functions to turn LSP parameters into Foehn's requests and Foehn's plans,
events and approval requests into LSP messages, so that the rest of Foehn never imports
lsprotocol and the handlers stay thin.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls import uris
from pygls.workspace import PositionCodec

from foehn_lsp.agent.approval import ApprovalRequest
from foehn_lsp.agent.events import (
    ApprovalEvent,
    Done,
    RunEvent,
    Thinking,
    ToolCallEvent,
    ToolResultEvent,
)
from foehn_lsp.workspace.edits import (
    DeletePath,
    EditPlan,
    FileChange,
    MakeDirectory,
    MovePath,
    WriteFile,
)

ANNOTATION = "foehn"
ALLOW, ALLOW_RUN, DENY = "Allow", "Allow for this run", "Deny"


def path_of(uri: str) -> Path | None:
    path = uris.to_fs_path(uri)
    return Path(path) if path else None


def uri_of(path: Path) -> str:
    uri: str | None = uris.from_fs_path(os.fspath(path))
    assert uri is not None
    return uri


# Run requests ----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RunArguments:
    task: str
    uri: str | None = None
    range: types.Range | None = None
    diagnostic: Mapping[str, Any] | None = None
    session: str | None = None
    """Continue this saved session (``None``: a new one-turn session)."""
    run_id: str | None = None
    """The client's id for the turn, correlating ``foehn/runEvent`` and confirmations."""
    context: str = ""
    """Context the person chose (mentioned files, a selection), added to the editor's."""


class BadArguments(ValueError):
    """Arguments to a command that do not have its documented shape."""


def run_arguments(args: Sequence[Any]) -> RunArguments:
    """``foehn.run``'s arguments: ``[task]`` or ``[{task, uri?, range?, diagnostic?}]``."""
    if len(args) != 1:
        raise BadArguments("foehn.run takes one argument: a task, or {task, uri?, range?}")
    value = args[0]
    if isinstance(value, str):
        value = {"task": value}
    if not isinstance(value, Mapping) or not isinstance(value.get("task"), str):
        raise BadArguments('foehn.run needs a task: ["..."] or [{"task": "..."}]')
    if not value["task"].strip():
        raise BadArguments("foehn.run needs a non-empty task")
    selection = None
    if value.get("range") is not None:
        try:
            start, end = value["range"]["start"], value["range"]["end"]
            selection = types.Range(
                start=types.Position(line=int(start["line"]), character=int(start["character"])),
                end=types.Position(line=int(end["line"]), character=int(end["character"])),
            )
        except (KeyError, TypeError, ValueError):
            raise BadArguments("range must be {start: {line, character}, end: {...}}") from None
    uri = value.get("uri")
    if uri is not None and not isinstance(uri, str):
        raise BadArguments("uri must be a string")
    diagnostic = value.get("diagnostic")
    if diagnostic is not None and not (
        isinstance(diagnostic, Mapping) and isinstance(diagnostic.get("message"), str)
    ):
        raise BadArguments("diagnostic must be an object with a message: {message, source?}")
    extra = {key: value.get(key) for key in ("session", "runId", "context")}
    for key, given in extra.items():
        if given is not None and not (isinstance(given, str) and (given or key == "context")):
            raise BadArguments(f"{key} must be a non-empty string")
    return RunArguments(
        task=value["task"],
        uri=uri,
        range=selection,
        diagnostic=diagnostic,
        session=extra["session"],
        run_id=extra["runId"],
        context=extra["context"] or "",
    )


def run_context(arguments: RunArguments, text: str | None, shown: str | None) -> str:
    """What the editor adds to the task: the file, the selected lines, the diagnostic."""
    if arguments.uri is None or text is None:
        return ""
    name = shown or arguments.uri
    parts = [f"The person is looking at {name}."]
    if arguments.range is not None:
        lines = text.splitlines()
        first = arguments.range.start.line
        last = arguments.range.end.line
        if arguments.range.end.character == 0 and last > first:
            last -= 1
        chosen = lines[first : last + 1]
        numbered = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(chosen, first + 1))
        parts.append(f"Selected lines {first + 1}-{last + 1}:\n{numbered}")
    if arguments.diagnostic:
        message = arguments.diagnostic.get("message", "")
        source = arguments.diagnostic.get("source")
        parts.append(f"Diagnostic{f' from {source}' if source else ''}: {message}")
    return "\n\n".join(parts)


# Code actions ----------------------------------------------------------------------------------


def code_actions(params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    selection = params.range
    actions = []

    def run_command(
        title: str,
        task: str,
        diagnostic: types.Diagnostic | None = None,
        at: types.Range = selection,
    ) -> types.Command:
        argument: dict[str, Any] = {"task": task, "uri": uri, "range": _range_json(at)}
        if diagnostic is not None:
            argument["diagnostic"] = {
                "message": diagnostic.message,
                "source": diagnostic.source,
                "range": _range_json(diagnostic.range),
            }
        return types.Command(title=title, command="foehn.run", arguments=[argument])

    if selection.start != selection.end:
        actions.append(
            types.CodeAction(
                title="Foehn: Explain selection",
                kind=types.CodeActionKind.Empty,
                command=run_command(
                    "Foehn: Explain selection", "Explain what the selected code does, briefly."
                ),
            )
        )
        actions.append(
            types.CodeAction(
                title="Foehn: Refactor selection…",
                kind=types.CodeActionKind.RefactorRewrite,
                command=run_command(
                    "Foehn: Refactor selection…",
                    "Refactor the selected code to make it clearer without changing "
                    "its behaviour. Edit the file.",
                ),
            )
        )
    for diagnostic in params.context.diagnostics:
        title = f"Foehn: Fix '{_short(diagnostic.message)}'"
        actions.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                command=run_command(
                    title, f"Fix this problem: {diagnostic.message}", diagnostic, diagnostic.range
                ),
            )
        )
    return actions


def _short(text: str, limit: int = 60) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _range_json(value: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": value.start.line, "character": value.start.character},
        "end": {"line": value.end.line, "character": value.end.character},
    }


# Edits -----------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class OpenDocument:
    text: str
    version: int | None


def workspace_edit(
    plan: EditPlan,
    codec: PositionCodec,
    open_document: Callable[[Path], OpenDocument | None],
    annotations: bool,
) -> types.WorkspaceEdit:
    """``plan`` as document changes. Text edits replace only the region that changed, in the
    client's position encoding, against the version of the open buffer they were planned on."""
    changes: list[Any] = []
    annotation = ANNOTATION if annotations else None
    for change in plan.changes:
        changes.extend(_document_changes(change, codec, open_document, annotation))
    edit = types.WorkspaceEdit(document_changes=changes)
    if annotations:
        edit.change_annotations = {
            ANNOTATION: types.ChangeAnnotation(
                label=f"Foehn: {plan.tool}", description=plan.summary, needs_confirmation=False
            )
        }
    return edit


def _document_changes(
    change: FileChange,
    codec: PositionCodec,
    open_document: Callable[[Path], OpenDocument | None],
    annotation: str | None,
) -> list[Any]:
    match change:
        case WriteFile(path=path, text=text, old_text=None):
            uri = uri_of(path)
            return [
                types.CreateFile(
                    uri=uri,
                    options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False),
                    annotation_id=annotation,
                ),
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=None
                    ),
                    edits=[
                        _text_edit(
                            types.Range(
                                start=types.Position(line=0, character=0),
                                end=types.Position(line=0, character=0),
                            ),
                            text,
                            annotation,
                        )
                    ],
                ),
            ]
        case WriteFile(path=path, text=text, old_text=str() as old):
            document = open_document(path)
            edit_range, new_text = minimal_edit(old, text, codec)
            return [
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri_of(path), version=document.version if document else None
                    ),
                    edits=[_text_edit(edit_range, new_text, annotation)],
                )
            ]
        case MovePath(source=source, destination=destination, overwrite=overwrite):
            return [
                types.RenameFile(
                    old_uri=uri_of(source),
                    new_uri=uri_of(destination),
                    options=types.RenameFileOptions(overwrite=overwrite, ignore_if_exists=False),
                    annotation_id=annotation,
                )
            ]
        case DeletePath(path=path, recursive=recursive):
            return [
                types.DeleteFile(
                    uri=uri_of(path),
                    options=types.DeleteFileOptions(
                        recursive=recursive, ignore_if_not_exists=False
                    ),
                    annotation_id=annotation,
                )
            ]
        case MakeDirectory():
            return []  # LSP cannot create empty folders; the host makes them on disk first
    raise AssertionError(change)


def _text_edit(
    at: types.Range, text: str, annotation: str | None
) -> types.TextEdit | types.AnnotatedTextEdit:
    if annotation is None:
        return types.TextEdit(range=at, new_text=text)
    return types.AnnotatedTextEdit(range=at, new_text=text, annotation_id=annotation)


def minimal_edit(old: str, new: str, codec: PositionCodec) -> tuple[types.Range, str]:
    """The smallest single replacement that turns ``old`` into ``new``."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    lines = old.splitlines(keepends=True) or [""]
    return (
        types.Range(
            start=_position(old, start, lines, codec),
            end=_position(old, len(old) - end, lines, codec),
        ),
        new[start : len(new) - end],
    )


def _position(text: str, offset: int, lines: list[str], codec: PositionCodec) -> types.Position:
    line = text.count("\n", 0, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1)
    return codec.position_to_client_units(lines, types.Position(line=line, character=column))


def supports_resource_operations(capabilities: types.ClientCapabilities) -> bool:
    workspace = capabilities.workspace
    edit = workspace.workspace_edit if workspace else None
    operations = (edit.resource_operations or []) if edit else []
    needed = {
        types.ResourceOperationKind.Create,
        types.ResourceOperationKind.Rename,
        types.ResourceOperationKind.Delete,
    }
    return bool(edit and edit.document_changes) and needed <= set(operations)


def supports_annotations(capabilities: types.ClientCapabilities) -> bool:
    workspace = capabilities.workspace
    edit = workspace.workspace_edit if workspace else None
    return bool(edit and edit.change_annotation_support is not None)


# Approval --------------------------------------------------------------------------------------


def confirm_params(run_id: str, request: ApprovalRequest) -> dict[str, Any]:
    params: dict[str, Any] = {
        "runId": run_id,
        "tool": request.tool,
        "arguments": dict(request.arguments),
        "risk": request.risk,
        "program": request.program,
        "sandbox": request.sandbox,
        "remember": request.remember,
    }
    if request.preview is not None:
        params["preview"] = {
            "summary": request.summary,
            "diff": request.preview,
            "files": [
                {"uri": uri_of(f.path), "before": f.before, "after": f.after} for f in request.files
            ],
        }
    return params


def message_request(request: ApprovalRequest) -> types.ShowMessageRequestParams:
    text = f"Foehn wants to run {request.describe()}"
    if request.summary:
        text += f"\n{request.summary}"
    if request.preview:
        text += f"\n{request.preview[:2000]}"
    if request.sandbox == "full":
        text += f"\n'{ALLOW_RUN}' allows this call once: full access is asked for every time."
    elif request.remember:
        text += f"\n'{ALLOW_RUN}' also allows {request.remember}."
    return types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=text,
        actions=[types.MessageActionItem(title=t) for t in (ALLOW, ALLOW_RUN, DENY)],
    )


# Progress --------------------------------------------------------------------------------------


def progress_message(event: RunEvent) -> str | None:
    match event:
        case Thinking():
            return "Thinking…"
        case ToolCallEvent(tool=tool):
            return f"Calling {tool}…"
        case ApprovalEvent(decision="deny", tool=tool):
            return f"{tool} denied"
        case ToolResultEvent(tool=tool, ok=ok):
            return f"{tool} {'done' if ok else 'failed'}"
        case Done(reason=reason):
            return f"Finished: {reason.replace('_', ' ')}"
    return None


def begin(title: str) -> types.WorkDoneProgressBegin:
    return types.WorkDoneProgressBegin(title=title, message="Starting…", cancellable=True)


def report(message: str) -> types.WorkDoneProgressReport:
    return types.WorkDoneProgressReport(message=message)


def end(message: str) -> types.WorkDoneProgressEnd:
    return types.WorkDoneProgressEnd(message=message)


def log(message: str, error: bool = False) -> types.LogMessageParams:
    return types.LogMessageParams(
        type=types.MessageType.Error if error else types.MessageType.Info, message=message
    )


def show(message: str, error: bool = False) -> types.ShowMessageParams:
    return types.ShowMessageParams(
        type=types.MessageType.Error if error else types.MessageType.Info, message=message
    )


def configuration_request() -> types.ConfigurationParams:
    return types.ConfigurationParams(items=[types.ConfigurationItem(section="foehn")])


def apply_params(label: str, edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditParams:
    return types.ApplyWorkspaceEditParams(edit=edit, label=label)
