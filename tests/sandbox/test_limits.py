"""Bombs under small limits: memory, processes, file size, scratch space and CPU time. Each
bomb is bounded by itself too (the outer limit: at most 1 GB, 200 processes, 64 MB written,
30 s of CPU), so that a limit that failed could not hurt the machine; what is counted is how
far each got past its limit (the effect), and that the result names the limit.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.policy.approval import ApprovalGate, ApprovalRequest, Approved
from foehn_lsp.sandbox.limits import process_limit
from foehn_lsp.tools import ToolRegistry
from sandbox.conftest import needs_sandbox

pytestmark = needs_sandbox
MB = 1024 * 1024
LIMITS = "memory_mb = 128\nprocesses = 24\nfile_size_mb = 4\ncpu_seconds = 2"

MEMORY = """
import sys
got = []
try:
    while len(got) < 64:                      # the outer limit: 1 GB
        got.append(bytearray(16 * 2**20))
except MemoryError:
    print("got", len(got) * 16, "MB"); raise
print("got", len(got) * 16, "MB")
"""
PROCESSES = """
import os, time
r, w = os.pipe()
started = 0
try:
    while started < 200:                      # the outer limit: 200 processes
        if os.fork() == 0:
            os.close(w); os.read(r, 1); os._exit(0)
        started += 1
except OSError as exc:
    print("started", started, "then", exc.strerror)
else:
    print("started", started)
os.close(w)
"""
FILE_SIZE = """
with open("big.bin", "wb") as out:
    for _ in range(64):                       # the outer limit: 64 MB
        out.write(b"x" * 2**20)
"""
SCRATCH = """
import os, sys
folder, written = os.path.expanduser(sys.argv[1]), 0
try:
    for i in range(256):                      # the outer limit: 256 files of 4 MB
        with open(os.path.join(folder, f"f{i}"), "wb") as out:
            out.write(b"x" * 4 * 2**20)
        written += 4
except OSError as exc:
    print("wrote", written, "MB then", exc.strerror)
else:
    print("wrote", written, "MB")
"""
CPU = """
import time
end = time.monotonic() + 30                   # the outer limit: 30 s
while time.monotonic() < end:
    pass
print("still running after 30 s")
"""


class Yes:
    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> Approved:
        self.asked.append(request)
        return Approved()


@pytest.fixture
def limited(sandbox_config: Callable[[str], None]) -> None:
    sandbox_config(LIMITS)


async def bomb(registry: ToolRegistry, ctx: ToolContext, code: str, *args: str) -> ToolResult:
    """The bomb as an approved call (inline code always asks), so it runs ``workspace-write``."""
    gate = ApprovalGate(ApprovalSettings(), Yes(), lambda event: None)
    command = ["python3", "-c", code, *args]
    return await registry.call(
        "run_command", {"command": command, "timeout_s": 120}, ctx, steps=(*steps(), gate)
    )


def number(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found, text
    return int(found.group(1))


async def test_a_memory_bomb_stops_at_the_limit_and_says_so(
    limited: None, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await bomb(registry, ctx, MEMORY)
    assert not result.ok
    assert number(r"got (\d+) MB", result.output) <= 128
    assert "it ran out of memory: the limit is 128 MB (memory_mb)" in result.output


async def test_a_process_bomb_stops_at_the_limit_and_says_so(
    limited: None, ctx: ToolContext, registry: ToolRegistry
) -> None:
    if process_limit().by == "none":
        pytest.skip(f"processes are not limited here: {process_limit().note}")
    result = await bomb(registry, ctx, PROCESSES)
    started = number(r"started (\d+)", result.output)
    assert started < 24, result.output
    assert "then Resource temporarily unavailable" in result.output


async def test_a_file_size_bomb_stops_at_the_limit_and_says_so(
    limited: None, root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await bomb(registry, ctx, FILE_SIZE)
    assert not result.ok
    assert (root / "big.bin").stat().st_size <= 4 * MB
    assert "the file size limit of 4 MB (file_size_mb) stopped it" in result.output


@pytest.mark.parametrize("folder", ["/tmp", "/dev/shm", "~"])
async def test_scratch_folders_fill_up_at_the_memory_limit(
    folder: str, limited: None, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await bomb(registry, ctx, SCRATCH, folder)
    assert number(r"wrote (\d+) MB", result.output) <= 128, result.output
    assert "No space left on device" in result.output


async def test_a_cpu_bomb_stops_at_the_limit_and_says_so(
    limited: None, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await bomb(registry, ctx, CPU)
    assert not result.ok
    assert "\nstill running" not in result.output
    assert "the CPU time limit of 2 s (cpu_seconds) stopped it" in result.output


async def test_the_server_stays_responsive_while_a_program_burns_cpu(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """A busy program holds no one up: another call starts, runs and answers while it runs
    (it stops only when the test says so)."""
    spin = "import os\nwhile not os.path.exists('stop'):\n    pass\nprint('stopped')\n"
    busy = asyncio.create_task(bomb(registry, ctx, spin))
    quick = await registry.call(
        "run_command", {"command": ["echo", "answered"]}, ctx, steps=steps()
    )
    assert quick.ok
    assert quick.output.endswith("answered")
    assert not busy.done()
    (root / "stop").write_text("")
    assert (await busy).output.endswith("stopped")
