"""The chain of a call: the order its docstring writes is the order ``steps`` builds, and a
step that ends a call stops every step after it."""

from __future__ import annotations

import re

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent import chain
from foehn_lsp.agent.chain import Parts, steps
from foehn_lsp.agent.plan_mode import ReadOnlyGuard
from foehn_lsp.checks.checkers import SandboxCheckers
from foehn_lsp.checks.checking import EditChecks
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.tools.registry import Handler, Invocation, Middleware


def _passing(name: str, seen: list[str]) -> Middleware:
    async def step(invocation: Invocation, next_step: Handler) -> ToolResult:
        seen.append(name)
        return await next_step(invocation)

    return step


def test_the_docstring_order_is_the_order_built(ctx: ToolContext) -> None:
    written = re.findall(r"^\s+\d+\. (\S+(?: \S+)?)\s{2,}", chain.__doc__ or "", re.M)
    everything = Parts(
        announce=_passing("a", []),
        mode=ReadOnlyGuard(),
        front_end=(_passing("f", []),),
        pre_hooks=_passing("p", []),
        approval=_passing("g", []),
        post_hooks=_passing("q", []),
        watch=_passing("w", []),
        edit_checks=EditChecks(SandboxCheckers(ctx.workspace), ctx.workspace),
    )
    assert [step.name for step in steps(everything)] + ["execute"] == written


async def test_steps_run_in_order_and_a_refusal_stops_the_rest(
    ctx: ToolContext, registry: ToolRegistry
) -> None:
    seen: list[str] = []

    async def refuse(invocation: Invocation, next_step: Handler) -> ToolResult:
        seen.append("approval")
        return ToolResult.failure("refused")

    parts = Parts(
        front_end=(_passing("front end", seen),),
        pre_hooks=_passing("pre-hooks", seen),
        approval=refuse,
        post_hooks=_passing("post-hooks", seen),
        watch=_passing("watch", seen),
    )
    result = await registry.call("scan", {}, ctx, steps=steps(parts))
    assert (result.ok, result.output) == (False, "refused")
    assert seen == ["front end", "pre-hooks", "approval"]
