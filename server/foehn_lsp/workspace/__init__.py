"""Where tools meet the file system: confinement, reads, and edits applied by the host."""

from foehn_lsp.tools.contract import Execute, Plan, ToolContext, ToolResult
from foehn_lsp.workspace.edits import (
    ApplyOutcome,
    DeletePath,
    DiskApplier,
    EditApplier,
    EditPlan,
    FileChange,
    MakeDirectory,
    MovePath,
    WriteFile,
)
from foehn_lsp.workspace.files import BufferSource, FileAccess, ReadLedger, TextFile
from foehn_lsp.workspace.paths import Workspace

__all__ = [
    "ApplyOutcome",
    "BufferSource",
    "DeletePath",
    "DiskApplier",
    "EditApplier",
    "EditPlan",
    "FileAccess",
    "FileChange",
    "MakeDirectory",
    "MovePath",
    "ReadLedger",
    "TextFile",
    "Workspace",
    "WriteFile",
    "apply_plan",
    "execute_plan",
]


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
