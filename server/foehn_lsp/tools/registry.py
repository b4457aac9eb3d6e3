"""The registry: the tools that exist, and the tool's own steps of a call.

``ToolRegistry.call`` looks a tool up and runs the steps it is given (``agent.chain`` orders
them; nothing here adds one), then ``execute``. This module holds the steps that belong to the
tool contract: ``validate_step``, ``assess_step``, ``plan_step`` (a tool that changes files is
planned once, ``tools.plans``) and ``execute`` (the approved plan applied, or the tool run,
within its timeout). Whatever happens inside, the caller gets a ``ToolResult``: an unknown name,
bad arguments, an exception or a timeout all come back as failed results the model can act on.
Only cancellation propagates, because that is the person stopping the turn.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from foehn_lsp.errors import ToolDefinitionError, ToolInputError
from foehn_lsp.providers.messages import ToolDefinition
from foehn_lsp.risk import RiskLevel
from foehn_lsp.sandbox.policy import SANDBOX_ORDER, SandboxPolicy
from foehn_lsp.tools.contract import CallPaths, CallScope, Tool, ToolContext, ToolKind, ToolResult
from foehn_lsp.tools.plans import PlannedEdit, apply_plan, plan_call
from foehn_lsp.tools.validation import InvalidArgumentsError, check_schema, parse_arguments

log = logging.getLogger(__name__)

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
# MCP servers' tools keep their own spelling after the prefix (see foehn_lsp.mcp.naming);
# the set is what every provider accepts as a tool name.
MCP_NAME_PATTERN = re.compile(r"^mcp__[A-Za-z0-9_-]{1,59}$")
DEFAULT_TIMEOUT = 120.0


@dataclass(frozen=True, kw_only=True)
class Invocation:
    """One call as it moves down the chain; each step passes on a replaced copy."""

    call_id: str
    """The model's id for the call."""
    tool: Tool
    raw_arguments: Any
    """What the model sent: JSON text or an already parsed value."""
    ctx: ToolContext
    timeout: float
    """Seconds the planning and the execution of the call may each take."""
    arguments: Any = None
    """The validated arguments (set by the validation step)."""
    risk: RiskLevel = RiskLevel.UNDEFINED
    """The call's risk (set by the assessment step)."""
    scope: CallScope = field(default_factory=CallScope)
    """What the call would do beyond its arguments (set by the assessment step, with the risk);
    the tool receives it as ``ctx.scope`` and runs exactly that."""
    plan: PlannedEdit | ToolResult | None = None
    """For a tool that changes files (set by the planning step): the edits, which are what runs,
    or why they cannot be made (a failed result, which is then the call's result)."""
    answers: tuple[Answer, ...] = ()
    """What the steps before approval said about the call (the pre-tool hooks), weighed by the
    approval step with the person's rules and the policy."""

    def shown_arguments(self) -> dict[str, Any]:
        """The arguments as the model sent them: what the person is shown and hooks see."""
        try:
            return parse_arguments(self.raw_arguments)
        except InvalidArgumentsError:
            return {}


@dataclass(frozen=True, kw_only=True)
class Answer:
    """What one step before approval (a pre-tool hook) said about a call."""

    decision: Literal["allow", "ask", "deny"] | None
    """``None``: no objection (allowed, or nothing said)."""
    message: str | None = None
    source: str
    """Where the answer came from (``FILE:LINE`` of a hook's table)."""
    failed: str | None = None
    """Set when the hook itself failed (or could not start): what the person reads about it.
    Its deny is the hook's failure, not the person's decision."""


Handler = Callable[[Invocation], Awaitable[ToolResult]]
Middleware = Callable[[Invocation, Handler], Awaitable[ToolResult]]


