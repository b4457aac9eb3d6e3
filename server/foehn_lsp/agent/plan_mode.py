"""Plan mode: a turn that first plans, then (once the person approves) carries the plan out.

    plan mode ──read-only tools only──▶ the model's answer is the plan ──▶ the person:
        approve / edit ──▶ the plan becomes the task list; the same turn carries it out
        reject (why)   ──▶ the model plans again; a second rejection ends the turn
        nobody to ask  ──▶ the turn ends with the plan

While planning, the model is offered only the tools declared read-only, and any call whose
risk is higher (a tool it names anyway, a program assessed as writing) is refused with "plan
mode" before approval is even asked. The person is asked through the front end's approver
when it can review plans (``PlanReviewer``): the terminal, the chat, an ACP client's permission
request, the editor's confirmation; ``--approve all`` approves plans too, ``--approve never``
reviews none.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from foehn_lsp.checks.claims import mentioned_files
from foehn_lsp.policy.plans import ProposedPlan
from foehn_lsp.providers.messages import ToolDefinition
from foehn_lsp.risk import RiskLevel
from foehn_lsp.tools.contract import ToolResult
from foehn_lsp.tools.registry import Handler, Invocation, ToolRegistry
from foehn_lsp.tools.tasks import TaskItem

TurnMode = Literal["act", "plan"]
MAX_REJECTIONS = 2

PLAN_NOTE = (
    "[Foehn] Plan mode: only read-only tools run now; anything that changes files is refused. "
    "Look at what you need, then answer with a plan for the person to approve: numbered "
    "steps, each naming the files it will change. Change nothing yet."
)


def plan_refusal(invocation: Invocation) -> ToolResult:
    """What the model reads for a call refused while planning."""
    return ToolResult.failure(
        f"plan mode: {invocation.tool.name} was not run ({invocation.risk.value}); "
        "while planning only read-only tools run. Finish the plan: the person approves "
        "it before anything is changed."
    )


class ReadOnlyGuard:
    """The chain's mode step (``agent.chain``): while ``active`` (planning; an investigation),
    every call above read-only is refused with ``refusal``'s result, before approval is
    asked."""

    def __init__(
        self,
        *,
        active: bool = False,
        refusal: Callable[[Invocation], ToolResult] = plan_refusal,
    ) -> None:
        self.active = active
        self.refusal = refusal

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        if self.active and invocation.risk > RiskLevel.READ_ONLY:
            return self.refusal(invocation)
        return await next_step(invocation)


def read_only_tools(registry: ToolRegistry) -> list[ToolDefinition]:
    """The catalogue offered while planning: the tools declared read-only."""
    allowed = {tool.name for tool in registry if tool.risk is RiskLevel.READ_ONLY}
    return [d for d in registry.definitions() if d.name in allowed]


_STEP = re.compile(r"^\s*(?:\d+[.)]|[-*•]|\[[ x>]\])\s+(?P<text>\S.*)$")


def steps_of(text: str) -> tuple[str, ...]:
    """The numbered or bulleted lines of a plan; the whole text as one step if it has none."""
    steps = tuple(m["text"].strip() for line in text.splitlines() if (m := _STEP.match(line)))
    if steps:
        return steps
    stripped = " ".join(text.split())
    return (stripped[:300],) if stripped else ()


def propose(text: str, listed: Sequence[TaskItem] = (), *, attempt: int = 1) -> ProposedPlan:
    """The plan in ``text``; its steps are ``listed`` (a task list the model made while
    planning) if there is one, else the plan's own numbered lines."""
    steps = tuple(item.text for item in listed) or steps_of(text)
    return ProposedPlan(
        text=text.strip(),
        steps=steps,
        files=mentioned_files("\n".join([text, *steps])),
        attempt=attempt,
    )


def as_tasks(steps: Iterable[str]) -> list[TaskItem]:
    """A plan's steps as the task list it becomes: all pending, numbered from 1."""
    return [TaskItem(id=str(n), text=step, status="pending") for n, step in enumerate(steps, 1)]


def approved_note(plan: ProposedPlan, *, edited: bool) -> str:
    how = "edited the plan; carry out their version" if edited else "approved the plan"
    listed = "\n".join(f"{n}. {step}" for n, step in enumerate(plan.steps, 1))
    return (
        f"[Foehn] The person {how}. Plan mode is over: carry it out now, step by step, with "
        "every tool. The steps are your task list; keep it current with todo (mark a step "
        f"in_progress when you start it and done when it is finished):\n{listed}"
    )


def rejected_note(reason: str) -> str:
    return (
        f"[Foehn] The person rejected the plan: {reason}. Still plan mode (read-only tools): "
        "make a new plan that answers their objection. A second rejection ends the turn."
    )
