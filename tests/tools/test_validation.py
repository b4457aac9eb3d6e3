from __future__ import annotations

import enum
import json
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.tools import ToolRegistry


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class WeatherArguments(BaseModel):
    city: Annotated[str, Field(description="City name.")]
    unit: Literal["celsius", "fahrenheit"] = "celsius"
    days: Annotated[int, Field(ge=1, le=7)] = 1


WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "unit": {"enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
    },
    "required": ["city"],
    "additionalProperties": False,
}


async def _echo(arguments: Any, ctx: ToolContext) -> ToolResult:
    data = arguments.model_dump() if isinstance(arguments, BaseModel) else arguments
    return ToolResult.success(json.dumps(data, sort_keys=True))


def _tools() -> list[Tool]:
    return [
        Tool.from_model(
            name="typed",
            description="Typed weather.",
            model=WeatherArguments,
            execute=_echo,
            risk=RiskLevel.READ_ONLY,
        ),
        Tool.from_schema(
            name="untyped",
            description="Untyped weather.",
            parameters=WEATHER_SCHEMA,
            execute=_echo,
            risk=RiskLevel.READ_ONLY,
        ),
    ]


@pytest.fixture
def tools_registry() -> ToolRegistry:
    return ToolRegistry(_tools())


BOTH = pytest.mark.parametrize("name", ["typed", "untyped"])


@BOTH
async def test_valid_arguments_reach_the_tool(
    tools_registry: ToolRegistry, ctx: ToolContext, name: str
) -> None:
    result = await tools_registry.call(
        name, '{"city": "Oslo", "unit": "fahrenheit"}', ctx, steps=steps()
    )
    assert result.ok
    assert json.loads(result.output)["unit"] == "fahrenheit"


@BOTH
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            '{"city": "Oslo", "unit": "kelvin"}',
            "arguments/unit: 'kelvin' is not one of ['celsius', 'fahrenheit']",
        ),
        ("{}", "arguments/city: required property is missing"),
        ('{"city": 3}', "arguments/city:"),
        ('{"city": "Oslo", "days": 9}', "arguments/days:"),
        ('{"city": "Oslo", "colour": "red"}', "colour"),
        ('{"city": "Oslo",', "arguments: not valid JSON"),
        ('["Oslo"]', "arguments: expected a JSON object, got an array"),
        ("42", "arguments: expected a JSON object, got a number"),
        ("null", "arguments: expected a JSON object, got null"),
    ],
)
async def test_invalid_arguments_are_named_and_nothing_runs(
    tools_registry: ToolRegistry, ctx: ToolContext, name: str, raw: str, expected: str
) -> None:
    result = await tools_registry.call(name, raw, ctx, steps=steps())
    assert not result.ok
    assert expected in result.output
    assert "nothing was run" in result.output


async def test_every_problem_is_listed_at_once(
    tools_registry: ToolRegistry, ctx: ToolContext
) -> None:
    result = await tools_registry.call(
        "typed", '{"unit": "kelvin", "extra": 1}', ctx, steps=steps()
    )
    assert "arguments/city" in result.output
    assert "arguments/unit" in result.output
    assert (
        "arguments/extra: unknown property; the properties are: city, unit, days" in result.output
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@BOTH
@settings(max_examples=150, deadline=None)
@given(raw=st.one_of(st.binary(), st.text(), json_values.map(json.dumps), json_values))
async def test_validation_never_raises_whatever_arrives(name: str, raw: Any) -> None:
    registry = ToolRegistry(_tools())
    from foehn_lsp.workspace import FileAccess, Workspace

    workspace = Workspace(["."])
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace))
    result = await registry.call(name, raw, ctx, steps=steps())
    assert isinstance(result, ToolResult)
    if not result.ok:
        assert result.output.startswith(("invalid arguments", "unknown tool"))
