"""``@tool``: a typed async function becomes a ``Tool``.

The signature becomes a pydantic model (public ``create_model``), its JSON Schema the tool's
parameters, the docstring the description; ``Annotated[..., Field(description=...)]`` documents
each parameter. A parameter annotated ``ToolContext`` is injected and kept out of the schema.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Awaitable, Callable
from typing import Any, overload

import pydantic

from foehn_lsp.errors import ToolDefinitionError
from foehn_lsp.risk import RiskLevel
from foehn_lsp.tools.contract import (
    Assess,
    PathsOf,
    ScopeOf,
    Tool,
    ToolContext,
    ToolKind,
    ToolResult,
)

ToolFunction = Callable[..., Awaitable[str | ToolResult]]


@overload
def tool(fn: ToolFunction, /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    risk: RiskLevel = RiskLevel.UNDEFINED,
    kind: ToolKind = "other",
    paths: PathsOf | None = None,
    assess: Assess | None = None,
    scope: ScopeOf | None = None,
    timeout: float | None = None,
    sequential: bool = False,
) -> Callable[[ToolFunction], Tool]: ...


def tool(
    fn: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    risk: RiskLevel = RiskLevel.UNDEFINED,
    kind: ToolKind = "other",
    paths: PathsOf | None = None,
    assess: Assess | None = None,
    scope: ScopeOf | None = None,
    timeout: float | None = None,
    sequential: bool = False,
) -> Tool | Callable[[ToolFunction], Tool]:
    """Make a tool of an async function. Without ``risk`` the tool is ``UNDEFINED`` (treated as
    destructive); ``kind`` and ``paths`` say what it does (``tools.contract``). ``assess``
    and ``scope`` receive the validated arguments model; a tool that starts programs
    declares ``scope`` and runs them with ``foehn_lsp.sandbox`` under
    ``ctx.scope.sandbox``."""

    def build(function: ToolFunction) -> Tool:
        tool_name = name or function.__name__
        if not inspect.iscoroutinefunction(function):
            raise ToolDefinitionError(tool_name, ["the function must be declared with async def"])
        model, context_param = _arguments_model(tool_name, function)

        async def execute(arguments: Any, ctx: ToolContext) -> ToolResult:
            kwargs = {field: getattr(arguments, field) for field in type(arguments).model_fields}
            if context_param is not None:
                kwargs[context_param] = ctx
            output = await function(**kwargs)
            return output if isinstance(output, ToolResult) else ToolResult.success(str(output))

        return Tool.from_model(
            name=tool_name,
            description=inspect.getdoc(function) or "",
            model=model,
            execute=execute,
            risk=risk,
            kind=kind,
            paths=paths,
            assess=assess,
            scope=scope,
            timeout=timeout,
            sequential=sequential,
        )

    return build if fn is None else build(fn)


def _arguments_model(
    tool_name: str, function: ToolFunction
) -> tuple[type[pydantic.BaseModel], str | None]:
    hints = typing.get_type_hints(function, include_extras=True)
    fields: dict[str, Any] = {}
    context_param = None
    problems = []
    for param in inspect.signature(function).parameters.values():
        annotation = hints.get(param.name, Any)
        if annotation is ToolContext:
            context_param = param.name
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            problems.append(f"parameter {param.name}: *args and **kwargs cannot be described")
            continue
        if param.name not in hints:
            problems.append(f"parameter {param.name}: needs a type annotation")
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, default)
    if problems:
        raise ToolDefinitionError(tool_name, problems)
    title = "".join(part.title() for part in tool_name.split("_")) + "Arguments"
    model = pydantic.create_model(title, __config__=pydantic.ConfigDict(extra="forbid"), **fields)
    return model, context_param
