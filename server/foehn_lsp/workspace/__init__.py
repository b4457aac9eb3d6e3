"""Where tools meet the file system: confinement, reads, edits applied by the host, watching for
what programs change (``watch``), listing files (``listing``) and which of the workspace's own
files the person approved (``trust``)."""

from foehn_lsp.workspace.edits import (
    ApplyOutcome,
    DeletePath,
    DiskApplier,
    EditApplier,
    EditPlan,
    FileChange,
    MakeDirectory,
    MovePath,
    WriteFile,
)
from foehn_lsp.workspace.files import BufferSource, FileAccess, ReadLedger, TextFile
from foehn_lsp.workspace.paths import Workspace

__all__ = [
    "ApplyOutcome",
    "BufferSource",
    "DeletePath",
    "DiskApplier",
    "EditApplier",
    "EditPlan",
    "FileAccess",
    "FileChange",
    "MakeDirectory",
    "MovePath",
    "ReadLedger",
    "TextFile",
    "Workspace",
    "WriteFile",
]
