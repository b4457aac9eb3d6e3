"""Reads that see what the person sees, and edits applied by the host.

``FileAccess`` is a tool's only way to touch files. Reads return the editor's unsaved buffer when
the file is open there (the language server supplies ``buffers``) and the disk otherwise; text
must be UTF-8. Writes go through ``apply``, which hands an ``EditPlan`` to the host's applier:
the editor in a language-server run, the atomic disk applier headless. One ``FileAccess`` lives
for one run and remembers which files the run has read (``seen``: any read, the host's own
included) and what the model was shown of them (``shown``, a ``ReadLedger`` the session
carries from turn to turn), which the edit tools check before they change a file.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from foehn_lsp.errors import FileReadError
from foehn_lsp.workspace.edits import (
    ApplyOutcome,
    DiskApplier,
    EditApplier,
    EditPlan,
    WriteFile,
    fingerprint,
)
from foehn_lsp.workspace.paths import Workspace, open_confined

MAX_FILE_BYTES = 20 * 1024 * 1024
BINARY_SNIFF_BYTES = 8192

BufferSource = Callable[[Path], str | None]
"""The text of an open, possibly unsaved editor buffer for a resolved path, or ``None``."""


def _no_buffers(path: Path) -> str | None:
    return None


@dataclass(frozen=True, kw_only=True)
class TextFile:
    """A file's text as a tool sees it."""

    path: Path
    text: str
    fingerprint: str | None
    """Fingerprint of the bytes on disk; ``None`` when the text came from an editor buffer."""
    from_buffer: bool = False

    @property
    def newline(self) -> str:
        """The file's line ending, kept on write."""
        return "\r\n" if "\r\n" in self.text else "\n"


def decode_text(data: bytes, shown: str) -> str:
    """UTF-8 text from ``data``, or ``FileReadError`` for binary or undecodable content."""
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise FileReadError(f"{shown} is a binary file; only text files can be read")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileReadError(
            f"{shown} is not UTF-8 text (invalid byte at offset {exc.start}); it cannot be "
            "read or edited as text"
        ) from None


class ReadLedger:
    """What the model has been shown of each file in a session: whole files (``read_file``,
    or a file it wrote whole) and single definitions by name (``read_symbol``). The edit tools
    consult it: a file is changed only where the model has seen what it changes."""

    def __init__(self) -> None:
        self.whole: set[Path] = set()
        self.symbols: dict[Path, set[str]] = {}
        self.points: dict[Path, int] = {}
        """The line of each file a tool pointed the model to last."""
        self.ends: dict[tuple[str, str, str], tuple[str, int, str]] = {}

    def point(self, path: Path, line: int) -> None:
        """A line of ``path`` that a tool pointed the model to (a search hit, a frame of a
        failing test's traceback, the line a traced call returned at, the lines an edit refused
        for its syntax meant to change): reading a long file in a small window shows the region
        around the last one."""
        self.points[path] = line

    def last_point(self, path: Path) -> int | None:
        """The line of ``path`` a tool pointed to last, if one did."""
        return self.points.get(path)

    def saw_end(self, node: str, call: tuple[str, str], end: tuple[str, int, str]) -> None:
        """A failing run of the test ``node`` (its name, without its file) showed how ``call``
        (its file and name) ended: ``("returned", line, value)`` or ``("raised", line, "Error:
        message")``."""
        self.ends[(node, *call)] = end

    def end_of(self, node: str, call: tuple[str, str]) -> tuple[str, int, str] | None:
        """How the last failing run of ``node`` that was shown said ``call`` ended, if one did."""
        return self.ends.get((node, *call))

    def saw_file(self, path: Path) -> None:
        """The model was shown the file's text (any part of it, through ``read_file``)."""
        self.whole.add(path)

    def saw_symbol(self, path: Path, name: str) -> None:
        """The model was shown the exact text of the definition ``name`` in ``path``."""
        self.symbols.setdefault(path, set()).add(name)

    def read_whole(self, path: Path) -> bool:
        return path in self.whole

    def symbols_of(self, path: Path) -> frozenset[str]:
        """The definitions of ``path`` the model was shown (empty if none)."""
        return frozenset(self.symbols.get(path, ()))


class FileAccess:
    """Reads and edits for one run."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        applier: EditApplier | None = None,
        buffers: BufferSource = _no_buffers,
        max_file_bytes: int = MAX_FILE_BYTES,
        shown: ReadLedger | None = None,
    ) -> None:
        self.workspace = workspace
        self.applier = applier or DiskApplier(workspace)
        self.buffers = buffers
        self.max_file_bytes = max_file_bytes
        self.seen: set[Path] = set()
        """Files read (or written) in this run."""
        self.shown = shown if shown is not None else ReadLedger()
        """What the model has been shown of files (the session's, when it passes one)."""

    def read_text(self, path: Path) -> TextFile:
        """The text of the resolved ``path``: the open buffer if there is one, else the disk."""
        shown = self.workspace.display(path)
        buffered = self.buffers(path)
        if buffered is not None:
            self.seen.add(path)
            return TextFile(path=path, text=buffered, fingerprint=None, from_buffer=True)
        try:
            fd = open_confined(self.workspace, path)
        except FileNotFoundError:
            raise FileReadError(f"{shown} does not exist; use scan to see what is there") from None
        except PermissionError:
            raise FileReadError(f"{shown} cannot be read (permission denied)") from None
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            os.close(fd)
            raise FileReadError(f"{shown} is a directory; use scan to list it")
        with os.fdopen(fd, "rb") as handle:
            if info.st_size > self.max_file_bytes:
                raise FileReadError(
                    f"{shown} is {info.st_size:,} bytes, over the {self.max_file_bytes:,}-byte "
                    "limit; use search to find the part you need"
                )
            data = handle.read(self.max_file_bytes + 1)
        text = decode_text(data, shown)
        self.seen.add(path)
        return TextFile(path=path, text=text, fingerprint=fingerprint(data))

    async def read(self, path: Path) -> TextFile:
        return await asyncio.to_thread(self.read_text, path)

    async def apply(self, plan: EditPlan, *, whole: bool = False) -> ApplyOutcome:
        """Apply ``plan`` through the host's applier, all or nothing. The files of a plan that
        writes them ``whole`` (``write_file``'s) count as shown: the model wrote every line."""
        outcome = await self.applier.apply(plan)
        if outcome.applied and whole:
            for change in plan.changes:
                if isinstance(change, WriteFile):
                    self.shown.saw_file(change.path)
        return outcome
