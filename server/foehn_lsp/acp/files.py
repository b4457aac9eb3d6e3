"""Reads and writes through the ACP client, when it offers ``fs/read_text_file`` and
``fs/write_text_file``: tools then see the editor's unsaved buffers, and the editor shows (and
can undo) each change.

The client never decides where a path leads. Every path it is sent was resolved and confined
by Foehn's workspace resolver first, and is resolved again just before a write, so a symlink
planted between planning and writing cannot redirect it. What the client cannot do (moves,
deletions, new directories) goes through the atomic disk applier, the whole plan at once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
from collections import defaultdict, deque
from pathlib import Path

from acp.exceptions import RequestError
from acp.interfaces import Client
from pydantic import ValidationError

from foehn_lsp.errors import PathRefusedError
from foehn_lsp.tools.plans import FilePreview, file_previews
from foehn_lsp.workspace import ApplyOutcome, DiskApplier, EditPlan, Workspace, WriteFile
from foehn_lsp.workspace.edits import StaleFileError
from foehn_lsp.workspace.files import MAX_FILE_BYTES
from foehn_lsp.workspace.paths import open_confined

log = logging.getLogger(__name__)

CLIENT_TIMEOUT = 30.0
"""Seconds to wait for the client to read or write one file."""


class ClientFiles:
    """A ``BufferSource`` (``text``) and an ``EditApplier`` (``apply``) for one session."""

    def __init__(
        self,
        client: Client,
        session_id: str,
        workspace: Workspace,
        *,
        read: bool,
        write: bool,
    ) -> None:
        self.client = client
        self.session_id = session_id
        self.workspace = workspace
        self.can_read = read
        self.can_write = write
        self.disk = DiskApplier(workspace)
        self.loop = asyncio.get_running_loop()
        self.applied: defaultdict[str, deque[tuple[FilePreview, ...]]] = defaultdict(deque)
        """Per tool, the file changes of plans applied and not yet reported (file tools run one
        at a time, so the next result of that tool is the one that made them)."""

    def text(self, path: Path) -> str | None:
        """The client's unsaved buffer of ``path``, or ``None`` to read the disk here. ACP does not
        say whether the client answered from a buffer or from its disk, so an answer equal to the
        file on disk counts as the disk: the read is not called an unsaved buffer, and the disk
        read gives the fingerprint later writes are checked against. Called from a worker
        thread, as ``FileAccess.read`` runs reads there."""
        if not self.can_read or not self.workspace.contains(path):
            return None
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            return None  # on the event loop itself: waiting for the client would deadlock it
        future = asyncio.run_coroutine_threadsafe(self._read(path), self.loop)
        try:
            text = future.result(CLIENT_TIMEOUT)
        except concurrent.futures.TimeoutError:
            future.cancel()
            log.warning("the client did not answer fs/read_text_file for %s", path)
            return None
        if text is not None and _is_on_disk(self.workspace, path, text):
            return None
        return text

    async def _read(self, path: Path) -> str | None:
        try:
            response = await self.client.read_text_file(session_id=self.session_id, path=str(path))
        except (RequestError, ConnectionError, ValidationError) as exc:
            log.info("the client could not read %s (%s); reading the disk", path, exc)
            return None
        if len(response.content) > MAX_FILE_BYTES:
            return None  # the disk read reports the size limit properly
        return response.content

    def take_applied(self, tool: str) -> tuple[FilePreview, ...]:
        """The changes the last applied plan of ``tool`` made (once)."""
        queue = self.applied.get(tool)
        return queue.popleft() if queue else ()

    async def apply(self, plan: EditPlan) -> ApplyOutcome:
        if self.can_write and all(isinstance(c, WriteFile) for c in plan.changes):
            outcome = await self._write_through_client(plan)
        else:
            outcome = await self.disk.apply(plan)
        if outcome.applied:
            self.applied[plan.tool].append(file_previews(plan))
        return outcome

    async def _write_through_client(self, plan: EditPlan) -> ApplyOutcome:
        writes = [c for c in plan.changes if isinstance(c, WriteFile)]
        try:
            for change in writes:
                await self._check(change)
                self._confine(change.path)
        except (StaleFileError, PathRefusedError) as exc:
            return ApplyOutcome(applied=False, reason=str(exc))
        for number, change in enumerate(writes):
            done = ", ".join(self.workspace.display(c.path) for c in writes[:number])
            written = f"; already written: {done}" if done else ""
            try:
                self._confine(change.path)
            except PathRefusedError as exc:
                return ApplyOutcome(applied=False, reason=f"{exc}{written}")
            try:
                async with asyncio.timeout(CLIENT_TIMEOUT):
                    await self.client.write_text_file(
                        session_id=self.session_id, path=str(change.path), content=change.text
                    )
            except (RequestError, ConnectionError, TimeoutError) as exc:
                shown = self.workspace.display(change.path)
                reason = str(exc) or type(exc).__name__
                return ApplyOutcome(
                    applied=False, reason=f"the editor did not write {shown} ({reason}){written}"
                )
        return ApplyOutcome(applied=True)

    async def _check(self, change: WriteFile) -> None:
        """Refuse a write whose file changed since it was planned, as the editor sees it and,
        when it was read from the disk, on the disk too (a buffer typed into since is not
        overwritten, nor a file changed under an editor that had it open unchanged)."""
        shown = self.workspace.display(change.path)
        current = None
        if change.old_text is not None and self.can_read:
            current = await self._read(change.path)
        if current is not None and current != change.old_text:
            raise StaleFileError(
                f"{shown} changed in the editor since it was read; read it again and retry"
            )
        if current is None or change.old_fingerprint is not None:
            await asyncio.to_thread(self.disk.check, change)

    def _confine(self, path: Path) -> None:
        """The path still resolves to itself inside the workspace, with no link on the way."""
        if self.workspace.resolve(os.fspath(path), write=True) != path:
            raise PathRefusedError(
                f"{self.workspace.display(path)} now resolves elsewhere; nothing was written"
            )


def _is_on_disk(workspace: Workspace, path: Path, text: str) -> bool:
    """Whether ``text`` is exactly the content of ``path`` on disk (read confined)."""
    try:
        fd = open_confined(workspace, path)
    except (OSError, PathRefusedError):
        return False
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    return data == text.encode("utf-8", errors="surrogatepass")
