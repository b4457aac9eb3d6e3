"""The loop with the scripted provider, the real tools and real workspaces."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.turns import calls, say
from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult, tool
from foehn_lsp.agent import Agent, TurnRequest
from foehn_lsp.agent.chain import Parts
from foehn_lsp.agent.execution import TurnExecutor
from foehn_lsp.agent.loop import TurnOutcome
from foehn_lsp.agent.plan_mode import ReadOnlyGuard
from foehn_lsp.config import ApprovalMode, ApprovalSettings, Settings
from foehn_lsp.errors import ProviderUnavailableError
from foehn_lsp.events import (
    ApprovalEvent,
    Done,
    EventSink,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
)
from foehn_lsp.policy import Approved, Denied, FixedApprover
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalGate, ApprovalRequest
from foehn_lsp.policy.plans import PlanReviewer
from foehn_lsp.providers.messages import ModelResponse, ToolResultMessage, UserMessage
from foehn_lsp.providers.scripted import ScriptedProvider
from foehn_lsp.tools import ToolRegistry, discover


class Recorder(list[TurnEvent]):
    def __call__(self, event: TurnEvent) -> None:
        self.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self if isinstance(e, kind)]


@dataclass(frozen=True, kw_only=True)
class Runner:
    """The loop with ``registry``'s tools behind an approval gate, the chain a toolbox makes
    without its checkpoints and audit."""

    agent: Agent
    registry: ToolRegistry
    approver: Any

    async def run_turn(
        self,
        request: TurnRequest,
        ctx: ToolContext,
        emit: EventSink,
        stop: asyncio.Event | None = None,
        *,
        changed: Callable[[], Sequence[str]] | None = None,
    ) -> TurnOutcome:
        """``changed``: the files the turn changed, as a session's checkpoint sees them."""
        gate = ApprovalGate(self.agent.settings.approval, self.approver, emit)
        executor = TurnExecutor(
            self.registry, ctx, emit, Parts(mode=ReadOnlyGuard(), approval=gate)
        )
        return await self.agent.run_turn(request, executor, emit, stop, changed=changed)


def agent(
    turns: list[ModelResponse],
    *,
    approver: Any = None,
    registry: ToolRegistry | None = None,
    **settings: Any,
) -> tuple[Runner, ScriptedProvider]:
    provider = ScriptedProvider(turns)
    approver = approver or FixedApprover(Approved())
    reviewer = approver if isinstance(approver, PlanReviewer) else None
    built = Runner(
        agent=Agent(provider=provider, settings=Settings(**settings), reviewer=reviewer),
        registry=registry or discover().registry,
        approver=approver,
    )
    return built, provider


async def test_a_plain_answer_ends_the_run(app: Path, ctx: ToolContext) -> None:
    runner, _ = agent([say("Hello.")])
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="hi"), ctx, events)
    assert (outcome.reason, outcome.answer, outcome.iterations) == ("answer", "Hello.", 0)
    assert events[-1] == Done(reason="answer", answer="Hello.", iterations=0)


async def test_scan_read_edit_with_approval(app: Path, ctx: ToolContext) -> None:
    approver = FixedApprover(Approved())
    runner, provider = agent(
        [
            calls(("scan", {"pattern": "*.py"})),
            calls(("read_file", {"path": "app.py"})),
            calls(
                (
                    "edit_file",
                    {
                        "path": "app.py",
                        "edits": [{"old_text": "return 1  # TODO", "new_text": "return 2"}],
                    },
                )
            ),
            say("Fixed the TODO in app.py."),
        ],
        approver=approver,
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="fix the TODO"), ctx, events)
    assert outcome.reason == "answer"
    assert outcome.iterations == 3
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"
    [asked] = approver.asked  # read-only calls were allowed by policy, the edit was asked
    assert asked.tool == "edit_file"
    assert asked.risk == "write"
    assert asked.arguments["path"] == "app.py"
    assert asked.preview is not None
    assert "-    return 1  # TODO\n+    return 2" in asked.preview
    assert [(e.tool, e.decision, e.reason) for e in events.of(ApprovalEvent)] == [
        ("scan", "allow", "policy"),
        ("read_file", "allow", "policy"),
        ("edit_file", "allow", "approved once"),
    ]
    sent = provider.requests[3][0]
    assert isinstance(sent[-1], ToolResultMessage)
    assert sent[-1].content.startswith("edit app.py (1 block)")


