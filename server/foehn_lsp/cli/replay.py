"""``foehn replay``: re-run a recorded transcript offline and check that nothing changed.

The recorded model responses are played back, the tools run for real, and each tool call *and
its result* is compared with the recording; the first difference stops the replay and shows
both sides. The replay is a session like any other, built by the one builder with the recorded
answers as its approver and no rules or hooks (the recording holds what they decided). By
default the tools run in a temporary copy of the workspace, whose session and audit log stay in
the copy's scratch folder, so a replay never touches the person's files or state;
``--in-place`` runs them in the workspace itself, as a saved session that ``foehn undo`` can
put back.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from foehn_lsp.cli.args import EXIT_ERROR, EXIT_OK, folder
from foehn_lsp.config import load_settings
from foehn_lsp.events import ToolCallEvent, ToolResultEvent, TurnEvent
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalRequest, Approved, Denied
from foehn_lsp.policy.guards import Guards
from foehn_lsp.sessions.builder import FrontEnd, build_session, replaying
from foehn_lsp.sessions.transcript import SESSION_KINDS, read_transcript

SHOWN_LINES = 12


@dataclass(frozen=True, kw_only=True)
class Step:
    """One tool call and what it gave, recorded or replayed."""

    tool: str
    arguments: Any
    ok: bool | None = None
    output: str | None = None

    def describe(self) -> str:
        head = f"{self.tool} {json.dumps(self.arguments, ensure_ascii=False)}"
        if self.ok is None:
            return head + "\n    (no result)"
        lines = (self.output or "").splitlines() or [""]
        shown = "\n".join(f"    {line}" for line in lines[:SHOWN_LINES])
        more = f"\n    … {len(lines) - SHOWN_LINES} more lines" if len(lines) > SHOWN_LINES else ""
        return f"{head}\n    {'ok' if self.ok else 'failed'}:\n{shown}{more}"


def recorded_steps(path: Path) -> list[Step]:
    """The tool calls in a transcript, each with its recorded result."""
    steps: dict[str, Step] = {}
    order: list[str] = []
    for line in path.read_text("utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # read_transcript has vetted the file; a cut-off last line is ignored
        if record.get("kind") in SESSION_KINDS or record.get("kind") != "event":
            continue
        if record["event"] == "tool_call":
            order.append(record["id"])
            steps[record["id"]] = Step(tool=record["tool"], arguments=record["arguments"])
        elif record["event"] == "tool_result" and record["id"] in steps:
            call = steps[record["id"]]
            steps[record["id"]] = Step(
                tool=call.tool, arguments=call.arguments, ok=record["ok"], output=record["output"]
            )
    return [steps[i] for i in order]


def first_divergence(recorded: list[Step], replayed: list[Step]) -> str | None:
    """Both sides of the first step that differs, in words, or ``None`` if all match."""
    for number, (was, now) in enumerate(zip(recorded, replayed, strict=False), 1):
        if (was.tool, was.arguments) != (now.tool, now.arguments):
            return _sides(f"tool call {number} differs", was, now)
        if (was.ok, was.output) != (now.ok, now.output):
            return _sides(f"the result of tool call {number} ({was.tool}) differs", was, now)
    if len(recorded) != len(replayed):
        return (
            f"replay diverged: the transcript has {len(recorded)} tool calls, the replay made "
            f"{len(replayed)}"
        )
    return None


def _sides(what: str, was: Step, now: Step) -> str:
    return f"replay diverged: {what}\n  recorded: {was.describe()}\n  replayed: {now.describe()}"


@contextmanager
def _where_to_run(root: Path, in_place: bool) -> Iterator[tuple[Path, Path | None]]:
    """The workspace itself and the person's state directory, or a temporary copy of it (links
    kept as links) and a scratch state directory beside it, removed after."""
    if in_place:
        yield root, None
        return
    with tempfile.TemporaryDirectory(prefix="foehn-replay-") as scratch:
        copy = Path(scratch) / root.name
        shutil.copytree(root, copy, symlinks=True)
        yield copy, Path(scratch) / "state"


async def _replay(path: Path, root: Path, state: Path | None, steps: list[Step]) -> list[Step]:
    recorded = read_transcript(path)
    # The recording holds the model's answers only: a replay never compacts (a summary would
    # be one more answer to ask for) and never streams.
    settings = load_settings(overrides={"enable_streaming": False}).model_copy(
        update={"context_window": None}
    )
    decisions = iter(recorded.decisions)

    class Replayed:
        """Gives each asked-about call the decision the person made when it was recorded."""

        async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
            decision = next(decisions, "deny")
            return Approved() if decision == "allow" else Denied(reason="denied when recorded")

    replayed: list[Step] = []
    pending: dict[str, Step] = {}
    stop = asyncio.Event()

    def collect(event: TurnEvent) -> None:
        if isinstance(event, ToolCallEvent):
            pending[event.id] = Step(tool=event.tool, arguments=event.arguments)
        elif isinstance(event, ToolResultEvent) and event.id in pending:
            call = pending.pop(event.id)
            output = event.output.replace(str(root), recorded.workspace)
            replayed.append(
                Step(tool=call.tool, arguments=call.arguments, ok=event.ok, output=output)
            )
            if first_divergence(steps[: len(replayed)], replayed):
                stop.set()  # nothing more runs after the first difference

    session = build_session(
        settings,
        root,
        FrontEnd(name="cli", approver=Replayed()),
        provider=replaying(recorded.responses),
        guards=Guards.none(),
        state=state,
    )
    try:
        for task in recorded.tasks or [recorded.task]:
            await session.prompt(task, emit=collect, stop=stop)
            if stop.is_set():
                break
    finally:
        await session.aclose()
        if session.tools.servers is not None:
            await asyncio.to_thread(session.tools.servers.close)
    return replayed


def replay_command(args: argparse.Namespace) -> int:
    """``foehn replay TRANSCRIPT [--workspace DIR] [--in-place]``."""
    path = Path(args.transcript)
    recorded = read_transcript(path)
    root = folder(args.workspace or recorded.workspace, "--workspace")
    steps = recorded_steps(path)
    with _where_to_run(root, args.in_place) as (where, state):
        replayed = asyncio.run(_replay(path, where, state, steps))
    divergence = first_divergence(steps, replayed)
    if divergence is not None:
        print(divergence, file=sys.stderr)
        return EXIT_ERROR
    where_run = "in the workspace" if args.in_place else "in a temporary copy of the workspace"
    print(f"replayed {len(replayed)} tool calls {where_run}; every call and result matches")
    return EXIT_OK


def add_parser(commands: Any) -> None:
    """``foehn replay`` as a subcommand of ``commands`` (an argparse subparsers object)."""
    replay = commands.add_parser(
        "replay",
        help="re-run a recorded transcript offline and compare every call and result",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    replay.add_argument("transcript", metavar="TRANSCRIPT", help="a file from run --transcript")
    replay.add_argument(
        "--workspace",
        metavar="DIR",
        help="the workspace to copy and replay in (default: the recorded workspace)",
    )
    replay.add_argument(
        "--in-place",
        action="store_true",
        help="run the tools in the workspace itself instead of a temporary copy (changes files)",
    )
    replay.set_defaults(handler=replay_command)
