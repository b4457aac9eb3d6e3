"""The registry fixes each call's scope next to its risk, makes the two agree, and hands the
tool exactly the scope that was fixed (and shown)."""

from __future__ import annotations

from typing import Any

import pytest

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult, tool
from foehn_lsp.agent.chain import steps
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.tools import Invocation, ToolRegistry
from foehn_lsp.tools.contract import CallScope
from foehn_lsp.tools.registry import Handler

SCHEMA = {
    "type": "object",
    "properties": {"sandbox": {"type": "string"}, "risk": {"type": "string"}},
}


async def _echo_scope(arguments: Any, ctx: ToolContext) -> ToolResult:
    return ToolResult.success(f"{ctx.scope.program} {ctx.scope.sandbox}")


def _scope(arguments: Any, ctx: ToolContext) -> CallScope:
    wanted: SandboxPolicy = arguments.get("sandbox", "read-only")
    return CallScope(program="probe", sandbox=wanted)


def _assess(arguments: Any, ctx: ToolContext) -> RiskLevel:
    return RiskLevel(arguments.get("risk", "read_only"))


def _registry() -> ToolRegistry:
    return ToolRegistry(
        [
            Tool.from_schema(
                name="probe",
                description="Reports the scope it was given.",
                parameters=SCHEMA,
                execute=_echo_scope,
                risk=RiskLevel.READ_ONLY,
                assess=_assess,
                scope=_scope,
            ),
            Tool.from_schema(
                name="plain",
                description="Starts no program.",
                parameters=SCHEMA,
                execute=_echo_scope,
                risk=RiskLevel.READ_ONLY,
            ),
        ]
    )


@pytest.mark.parametrize(
    ("arguments", "risk", "sandbox"),
    [
        ({}, RiskLevel.READ_ONLY, "read-only"),
        ({"risk": "write"}, RiskLevel.WRITE, "workspace-write"),
        ({"risk": "destructive"}, RiskLevel.DESTRUCTIVE, "workspace-write"),
        ({"sandbox": "workspace-write"}, RiskLevel.WRITE, "workspace-write"),
        ({"sandbox": "full"}, RiskLevel.WRITE, "full"),
        ({"sandbox": "full", "risk": "destructive"}, RiskLevel.DESTRUCTIVE, "full"),
    ],
)
async def test_scope_and_risk_agree_and_the_tool_runs_what_was_fixed(
    ctx: ToolContext, arguments: dict[str, str], risk: RiskLevel, sandbox: str
) -> None:
    seen: list[Invocation] = []

    async def spy(invocation: Invocation, next_step: Handler) -> ToolResult:
        seen.append(invocation)
        return await next_step(invocation)

    result = await _registry().call("probe", arguments, ctx, steps=(*steps(), spy))
    assert seen[0].risk is risk
    assert seen[0].scope == CallScope(program="probe", sandbox=sandbox)  # type: ignore[arg-type]
    assert result.output == f"probe {sandbox}"


async def test_a_tool_without_scope_gets_the_empty_scope(ctx: ToolContext) -> None:
    result = await _registry().call("plain", {}, ctx, steps=steps())
    assert result.output == "None None"


async def test_a_scope_that_raises_runs_nothing_narrower_than_full(ctx: ToolContext) -> None:
    def broken(arguments: Any, ctx: ToolContext) -> CallScope:
        raise RuntimeError("bug")

    registry = ToolRegistry(
        [
            Tool.from_schema(
                name="probe",
                description="Scope raises.",
                parameters=SCHEMA,
                execute=_echo_scope,
                risk=RiskLevel.READ_ONLY,
                scope=broken,
            )
        ]
    )
    seen: list[Invocation] = []

    async def spy(invocation: Invocation, next_step: Handler) -> ToolResult:
        seen.append(invocation)
        return ToolResult.failure("stopped by the test")

    await registry.call("probe", {}, ctx, steps=(*steps(), spy))
    assert seen[0].scope.sandbox == "full"
    assert seen[0].risk >= RiskLevel.WRITE


def _whoami_scope(arguments: Any, ctx: ToolContext) -> CallScope:
    return CallScope(program="id", sandbox="read-only")


@tool(risk=RiskLevel.READ_ONLY, scope=_whoami_scope)
async def who(ctx: ToolContext) -> str:
    """Report the sandbox policy the program would run under."""
    return f"would run id under {ctx.scope.sandbox}"


async def test_a_decorated_tool_declares_its_scope(ctx: ToolContext) -> None:
    result = await ToolRegistry([who]).call("who", {}, ctx, steps=steps())
    assert result.output == "would run id under read-only"