def check_tool(tool: object) -> list[str]:
    """Every way ``tool`` breaks the contract (empty if none)."""
    if not isinstance(tool, Tool):
        return [f"expected a foehn_lsp.Tool, got {type(tool).__name__}"]
    problems = []
    if not NAME_PATTERN.match(tool.name) and not MCP_NAME_PATTERN.match(tool.name):
        problems.append(
            f"name {tool.name!r}: use snake_case, start with a letter, at most 64 characters"
        )
    if not tool.description.strip():
        problems.append("description: must say what the tool does (the model reads it)")
    problems.extend(check_schema(tool.parameters))
    if not isinstance(tool.risk, RiskLevel):
        problems.append(f"risk: expected a RiskLevel, got {tool.risk!r}")
    if tool.execute is None and tool.plan is None:
        problems.append("execute: give an async callable (or plan, for a tool that changes files)")
    elif tool.execute is not None and not callable(tool.execute):
        problems.append("execute: must be an async callable")
    if tool.kind not in get_args(ToolKind):
        problems.append(f"kind: one of {', '.join(get_args(ToolKind))}, got {tool.kind!r}")
    if tool.timeout is not None and not tool.timeout > 0:
        problems.append(f"timeout: must be positive seconds, got {tool.timeout!r}")
    return problems


class ToolRegistry:
    """Tools by name, and the call chain."""

    def __init__(self, tools: Iterable[Tool] = (), *, default_timeout: float = DEFAULT_TIMEOUT):
        self._tools: dict[str, Tool] = {}
        self.default_timeout = default_timeout
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        """Add ``tool``; raises ``ToolDefinitionError`` listing every problem."""
        problems = check_tool(tool)
        name = getattr(tool, "name", "?")
        if name in self._tools:
            problems.append(f"name {name!r}: a tool with this name is already registered")
        if problems:
            raise ToolDefinitionError(str(name), problems)
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        del self._tools[name]

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __iter__(self) -> Iterator[Tool]:
        return iter(sorted(self._tools.values(), key=lambda tool: tool.name))

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def definitions(self) -> list[ToolDefinition]:
        return [
            ToolDefinition(
                name=t.name,
                description=t.description,
                parameters=t.parameters,
                kind=t.kind,
                changes_files=t.changes_files,
            )
            for t in self
        ]

    def paths_of(self, name: str, arguments: object) -> CallPaths:
        """The paths a call of ``name`` with ``arguments`` (parsed JSON, or its text) names;
        none for an unknown tool or arguments that are not an object."""
        tool = self._tools.get(name)
        if tool is None:
            return CallPaths()
        try:
            parsed = parse_arguments(arguments)
        except InvalidArgumentsError:
            return CallPaths()
        return tool.paths_of(parsed)

    def changes_files(self, name: str) -> bool:
        """Whether calls of ``name`` change the workspace's files."""
        tool = self._tools.get(name)
        return tool is not None and tool.changes_files

    def unknown_tool(self, name: str) -> ToolResult:
        known = ", ".join(t.name for t in self) or "none"
        return ToolResult.failure(f"unknown tool {name!r}; the tools that exist are: {known}")

    async def call(
        self,
        name: str,
        raw_arguments: Any,
        ctx: ToolContext,
        *,
        steps: Sequence[Middleware],
        call_id: str = "",
    ) -> ToolResult:
        """Run one call through ``steps`` (``agent.chain.steps``), then ``execute``. Never
        raises, except ``CancelledError``."""
        tool = self._tools.get(name)
        if tool is None:
            return self.unknown_tool(name)
        invocation = Invocation(
            call_id=call_id,
            tool=tool,
            raw_arguments=raw_arguments,
            ctx=ctx,
            timeout=tool.timeout or self.default_timeout,
        )
        handler: Handler = execute
        for step in reversed(steps):
            handler = _bind(step, handler)
        try:
            return await handler(invocation)
        except Exception as exc:
            # A step that raised (a file that vanished or became a link while an approval was
            # being prepared) fails this call; it never ends the run.
            log.exception("the call chain of %s raised", name)
            return ToolResult.failure(
                f"{name} was not run: {type(exc).__name__}: {exc}. If a file changed while "
                "the call was prepared, call again."
            )


async def plan_step(invocation: Invocation, next_step: Handler) -> ToolResult:
    """Plan a tool that changes files, once, before approval sees the call. A plan that cannot
    be made goes on as the call's result, so that a refusal still comes first."""
    tool = invocation.tool
    if tool.plan is None:
        return await next_step(invocation)
    planned: PlannedEdit | ToolResult
    try:
        async with asyncio.timeout(invocation.timeout):
            planned = await plan_call(
                tool.plan, invocation.arguments, invocation.ctx, name=tool.name
            )
    except TimeoutError:
        planned = ToolResult.failure(
            f"{tool.name} could not be planned within {invocation.timeout:g} s"
        )
    return await next_step(dataclasses.replace(invocation, plan=planned))


