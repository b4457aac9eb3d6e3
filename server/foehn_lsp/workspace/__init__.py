"""Where tools meet the file system.

paths.py     confinement: the one resolver every file and process tool uses
files.py     reads that see what the person sees; edits applied by the host
edits.py     edits as data, and the atomic disk applier
textdiff.py  the smallest single replacement between two texts
watch.py     what programs change
listing.py   listing files with ripgrep, ignore files honoured
ignored.py   which files the workspace ignores (left out of "files changed")
symbols.py   the definitions in a source text, with their line ranges
references.py which definitions an edit renamed, and where their old names still appear
versions.py  which versions an edit bumped, and where the old version is still given
testfiles.py which files are tests (pytest's default names, tests/ folders)
trust/       which of the workspace's own files the person approved
"""

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
