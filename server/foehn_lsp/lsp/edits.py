"""Edits and reads through the editor: plans become ``workspace/applyEdit`` (visible, undoable,
labelled with the tool), and reads see open, unsaved buffers. Clients that cannot apply edits,
or cannot create, rename and delete files, get the atomic disk applier instead."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from foehn_lsp.errors import PathRefusedError
from foehn_lsp.lsp import convert
from foehn_lsp.lsp.wire import answers, client
from foehn_lsp.workspace.edits import (
    ApplyOutcome,
    DeletePath,
    DiskApplier,
    EditPlan,
    MakeDirectory,
    MovePath,
    StaleFileError,
    WriteFile,
    make_directories,
)
from foehn_lsp.workspace.paths import Workspace

if TYPE_CHECKING:
    from foehn_lsp.lsp.server import FoehnServer


class EditorBuffers:
    """The open documents pygls tracks through text document sync."""

    def __init__(self, server: FoehnServer) -> None:
        self.server = server

    def document(self, path: Path) -> convert.OpenDocument | None:
        document = self.server.workspace.text_documents.get(convert.uri_of(path))
        if document is None:
            return None
        return convert.OpenDocument(text=document.source, version=document.version)

    def text(self, path: Path) -> str | None:
        document = self.document(path)
        return document.text if document else None


class EditorApplier:
    def __init__(self, server: FoehnServer, workspace: Workspace, buffers: EditorBuffers) -> None:
        self.server = server
        self.workspace = workspace
        self.buffers = buffers
        self.disk = DiskApplier(workspace)

    async def apply(self, plan: EditPlan) -> ApplyOutcome:
        capabilities = self.server.client_capabilities
        workspace = capabilities.workspace
        if not (workspace and workspace.apply_edit):
            return await self.disk.apply(plan)
        needs_files = any(
            isinstance(c, MovePath | DeletePath)
            or (isinstance(c, WriteFile) and c.old_text is None)
            for c in plan.changes
        )
        if needs_files and not convert.supports_resource_operations(capabilities):
            return await self.disk.apply(plan)
        try:
            for change in plan.changes:
                if not isinstance(change, WriteFile):
                    continue
                buffered = self.buffers.text(change.path)
                if buffered is None:
                    self.disk.check(change)
                elif buffered != change.old_text:
                    raise StaleFileError(
                        f"{self.workspace.display(change.path)} changed in the editor since it "
                        "was read; read it again and retry"
                    )
        except (StaleFileError, PathRefusedError) as exc:
            return ApplyOutcome(applied=False, reason=str(exc))
        for change in plan.changes:
            if isinstance(change, MakeDirectory):
                make_directories(self.workspace, change.path)
        edit = convert.workspace_edit(
            plan,
            self.server.workspace.position_codec,
            self.buffers.document,
            convert.supports_annotations(capabilities),
        )
        if not edit.document_changes:
            return ApplyOutcome(applied=True)
        reply = await client.request(
            self.server.protocol,
            "workspace/applyEdit",
            convert.apply_params(f"Foehn: {plan.summary}", edit),
            self.server.timeouts.apply_edit,
        )
        if isinstance(reply, client.NoAnswer) and not reply.timed_out:
            return answers.not_applied(reply.reason)
        if isinstance(reply, client.NoAnswer):
            return ApplyOutcome(
                applied=False,
                reason=f"the editor did not confirm the edit ({reply.reason}); read the file "
                "again before retrying",
            )
        return answers.apply_outcome(reply.value)