async def test_a_denied_call_is_not_run_and_the_model_continues(
    app: Path, ctx: ToolContext
) -> None:
    runner, _provider = agent(
        [
            calls(("read_file", {"path": "app.py"})),
            calls(("write_file", {"path": "app.py", "content": "gone = True\n"})),
            say("I was not allowed to change app.py."),
        ],
        approver=FixedApprover(Denied(reason="--approve never")),
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="rewrite"), ctx, events)
    assert outcome.reason == "answer"
    assert (app / "app.py").read_text().startswith("def main")
    [_, result] = events.of(ToolResultEvent)
    assert not result.ok
    assert "the person denied this call (--approve never); it was not run" in result.output
    assert [e.decision for e in events.of(ApprovalEvent)] == ["allow", "deny"]


async def test_allow_for_this_run_asks_once_per_tool(app: Path, ctx: ToolContext) -> None:
    class Once:
        asked = 0

        async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
            self.asked += 1
            return Approved(scope="run")

    approver = Once()
    runner, _ = agent(
        [
            calls(("write_file", {"path": "a.txt", "content": "1"})),
            calls(("write_file", {"path": "b.txt", "content": "2"})),
            say("done"),
        ],
        approver=approver,
    )
    events = Recorder()
    await runner.run_turn(TurnRequest(task="x"), ctx, events)
    assert approver.asked == 1
    assert (app / "b.txt").read_text() == "2"
    assert [e.reason for e in events.of(ApprovalEvent)] == [
        "approved for this run",
        "allowed for this run",
    ]


async def test_policy_deny_and_per_tool_overrides(app: Path, ctx: ToolContext) -> None:
    policy = ApprovalSettings(write=ApprovalMode.DENY, tools={"make_directory": ApprovalMode.ALLOW})
    approver = FixedApprover(Approved())
    runner, _ = agent(
        [
            calls(
                ("write_file", {"path": "a.txt", "content": "1"}), ("make_directory", {"path": "d"})
            ),
            say("ok"),
        ],
        approver=approver,
        approval=policy,
    )
    events = Recorder()
    await runner.run_turn(TurnRequest(task="x"), ctx, events)
    assert not (app / "a.txt").exists()
    assert (app / "d").is_dir()
    assert approver.asked == []
    denied = events.of(ToolResultEvent)[0]
    assert "policy denies write calls" in denied.output


async def test_a_file_changed_after_approval_is_a_denial(app: Path, ctx: ToolContext) -> None:
    class ChangesTheFile:
        async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
            (app / "app.py").write_text("def main():\n    return 1  # TODO\n# edited meanwhile\n")
            return Approved()

    runner, _ = agent(
        [
            calls(
                ("read_file", {"path": "app.py"}),
                (
                    "edit_file",
                    {"path": "app.py", "edits": [{"old_text": "return 1", "new_text": "return 3"}]},
                ),
            ),
            say("ok"),
            say("It was changed by someone else meanwhile; I left it alone."),
        ],
        approver=ChangesTheFile(),
    )
    events = Recorder()
    await runner.run_turn(TurnRequest(task="x"), ctx, events)
    [result] = [r for r in events.of(ToolResultEvent) if r.tool == "edit_file"]
    assert "changed on disk since it was read" in result.output
    assert "return 1" in (app / "app.py").read_text()


async def test_unknown_tools_and_malformed_arguments_go_back_to_the_model(
    app: Path, ctx: ToolContext
) -> None:
    runner, _provider = agent(
        [
            calls(
                ("frobnicate", {}), ("read_file", '{"path": "app.py"'), ("read_file", {"line": 3})
            ),
            say("Sorry."),
        ]
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="x"), ctx, events)
    assert outcome.reason == "answer"
    unknown, bad_json, bad_field = events.of(ToolResultEvent)
    assert (
        "unknown tool 'frobnicate'; the tools that exist are: create_repository, delete_path"
        in (unknown.output)
    )
    assert "arguments: not valid JSON" in bad_json.output
    assert "arguments/path: required property is missing" in bad_field.output
    assert [e.risk for e in events.of(ToolCallEvent)] == ["undefined", "read_only", "read_only"]
    assert events.of(ToolCallEvent)[1].arguments == '{"path": "app.py"'


@tool(risk=RiskLevel.READ_ONLY)
async def explode() -> str:
    """Raise."""
    raise RuntimeError("boom")


