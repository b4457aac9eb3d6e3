"""Tools that change files plan their edits (``EditPlan``) and the host applies that plan: an
edit's exact result, planned once. What was approved is what is applied, and the applier
refuses, changing nothing, if a file differs from what the plan was made on."""

from __future__ import annotations

from foehn_lsp.tools.contract import Execute, Plan, ToolContext, ToolResult
from foehn_lsp.workspace.edits import EditPlan


def execute_plan(plan: Plan) -> Execute:
    """``execute`` for a tool that changes files: plan the edits, apply them through the host,
    and report the diff. A plan that is not applied changes nothing."""

    async def execute(arguments: object, ctx: ToolContext) -> ToolResult:
        planned = await plan(arguments, ctx)
        if isinstance(planned, ToolResult):
            return planned
        return await apply_plan(planned, ctx)

    return execute


async def apply_plan(planned: EditPlan, ctx: ToolContext) -> ToolResult:
    """Apply a plan made earlier (the one the person approved) through the host, and report the
    diff. The applier refuses, changing nothing, if a file differs from what the plan was made
    on."""
    diff = planned.diff(ctx.workspace)
    outcome = await ctx.files.apply(planned)
    if not outcome.applied:
        return ToolResult.failure(
            f"{planned.summary}: not applied ({outcome.reason}). No file was changed."
        )
    body = f"{planned.summary}\n{diff}" if diff else planned.summary
    return ToolResult.success(body, data={"diff": diff})
