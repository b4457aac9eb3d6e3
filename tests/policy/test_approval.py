"""Approval memory and the plan-once path, through the real registry chain and real tools."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalMode, ApprovalSettings
from foehn_lsp.events import ApprovalEvent, TurnEvent
from foehn_lsp.policy.approval import (
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequest,
    Approved,
    Denied,
)
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.tools.contract import CallScope
from foehn_lsp.workspace import EditPlan
from policy.gated import gated


class Person:
    """Answers with ``answer(request)`` and remembers every request it was shown."""

    def __init__(self, answer: Callable[[ApprovalRequest], ApprovalDecision]) -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.answer(request)


class Run:
    """One run's gate over a registry: ``await run("tool", {...})``."""

    def __init__(self, registry: ToolRegistry, ctx: ToolContext, person: Person, **policy: Any):
        self.events: list[TurnEvent] = []
        self.gate = ApprovalGate(ApprovalSettings(**policy), person, self.events.append)
        self.registry = registry
        self.ctx = ctx
        self.calls = 0

    async def __call__(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        self.calls += 1
        return await self.registry.call(
            name,
            json.dumps(arguments),
            self.ctx,
            call_id=str(self.calls),
            steps=steps(gated(self.gate)),
        )

    def reasons(self) -> list[tuple[str, str]]:
        return [(e.decision, e.reason) for e in self.events if isinstance(e, ApprovalEvent)]


def allow_for_run_only(program: str) -> Callable[[ApprovalRequest], ApprovalDecision]:
    def answer(request: ApprovalRequest) -> ApprovalDecision:
        if request.arguments.get("command", [None])[0] == program:
            return Approved(scope="run")
        return Denied(reason="not that")

    return answer


def command(*argv: str) -> dict[str, Any]:
    return {"command": list(argv)}


async def test_allowing_touch_for_the_run_still_asks_for_rm_and_sh(
    registry: ToolRegistry, ctx: ToolContext, root: Path
) -> None:
    (root / "keep").mkdir()
    person = Person(allow_for_run_only("touch"))
    run = Run(registry, ctx, person)
    assert (await run("run_command", command("touch", "a"))).ok
    assert (await run("run_command", command("touch", "b"))).ok
    removed = await run("run_command", command("rm", "-rf", "keep"))
    shelled = await run("run_command", command("sh", "-c", "touch c"))
    assert [(r.program, r.risk) for r in person.asked] == [
        ("touch", "write"),
        ("rm", "destructive"),
        ("sh", "destructive"),
    ]
    assert person.asked[0].sandbox == "workspace-write"
    assert person.asked[0].remember == (
        "run_command calls that run `touch`, at risk write, in the workspace-write sandbox"
    )
    assert not removed.ok
    assert not shelled.ok
    assert (root / "keep").is_dir()
    assert not (root / "c").exists()
    assert (root / "b").exists()
    assert run.reasons()[:2] == [
        ("allow", "approved for this run"),
        ("allow", "allowed for this run"),
    ]


async def test_a_destructive_deny_policy_wins_over_an_approval_for_the_run(
    registry: ToolRegistry, ctx: ToolContext, root: Path
) -> None:
    (root / "keep").mkdir()
    person = Person(lambda request: Approved(scope="run"))
    run = Run(registry, ctx, person, destructive=ApprovalMode.DENY)
    assert (await run("run_command", command("touch", "a"))).ok
    removed = await run("run_command", command("rm", "-rf", "keep"))
    shelled = await run("run_command", command("sh", "-c", "touch c"))
    assert len(person.asked) == 1
    assert "policy denies destructive calls" in removed.output
    assert "policy denies destructive calls" in shelled.output
    assert (root / "keep").is_dir()
    assert not (root / "c").exists()
    assert run.reasons()[1:] == [("deny", "policy"), ("deny", "policy")]


async def test_deny_wins_even_over_a_scope_already_remembered(
    registry: ToolRegistry, ctx: ToolContext, root: Path
) -> None:
    person = Person(lambda request: Approved(scope="run"))
    run = Run(registry, ctx, person)
    assert (await run("write_file", {"path": "a.txt", "content": "1"})).ok
    run.gate.policy = ApprovalSettings(tools={"write_file": ApprovalMode.DENY})
    refused = await run("write_file", {"path": "b.txt", "content": "2"})
    assert "policy denies" in refused.output
    assert not (root / "b.txt").exists()


async def test_memory_never_widens_from_write_to_destructive(
    registry: ToolRegistry, ctx: ToolContext, root: Path
) -> None:
    for name in ("a", "b", "c", "target"):
        (root / name).write_text(name)
    person = Person(lambda request: Approved(scope="run"))
    run = Run(registry, ctx, person)
    assert (await run("move_path", {"source": "a", "destination": "a2"})).ok
    assert (await run("move_path", {"source": "b", "destination": "b2"})).ok
    assert (await run("move_path", {"source": "c", "destination": "target"})).ok
    assert [r.risk for r in person.asked] == ["write", "destructive"]
    assert [r.remember for r in person.asked] == [
        "move_path calls, at risk write",
        "move_path calls, at risk destructive",
    ]


def launcher(calls: list[str] | None = None) -> Tool:
    """A tool that 'starts' the program it is given under the sandbox it asks for (it only
    records the call): the registry fixes its risk and scope as for run_command."""

    async def execute(arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if calls is not None:
            calls.append(f"{arguments['program']}:{ctx.scope.sandbox}")
        return ToolResult.success("ran")

    def scope(arguments: dict[str, Any], ctx: ToolContext) -> CallScope:
        sandbox: SandboxPolicy = arguments.get("sandbox", "read-only")
        return CallScope(program=arguments["program"], sandbox=sandbox)

    return Tool.from_schema(
        name="launch",
        description="Start a program.",
        parameters={
            "type": "object",
            "properties": {
                "program": {"type": "string"},
                "sandbox": {"enum": ["read-only", "workspace-write", "full"]},
            },
            "required": ["program"],
        },
        risk=RiskLevel.WRITE,
        execute=execute,
        scope=scope,
    )


async def test_memory_is_per_program_and_sandbox(ctx: ToolContext) -> None:
    ran: list[str] = []
    person = Person(lambda request: Approved(scope="run"))
    run = Run(ToolRegistry([launcher(ran)]), ctx, person)
    for program, sandbox in [
        ("make", "workspace-write"),
        ("make", "workspace-write"),
        ("cmake", "workspace-write"),
        ("make", "read-only"),  # raised to workspace-write by the write risk: same scope
    ]:
        assert (await run("launch", {"program": program, "sandbox": sandbox})).ok
    [first, second] = person.asked
    assert (first.program, first.sandbox, second.program) == ("make", "workspace-write", "cmake")
    assert (
        first.remember
        == "launch calls that run `make`, at risk write, in the workspace-write sandbox"
    )
    assert "running `make` in the workspace-write sandbox" in first.describe()
    assert ran == ["make:workspace-write"] * 2 + ["cmake:workspace-write", "make:workspace-write"]


async def test_full_access_always_asks_and_is_remembered_only_when_chosen(
    ctx: ToolContext,
) -> None:
    ran: list[str] = []
    full = {"program": "curl", "sandbox": "full"}
    plain_run = Person(lambda request: Approved(scope="run"))
    run = Run(ToolRegistry([launcher(ran)]), ctx, plain_run, tools={"launch": ApprovalMode.ALLOW})
    assert (await run("launch", {"program": "make"})).ok  # policy allows: not asked
    assert (await run("launch", full)).ok
    assert (await run("launch", full)).ok
    assert [r.sandbox for r in plain_run.asked] == ["full", "full"]
    assert run.reasons()[-1] == (
        "allow",
        "approved once (full access is remembered only when chosen explicitly)",
    )

    chosen = Person(lambda request: Approved(scope="run", full_access=True))
    run = Run(ToolRegistry([launcher(ran)]), ctx, chosen)
    assert (await run("launch", full)).ok
    assert (await run("launch", full)).ok
    assert len(chosen.asked) == 1
    assert ran[-1] == "curl:full"


async def test_full_access_is_still_denied_by_policy(ctx: ToolContext) -> None:
    person = Person(lambda request: Approved(scope="run", full_access=True))
    run = Run(ToolRegistry([launcher()]), ctx, person, tools={"launch": ApprovalMode.DENY})
    refused = await run("launch", {"program": "curl", "sandbox": "full"})
    assert not refused.ok
    assert person.asked == []


def counting(tool: Tool, plans: list[int]) -> Tool:
    assert tool.plan is not None
    plan = tool.plan

    async def counted(arguments: Any, ctx: ToolContext) -> EditPlan | ToolResult:
        plans.append(1)
        return await plan(arguments, ctx)

    return dataclasses.replace(tool, plan=counted)


EDIT = {"path": "app.py", "edits": [{"old_text": "return 1", "new_text": "return 3"}]}


async def test_an_approved_edit_is_planned_once_and_that_plan_applied(
    registry: ToolRegistry, ctx: ToolContext, root: Path
) -> None:
    (root / "app.py").write_text("def main():\n    return 1\n")
    ctx.files.shown.saw_file(root / "app.py")
    plans: list[int] = []
    edit = counting(registry.get("edit_file"), plans)  # type: ignore[arg-type]
    person = Person(lambda request: Approved())
    result = await Run(ToolRegistry([edit]), ctx, person)("edit_file", EDIT)
    assert result.ok, result.output
    assert len(plans) == 1
    assert (root / "app.py").read_text() == "def main():\n    return 3\n"
    assert person.asked[0].preview is not None
    assert "+    return 3" in person.asked[0].preview
    assert person.asked[0].preview in result.output


async def test_an_allowed_edit_is_planned_once_and_the_tool_never_plans_again(
    registry: ToolRegistry, ctx: ToolContext, root: Path
) -> None:
    (root / "app.py").write_text("def main():\n    return 1\n")
    ctx.files.shown.saw_file(root / "app.py")
    plans: list[int] = []
    edit = counting(registry.get("edit_file"), plans)  # type: ignore[arg-type]

    async def never(arguments: Any, ctx: ToolContext) -> ToolResult:
        raise AssertionError("the chain applies the plan it made; it does not call execute")

    edit = dataclasses.replace(edit, execute=never)
    person = Person(lambda request: Approved())
    result = await Run(ToolRegistry([edit]), ctx, person, write=ApprovalMode.ALLOW)(
        "edit_file", EDIT
    )
    assert result.ok, result.output
    assert (len(plans), person.asked) == (1, [])
    assert (root / "app.py").read_text() == "def main():\n    return 3\n"
    assert "+    return 3" in result.output


async def test_a_refusal_comes_before_an_edit_that_cannot_be_planned(
    registry: ToolRegistry, ctx: ToolContext, root: Path
) -> None:
    person = Person(lambda request: Approved())
    run = Run(registry, ctx, person, write=ApprovalMode.DENY)
    result = await run("edit_file", {**EDIT, "path": "missing.py"})
    assert not result.ok
    assert "was not run" in result.output
    assert run.reasons() == [("deny", "policy")]
    assert not (root / "missing.py").exists()


async def test_a_file_changed_between_approval_and_apply_is_refused(
    registry: ToolRegistry, ctx: ToolContext, root: Path
) -> None:
    app = root / "app.py"
    app.write_text("def main():\n    return 1\n")
    ctx.files.shown.saw_file(app)

    def change_it(request: ApprovalRequest) -> ApprovalDecision:
        app.write_text("def main():\n    return 1\n# edited meanwhile\n")
        return Approved()

    result = await Run(registry, ctx, Person(change_it))("edit_file", EDIT)
    assert not result.ok
    assert "changed on disk since it was read" in result.output
    assert app.read_text().endswith("# edited meanwhile\n")


async def test_a_file_that_vanishes_while_planning_is_a_failed_result(
    ctx: ToolContext, root: Path
) -> None:
    async def racing(arguments: Any, ctx: ToolContext) -> EditPlan | ToolResult:
        raise FileNotFoundError(2, "No such file or directory", "gone.txt")

    async def never(arguments: Any, ctx: ToolContext) -> ToolResult:
        raise AssertionError("an unplanned edit must not run")

    tool = Tool.from_schema(
        name="racy",
        description="Plans an edit of a file that disappears.",
        parameters={"type": "object", "properties": {}},
        risk=RiskLevel.WRITE,
        execute=never,
        plan=racing,
    )
    person = Person(lambda request: Approved())
    result = await Run(ToolRegistry([tool]), ctx, person)("racy", {})
    assert not result.ok
    assert "could not be planned" in result.output
    assert person.asked == []


@pytest.mark.parametrize("scope", ["once", "run"])
async def test_an_approval_event_says_what_was_decided(
    registry: ToolRegistry, ctx: ToolContext, scope: Any
) -> None:
    run = Run(registry, ctx, Person(lambda request: Approved(scope=scope)))
    assert (await run("write_file", {"path": "n.txt", "content": "x"})).ok
    expected = "approved for this run" if scope == "run" else "approved once"
    assert run.reasons() == [("allow", expected)]


async def test_arguments_changed_during_approval_are_a_denial(
    registry: ToolRegistry, ctx: ToolContext, root: Path
) -> None:
    def tamper(request: ApprovalRequest) -> ApprovalDecision:
        request.arguments["content"] = "something else"  # type: ignore[index]
        return Approved()

    result = await Run(registry, ctx, Person(tamper))(
        "write_file", {"path": "n.txt", "content": "x"}
    )
    assert not result.ok
    assert "its arguments differ from what was approved" in result.output
    assert not (root / "n.txt").exists()
