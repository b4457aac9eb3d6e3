"""A tool says what it does (``kind``, ``plan``, ``paths``) and the host reads the answer: a
third-party edit tool, declared like any plugin's, gets Foehn's edit checks, claim checks, read
ledger and front-end kind without its name appearing anywhere in Foehn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field

from agent.test_loop import Recorder, agent
from agent.turns import calls, say
from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult
from foehn_lsp.agent import TurnRequest
from foehn_lsp.agent.chain import Parts, steps
from foehn_lsp.agent.execution import TurnExecutor
from foehn_lsp.agent.plan_mode import ReadOnlyGuard
from foehn_lsp.agent.reads import replay_reads
from foehn_lsp.checks.checking import CheckReport, EditChecks
from foehn_lsp.events import ToolCallEvent
from foehn_lsp.policy import ApprovalGate, Approved, FixedApprover
from foehn_lsp.providers.messages import AssistantMessage, Message, ToolCall, ToolResultMessage
from foehn_lsp.tools import ToolRegistry, discover
from foehn_lsp.tools.contract import CallPaths, Change
from foehn_lsp.workspace import EditPlan, WriteFile


class Upper(BaseModel):
    target: Annotated[str, Field(description="The file to shout.")]


async def plan_upper(arguments: Upper, ctx: ToolContext) -> EditPlan:
    path = ctx.workspace.resolve(arguments.target, write=True)
    current = await ctx.files.read(path)
    change = WriteFile(
        path=path,
        text=current.text.upper(),
        old_text=current.text,
        old_fingerprint=current.fingerprint,
    )
    return EditPlan(tool="shout_file", changes=(change,), summary=f"shout {arguments.target}")


def upper_paths(arguments: Mapping[str, Any]) -> CallPaths:
    target = str(arguments["target"])
    return CallPaths(reads=(target,), changes=(Change(before=target, after=target),), whole=True)


SHOUT = Tool.from_model(
    name="shout_file",
    description="Put a whole file in upper case.",
    model=Upper,
    plan=plan_upper,
    risk=RiskLevel.WRITE,
    kind="edit",
    paths=upper_paths,
)
"""A plugin's edit tool whose argument is not named ``path``: nothing in Foehn knows it."""


async def stamp(arguments: Upper, ctx: ToolContext) -> ToolResult:
    path = ctx.workspace.resolve(arguments.target, write=True)
    path.write_text(path.read_text() + "stamped\n")
    return ToolResult.success(f"stamped {arguments.target}")


STAMP = Tool.from_model(
    name="stamp_file",
    description="Stamp a file (the tool writes it itself, as an MCP server's tool does).",
    model=Upper,
    execute=stamp,
    risk=RiskLevel.WRITE,
    kind="edit",
    paths=upper_paths,
)
"""An edit tool with no plan: only its declared paths say which file it changes."""


class Seen:
    """A problem source that records which files it was asked to check."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    async def check(self, paths: Sequence[str]) -> CheckReport:
        self.asked.append(list(paths))
        return CheckReport()


def test_the_contract_derives_what_the_host_needs() -> None:
    assert SHOUT.changes_files
    assert SHOUT.paths_of({"target": "a.txt"}).changed == ("a.txt",)
    assert SHOUT.paths_of({}) == CallPaths()  # arguments the tool cannot read name nothing
    registry = ToolRegistry([SHOUT])
    assert registry.changes_files("shout_file")
    assert [d.kind for d in registry.definitions()] == ["edit"]


async def test_a_tool_that_writes_itself_is_checked_before_the_file_it_names_changes(
    app: Path, ctx: ToolContext
) -> None:
    (app / "notes.txt").write_text("quiet\n")
    seen = Seen()
    checks = EditChecks(seen, ctx.workspace)
    result = await ToolRegistry([STAMP]).call(
        "stamp_file", {"target": "notes.txt"}, ctx, steps=steps(Parts(edit_checks=checks))
    )
    assert result.ok
    assert (app / "notes.txt").read_text() == "quiet\nstamped\n"
    assert seen.asked == [["notes.txt"]]  # by its declared paths: it has no plan to read


async def test_a_third_party_edit_tool_gets_the_claim_checks_and_its_kind(
    app: Path, ctx: ToolContext
) -> None:
    (app / "notes.txt").write_text("quiet\n")
    registry = ToolRegistry([*discover().registry, SHOUT])
    runner, provider = agent(
        [
            calls(("shout_file", {"target": "notes.txt"})),
            say("I updated app.py."),
            say("I updated notes.txt."),
        ],
        registry=registry,
    )
    events = Recorder()
    gate = ApprovalGate(runner.agent.settings.approval, FixedApprover(Approved()), events)
    executor = TurnExecutor(registry, ctx, events, Parts(mode=ReadOnlyGuard(), approval=gate))
    outcome = await runner.agent.run_turn(TurnRequest(task="Shout the notes"), executor, events)
    assert (app / "notes.txt").read_text() == "QUIET\n"
    [call] = events.of(ToolCallEvent)
    assert call.tool_kind == "edit"
    # The claim naming app.py, which the turn did not change, went back to the model.
    messages, _ = provider.requests[2]
    assert "app.py" in str(messages[-1].content)
    assert outcome.answer == "I updated notes.txt."


def test_a_whole_file_write_of_a_third_party_tool_counts_as_read(
    app: Path, ctx: ToolContext
) -> None:
    (app / "notes.txt").write_text("quiet\n")
    call = ToolCall(id="c1", name="shout_file", arguments='{"target": "notes.txt"}')
    messages: list[Message] = [
        AssistantMessage(tool_calls=(call,)),
        ToolResultMessage(call_id="c1", name="shout_file", content="shout notes.txt"),
    ]
    ledger = replay_reads(messages, ctx.workspace, ToolRegistry([SHOUT]))
    assert ledger.read_whole(ctx.workspace.resolve("notes.txt"))
