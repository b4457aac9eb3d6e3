"""What the person decides about a plan (plan mode, ``agent.plan_mode``): the plan as they
review it, their decision as data, and the approver that can take it (``PlanReviewer``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True, kw_only=True)
class ProposedPlan:
    """A plan as the person reviews it."""

    text: str
    steps: tuple[str, ...]
    files: tuple[str, ...]
    """The files the plan names."""
    attempt: int = 1
    """1 for the first plan of the turn, 2 after one rejection (the last chance)."""


@dataclass(frozen=True, kw_only=True)
class ApprovePlan:
    edited: str | None = None
    """The person's own version of the plan (its steps, one per line), if they edited it."""


@dataclass(frozen=True, kw_only=True)
class RejectPlan:
    reason: str = "rejected"


PlanDecision = ApprovePlan | RejectPlan | None
"""``None``: nobody could review it (the turn ends with the plan)."""


@runtime_checkable
class PlanReviewer(Protocol):
    """An approver that can also show a plan to the person and take their decision."""

    async def review_plan(self, plan: ProposedPlan) -> PlanDecision: ...
