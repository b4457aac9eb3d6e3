from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult, tool
from foehn_lsp.agent.chain import steps
from foehn_lsp.errors import ToolDefinitionError
from foehn_lsp.tools import Invocation, ToolRegistry
from foehn_lsp.tools.registry import Handler

EMPTY = {"type": "object", "properties": {}}


async def _ok(arguments: Any, ctx: ToolContext) -> ToolResult:
    return ToolResult.success("ran")


def make(name: str = "probe", **overrides: Any) -> Tool:
    fields: dict[str, Any] = {
        "name": name,
        "description": "A probe.",
        "parameters": EMPTY,
        "execute": _ok,
        "risk": RiskLevel.READ_ONLY,
    }
    fields.update(overrides)
    return Tool.from_schema(**fields)


def test_risk_is_ordered_and_undefined_ranks_as_destructive() -> None:
    assert RiskLevel.READ_ONLY < RiskLevel.WRITE < RiskLevel.DESTRUCTIVE
    assert RiskLevel.UNDEFINED >= RiskLevel.DESTRUCTIVE
    assert RiskLevel.UNDEFINED > RiskLevel.WRITE


def test_invalid_definitions_are_refused_with_every_problem() -> None:
    registry = ToolRegistry()
    bad = Tool(
        name="Bad Name",
        description=" ",
        parameters={"type": "array"},
        risk=RiskLevel.WRITE,
        execute=_ok,
        validate=dict,
        timeout=-1,
    )
    with pytest.raises(ToolDefinitionError) as caught:
        registry.register(bad)
    problems = caught.value.problems
    assert len(problems) == 4
    assert any("snake_case" in p for p in problems)
    assert any("description" in p for p in problems)
    assert any("object schema" in p for p in problems)
    assert any("timeout" in p for p in problems)


def test_duplicate_names_are_refused() -> None:
    registry = ToolRegistry([make()])
    with pytest.raises(ToolDefinitionError, match="already registered"):
        registry.register(make())


def test_schema_that_is_not_json_schema_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="not a valid JSON Schema"):
        make(parameters={"type": "object", "properties": {"a": {"type": "no-such-type"}}})


async def test_unknown_tool_lists_the_tools_that_exist(ctx: ToolContext) -> None:
    registry = ToolRegistry([make("alpha"), make("beta")])
    result = await registry.call("gamma", "{}", ctx, steps=steps())
    assert not result.ok
    assert result.output == "unknown tool 'gamma'; the tools that exist are: alpha, beta"


async def test_exception_in_a_tool_becomes_a_failed_result_and_a_logged_traceback(
    ctx: ToolContext, caplog: pytest.LogCaptureFixture
) -> None:
    async def boom(arguments: Any, ctx: ToolContext) -> ToolResult:
        raise ValueError("kaput")

    registry = ToolRegistry([make(execute=boom)])
    with caplog.at_level(logging.ERROR):
        result = await registry.call("probe", "{}", ctx, steps=steps())
    assert not result.ok
    assert "internal error: ValueError: kaput" in result.output
    assert any(record.exc_info for record in caplog.records)


async def test_a_tool_that_hangs_is_stopped_at_its_timeout(ctx: ToolContext) -> None:
    started = asyncio.Event()

    async def hang(arguments: Any, ctx: ToolContext) -> ToolResult:
        started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    registry = ToolRegistry([make(execute=hang, timeout=0.05)])
    result = await registry.call("probe", "{}", ctx, steps=steps())
    assert started.is_set()
    assert not result.ok
    assert "did not finish within 0.05 s" in result.output


async def test_a_tool_that_returns_the_wrong_type_is_reported(ctx: ToolContext) -> None:
    async def wrong(arguments: Any, ctx: ToolContext) -> Any:
        return "plain string"

    result = await ToolRegistry([make(execute=wrong)]).call("probe", "{}", ctx, steps=steps())
    assert not result.ok
    assert "instead of a result" in result.output


async def test_middleware_runs_after_validation_and_assessment(ctx: ToolContext) -> None:
    seen: list[Invocation] = []

    async def spy(invocation: Invocation, next_step: Handler) -> ToolResult:
        seen.append(invocation)
        return await next_step(invocation)

    def assess(arguments: Any, ctx: ToolContext) -> RiskLevel:
        return RiskLevel.DESTRUCTIVE if arguments.get("force") else RiskLevel.READ_ONLY

    schema = {"type": "object", "properties": {"force": {"type": "boolean"}}}
    registry = ToolRegistry([make(parameters=schema, assess=assess, risk=RiskLevel.WRITE)])
    await registry.call("probe", '{"force": true}', ctx, call_id="c1", steps=(*steps(), spy))
    await registry.call("probe", '{"force": false}', ctx, call_id="c2", steps=(*steps(), spy))
    await registry.call("probe", '{"force": "x"}', ctx, call_id="c3", steps=(*steps(), spy))
    assert [(i.call_id, i.arguments, i.risk) for i in seen] == [
        ("c1", {"force": True}, RiskLevel.DESTRUCTIVE),
        ("c2", {"force": False}, RiskLevel.WRITE),  # assessment never lowers the declared risk
    ]


async def test_middleware_can_stop_a_call(ctx: ToolContext) -> None:
    ran = []

    async def execute(arguments: Any, ctx: ToolContext) -> ToolResult:
        ran.append(arguments)
        return ToolResult.success("ran")

    async def refuse(invocation: Invocation, next_step: Handler) -> ToolResult:
        return ToolResult.failure("denied")

    registry = ToolRegistry([make(execute=execute)])
    result = await registry.call("probe", "{}", ctx, steps=(*steps(), refuse))
    assert result.output == "denied"
    assert ran == []


async def test_decorated_function_becomes_a_typed_tool(ctx: ToolContext) -> None:
    @tool(risk=RiskLevel.READ_ONLY)
    async def shout(
        text: Annotated[str, Field(description="Text to shout.")], times: int = 1
    ) -> str:
        """Return the text in upper case."""
        return text.upper() * times

    assert shout.name == "shout"
    assert shout.description == "Return the text in upper case."
    assert shout.parameters["properties"]["text"] == {
        "type": "string",
        "description": "Text to shout.",
    }
    assert shout.parameters["required"] == ["text"]
    result = await ToolRegistry([shout]).call(
        "shout", '{"text": "hey", "times": 2}', ctx, steps=steps()
    )
    assert result.output == "HEYHEY"


async def test_decorator_injects_the_context_and_keeps_it_out_of_the_schema(
    ctx: ToolContext,
) -> None:
    @tool(risk=RiskLevel.READ_ONLY)
    async def where(ctx: ToolContext) -> str:
        """Say where the workspace is."""
        return ctx.workspace.root.name

    assert where.parameters.get("properties", {}) == {}
    result = await ToolRegistry([where]).call("where", "{}", ctx, steps=steps())
    assert result.output == ctx.workspace.root.name


def test_decorator_defaults_to_undefined_risk_and_refuses_sync_functions() -> None:
    @tool
    async def anything() -> str:
        """Do something."""
        return ""

    assert anything.risk is RiskLevel.UNDEFINED
    with pytest.raises(ToolDefinitionError, match="async def"):
        tool(lambda: "x")  # type: ignore[arg-type, return-value]


def test_model_with_extra_allowed_still_refuses_unknown_properties() -> None:
    class Loose(BaseModel):
        a: int

    built = Tool.from_model(name="loose", description="x", model=Loose, execute=_ok)
    assert built.parameters.get("additionalProperties") is False
