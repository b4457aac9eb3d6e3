"""The handshake that limits a sandboxed child before its program starts: a child that cannot be
limited never runs its program, counted by effect (a file the program would have written), and
the same call with limits that can be set does run it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from foehn_lsp.sandbox import bwrap, system_sandbox
from foehn_lsp.sandbox.handshake import Handshake, LimitsNotSetError
from foehn_lsp.sandbox.process import Finished, run_program
from foehn_lsp.workspace import Workspace

pytestmark = pytest.mark.skipif(
    not system_sandbox().available, reason=f"needs the sandbox: {system_sandbox().note}"
)


@contextlib.contextmanager
def _command(root: Path, shake: Handshake) -> Iterator[list[str]]:
    sandbox = system_sandbox()
    assert sandbox.bwrap is not None
    seen = sandbox.view(Workspace([root]), root, "workspace-write")
    with sandbox.placeholders.holding(seen.missing, seen.protected):
        yield bwrap.command_line(
            sandbox.bwrap, seen, ["/bin/sh", "-c", "echo ran > ran.txt"], shake.arguments()
        )


GONE_SECONDS = 600.0
"""How long the killed process group may take to be reaped (a busy machine is slow, never
wrong)."""


async def _run(root: Path, shake: Handshake, started: list[int]) -> Finished:
    """Run the call; ``started`` gets bubblewrap's pid, its process group's id."""

    async def release(pid: int) -> None:
        started.append(pid)
        await shake.release(pid)

    with _command(root, shake) as command:
        try:
            return await run_program(
                command,
                cwd=root,
                seconds=60,
                env={"PATH": "/usr/bin:/bin"},
                pass_fds=shake.child_fds,
                on_start=release,
            )
        finally:
            shake.close()


async def _gone(group: int) -> bool:
    """Whether every process of ``group`` has ended (and been reaped), waiting for it."""
    deadline = time.monotonic() + GONE_SECONDS
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        await asyncio.sleep(0.05)
    return False


async def test_a_child_that_cannot_be_limited_never_runs_its_program(root: Path) -> None:
    limits = system_sandbox().machine().limits
    missing_group = root.parent / "no-such-cgroup"
    started: list[int] = []
    with pytest.raises(LimitsNotSetError):
        await _run(root, Handshake(limits, group=missing_group, processes=False), started)
    # The group was killed before the block pipe closed: once it is gone, nothing of the call
    # is left that could still write.
    [group] = started
    assert await _gone(group)
    assert not (root / "ran.txt").exists()

    done = await _run(root, Handshake(limits, group=None, processes=False), [])
    assert done.exit_code == 0, done.output
    assert (root / "ran.txt").read_text() == "ran\n"


async def test_a_child_that_ends_once_limited_is_left_for_bubblewrap_to_explain() -> None:
    """A child that could not bind a path ends right after it was limited; letting it go then
    meets a closed pipe. That is no failure to start: bubblewrap's own message says why (the
    runner makes it a SandboxViewError), as when the child is gone before it is limited."""
    limits = system_sandbox().machine().limits
    shake = Handshake(limits, group=None, processes=False)
    stand_in = await asyncio.create_subprocess_exec("sleep", "30")  # limited like the child
    try:
        info, _block = shake.child_fds
        os.write(info, f'{{"child-pid": {stand_in.pid}}}'.encode())
        # No process holds the block pipe's read end once release closes Foehn's copy.
        await shake.release(stand_in.pid)
    finally:
        shake.close()
        stand_in.kill()
        await stand_in.wait()


def _running(marker: str) -> list[int]:
    """The processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
    return found


async def test_a_call_cancelled_while_it_starts_leaves_no_process(root: Path) -> None:
    """A turn stopped while its program's sandbox is being made, at many moments of it: no
    process of the call outlives the call, and the program never writes. (Cut inside
    ``create_subprocess_exec``, a launch killed bubblewrap only; its sandboxed child, in a
    session of its own and not yet bound to die with it, lived on, waiting on its block
    pipe until the call ended and then running unlimited.)"""
    marker = f"{os.getpid()}-{time.monotonic_ns()}"
    program = ["/bin/sh", "-c", f"sleep 1; echo {marker} > ran.txt", marker]
    sandbox = system_sandbox()
    for moment in range(90):
        call = asyncio.ensure_future(
            sandbox.run(
                program,
                workspace=Workspace([root]),
                cwd=root,
                policy="workspace-write",
                seconds=60,
            )
        )
        for _ in range(moment % 30):  # the steps of the event loop the launch takes
            await asyncio.sleep(0)
        if moment >= 30:
            await asyncio.sleep((moment - 30) / 1000)
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        deadline = time.monotonic() + GONE_SECONDS
        while left := _running(marker):
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)  # killed, not yet reaped
        assert not left, f"cancelled at moment {moment}, still running: {left}"
    assert not (root / "ran.txt").exists()
