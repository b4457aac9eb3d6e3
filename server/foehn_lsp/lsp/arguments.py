"""Command arguments as clients send them (JSON values), checked and turned into Foehn's
requests. A shape that does not match raises ``BadArguments`` with what was expected; the
handler answers InvalidParams with it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from foehn_lsp.agent.plan_mode import TurnMode


class BadArguments(ValueError):
    """Arguments to a command that do not have its documented shape."""


@dataclass(frozen=True, kw_only=True)
class RunArguments:
    """``foehn.run``'s (and ``foehn.session.prompt``'s) arguments."""

    task: str
    uri: str | None = None
    """The document the person is in."""
    lines: tuple[int, int] | None = None
    """The selected lines, 0-based, first and last included (a selection ending at the start of
    a line does not include that line)."""
    diagnostic: Mapping[str, Any] | None = None
    """``{message, source?}`` for a quick fix."""
    session: str | None = None
    """Continue this saved session (``None``: a new one-turn session)."""
    run_id: str | None = None
    """The client's id for the turn, correlating ``foehn/runEvent`` and confirmations."""
    context: str = ""
    """Context the person chose (mentioned files, a selection), added to the editor's."""
    mode: TurnMode = "act"
    """``plan``: plan with read-only tools first; the plan is confirmed like a call."""


def run_arguments(args: Sequence[Any]) -> RunArguments:
    """``[task]`` or ``[{task, uri?, range?, diagnostic?, session?, runId?, context?,
    mode?}]`` (``mode``: ``"act"``, the default, or ``"plan"``)."""
    if len(args) != 1:
        raise BadArguments("foehn.run takes one argument: a task, or {task, uri?, range?}")
    value = args[0]
    if isinstance(value, str):
        value = {"task": value}
    if not isinstance(value, Mapping) or not isinstance(value.get("task"), str):
        raise BadArguments('foehn.run needs a task: ["..."] or [{"task": "..."}]')
    if not value["task"].strip():
        raise BadArguments("foehn.run needs a non-empty task")
    uri = value.get("uri")
    if uri is not None and not isinstance(uri, str):
        raise BadArguments("uri must be a string")
    diagnostic = value.get("diagnostic")
    if diagnostic is not None and not (
        isinstance(diagnostic, Mapping) and isinstance(diagnostic.get("message"), str)
    ):
        raise BadArguments("diagnostic must be an object with a message: {message, source?}")
    extra = {key: value.get(key) for key in ("session", "runId", "context")}
    for key, given in extra.items():
        if given is not None and not (isinstance(given, str) and (given or key == "context")):
            raise BadArguments(f"{key} must be a non-empty string")
    mode = value.get("mode", "act")
    if mode not in ("act", "plan"):
        raise BadArguments('mode must be "act" or "plan"')
    return RunArguments(
        task=value["task"],
        uri=uri,
        lines=_lines(value.get("range")),
        diagnostic=diagnostic,
        session=extra["session"],
        run_id=extra["runId"],
        context=extra["context"] or "",
        mode="plan" if mode == "plan" else "act",
    )


def _lines(selection: Any) -> tuple[int, int] | None:
    if selection is None:
        return None
    try:
        start, end = selection["start"], selection["end"]
        first, last = int(start["line"]), int(end["line"])
        if int(end["character"]) == 0 and last > first:
            last -= 1
        int(start["character"])
    except (KeyError, TypeError, ValueError):
        raise BadArguments("range must be {start: {line, character}, end: {...}}") from None
    if first < 0 or last < first:
        raise BadArguments("range must start at a line >= 0 and end after it starts")
    return first, last
