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
