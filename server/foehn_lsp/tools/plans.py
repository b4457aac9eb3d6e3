"""Tools that change files plan their edits (``EditPlan``) and the host applies that plan: an
edit's exact result, planned once.

In the call chain (``agent.chain``) a tool with a ``plan`` is planned before approval: approval
sees the ``PlannedEdit`` (the diff, the files before and after) and decides, and the chain
applies that very plan. What was approved is what is applied, and the applier refuses, changing
nothing, if a file differs from what the plan was made on."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from foehn_lsp.errors import ToolInputError
from foehn_lsp.tools.contract import Plan, ToolContext, ToolResult
from foehn_lsp.workspace import references, versions
from foehn_lsp.workspace.edits import EditPlan, WriteFile, fingerprint
from foehn_lsp.workspace.paths import Workspace

MAX_PREVIEW_CHARS = 1_000_000
MAX_RENAME_CHARS = 300_000
"""Files larger than this are not read for renames (their definitions parsed before and after)
or bumped versions."""


@dataclass(frozen=True, kw_only=True)
class FilePreview:
    path: Path
    before: str | None
    """``None`` for a file the edit creates."""
    after: str


def file_previews(plan: EditPlan) -> tuple[FilePreview, ...]:
    return tuple(
        FilePreview(path=change.path, before=change.old_text, after=change.text)
        for change in plan.changes
        if isinstance(change, WriteFile)
        and len(change.text) + len(change.old_text or "") <= MAX_PREVIEW_CHARS
    )


@dataclass(frozen=True, kw_only=True)
class PlannedEdit:
    """One call's edits, planned once: what the person is shown and what is applied."""

    plan: EditPlan
    diff: str
    """The unified diff of every change (cut to a readable length)."""
    files: tuple[FilePreview, ...]
    """Whole before/after texts of the files it writes, for a side-by-side diff."""

    @classmethod
    def of(cls, plan: EditPlan, workspace: Workspace) -> PlannedEdit:
        return cls(plan=plan, diff=plan.diff(workspace), files=file_previews(plan))


async def plan_call(
    plan: Plan, arguments: object, ctx: ToolContext, *, name: str
) -> PlannedEdit | ToolResult:
    """The edits of one call of tool ``name``, or why they cannot be made, as a failed result
    the model can act on. An exception other than the expected ones is a bug in the tool and
    propagates."""
    try:
        planned = await plan(arguments, ctx)
    except ToolInputError as exc:
        return ToolResult.failure(str(exc))
    except OSError as exc:
        # A file that vanished or became a link to elsewhere while planning (a race with
        # another program) is the model's problem to retry, not a crash of the turn.
        return ToolResult.failure(f"{name} could not be planned: {exc}")
    if isinstance(planned, ToolResult):
        return planned
    return PlannedEdit.of(planned, ctx.workspace)


async def apply_plan(planned: PlannedEdit, ctx: ToolContext, *, whole: bool = False) -> ToolResult:
    """Apply a plan made earlier (the one the person approved) through the host, and report its
    diff (``data["diff"]``), the files it wrote (``data["files"]``, workspace-relative), each
    file's content before and after as sha256 (``data["sha256"]``: ``{path: [before, after]}``,
    ``before`` null for a new file) and the definitions it renamed (``data["renamed"]``:
    ``[path, old, new]`` each), with a note of where their old names still appear, of where
    the names of top-level definitions it took out are still used, and of where a version it
    bumped is still given as before (``workspace.versions``). The applier
    refuses, changing nothing, if a file differs from what the plan was made on. ``whole``:
    the plan writes its files whole (``CallPaths.whole``)."""
    outcome = await ctx.files.apply(planned.plan, whole=whole)
    if not outcome.applied:
        return ToolResult.failure(
            f"{planned.plan.summary}: not applied ({outcome.reason}). No file was changed."
        )
    summary, diff = planned.plan.summary, planned.diff
    writes = [c for c in planned.plan.changes if isinstance(c, WriteFile)]
    files = [ctx.workspace.display(c.path) for c in writes]
    # Parsing the files before and after is CPU work: off the event loop the server answers on.
    renames, removed, bumps = await asyncio.to_thread(_read_changes, writes, ctx.workspace)
    output = f"{summary}\n{diff}" if diff else summary
    try:
        left = await references.leftovers(ctx.workspace, renames, ctx.files.buffers)
        used = await references.still_used(ctx.workspace, removed, ctx.files.buffers)
        given = await versions.still_given(ctx.workspace, bumps, ctx.files.buffers)
    except TimeoutError:
        left, used, given = [], [], []
    if left:
        output += "\n[Foehn] " + references.note(left)
    if used:
        output += "\n[Foehn] " + references.removed_note(used)
    if given:
        output += "\n[Foehn] " + versions.note(given)
    return ToolResult.success(
        output,
        data={
            "diff": diff,
            "files": files,
            "sha256": {
                name: [
                    None if c.old_text is None else fingerprint(c.old_text.encode()),
                    fingerprint(c.text.encode()),
                ]
                for name, c in zip(files, writes, strict=True)
            },
            "renamed": [[r.path, r.old, r.new] for r in renames],
        },
    )


def _read_changes(
    writes: list[WriteFile], workspace: Workspace
) -> tuple[list[references.Rename], list[references.Removed], list[versions.Bump]]:
    """The definitions ``writes`` renamed, the top-level ones they took out, and the versions
    they bumped, in files small enough to parse and compare before and after."""
    renames: list[references.Rename] = []
    removed: list[references.Removed] = []
    bumps: list[versions.Bump] = []
    for change in writes:
        if change.old_text is None or len(change.old_text) + len(change.text) > MAX_RENAME_CHARS:
            continue
        name = workspace.display(change.path)
        definitions = references.changed(name, change.old_text, change.text)
        renames += definitions.renames
        removed += definitions.removed
        bumps += versions.bumped(name, change.old_text, change.text)
    return renames, removed, bumps