@tool(risk=RiskLevel.READ_ONLY, timeout=0.1)
async def hang() -> str:
    """Never finish."""
    await asyncio.Event().wait()
    return ""


async def test_a_tool_that_raises_or_hangs_fails_and_the_run_goes_on(ctx: ToolContext) -> None:
    registry = ToolRegistry([explode, hang])
    runner, _ = agent(
        [calls(("explode", {}), ("hang", {})), say("Both failed.")], registry=registry
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="x"), ctx, events)
    assert outcome.reason == "answer"
    boom, stuck = events.of(ToolResultEvent)
    assert "internal error: RuntimeError: boom" in boom.output
    assert "did not finish within 0.1 s" in stuck.output


async def test_max_iterations_asks_for_a_summary(app: Path, ctx: ToolContext) -> None:
    forever = [
        calls(("read_file", {"path": "app.py", "offset": 1 + i % 2}), prefix=f"r{i}")
        for i in range(3)
    ]
    runner, provider = agent(
        [*forever, say("I read app.py; nothing else done.")], max_tool_iterations=2
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="x"), ctx, events)
    assert outcome.reason == "max_iterations"
    assert outcome.iterations == 2
    assert outcome.answer.startswith("Stopped: the run reached its limit of 2 tool iterations.")
    assert "I read app.py; nothing else done." in outcome.answer
    messages, tools = provider.requests[-1]
    assert tools == []
    assert isinstance(messages[-1], UserMessage)
    assert "No more tools can be used" in messages[-1].content
    not_run = [m for m in messages if isinstance(m, ToolResultMessage) and m.call_id == "r20"]
    assert not_run[0].content.startswith("not run: the run reached its limit")


async def test_the_model_is_told_when_iterations_run_low(app: Path, ctx: ToolContext) -> None:
    runner, provider = agent([calls(("scan", {})), say("ok")], max_tool_iterations=3)
    await runner.run_turn(TurnRequest(task="x"), ctx, Recorder())
    note = provider.requests[1][0][-1]
    assert isinstance(note, UserMessage)
    assert note.content.startswith("[Foehn] 2 tool iterations left")


async def test_the_same_call_over_and_over_stops_the_run(app: Path, ctx: ToolContext) -> None:
    same = [calls(("scan", {"pattern": "*.py"}), prefix=f"s{i}") for i in range(5)]
    runner, _ = agent([*same, say("I kept listing.")], repeat_limit=3)
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="x"), ctx, events)
    assert outcome.reason == "repeated_call"
    assert outcome.iterations == 2
    assert "scan was called 3 times in a row" in outcome.answer


async def test_a_read_only_program_over_and_over_stops_the_run(app: Path, ctx: ToolContext) -> None:
    """It ran in the read-only sandbox, so it changed nothing: the third identical run with the
    same output is a repeat, as any reading call's would be."""
    same = [calls(("run_command", {"command": ["ls"]}), prefix=f"l{i}") for i in range(5)]
    runner, _ = agent([*same, say("I kept listing.")], repeat_limit=3)
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="x"), ctx, events)
    assert outcome.reason == "repeated_call"
    assert "run_command was called 3 times in a row" in outcome.answer


async def test_the_token_budget_stops_the_run(app: Path, ctx: ToolContext) -> None:
    turns = [
        calls(("scan", {"path": "."}), tokens=400, prefix="a"),
        calls(("read_file", {"path": "app.py"}), tokens=400, prefix="b"),
        say("summary", tokens=1),
    ]
    runner, _ = agent(turns, token_budget=1500)
    outcome = await runner.run_turn(TurnRequest(task="x"), ctx, Recorder())
    assert outcome.reason == "budget"
    assert "token budget (1,500)" in outcome.answer


async def test_a_provider_failing_mid_run_ends_it_with_error(app: Path, ctx: ToolContext) -> None:
    class Failing(ScriptedProvider):
        async def complete(self, *args: Any, **kwargs: Any) -> ModelResponse:
            if not self.turns:
                raise ProviderUnavailableError("Mistral is unavailable (503)")
            return await super().complete(*args, **kwargs)

    provider = Failing([calls(("scan", {}))])
    runner = Runner(
        agent=Agent(provider=provider, settings=Settings()),
        registry=discover().registry,
        approver=FixedApprover(Approved()),
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="x"), ctx, events)
    assert (outcome.reason, outcome.answer) == ("error", "Mistral is unavailable (503)")
    assert isinstance(events[-1], Done)


