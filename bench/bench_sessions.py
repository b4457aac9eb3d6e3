"""Sessions: what a checkpoint costs per program call on a 50,000-file tree, and what compaction
saves on a long task.

Checkpoints: finding what a program in a writing sandbox changed, per call. Foehn's inotify
watch (set up once per turn, then a drain per call), its stat-snapshot fallback (two walks and a
compare per call), against the shadow-git approach other agents take (``git add -A`` and
``git write-tree`` into a separate repository after each call: cline's checkpoints), on the
same tree, the same machine, in the same run.

Tokens: a 40-step task (each step reads a 6,000-character file) with the scripted provider,
sent to a model with a 16,000-token window, with compaction and without it: the tokens every
request carried (Foehn's estimate), summed.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

FILES = 50_000
ROUNDS = 5
STEPS = 40


def make_tree(root: Path) -> None:
    for number in range(FILES):
        folder = root / f"pkg{number // 5000}" / f"mod{number // 100}"
        if number % 100 == 0:
            folder.mkdir(parents=True)
        (folder / f"f{number}.py").write_text(f"x = {number}\n")


def median_ms(action: Callable[[], object], rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def checkpoint_figures(root: Path) -> Iterator[str]:
    from foehn_lsp.workspace.watch import Watch, compare, snapshot

    touched = root / "pkg6" / "mod300" / "f30000.py"
    counter = iter(range(10**9))

    def program() -> None:
        touched.write_text(f"x = {next(counter)}\n")

    class Sink:
        def watched_changes(
            self, created: Sequence[str], existing: Sequence[str], folders: Sequence[str] = ()
        ) -> None:
            assert list(existing) == ["pkg6/mod300/f30000.py"], existing

    started = time.perf_counter()
    watch = Watch.start(root)
    setup = (time.perf_counter() - started) * 1000
    if watch.usable:

        def watched_call() -> None:
            watch.drain(record=False, checkpoint=Sink())
            program()
            watch.drain(record=True, checkpoint=Sink())

        per_call = median_ms(watched_call, rounds=50)
        watch.close()
    else:
        per_call = float("nan")

    def snapshot_call() -> None:
        before = snapshot(root)
        program()
        assert compare(before, snapshot(root)) == ["pkg6/mod300/f30000.py"]

    walked = median_ms(snapshot_call)
    shadow = root.parent / "shadow.git"
    git = ["git", f"--git-dir={shadow}", f"--work-tree={root}"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)

    def git_call() -> None:
        program()
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "write-tree"], check=True, capture_output=True)

    shadowed = median_ms(git_call)
    yield f"checkpoint per program call, {FILES:,} files (median):"
    yield f"  foehn inotify watch   {per_call:8.2f} ms   (set up once per turn: {setup:.0f} ms)"
    yield f"  foehn stat snapshots  {walked:8.1f} ms   (fallback without inotify)"
    yield f"  shadow git add+tree   {shadowed:8.1f} ms"
    yield f"  ratio shadow git / foehn watch: {shadowed / per_call:.0f}x"


async def token_figures(root: Path) -> list[str]:
    from foehn_lsp.agent import TurnRequest
    from foehn_lsp.agent.chain import Parts
    from foehn_lsp.agent.context import ContextWindow, estimate
    from foehn_lsp.agent.execution import TurnExecutor
    from foehn_lsp.agent.loop import Agent
    from foehn_lsp.config import Settings
    from foehn_lsp.policy import ApprovalGate, Approved, FixedApprover
    from foehn_lsp.providers.messages import (
        AssistantMessage,
        Message,
        ModelResponse,
        StatusSink,
        TextSink,
        ToolCall,
        ToolDefinition,
        Usage,
    )
    from foehn_lsp.tools import discover
    from foehn_lsp.tools.contract import ToolContext
    from foehn_lsp.workspace import FileAccess, Workspace

    for number in range(STEPS):
        (root / f"notes{number}.txt").write_text(f"note {number}: " + "word " * 1200)

    class Reader:
        """Reads one file per step, then answers; counts the tokens each request carries."""

        name, model = "scripted", "bench"

        def __init__(self) -> None:
            self.sent = 0
            self.steps = 0

        async def complete(
            self,
            messages: Sequence[Message],
            tools: Sequence[ToolDefinition],
            *,
            stream: bool = False,
            on_text: TextSink | None = None,
            on_status: StatusSink | None = None,
        ) -> ModelResponse:
            tokens = estimate(messages, tools)
            if not tools:
                return ModelResponse(
                    message=AssistantMessage(content="Read notes; nothing decided."),
                    usage=Usage(input_tokens=tokens, output_tokens=10),
                )
            self.sent += tokens
            if self.steps == STEPS:
                message = AssistantMessage(content="All notes read.")
            else:
                arguments = f'{{"path": "notes{self.steps}.txt"}}'
                call = ToolCall(id=f"c{self.steps}", name="read_file", arguments=arguments)
                message = AssistantMessage(tool_calls=(call,))
                self.steps += 1
            return ModelResponse(message=message, usage=Usage(input_tokens=tokens))

        async def aclose(self) -> None:
            return None

    registry = discover().registry
    settings = Settings(max_tool_iterations=STEPS + 5, token_budget=10**9, enable_streaming=False)
    totals = {}
    for label, compacting in (("without compaction", False), ("with compaction", True)):
        provider = Reader()
        context = (
            ContextWindow(provider=provider, window=16_000, paths_of=registry.paths_of)
            if compacting
            else None
        )
        agent = Agent(provider=provider, settings=settings, context=context)
        workspace = Workspace([root])
        ctx = ToolContext(workspace=workspace, files=FileAccess(workspace))
        gate = ApprovalGate(settings.approval, FixedApprover(Approved()), lambda e: None)
        calls = TurnExecutor(registry, ctx, lambda e: None, Parts(approval=gate))
        outcome = await agent.run_turn(TurnRequest(task="Read every note."), calls, lambda e: None)
        assert outcome.answer == "All notes read.", outcome.answer
        totals[label] = provider.sent
    ratio = totals["without compaction"] / totals["with compaction"]
    return [
        f"tokens sent for a {STEPS}-step task (16,000-token window):",
        *(f"  {label:<20} {total:>10,}" for label, total in totals.items()),
        f"  ratio without / with compaction: {ratio:.1f}x",
    ]


def main() -> Iterator[str]:
    folder = Path(tempfile.mkdtemp(prefix="foehn-bench-sessions-"))
    try:
        tree = folder / "tree"
        make_tree(tree)
        yield from checkpoint_figures(tree)
        notes = folder / "notes"
        notes.mkdir()
        yield from asyncio.run(token_figures(notes))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line, flush=True)
