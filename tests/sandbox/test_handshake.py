"""The handshake that limits a sandboxed child before its program starts: a child that cannot be
limited never runs its program, counted by effect (a file the program would have written), and
the same call with limits that can be set does run it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from foehn_lsp.sandbox import bwrap, system_sandbox
from foehn_lsp.sandbox.handshake import Handshake
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


async def _run(root: Path, shake: Handshake) -> Finished:
    with _command(root, shake) as command:
        try:
            return await run_program(
                command,
                cwd=root,
                seconds=60,
                env={"PATH": "/usr/bin:/bin"},
                pass_fds=shake.child_fds,
                on_start=shake.release,
            )
        finally:
            shake.close()


async def test_a_child_that_cannot_be_limited_never_runs_its_program(root: Path) -> None:
    limits = system_sandbox().machine().limits
    missing_group = root.parent / "no-such-cgroup"
    try:
        await _run(root, Handshake(limits, group=missing_group, processes=False))
    except OSError:
        refused = True
    else:
        refused = False
    await asyncio.sleep(0.5)  # a child let go by the closed pipe would have written by now
    assert not (root / "ran.txt").exists()
    assert refused

    done = await _run(root, Handshake(limits, group=None, processes=False))
    assert done.exit_code == 0, done.output
    assert (root / "ran.txt").read_text() == "ran\n"
