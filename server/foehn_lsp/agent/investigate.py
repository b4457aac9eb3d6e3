"""``investigate``: a read-only sub-run that answers one question and returns only its summary
and the files it cites.

    investigate(question) ──▶ a turn of its own: the same provider, the read-only tools only,
        every call refused above read-only (so programs run in the read-only sandbox), its own
        budget (``max_steps`` tool iterations, ``TOKEN_BUDGET`` tokens) ──▶ its answer

The sub-run's calls go through the parent turn's chain (rules, hooks, approval, the audit log)
but its events go only to the audit log: the parent's events show the one ``investigate`` call
and its result. It is a task of the parent's call, so stopping the parent cancels it, the
request in flight included.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from pydantic import BaseModel, Field

from foehn_lsp.agent.execution import TurnExecutor
from foehn_lsp.agent.loop import Agent, TurnRequest
from foehn_lsp.agent.plan_mode import ReadOnlyGuard
from foehn_lsp.checks.claims import mentioned_files
from foehn_lsp.config import Settings
from foehn_lsp.errors import PathRefusedError
from foehn_lsp.providers import Provider
from foehn_lsp.risk import RiskLevel
from foehn_lsp.tools.contract import Tool, ToolContext, ToolResult
from foehn_lsp.tools.registry import ToolRegistry

NAME = "investigate"
DEFAULT_STEPS = 8
MAX_STEPS = 20
TOKEN_BUDGET = 100_000
"""A sub-run's tokens, at most (never more than the parent's own budget)."""
TIMEOUT_S = 1800.0
"""The call's timeout: a sub-run asks the model several times, each bounded by the provider's
own timeout, so the tools' default (one program's run) is too short."""
NOT_IN_SUB_RUN = frozenset({NAME, "todo"})
"""No sub-run of a sub-run; the task list is the parent's."""

NOTE = (
    "[Foehn] You are investigating for another agent, who reads only your final answer. Only "
    "read-only tools run; nothing can be changed. Look at what you need, then answer briefly: "
    "what you found, naming the files (and lines) that show it."
)

SubCalls = Callable[[ToolRegistry], TurnExecutor]
"""The parent turn's call chain for a sub-run offered these tools, with ``sub_run_guard`` as
its mode step; its events go only to the audit log."""


class InvestigateArguments(BaseModel):
    question: Annotated[
        str, Field(min_length=1, max_length=4000, description="What to find out, in full.")
    ]
    max_steps: Annotated[
        int | None,
        Field(
            ge=1,
            le=MAX_STEPS,
            description=f"Tool iterations the investigation may use (default {DEFAULT_STEPS}).",
        ),
    ] = None


REFUSED = f"{NAME} is read-only:"
"""How a refused call's result begins (the loop does not ask the sub-run to act on it)."""


def refusal(name: str, why: str) -> ToolResult:
    return ToolResult.failure(f"{REFUSED} {name} was not run ({why}). Answer with what you found.")


def sub_run_guard() -> ReadOnlyGuard:
    """The mode step of a sub-run's chain: every call above read-only is refused, before
    approval is asked."""
    return ReadOnlyGuard(
        active=True, refusal=lambda invocation: refusal(invocation.tool.name, invocation.risk.value)
    )


class ReadOnlyRegistry(ToolRegistry):
    """The tools a sub-run is offered: the read-only ones of ``tools``, but no sub-run nor the
    task list; a call of one of the others is refused as read-only calls above it are."""

    def __init__(self, tools: ToolRegistry) -> None:
        super().__init__(
            (t for t in tools if t.risk is RiskLevel.READ_ONLY and t.name not in NOT_IN_SUB_RUN),
            default_timeout=tools.default_timeout,
        )
        self._withheld = {t.name for t in tools if t.name not in self}

    def unknown_tool(self, name: str) -> ToolResult:
        if name in self._withheld:
            return refusal(name, "not offered here")
        return super().unknown_tool(name)


def cited_files(summary: str, ctx: ToolContext) -> tuple[str, ...]:
    """The workspace's files that ``summary`` names (as the workspace shows them)."""
    found: list[str] = []
    for name in mentioned_files(summary):
        try:
            real = ctx.workspace.resolve(name.split(":", 1)[0])
        except PathRefusedError:
            continue
        shown = ctx.workspace.display(real)
        if real.is_file() and shown not in found:
            found.append(shown)
    return tuple(found)


def investigate_tool(
    *, provider: Provider, settings: Settings, tools: ToolRegistry, calls: SubCalls
) -> Tool:
    """The ``investigate`` tool of one turn: its sub-runs ask ``provider``, are offered the
    read-only ``tools`` and run them through ``calls``."""
    offered = ReadOnlyRegistry(tools)

    async def investigate(arguments: InvestigateArguments, ctx: ToolContext) -> ToolResult:
        steps = min(arguments.max_steps or DEFAULT_STEPS, settings.max_tool_iterations)
        budget = min(TOKEN_BUDGET, settings.token_budget)
        sub_settings = settings.model_copy(
            update={"max_tool_iterations": steps, "token_budget": budget}
        )
        executor = calls(offered)
        agent = Agent(provider=provider, settings=sub_settings)
        request = TurnRequest(task=arguments.question, context=NOTE)
        outcome = await agent.run_turn(request, executor, executor.emit, changed=tuple)
        summary = outcome.answer.strip()
        files = cited_files(summary, ctx)
        data = {
            "summary": summary,
            "files": list(files),
            "reason": outcome.reason,
            "steps": outcome.iterations,
            "tokens": outcome.input_tokens + outcome.output_tokens,
        }
        if outcome.reason == "error":
            return ToolResult.failure(f"the investigation failed: {summary}", data)
        cited = f"\n\nFiles cited: {', '.join(files)}" if files else ""
        return ToolResult.success(f"{summary}{cited}", data)

    return _tool(investigate)


DESCRIPTION = (
    "Hand a question about the workspace to a read-only helper with its own budget: it reads "
    "and searches, then you get only its short answer and the files it cites. Use it for "
    "questions that need many reads, to keep your own context small."
)
OFFERED = (
    "offered in the turns a model runs (its sub-run asks the same model), not to calls from "
    "outside (foehn mcp)"
)
"""Where ``investigate`` depends on the model, for the catalogue the person reads."""


def _tool(execute: Callable[[InvestigateArguments, ToolContext], Awaitable[ToolResult]]) -> Tool:
    return Tool.from_model(
        name=NAME,
        description=DESCRIPTION,
        model=InvestigateArguments,
        execute=execute,
        risk=RiskLevel.READ_ONLY,
        kind="search",
        timeout=TIMEOUT_S,
    )


def catalogue_entry() -> Tool:
    """``investigate`` as the catalogue lists it (``foehn tools``, ``foehn.tools``): the same
    name, description, schema and risk the model is offered; it runs only as the tool of a
    model's turn (``investigate_tool``), so this one says so if called."""

    async def outside(arguments: InvestigateArguments, ctx: ToolContext) -> ToolResult:
        return ToolResult.failure(f"{NAME} runs only in a model's turn: {OFFERED}")

    return _tool(outside)


def with_investigate(registry: ToolRegistry, tool: Tool) -> ToolRegistry:
    """``registry``'s tools and ``tool`` (a new registry: ``registry`` may be shared)."""
    return ToolRegistry([*registry, tool], default_timeout=registry.default_timeout)
