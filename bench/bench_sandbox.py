"""Sandbox start-up cost: the same argument list run through Foehn's runner inside bubblewrap
(``read-only`` and ``workspace-write``, with the granted view: empty root, system, toolchains,
Foehn's Python, the workspace, protected names, masks and limits) and outside it (``full``, the
same runner without the sandbox), alternating so that all see the same machine, in one run.
Reports the median wall time per call, the ratio, and the milliseconds the sandbox adds (goal:
at most 10 ms), what the throwaway writable layer of read-only calls costs against the same call
plainly read-only, and the CPU time the started processes used per call (user + system, from
``RUSAGE_CHILDREN``), which a busy machine inflates far less than wall time; then Foehn's own
part of it: building the view and its command line, placeholders and limits included (the
workspace has no ``.foehn``, ``.vscode`` or ``.envrc``, so each writable call makes and removes
their placeholders)."""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.workspace import Workspace

ROUNDS = 60
PROGRAMS = (["true"], ["git", "--version"])
POLICIES: tuple[SandboxPolicy, ...] = ("full", "read-only", "workspace-write")
GOAL_MS = 10.0
NO_LAYER = "read-only, no layer"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def _time(
    argv: list[str], workspace: Workspace, policy: SandboxPolicy, layer: bool = True
) -> tuple[float, float]:
    """Wall time and the children's CPU time of one call."""
    cpu, started = _children_cpu(), time.perf_counter()
    finished = await system_sandbox().run(
        argv, workspace=workspace, cwd=workspace.root, policy=policy, seconds=30, layer=layer
    )
    elapsed = time.perf_counter() - started
    if finished.exit_code != 0:
        raise RuntimeError(f"{argv} under {policy} failed: {finished.output}")
    return elapsed, _children_cpu() - cpu


async def _measure(argv: list[str], workspace: Workspace) -> dict[str, tuple[float, float]]:
    """Per policy (and ``read-only`` without its throwaway layer, ``NO_LAYER``): the median
    wall time and the mean CPU time per call."""
    variants: list[tuple[str, SandboxPolicy, bool]] = [(p, p, True) for p in POLICIES]
    variants.append((NO_LAYER, "read-only", False))
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in variants}
    for _, policy, layer in variants:  # warm-up: the page cache, bubblewrap's first start
        await _time(argv, workspace, policy, layer)
    for _ in range(ROUNDS):
        for label, policy, layer in variants:
            samples[label].append(await _time(argv, workspace, policy, layer))
    return {
        policy: (
            statistics.median(wall for wall, _ in times),
            statistics.fmean(cpu for _, cpu in times),
        )
        for policy, times in samples.items()
    }


def _setup(workspace: Workspace, policy: SandboxPolicy) -> float:
    """Median seconds Foehn spends preparing one call (view, command line, placeholders, the
    call's cgroup where there is one), without starting it: through ``launch``, which prepares
    what ``run`` does but for the handshake's two pipes."""
    times = []
    sandbox = system_sandbox()
    for _ in range(ROUNDS):
        started = time.perf_counter()
        with sandbox.launch(["true"], workspace, workspace.root, policy):
            pass  # enter and leave: what a call pays before and after its program
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> list[str]:
    sandbox = system_sandbox()
    if not sandbox.available:
        return [f"sandbox: not available here ({sandbox.note})"]
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"sandbox: {sandbox.note}; median of {ROUNDS} alternating calls each "
        f"(load average {load} on {os.cpu_count()} CPUs)"
    ]
    folder = Path(tempfile.mkdtemp(prefix="foehn-bench-sandbox-"))
    try:
        (folder / ".git").mkdir()
        workspace = Workspace([folder])
        for argv in PROGRAMS:
            program = shutil.which(argv[0])
            if program is None:
                continue
            measured = asyncio.run(_measure([program, *argv[1:]], workspace))
            plain, plain_cpu = measured["full"]
            for policy in ("read-only", "workspace-write"):
                wall, cpu = measured[policy]
                added = (wall - plain) * 1000
                verdict = "within" if added <= GOAL_MS else "OVER"
                lines.append(
                    f"  {' '.join(argv):<14} {policy:<16} {wall * 1000:6.1f} ms vs "
                    f"{plain * 1000:5.1f} ms unsandboxed: x{wall / plain:4.2f}, "
                    f"+{added:4.1f} ms per call ({verdict} the {GOAL_MS:g} ms goal); "
                    f"CPU {cpu * 1000:4.1f} ms vs {plain_cpu * 1000:4.1f} ms"
                )
            if sandbox.layer:
                layered, layered_cpu = measured["read-only"]
                bare, bare_cpu = measured[NO_LAYER]
                lines.append(
                    f"  {' '.join(argv):<14} the throwaway layer of read-only calls: "
                    f"{layered * 1000:6.1f} ms vs {bare * 1000:5.1f} ms without it: "
                    f"x{layered / bare:4.2f}, {(layered - bare) * 1000:+4.1f} ms per call; "
                    f"CPU {layered_cpu * 1000:4.1f} ms vs {bare_cpu * 1000:4.1f} ms"
                )
        binds = len(system_sandbox().view(workspace, folder, "read-only").entries())
        sandboxed: tuple[SandboxPolicy, ...] = ("read-only", "workspace-write")
        for policy in sandboxed:
            lines.append(
                f"  Foehn's set-up, {policy}: {_setup(workspace, policy) * 1000:.2f} ms per call "
                f"(a view of {binds} folders; part of the figures above)"
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return lines


if __name__ == "__main__":
    print("\n".join(main()))
