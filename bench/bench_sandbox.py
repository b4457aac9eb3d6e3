"""Sandbox start-up cost: the same argument list run through Foehn's runner inside bubblewrap
(``read-only`` and ``workspace-write``) and outside it (``full``, the same runner without the
sandbox), alternating so that all see the same machine, in one run. Reports the median wall
time per call, the ratio, and the milliseconds the sandbox adds (goal: at most 10 ms)."""

from __future__ import annotations

import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.tools.contract import SandboxPolicy
from foehn_lsp.workspace import Workspace

ROUNDS = 60
PROGRAMS = (["true"], ["git", "--version"])
POLICIES: tuple[SandboxPolicy, ...] = ("full", "read-only", "workspace-write")
GOAL_MS = 10.0


async def _time(argv: list[str], workspace: Workspace, policy: SandboxPolicy) -> float:
    started = time.perf_counter()
    finished = await system_sandbox().run(
        argv, workspace=workspace, cwd=workspace.root, policy=policy, seconds=30
    )
    elapsed = time.perf_counter() - started
    if finished.exit_code != 0:
        raise RuntimeError(f"{argv} under {policy} failed: {finished.output}")
    return elapsed


async def _measure(argv: list[str], workspace: Workspace) -> dict[str, float]:
    samples: dict[str, list[float]] = {policy: [] for policy in POLICIES}
    for policy in POLICIES:  # warm-up: the page cache, bubblewrap's first start
        await _time(argv, workspace, policy)
    for _ in range(ROUNDS):
        for policy in POLICIES:
            samples[policy].append(await _time(argv, workspace, policy))
    return {policy: statistics.median(times) for policy, times in samples.items()}


def main() -> list[str]:
    sandbox = system_sandbox()
    if not sandbox.available:
        return [f"sandbox: not available here ({sandbox.note})"]
    lines = [f"sandbox: {sandbox.note}; median of {ROUNDS} alternating calls each"]
    folder = Path(tempfile.mkdtemp(prefix="foehn-bench-sandbox-"))
    try:
        (folder / ".git").mkdir()
        workspace = Workspace([folder])
        for argv in PROGRAMS:
            program = shutil.which(argv[0])
            if program is None:
                continue
            medians = asyncio.run(_measure([program, *argv[1:]], workspace))
            plain = medians["full"]
            for policy in ("read-only", "workspace-write"):
                added = (medians[policy] - plain) * 1000
                verdict = "within" if added <= GOAL_MS else "OVER"
                lines.append(
                    f"  {' '.join(argv):<14} {policy:<16} {medians[policy] * 1000:6.1f} ms vs "
                    f"{plain * 1000:5.1f} ms unsandboxed: x{medians[policy] / plain:4.2f}, "
                    f"+{added:4.1f} ms per call ({verdict} the {GOAL_MS:g} ms goal)"
                )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return lines


if __name__ == "__main__":
    print("\n".join(main()))
