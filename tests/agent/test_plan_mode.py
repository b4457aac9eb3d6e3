"""Plan mode in the loop with the scripted provider, the real tools and a real workspace: what
runs while planning (counted on the files), what the person is asked, and what runs after."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.test_loop import Recorder, agent
from agent.turns import PLAN_EDIT as EDIT
from agent.turns import calls, say
from foehn_lsp import ToolContext
from foehn_lsp.agent import TurnRequest
from foehn_lsp.agent.plan_mode import (
    steps_of,
)
from foehn_lsp.events import PlanEvent, TodoEvent, ToolResultEvent
from foehn_lsp.policy import Approved, Denied, FixedApprover
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalRequest
from foehn_lsp.policy.plans import ApprovePlan, PlanDecision, ProposedPlan, RejectPlan
from foehn_lsp.providers.messages import UserMessage
from foehn_lsp.tools.tasks import TaskList

PLAN_TASK = TurnRequest(task="Make main return 2", mode="plan")
PLAN = "1. Read app.py.\n2. Edit app.py: return 2 instead of 1.\n3. Create NOTES.md."
WRITE = ("write_file", {"path": "NOTES.md", "content": "notes\n"})


class Reviewer:
    """Approves every call; answers plans from a script."""

    def __init__(self, *decisions: PlanDecision) -> None:
        self.decisions = list(decisions)
        self.plans: list[ProposedPlan] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        return Approved()

    async def review_plan(self, plan: ProposedPlan) -> PlanDecision:
        self.plans.append(plan)
        return self.decisions.pop(0)


@pytest.fixture
def app(root: Path) -> Path:
    (root / "app.py").write_text("def main():\n    return 1\n")
    return root


def with_tasks(ctx: ToolContext, events: Recorder) -> ToolContext:
    import dataclasses

    tasks = TaskList(on_change=lambda items: events(TodoEvent(items=items)))
    return dataclasses.replace(ctx, tasks=tasks)


async def test_plan_mode_refuses_a_write_then_runs_the_approved_plan(
    app: Path, ctx: ToolContext
) -> None:
    reviewer = Reviewer(ApprovePlan())
    runner, provider = agent(
        [
            calls(WRITE),
            calls(("read_file", {"path": "app.py"})),
            say(PLAN),
            calls(EDIT, WRITE),
            say("I changed app.py and created NOTES.md."),
        ],
        approver=reviewer,
    )
    events = Recorder()
    ctx = with_tasks(ctx, events)
    outcome = await runner.run_turn(PLAN_TASK, ctx, events)
    refused = events.of(ToolResultEvent)[0]
    assert refused.output.startswith("plan mode: write_file was not run (write)")
    planning_tools = {t.name for t in provider.requests[0][1]}
    assert "read_file" in planning_tools
    assert planning_tools.isdisjoint({"write_file", "edit_file", "delete_path", "run_tests"})
    assert "run_command" in planning_tools, "read-only programs may run; others are refused"
    assert {t.name for t in provider.requests[3][1]} >= {"write_file", "edit_file"}
    [plan] = reviewer.plans
    assert plan.steps == (
        "Read app.py.",
        "Edit app.py: return 2 instead of 1.",
        "Create NOTES.md.",
    )
    assert plan.files == ("app.py", "NOTES.md")
    assert [e.status for e in events.of(PlanEvent)] == ["proposed", "approved"]
    [todo] = events.of(TodoEvent)
    assert [(i.id, i.status) for i in todo.items] == [
        ("1", "pending"),
        ("2", "pending"),
        ("3", "pending"),
    ]
    told = [m.content for m in provider.requests[3][0] if isinstance(m, UserMessage)][-1]
    assert told.startswith("[Foehn] The person approved the plan. Plan mode is over")
    assert outcome.answer == "I changed app.py and created NOTES.md."
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"
    assert (app / "NOTES.md").read_text() == "notes\n"


async def test_a_plan_rejected_twice_ends_the_turn_with_nothing_changed(
    app: Path, ctx: ToolContext
) -> None:
    reviewer = Reviewer(RejectPlan(reason="keep the API"), RejectPlan(reason="still no"))
    runner, provider = agent([say(PLAN), say("1. Edit app.py differently.")], approver=reviewer)
    events = Recorder()
    outcome = await runner.run_turn(PLAN_TASK, ctx, events)
    assert outcome.reason == "answer"
    assert outcome.answer == "The person rejected the plan twice (still no); nothing was changed."
    told = [m.content for m in provider.requests[1][0] if isinstance(m, UserMessage)][-1]
    assert told.startswith("[Foehn] The person rejected the plan: keep the API.")
    assert [p.attempt for p in reviewer.plans] == [1, 2]
    assert [e.status for e in events.of(PlanEvent)] == [
        "proposed",
        "rejected",
        "proposed",
        "rejected",
    ]
    assert (app / "app.py").read_text() == "def main():\n    return 1\n"


async def test_an_edited_plan_is_the_one_carried_out(app: Path, ctx: ToolContext) -> None:
    reviewer = Reviewer(ApprovePlan(edited="1. Edit app.py only."))
    runner, provider = agent(
        [say(PLAN), calls(("read_file", {"path": "app.py"}), EDIT), say("I changed app.py.")],
        approver=reviewer,
    )
    events = Recorder()
    ctx = with_tasks(ctx, events)
    await runner.run_turn(PLAN_TASK, ctx, events)
    [todo] = events.of(TodoEvent)
    assert [i.text for i in todo.items] == ["Edit app.py only."]
    told = [m.content for m in provider.requests[1][0] if isinstance(m, UserMessage)][-1]
    assert "edited the plan; carry out their version" in told
    assert told.endswith("1. Edit app.py only.")


async def test_without_anyone_to_review_the_turn_ends_with_the_plan(
    app: Path, ctx: ToolContext
) -> None:
    runner, provider = agent([say(PLAN)], approver=FixedApprover(Denied(reason="never")))
    events = Recorder()
    outcome = await runner.run_turn(PLAN_TASK, ctx, events)
    assert outcome.answer == PLAN
    assert [e.status for e in events.of(PlanEvent)] == ["proposed", "unreviewed"]
    assert len(provider.requests) == 1


async def test_approve_all_approves_the_plan_too(app: Path, ctx: ToolContext) -> None:
    approver = FixedApprover(Approved(scope="run"))
    runner, _ = agent(
        [say(PLAN), calls(("read_file", {"path": "app.py"}), EDIT), say("I changed app.py.")],
        approver=approver,
    )
    await runner.run_turn(PLAN_TASK, ctx, Recorder())
    assert len(approver.plans) == 1
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"


def test_plan_steps_come_from_numbered_or_bulleted_lines() -> None:
    assert steps_of("Plan:\n1) Read x.py\n- Edit y.py\n* Run tests\nThat's it.") == (
        "Read x.py",
        "Edit y.py",
        "Run tests",
    )
    assert steps_of("Just edit x.py.") == ("Just edit x.py.",)
