"""One turn of the real loop against the model server on 127.0.0.1 (``foehn_lsp.testing``),
through the OpenAI-compatible provider, with the real tools in a real workspace and every call
approved: for tests that count what the model was sent and what the person read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from foehn_lsp.agent import Agent, TurnOutcome, TurnRequest
from foehn_lsp.agent.chain import Parts
from foehn_lsp.agent.execution import TurnExecutor
from foehn_lsp.config import Settings
from foehn_lsp.events import TextDelta, ToolResultEvent, TurnEvent
from foehn_lsp.policy import Approved, FixedApprover
from foehn_lsp.policy.approval import ApprovalGate, Approver
from foehn_lsp.providers import create_provider
from foehn_lsp.testing import ModelServer, Turn
from foehn_lsp.tools import ToolContext, discover
from foehn_lsp.workspace import FileAccess, Workspace


@dataclass(frozen=True, kw_only=True)
class Served:
    outcome: TurnOutcome
    events: list[TurnEvent]
    requests: list[dict[str, Any]]
    """The bodies the model server received, in order."""

    @property
    def streamed(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, TextDelta))

    @property
    def results(self) -> list[ToolResultEvent]:
        return [e for e in self.events if isinstance(e, ToolResultEvent)]

    def notes(self) -> list[str]:
        """Foehn's notes to the model ([Foehn] …) in the last request, in order."""
        last = self.requests[-1]["messages"]
        return [
            m["content"]
            for m in last
            if m["role"] == "user" and str(m.get("content", "")).startswith("[Foehn]")
        ]


async def served_turn(
    model: ModelServer,
    root: Path,
    task: str,
    turns: Sequence[Turn],
    *,
    window: int | None = None,
    approver: Approver | None = None,
    **settings: Any,
) -> Served:
    """Run ``task`` in the workspace ``root`` with the model server playing ``turns``, every
    call approved unless ``approver`` answers."""
    model.script(*turns)
    config = Settings(provider="openai", base_url=model.openai_url, model="scripted", **settings)
    provider = create_provider(config)
    events: list[TurnEvent] = []
    workspace = Workspace([root])
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace), window=window)
    approver = approver or FixedApprover(Approved(scope="run"))
    gate = ApprovalGate(config.approval, approver, events.append)
    executor = TurnExecutor(discover().registry, ctx, events.append, Parts(approval=gate))
    try:
        outcome = await Agent(provider=provider, settings=config).run_turn(
            TurnRequest(task=task), executor, events.append
        )
    finally:
        await provider.aclose()
    return Served(outcome=outcome, events=events, requests=[r.body for r in model.requests])
