"""A session's task list: the steps the model keeps with the ``todo`` tool (the whole list each
time), that a plan becomes once the person approves it, and that every front end shows as it
changes (the ``todo`` event). The session saves it with each turn and gives it back to the model
at the start of the next turn and after a compaction, verbatim."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

TaskStatus = Literal["pending", "in_progress", "done"]
MARKS: dict[TaskStatus, str] = {"pending": "[ ]", "in_progress": "[>]", "done": "[x]"}


@dataclass(frozen=True, kw_only=True)
class TaskItem:
    id: str
    """The model's id for the step, kept while the step changes status."""
    text: str
    status: TaskStatus


class TaskList:
    """One turn's handle on the session's list: ``replace`` sets the whole list and tells
    ``on_change`` (which emits the ``todo`` event)."""

    def __init__(
        self,
        items: Iterable[TaskItem] = (),
        *,
        on_change: Callable[[tuple[TaskItem, ...]], None] | None = None,
    ) -> None:
        self._items = tuple(items)
        self._on_change = on_change

    @property
    def items(self) -> tuple[TaskItem, ...]:
        return self._items

    @property
    def unfinished(self) -> bool:
        """Whether some step is not done yet."""
        return any(item.status != "done" for item in self._items)

    def replace(self, items: Iterable[TaskItem]) -> None:
        self._items = tuple(items)
        if self._on_change is not None:
            self._on_change(self._items)

    def render(self) -> str:
        """The list as the model and the terminal read it: one ``[x] id text`` per line."""
        return "\n".join(f"{MARKS[i.status]} {i.id}. {i.text}" for i in self._items)

    def note(self) -> str:
        """What the model is given back (at a turn's start, after a compaction)."""
        done = sum(item.status == "done" for item in self._items)
        return (
            f"[Foehn] Your task list ({done} of {len(self._items)} done; [>] in progress). "
            "Keep it current with todo, sending the whole list:\n" + self.render()
        )
