"""The one module that knows both lsprotocol's types and Foehn's.

Handlers call these functions to turn LSP parameters into Foehn's requests and Foehn's plans,
events and approval requests into LSP messages, so that the rest of Foehn never imports
lsprotocol and the handlers stay thin.
"""

from __future__ import annotations

import bisect
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls import uris
from pygls.workspace import PositionCodec

from foehn_lsp.lsp.lines import lsp_lines

if TYPE_CHECKING:
    from foehn_lsp.events import TurnEvent
    from foehn_lsp.policy.approval import ApprovalRequest
    from foehn_lsp.policy.plans import ProposedPlan
    from foehn_lsp.workspace.edits import EditPlan, FileChange

ANNOTATION = "foehn"
ALLOW, ALLOW_RUN, DENY = "Allow", "Allow for this run", "Deny"
ALLOW_ALWAYS = "Always allow (save the rule)"


def path_of(uri: str) -> Path | None:
    path = uris.to_fs_path(uri)
    return Path(path) if path else None


def uri_of(path: Path) -> str:
    uri: str | None = uris.from_fs_path(os.fspath(path))
    assert uri is not None
    return uri


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
    from foehn_lsp.workspace.edits import DeletePath, MakeDirectory, MovePath, WriteFile

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
    """The smallest single replacement that turns ``old`` into ``new``, as an LSP range in the
    client's position encoding."""
    from foehn_lsp.workspace.textdiff import changed_region

    region = changed_region(old, new)
    lines = lsp_lines(old, keepends=True) or [""]
    starts = list(itertools.accumulate((len(line) for line in lines), initial=0))
    return (
        types.Range(
            start=_position(region.start, lines, starts, codec),
            end=_position(region.end, lines, starts, codec),
        ),
        region.text,
    )


def _position(
    offset: int, lines: list[str], starts: list[int], codec: PositionCodec
) -> types.Position:
    line = bisect.bisect_right(starts, offset) - 1
    if line == len(lines) and not lines[-1].endswith(("\r", "\n")):
        line -= 1  # the end of a last line that has no line end is on that line
    position = types.Position(line=line, character=offset - starts[line])
    return codec.position_to_client_units(lines, position)


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
        "proposedRule": request.proposed_rule.json() if request.proposed_rule else None,
        "why": dict(request.why) if request.why is not None else None,
        "outside": request.outside,
        "network": list(request.network),
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
    if request.outside is not None:
        text += f"\nThese arguments go to {request.outside}: all of it may leave this computer."
    if request.summary:
        text += f"\n{request.summary}"
    if request.preview:
        text += f"\n{request.preview[:2000]}"
    if request.sandbox == "full":
        text += f"\n'{ALLOW_RUN}' allows this call once: full access is asked for every time."
    elif request.outside is not None:
        text += f"\n'{ALLOW_RUN}' allows this call once: each call that sends data out is asked."
    elif request.remember:
        text += f"\n'{ALLOW_RUN}' also allows {request.remember}."
    titles = [ALLOW, ALLOW_RUN, DENY]
    if request.proposed_rule is not None:
        text += f"\n'{ALLOW_ALWAYS}' saves to your config: {request.proposed_rule.describe()}."
        titles.insert(2, ALLOW_ALWAYS)
    return types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=text,
        actions=[types.MessageActionItem(title=t) for t in titles],
    )


APPROVE_PLAN, REJECT_PLAN = "Approve plan", "Reject"


def plan_confirm_params(run_id: str, call_id: str, plan: ProposedPlan) -> dict[str, Any]:
    """Plan mode's plan through ``foehn/confirm``, as a call of the tool ``plan`` whose
    arguments are the plan: allow approves it, deny rejects it (with the reason given)."""
    return {
        "runId": run_id,
        "callId": call_id,
        "tool": "plan",
        "arguments": {"plan": plan.text, "steps": list(plan.steps), "files": list(plan.files)},
        "risk": "write",
        "program": None,
        "sandbox": None,
        "remember": "",
    }


def plan_message(plan: ProposedPlan) -> types.ShowMessageRequestParams:
    steps = "\n".join(f"{n}. {step}" for n, step in enumerate(plan.steps, 1))
    files = ", ".join(plan.files) or "none named"
    return types.ShowMessageRequestParams(
        type=types.MessageType.Info,
        message=f"Foehn's plan:\n{steps}\nFiles: {files}\nCarry it out?",
        actions=[types.MessageActionItem(title=t) for t in (APPROVE_PLAN, REJECT_PLAN)],
    )


# Progress --------------------------------------------------------------------------------------


def progress_message(event: TurnEvent) -> str | None:
    from foehn_lsp.events import (
        ApprovalEvent,
        Checked,
        Done,
        NetworkEvent,
        PlanEvent,
        Thinking,
        TodoEvent,
        ToolCallEvent,
        ToolProgress,
        ToolResultEvent,
    )

    match event:
        case Thinking(detail=detail):
            return detail.capitalize() if detail else "Thinking…"
        case ToolCallEvent(tool=tool):
            return f"Calling {tool}…"
        case ToolProgress(tool=tool, message=message):
            return f"{tool}: {message}"
        case ApprovalEvent(decision="deny", tool=tool):
            return f"{tool} denied"
        case ToolResultEvent(tool=tool, ok=ok):
            return f"{tool} {'done' if ok else 'failed'}"
        case Done(reason=reason):
            return f"Finished: {reason.replace('_', ' ')}"
        case TodoEvent(items=items):
            done = sum(item.status == "done" for item in items)
            return f"Tasks: {done} of {len(items)} done"
        case PlanEvent(status="proposed"):
            return "Waiting for your review of the plan…"
        case Checked(problems=problems) if problems:
            return f"Checks: {len(problems)} new problem{'s' if len(problems) != 1 else ''}"
        case NetworkEvent(allowed=False, reason=reason):
            return f"Network: refused: {reason}"
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
