"""``todo``: the task list the model keeps for a task of several steps. Each call sends the whole
list (create, change a status, reorder, drop a step: all by sending the list as it should be);
the session keeps it, every front end shows it, and the model gets it back after a compaction."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult
from foehn_lsp.tools.tasks import TaskItem, TaskList, TaskStatus

MAX_ITEMS = 50


class TodoEntry(BaseModel):
    id: Annotated[
        str,
        Field(min_length=1, max_length=40, description="Short id kept while the step changes."),
    ]
    text: Annotated[str, Field(min_length=1, max_length=300, description="The step, briefly.")]
    status: Annotated[TaskStatus, Field(description="pending, in_progress or done.")]


class TodoArguments(BaseModel):
    items: Annotated[
        list[TodoEntry],
        Field(
            max_length=MAX_ITEMS,
            description="The whole list, in order; it replaces the previous one. An empty "
            "list clears it.",
        ),
    ]


async def todo(arguments: TodoArguments, ctx: ToolContext) -> ToolResult:
    ids = [entry.id.strip() for entry in arguments.items]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        return ToolResult.failure(
            f"the list was not changed: ids must be unique, {', '.join(repeated)} repeats"
        )
    items = [
        TaskItem(id=i, text=e.text.strip(), status=e.status)
        for i, e in zip(ids, arguments.items, strict=True)
    ]
    tasks = ctx.tasks if ctx.tasks is not None else TaskList()
    tasks.replace(items)
    if not items:
        return ToolResult.success("the task list is now empty")
    where = "" if ctx.tasks is not None else " (not kept: no session here)"
    active = sum(item.status == "in_progress" for item in items)
    advice = (
        "; mark one step in_progress while you work on it"
        if active == 0 and tasks.unfinished
        else ""
    )
    return ToolResult.success(f"task list updated{where}{advice}:\n{tasks.render()}")


def tools() -> list[Tool]:
    return [
        Tool.from_model(
            name="todo",
            description=(
                "Keep a task list for work of several steps: send the whole list each time "
                "(id, text, status pending|in_progress|done), e.g. at the start, and whenever a "
                "step starts or is done. The person sees it live."
            ),
            model=TodoArguments,
            execute=todo,
            risk=RiskLevel.READ_ONLY,
            kind="think",
        )
    ]
