"""run_tests on real projects (``bench/projects.py``: pure-Python sdists pinned by sha256, each
with its own venv): Foehn's ``run_tests`` (the real tool, in the real sandbox, the project's
venv activated as in the person's shell) against the same command run directly, alternating,
in one run; as published and with the project's deliberate bug. Reports, per project and
state, both outcomes (they must agree: passed as published, failed with the bug), the median
seconds of each and the ratio.

.venv/bin/python bench/run.py runners
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from foehn_lsp import ToolContext
from foehn_lsp.agent.chain import steps
from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.tools.discovery import discover
from foehn_lsp.workspace import Workspace
from foehn_lsp.workspace.files import FileAccess
from projects import PROJECTS, Prepared, fresh_workspace

ROUNDS = 3
SECONDS = 600.0


def _summary(output: str) -> str:
    lines = [line for line in output.strip().splitlines() if line.strip()]
    return lines[-1].strip("= ") if lines else "no output"


def _direct(prepared: Prepared) -> tuple[bool, str, float]:
    """The command Foehn's run_tests chooses for an activated venv, run directly."""
    started = time.perf_counter()
    done = subprocess.run(
        [str(prepared.venv / "bin" / "python"), "-m", "pytest"],
        cwd=prepared.root,
        env=prepared.environment(),
        capture_output=True,
        text=True,
        timeout=SECONDS,
        check=False,
    )
    return done.returncode == 0, _summary(done.stdout), time.perf_counter() - started


def _foehn(prepared: Prepared) -> tuple[bool, str, float, str]:
    """Foehn's run_tests, with the environment of the person's shell (the venv activated)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(prepared.environment(saved))
    try:
        workspace = Workspace([prepared.root])
        ctx = ToolContext(workspace=workspace, files=FileAccess(workspace))
        registry = discover().registry
        started = time.perf_counter()
        result = asyncio.run(registry.call("run_tests", {}, ctx, steps=steps()))
        elapsed = time.perf_counter() - started
    finally:
        os.environ.clear()
        os.environ.update(saved)
    first = result.output.splitlines()[0] if result.output else ""
    return result.ok, _summary(result.output), elapsed, first


def main() -> list[str]:
    sandbox = system_sandbox()
    if not sandbox.available:
        return [f"runners: no sandbox here ({sandbox.note})"]
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"runners: Foehn's run_tests vs the same command run directly, median of {ROUNDS} "
        f"alternating runs each (load average {load} on {os.cpu_count()} CPUs)"
    ]
    with tempfile.TemporaryDirectory(prefix="foehn-bench-runners-") as parent:
        for project in PROJECTS:
            prepared = fresh_workspace(project.name, Path(parent))
            for state in ("as published", "with its bug"):
                if state == "with its bug":
                    prepared.break_it()
                foehn_times, direct_times = [], []
                outcomes: set[tuple[str, bool, str]] = set()
                chosen = ""
                for _ in range(ROUNDS):
                    ok, said, seconds, chosen = _foehn(prepared)
                    foehn_times.append(seconds)
                    outcomes.add(("foehn", ok, said.split(" in ")[0]))
                    ok, said, seconds = _direct(prepared)
                    direct_times.append(seconds)
                    outcomes.add(("direct", ok, said.split(" in ")[0]))
                foehn_s = statistics.median(foehn_times)
                direct_s = statistics.median(direct_times)
                shown = "; ".join(
                    f"{who}: {'passed' if ok else 'FAILED'} ({said})"
                    for who, ok, said in sorted(outcomes)
                )
                agree = len({(ok, said) for _, ok, said in outcomes}) == 1
                expected = all(ok == (state == "as published") for _, ok, _ in outcomes)
                verdict = "right" if agree and expected else "WRONG"
                lines.append(
                    f"  {project.name} {project.version} ({project.size}), {state}: {shown}; "
                    f"{verdict}; {foehn_s:.2f} s vs {direct_s:.2f} s direct: "
                    f"x{foehn_s / direct_s:.2f}"
                )
            lines.append(f"    Foehn ran: {chosen}")
    return lines


if __name__ == "__main__":
    print("\n".join(main()))
