"""What the person is told while the embedded model makes them wait, through the same events
every front end renders."""

from __future__ import annotations

from pathlib import Path

from foehn_lsp.agent import Agent, TurnRequest
from foehn_lsp.agent.chain import Parts
from foehn_lsp.agent.execution import TurnExecutor
from foehn_lsp.config import Settings
from foehn_lsp.events import TextDelta, Thinking, TurnEvent, event_json
from foehn_lsp.lsp.convert import progress_message
from foehn_lsp.policy import ApprovalGate, Approved, FixedApprover
from foehn_lsp.tools import ToolContext, ToolRegistry
from foehn_lsp.workspace import FileAccess, Workspace
from providers.local.local_fakes import MakeProvider, answer_chunks


async def test_the_wait_and_the_answer_reach_the_run_events(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    # Two sentences: answers stream a sentence at a time (honesty holds back claims).
    text = "Two files: app.py and the tests next to it. Both are small enough to read at once."
    # Chunks a quarter second apart: a busy machine may read close chunks in one go.
    provider = fake_provider({"chunks": answer_chunks(text, size=16), "delay": 0.25})
    settings = Settings(provider="local")
    agent = Agent(provider=provider, settings=settings)
    events: list[TurnEvent] = []
    workspace = Workspace([tmp_path])
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace))
    gate = ApprovalGate(settings.approval, FixedApprover(Approved(scope="run")), events.append)
    executor = TurnExecutor(registry, ctx, events.append, Parts(approval=gate))
    outcome = await agent.run_turn(TurnRequest(task="what is here?"), executor, events.append)
    assert outcome.answer == text
    details = [e.detail for e in events if isinstance(e, Thinking) and e.detail]
    assert details[0] == "loading the model…"
    assert any(d.startswith("reading the prompt (first run only)") for d in details)
    pieces = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(pieces) > 1
    assert "".join(pieces) == text


def test_a_detail_is_shown_as_progress_and_left_out_when_there_is_none() -> None:
    assert progress_message(Thinking(iteration=0, detail="loading the model…")) == (
        "Loading the model…"
    )
    assert progress_message(Thinking(iteration=0)) == "Thinking…"
    assert event_json(Thinking(iteration=1)) == {"event": "thinking", "iteration": 1}
    assert event_json(Thinking(iteration=1, detail="x"))["detail"] == "x"
