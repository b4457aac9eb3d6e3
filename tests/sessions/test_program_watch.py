"""Finding what calls changed when they run at once: the checkpoint's middleware on a real
workspace with the real inotify watch, the calls' order forced where a person's late approval
or a slow program would put it."""

from __future__ import annotations

import asyncio
import hashlib
import sys
import threading
from pathlib import Path

import pytest

from foehn_lsp import RiskLevel, tool
from foehn_lsp.sessions.checkpoints import Checkpoint, ProgramWatch
from foehn_lsp.sessions.store import BlobStore
from foehn_lsp.tools.contract import CallScope, ToolContext, ToolResult
from foehn_lsp.tools.registry import Invocation
from foehn_lsp.workspace.files import FileAccess
from foehn_lsp.workspace.paths import Workspace
from foehn_lsp.workspace.watch import WatchKeeper

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")


async def counted_out(watch: ProgramWatch) -> bool:
    """Whether, within 30 s, no call is being prepared and none is counted as running (a
    preparation counts its call before it ends)."""
    for _ in range(3000):
        if watch._preparing.acquire(blocking=False):
            watch._preparing.release()
            if watch.running == 0:
                return True
        await asyncio.sleep(0.01)
    return False


@tool(risk=RiskLevel.DESTRUCTIVE)
async def program() -> str:
    """Stands for a call that changes files itself."""
    return "ran"


def invocation(call_id: str, workspace: Workspace) -> Invocation:
    return Invocation(
        call_id=call_id,
        tool=program,
        raw_arguments={},
        ctx=ToolContext(workspace=workspace, files=FileAccess(workspace)),
        timeout=30,
        scope=CallScope(writes=()),
    )


async def test_a_call_prepared_while_another_runs_keeps_what_the_file_was_before_it(
    root: Path, tmp_path: Path
) -> None:
    """The second call is prepared while the first runs; the first rewrites a file the session
    had read just as the second would hold it. What the first call changed is recorded
    against the file as it was before the first call, not as the second found it."""
    data = root / "data.txt"
    data.write_text("before\n")
    workspace = Workspace([root])
    checkpoint = Checkpoint(workspace, BlobStore(tmp_path / "blobs"), lambda path: None)
    keeper = WatchKeeper()
    loop = asyncio.get_running_loop()
    first_running, go = asyncio.Event(), asyncio.Event()
    rewritten = threading.Event()

    def held() -> list[Path]:
        """Asked as a call is prepared: for the second, the first rewrites the file now."""
        if first_running.is_set():
            loop.call_soon_threadsafe(go.set)
            rewritten.wait(30)
        return [data]

    watch = ProgramWatch(checkpoint, held, keeper=keeper)

    async def first_runs(done: Invocation) -> ToolResult:
        first_running.set()
        await asyncio.wait_for(go.wait(), 30)
        data.write_text("after, by the first call\n")
        rewritten.set()
        return ToolResult.success("rewritten")

    async def second_runs(done: Invocation) -> ToolResult:
        go.set()  # prepared without holding the file: the first call may be changing it
        await asyncio.to_thread(rewritten.wait, 30)
        return ToolResult.success("ran")

    async def second() -> ToolResult:
        await asyncio.wait_for(first_running.wait(), 30)
        return await watch(invocation("b", workspace), second_runs)

    try:
        await asyncio.gather(watch(invocation("a", workspace), first_runs), second())
        [state] = checkpoint.changes()
    finally:
        keeper.close()
    assert state.path == "data.txt"
    assert state.before == hashlib.sha256(b"before\n").hexdigest()
    assert (watch.running, data.read_text()) == (0, "after, by the first call\n")


async def test_a_call_cancelled_while_it_is_prepared_is_counted_out(
    root: Path, tmp_path: Path
) -> None:
    """A turn stopped while a call is prepared: the preparation ends in its thread, and the
    call, which never runs, is not left counted as running (the next call holds the files)."""
    workspace = Workspace([root])
    checkpoint = Checkpoint(workspace, BlobStore(tmp_path / "blobs"), lambda path: None)
    keeper = WatchKeeper()
    entered, release = threading.Event(), threading.Event()

    def held() -> list[Path]:
        entered.set()
        release.wait(30)
        return []

    watch = ProgramWatch(checkpoint, held, keeper=keeper)

    async def never(done: Invocation) -> ToolResult:
        raise AssertionError("a cancelled call ran")

    try:
        call = asyncio.create_task(watch(invocation("a", workspace), never))
        await asyncio.to_thread(entered.wait, 30)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert watch.running == 0  # still being prepared: not yet counted
        release.set()
        assert await counted_out(watch)
    finally:
        release.set()
        keeper.close()


class PausingBlobs(BlobStore):
    """A real blob store whose ``put`` of a chosen content waits until released: the moment
    two recorders of one file can both be inside."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.inside: dict[bytes, threading.Event] = {}
        self.release: dict[bytes, threading.Event] = {}

    def pause(self, data: bytes) -> None:
        self.inside[data] = threading.Event()
        self.release[data] = threading.Event()

    def put(self, data: bytes) -> str:
        if data in self.release:
            self.inside[data].set()
            assert self.release[data].wait(30)
        return super().put(data)


def test_a_file_recorded_by_an_edit_and_a_programs_drain_at_once_keeps_the_first_record(
    root: Path, tmp_path: Path
) -> None:
    """The edit's record (on the loop) is being stored when a program's drain (in a thread)
    finds the same file: the drain's record, made meanwhile and stored after, does not
    replace the first one."""
    (root / "f.py").write_text("as the program found it\n")
    blobs = PausingBlobs(tmp_path / "blobs")
    checkpoint = Checkpoint(Workspace([root]), blobs, lambda path: None)
    checkpoint.hold("f.py")
    edit, held = b"as the edit found it\n", b"as the program found it\n"
    blobs.pause(edit)
    blobs.pause(held)
    editing = threading.Thread(target=checkpoint.remember, args=("f.py", edit))
    editing.start()
    assert blobs.inside[edit].wait(30)
    draining = threading.Thread(target=checkpoint.watched_changes, args=((), ["f.py"]))
    draining.start()
    # Without one step for check and record, the drain is inside too within this time.
    blobs.inside[held].wait(0.5)
    blobs.release[edit].set()
    editing.join(30)
    blobs.release[held].set()
    draining.join(30)
    assert checkpoint.before["f.py"] == hashlib.sha256(edit).hexdigest()
