"""The server's end when its client goes away: stdin closed mid-run ends the server promptly
and takes the run's programs with it, whatever they were doing. Without a sandbox that is the
server's own doing (it kills the program's process group when the run is torn down); in the
sandbox bubblewrap's ``--die-with-parent`` would end the program with the server anyway, so
only the unsandboxed case can catch a server that leaves its programs behind."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.testing import ModelServer, Turn
from lsp.wire.raw import initialized, is_method, raw_server

pytestmark = pytest.mark.process

SLEEPER = ("run_command", {"command": ["sh", "-c", "touch started && exec sleep 600"]})
"""A program that says it started (``started`` in the workspace), then outlives any test."""


def descendants(pid: int) -> dict[int, bytes]:
    """Every living descendant of ``pid``, with its command line (to tell a reused PID apart)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # it exited while we looked
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found: dict[int, bytes] = {}
    waiting = list(children.get(pid, []))
    while waiting:
        child = waiting.pop()
        found[child] = command_line(child) or b""
        waiting.extend(children.get(child, []))
    return found


def command_line(pid: int) -> bytes | None:
    """``pid``'s command line, or None once it is gone (a zombie has none either)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes() or None
    except OSError:
        return None


async def eventually(condition: Callable[[], bool], *, within: float) -> None:
    """Wait until ``condition()`` holds (what another process did), or fail."""
    for _ in range(int(within / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    assert condition()


@pytest.mark.parametrize("sandbox", ["off", "auto"], ids=["unsandboxed", "sandboxed"])
async def test_closing_stdin_during_a_command_ends_the_server_and_its_child(
    app: Path, model: ModelServer, sandbox: str
) -> None:
    if sandbox == "auto" and not system_sandbox().available:
        pytest.skip(system_sandbox().note)
    model.script(Turn(tool_calls=[SLEEPER]), Turn(text="never"))
    async with raw_server(app, model, own_process=True, FOEHN_SANDBOX=sandbox) as client:
        client.handlers["foehn/confirm"] = lambda params: {"decision": "allow"}
        await initialized(client, app, confirm_request=True)
        client.request("workspace/executeCommand", {"command": "foehn.run", "arguments": ["x"]})
        await client.wait_for(is_method("foehn/confirm"), within=600)
        await eventually((app / "started").exists, within=600)
        running = descendants(client.process.pid)
        assert any(b"sleep" in line for line in running.values()), running
        assert client.process.stdin is not None
        client.process.stdin.close()
        assert await client.exit_code(within=600) == 1
    await eventually(lambda: all(command_line(p) != c for p, c in running.items()), within=120)