async def test_cancelling_stops_a_running_tool_and_ends_the_run(ctx: ToolContext) -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()

    @tool(risk=RiskLevel.READ_ONLY)
    async def wait_forever() -> str:
        """Wait."""
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return ""

    runner, _ = agent(
        [calls(("wait_forever", {})), say("never")], registry=ToolRegistry([wait_forever])
    )
    stop = asyncio.Event()
    events = Recorder()
    run = asyncio.create_task(runner.run_turn(TurnRequest(task="x"), ctx, events, stop))
    await started.wait()
    stop.set()
    outcome = await asyncio.wait_for(run, timeout=10)
    assert outcome.reason == "cancelled"
    assert cancelled.is_set()
    assert events[-1] == Done(reason="cancelled", answer="The run was cancelled.", iterations=1)


async def test_parallel_calls_run_together_and_results_keep_call_order(ctx: ToolContext) -> None:
    gate = asyncio.Event()

    @tool(risk=RiskLevel.READ_ONLY)
    async def first() -> str:
        """Wait for second."""
        await asyncio.wait_for(gate.wait(), timeout=10)
        return "first"

    @tool(risk=RiskLevel.READ_ONLY)
    async def second() -> str:
        """Release first."""
        gate.set()
        return "second"

    runner, provider = agent(
        [calls(("first", {}), ("second", {})), say("ok")], registry=ToolRegistry([first, second])
    )
    events = Recorder()
    await runner.run_turn(TurnRequest(task="x"), ctx, events)
    results = [m for m in provider.requests[1][0] if isinstance(m, ToolResultMessage)]
    assert [r.content for r in results] == ["first", "second"]
    assert [e.tool for e in events.of(ToolResultEvent)] == ["second", "first"]


async def test_sequential_tools_never_overlap(ctx: ToolContext) -> None:
    running = 0
    overlaps = []

    async def body(arguments: Any, ctx: ToolContext) -> ToolResult:
        nonlocal running
        running += 1
        overlaps.append(running)
        await asyncio.sleep(0)
        running -= 1
        return ToolResult.success("ok")

    solo = Tool.from_schema(
        name="solo",
        description="Sequential.",
        risk=RiskLevel.READ_ONLY,
        parameters={"type": "object"},
        execute=body,
        sequential=True,
    )
    runner, _ = agent(
        [calls(("solo", {}), ("solo", {}), ("solo", {})), say("ok")], registry=ToolRegistry([solo])
    )
    await runner.run_turn(TurnRequest(task="x"), ctx, Recorder())
    assert overlaps == [1, 1, 1]


async def test_a_trusted_workspace_adds_its_rules_to_the_system_message(
    app: Path, ctx: ToolContext, approve_all: Callable[[Path], None]
) -> None:
    (app / ".foehn").mkdir()
    (app / ".foehn" / "system.md").write_text("You are terse.")
    approve_all(app)
    runner, provider = agent([say("k")], trust_workspace=True)
    await runner.run_turn(TurnRequest(task="x", context="File: app.py"), ctx, Recorder())
    system, user = provider.requests[0][0]
    assert system.content.startswith("You are Foehn")
    assert system.content.endswith("You are terse.")
    assert user.content == "x\n\nFile: app.py"


async def test_the_default_system_message_names_the_workspace(app: Path, ctx: ToolContext) -> None:
    runner, provider = agent([say("k")])
    await runner.run_turn(TurnRequest(task="x"), ctx, Recorder())
    assert f'workspace root "{app.name}"' in provider.requests[0][0][0].content


def test_events_serialise_as_documented() -> None:
    from foehn_lsp.events import event_json

    assert event_json(ToolCallEvent(id="1", tool="scan", arguments={}, risk="read_only")) == {
        "event": "tool_call",
        "id": "1",
        "tool": "scan",
        "arguments": {},
        "risk": "read_only",
    }
    assert list(event_json(Done(reason="answer", answer="a", iterations=2))) == [
        "event",
        "reason",
        "answer",
        "iterations",
    ]
    denial = event_json(ApprovalEvent(id="1", tool="t", decision="deny", reason="dismissed"))
    assert json.loads(json.dumps(denial)) == {
        "event": "approval",
        "id": "1",
        "tool": "t",
        "decision": "deny",
        "reason": "dismissed",
    }
