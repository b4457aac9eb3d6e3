"""Reads and writes through the client, confined by Foehn first. The client here is a fake at
the seam (the two fs methods); the end-to-end tests use the real SDK client."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from acp import schema
from acp.exceptions import RequestError
from acp.interfaces import Client

from foehn_lsp.acp.files import ClientFiles
from foehn_lsp.workspace import EditPlan, MovePath, Workspace, WriteFile


class FakeEditor:
    """Buffers by absolute path; a write replaces the buffer and the file."""

    def __init__(self, buffers: dict[str, str] | None = None) -> None:
        self.buffers = dict(buffers or {})
        self.writes: list[tuple[str, str]] = []

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any:
        if path in self.buffers:
            return schema.ReadTextFileResponse(content=self.buffers[path])
        try:
            text = await asyncio.to_thread(Path(path).read_text)
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None
        return schema.ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **kw: Any) -> Any:
        self.writes.append((path, content))
        self.buffers[path] = content
        await asyncio.to_thread(Path(path).write_text, content)
        return schema.WriteTextFileResponse()


def files_for(root: Path, editor: FakeEditor, *, read: bool = True, write: bool = True) -> Any:
    return ClientFiles(cast(Client, editor), "s1", Workspace([root]), read=read, write=write)


def edit(path: Path, old: str | None, new: str) -> EditPlan:
    return EditPlan(
        tool="edit_file",
        changes=(WriteFile(path=path, text=new, old_text=old),),
        summary=f"edit {path.name}",
    )


async def test_reads_see_the_editor_buffer_from_a_worker_thread(root: Path, canary: Path) -> None:
    (root / "a.py").write_text("on disk\n")
    editor = FakeEditor({str(root / "a.py"): "unsaved\n"})
    files = files_for(root, editor)
    text: Callable[[Path], str | None] = files.text
    assert await asyncio.to_thread(text, root / "a.py") == "unsaved\n"
    assert await asyncio.to_thread(text, root / "missing.py") is None
    assert await asyncio.to_thread(text, canary / "secret.txt") is None
    assert text(root / "a.py") is None  # on the loop itself: never block waiting for the client
    assert await asyncio.to_thread(files_for(root, editor, read=False).text, root / "a.py") is None


async def test_an_approved_edit_is_written_through_the_editor(root: Path) -> None:
    path = root / "a.py"
    path.write_text("x = 1\n")
    editor = FakeEditor({str(path): "x = 1\n"})
    files = files_for(root, editor)
    outcome = await files.apply(edit(path, "x = 1\n", "x = 2\n"))
    assert outcome.applied
    assert editor.writes == [(str(path), "x = 2\n")]
    [preview] = files.take_applied("edit_file")
    assert (preview.before, preview.after) == ("x = 1\n", "x = 2\n")
    assert files.take_applied("edit_file") == ()


async def test_a_buffer_changed_since_planning_refuses_the_write(root: Path) -> None:
    path = root / "a.py"
    path.write_text("x = 1\n")
    editor = FakeEditor({str(path): "x = 1  # typed meanwhile\n"})
    files = files_for(root, editor)
    outcome = await files.apply(edit(path, "x = 1\n", "x = 2\n"))
    assert not outcome.applied
    assert "changed in the editor" in outcome.reason
    assert editor.writes == []
    assert files.take_applied("edit_file") == ()


async def test_a_file_that_became_a_link_out_is_not_written(
    root: Path, canary_untouched: Callable[[], None], canary: Path
) -> None:
    path = root / "a.py"
    path.write_text("x = 1\n")
    editor = FakeEditor({str(path): "x = 1\n"})  # the editor still shows the old buffer
    files = files_for(root, editor)
    plan = edit(path, "x = 1\n", "stolen\n")
    path.unlink()
    os.symlink(canary / "secret.txt", path)
    outcome = await files.apply(plan)
    assert not outcome.applied
    assert "escapes the workspace via symlink" in outcome.reason
    assert editor.writes == []
    canary_untouched()


async def test_what_the_client_cannot_do_goes_to_disk_whole(root: Path) -> None:
    (root / "a.py").write_text("x\n")
    editor = FakeEditor()
    files = files_for(root, editor)
    plan = EditPlan(
        tool="move_path",
        changes=(MovePath(source=root / "a.py", destination=root / "b.py"),),
        summary="move a.py to b.py",
    )
    assert (await files.apply(plan)).applied
    assert editor.writes == []
    assert (root / "b.py").read_text() == "x\n"
    no_writes = files_for(root, editor, write=False)
    assert (await no_writes.apply(edit(root / "c.py", None, "new\n"))).applied
    assert editor.writes == []
    assert (root / "c.py").read_text() == "new\n"
