"""Precedence as a table: rules, hooks and policy decide together, in one place, through the
real registry chain, the real gate and real programs in the real sandbox.

Each row is a rule file, a policy, one call, and what must happen: it runs without asking (and
under which sandbox), the person is asked, or it is refused without asking. The person here
refuses whatever they are asked, so "asks" also means it did not run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalGate, ApprovalRequest, Denied
from foehn_lsp.policy.guards import Guards, TurnGuards
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.tools.registry import Handler, Invocation
from policy.gated import gated

Outcome = Literal["runs", "asks", "denied"]

ALLOW_TOUCH = 'tool = "run_command"\nprogram = "touch"\ndecision = "allow"\n'
DENY_TOUCH = 'tool = "run_command"\nprogram = "touch"\ndecision = "deny"\nmessage = "no touching"\n'
ASK_TOUCH = 'tool = "run_command"\nprogram = "touch"\ndecision = "ask"\n'
WORKSPACE_WRITE = 'sandbox = "workspace-write"\n'
HOOK = (
    'event = "pre_tool"\ncommand = ["python3", "-c", "print(\'{{\\"decision\\": \\"{}\\"}}\')"]\n'
)


def rules(*tables: str) -> str:
    return "".join(f"[[rules]]\n{table}\n" for table in tables)


def hook(decision: str) -> str:
    return "[[hooks]]\n" + HOOK.format(decision)


@dataclass(frozen=True)
class Row:
    name: str
    config: str
    call: tuple[str, dict[str, Any]]
    expected: Outcome
    sandbox: str | None = None
    policy: dict[str, Any] | None = None


def touch(*more: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    return ("run_command", {"command": ["touch", "t.txt", *more], **arguments})


WRITE = ("write_file", {"path": "w.txt", "content": "x"})
STATUS = ("run_command", {"command": ["git", "--version"]})

ROWS = [
    Row("no rule: a write asks", "", touch(), "asks"),
    Row("no rule: a read runs", "", STATUS, "runs", "read-only"),
    Row("allow: runs, read-only by default", rules(ALLOW_TOUCH), touch(), "runs", "read-only"),
    Row(
        "allow with a sandbox: runs under it",
        rules(ALLOW_TOUCH + 'sandbox = "workspace-write"\n'),
        touch(),
        "runs",
        "workspace-write",
    ),
    Row(
        "allow: the rule's sandbox, not the one the model asks for",
        rules(ALLOW_TOUCH + 'sandbox = "workspace-write"\n'),
        touch(sandbox="full"),
        "runs",
        "workspace-write",
    ),
    Row(
        "allow full only when the rule says full",
        rules(ALLOW_TOUCH + 'sandbox = "full"\n'),
        touch(sandbox="full"),
        "runs",
        "full",
    ),
    Row("deny beats allow", rules(ALLOW_TOUCH, DENY_TOUCH), touch(), "denied"),
    Row("deny beats allow, in any order", rules(DENY_TOUCH, ALLOW_TOUCH), touch(), "denied"),
    Row("ask beats allow", rules(ALLOW_TOUCH, ASK_TOUCH), touch(), "asks"),
    Row("deny beats ask", rules(ASK_TOUCH, DENY_TOUCH), touch(), "denied"),
    Row(
        "a rule cannot allow a read-only call past a policy that asks",
        rules('tool = "run_command"\nprogram = "git"\ndecision = "allow"\n'),
        STATUS,
        "asks",
        policy={"read_only": "ask"},
    ),
    Row(
        "a rule can make a read-only call ask",
        rules('tool = "run_command"\nprogram = "git"\ndecision = "ask"\n'),
        STATUS,
        "asks",
    ),
    Row(
        "a rule can deny a read-only call",
        rules('tool = "run_command"\nprogram = "git"\ndecision = "deny"\n'),
        STATUS,
        "denied",
    ),
    Row(
        "a policy that denies beats an allow rule",
        rules(ALLOW_TOUCH),
        touch(),
        "denied",
        policy={"write": "deny"},
    ),
    Row(
        "a per-tool policy that denies beats an allow rule",
        rules(ALLOW_TOUCH),
        touch(),
        "denied",
        policy={"tools": {"run_command": "deny"}},
    ),
    Row(
        "a policy that allows writes still asks for full",
        "",
        touch(sandbox="full"),
        "asks",
        policy={"write": "allow"},
    ),
    Row(
        "a file write needs the rule to grant workspace-write",
        rules('tool = "write_file"\npaths = ["*.txt"]\ndecision = "allow"\n'),
        WRITE,
        "asks",
    ),
    Row(
        "a file write allowed with workspace-write",
        rules('tool = "write_file"\npaths = ["*.txt"]\ndecision = "allow"\n' + WORKSPACE_WRITE),
        WRITE,
        "runs",
    ),
    Row(
        "an MCP tool's write needs full",
        rules('tool = "mcp__srv__*"\ndecision = "allow"\nsandbox = "workspace-write"\n'),
        ("mcp__srv__note", {}),
        "asks",
    ),
    Row(
        "an MCP tool's write allowed with full",
        rules('tool = "mcp__srv__*"\ndecision = "allow"\nsandbox = "full"\n'),
        ("mcp__srv__note", {}),
        "runs",
    ),
    Row("a hook's deny beats an allow rule", rules(ALLOW_TOUCH) + hook("deny"), touch(), "denied"),
    Row("a hook's ask beats an allow rule", rules(ALLOW_TOUCH) + hook("ask"), touch(), "asks"),
    Row("a hook's allow is no objection", hook("allow"), touch(), "asks"),
    Row(
        "a hook's allow with an allow rule runs",
        rules(ALLOW_TOUCH) + hook("allow"),
        touch(),
        "runs",
        "read-only",
    ),
    Row("a hook's deny stops a read", hook("deny"), STATUS, "denied"),
    Row(
        "a deny rule stops the call before a hook runs",
        rules(DENY_TOUCH) + hook("allow"),
        touch(),
        "denied",
    ),
]


class Refuses:
    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return Denied(reason="the table says no")


async def _note(arguments: object, ctx: ToolContext) -> ToolResult:
    return ToolResult.success("noted")


MCP_WRITE = Tool.from_schema(
    name="mcp__srv__note",
    description="A tool named like an MCP server's, which writes.",
    parameters={"type": "object", "properties": {}},
    execute=_note,
    risk=RiskLevel.WRITE,
)


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
async def test_precedence(
    row: Row, registry: ToolRegistry, ctx: ToolContext, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(row.config)
    tools = ToolRegistry([*registry, MCP_WRITE])
    person = Refuses()
    guards = TurnGuards(guards=Guards(config, ctx.workspace.root, trusted=False))
    assert not guards.guards.rules.problems
    assert not guards.guards.hooks.problems
    gate = ApprovalGate(ApprovalSettings(**(row.policy or {})), person, lambda e: None, guards)
    ran: list[str | None] = []

    async def count(invocation: Invocation, next_step: Handler) -> ToolResult:
        ran.append(invocation.scope.sandbox)
        return await next_step(invocation)

    tool, arguments = row.call
    result = await tools.call(
        tool, json.dumps(arguments), ctx, call_id="1", steps=(*steps(gated(gate)), count)
    )
    outcome: Outcome = "runs" if ran else ("asks" if person.asked else "denied")
    assert outcome == row.expected, result.output
    if row.expected == "runs" and row.sandbox is not None:
        assert ran == [row.sandbox]
    if row.expected == "runs" and tool == "run_command" and row.sandbox == "read-only":
        assert not (ctx.workspace.root / "t.txt").exists()  # allowed, in a sandbox that says no
    elif row.expected == "runs":
        assert result.ok, result.output
    if row.expected == "denied" and "no touching" in row.config and "deny" in row.name:
        assert "no touching" in result.output


@pytest.mark.parametrize(
    ("config", "call", "proposed"),
    [
        ("", touch(), ("run_command", "touch", ("?",), "workspace-write")),
        (
            "",
            ("run_command", {"command": ["git", "commit", "-m", "x"]}),
            ("run_command", "git", ("commit", "-m", "?"), "workspace-write"),
        ),
        (rules(ASK_TOUCH), touch(), None),  # an ask rule would still ask
        ("", touch(sandbox="full"), None),  # Foehn never writes full for you
        ("", ("run_command", {"command": ["./build.sh"]}), None),  # a path is never allowed
        ("", WRITE, ("write_file", None, None, "workspace-write")),
    ],
)
async def test_always_proposes_the_narrowest_rule_that_would_allow_the_call(
    config: str,
    call: tuple[str, dict[str, Any]],
    proposed: tuple[str, str | None, tuple[str, ...] | None, str] | None,
    registry: ToolRegistry,
    ctx: ToolContext,
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(config)
    person = Refuses()
    guards = TurnGuards(guards=Guards(path, ctx.workspace.root, trusted=False))
    gate = ApprovalGate(ApprovalSettings(), person, lambda e: None, guards)
    tool, arguments = call
    await registry.call(tool, json.dumps(arguments), ctx, call_id="1", steps=steps(gated(gate)))
    [request] = person.asked
    rule = request.proposed_rule
    shape = (rule.tool, rule.program, rule.args, rule.sandbox) if rule else None
    assert shape == proposed
    if rule is not None and rule.paths is not None:
        assert rule.paths == ("w.txt",)