async def execute(invocation: Invocation) -> ToolResult:
    """The end of every chain: the approved plan applied, or the tool run, within the call's
    timeout, under exactly the scope the chain fixed (``ctx.scope``)."""
    tool = invocation.tool
    timeout = invocation.timeout
    ctx = dataclasses.replace(invocation.ctx, scope=invocation.scope, call_id=invocation.call_id)
    if isinstance(invocation.plan, ToolResult):
        return invocation.plan
    try:
        async with asyncio.timeout(timeout):
            if invocation.plan is not None:
                whole = tool.paths_of(invocation.shown_arguments()).whole
                result = await apply_plan(invocation.plan, ctx, whole=whole)
            elif tool.execute is not None:
                result = await tool.execute(invocation.arguments, ctx)
            else:
                raise TypeError("a tool with a plan was not planned")
    except ToolInputError as exc:
        return ToolResult.failure(str(exc))
    except TimeoutError:
        return ToolResult.failure(
            f"{tool.name} did not finish within {timeout:g} s and was stopped"
        )
    except Exception as exc:
        log.exception("tool %s raised", tool.name)
        return ToolResult.failure(
            f"{tool.name} failed with an internal error: {type(exc).__name__}: {exc}. "
            "This is a bug in the tool, not in your arguments; the details are in the log."
        )
    if not isinstance(result, ToolResult):
        log.error("tool %s returned %r instead of a ToolResult", tool.name, result)
        return ToolResult.failure(
            f"{tool.name} returned {type(result).__name__} instead of a result (a bug in the tool)"
        )
    return result


def _bind(step: Middleware, handler: Handler) -> Handler:
    async def bound(invocation: Invocation) -> ToolResult:
        return await step(invocation, handler)

    return bound


def validation_failure(tool: Tool, problems: Sequence[str]) -> ToolResult:
    listed = "\n".join(f"- {p}" for p in problems)
    return ToolResult.failure(
        f"invalid arguments for {tool.name}; nothing was run. Fix these and call again:\n{listed}"
    )


async def validate_step(invocation: Invocation, next_step: Handler) -> ToolResult:
    """Parse the model's JSON and validate it; a failure names each field and what it needs."""
    try:
        arguments = invocation.tool.validate(parse_arguments(invocation.raw_arguments))
    except InvalidArgumentsError as exc:
        return validation_failure(invocation.tool, exc.problems)
    return await next_step(dataclasses.replace(invocation, arguments=arguments))


async def assess_step(invocation: Invocation, next_step: Handler) -> ToolResult:
    """Fix the call's risk and scope: the declared level, raised (never lowered) by ``assess``;
    the scope from ``tool.scope``. The two are then made to agree: a program whose call may
    write runs at least ``workspace-write``, and a sandbox wider than ``read-only`` or a
    network to reach makes the call at least a write, so it is never run unasked on the
    strength of a read-only verdict."""
    tool = invocation.tool
    try:
        risk = tool.risk_of(invocation.arguments, invocation.ctx)
    except Exception:
        log.exception("risk assessment of %s raised; treating the call as destructive", tool.name)
        risk = RiskLevel.DESTRUCTIVE
    try:
        scope = tool.scope(invocation.arguments, invocation.ctx) if tool.scope else CallScope()
    except ToolInputError as exc:
        return ToolResult.failure(str(exc))  # arguments that cannot run need no approval
    except Exception:
        log.exception("scope of %s raised; running it under the widest scope", tool.name)
        scope = CallScope(program="?", sandbox="full")
    if scope.sandbox is not None:
        scope = dataclasses.replace(scope, sandbox=_wider(scope.sandbox, _least_sandbox(risk)))
        if scope.sandbox != "read-only" and risk < RiskLevel.WRITE:
            risk = RiskLevel.WRITE
    if scope.network and risk < RiskLevel.WRITE:
        risk = RiskLevel.WRITE  # what may reach the network may send anything out
    return await next_step(dataclasses.replace(invocation, risk=risk, scope=scope))


def _least_sandbox(risk: RiskLevel) -> SandboxPolicy:
    return "read-only" if risk is RiskLevel.READ_ONLY else "workspace-write"


def _wider(a: SandboxPolicy, b: SandboxPolicy) -> SandboxPolicy:
    return a if SANDBOX_ORDER.index(a) >= SANDBOX_ORDER.index(b) else b
