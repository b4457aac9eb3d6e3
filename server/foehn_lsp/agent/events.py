"""What a run reports as it goes. The CLI prints these, ``--json`` writes them one per line,
the language server turns them into progress and ``foehn/runEvent`` notifications, and
transcripts and the audit log record them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

StopReason = Literal["answer", "max_iterations", "budget", "repeated_call", "cancelled", "error"]
Decision = Literal["allow", "deny"]


@dataclass(frozen=True, kw_only=True)
class TextDelta:
    """A piece of the model's text, as it streams."""

    text: str
    event: Literal["text"] = "text"


@dataclass(frozen=True, kw_only=True)
class Thinking:
    """The model is being asked (for progress indicators)."""

    iteration: int
    event: Literal["thinking"] = "thinking"


@dataclass(frozen=True, kw_only=True)
class ToolCallEvent:
    id: str
    tool: str
    arguments: Any
    """The parsed arguments, or the raw text when they are not valid JSON."""
    risk: str
    event: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True, kw_only=True)
class ApprovalEvent:
    id: str
    tool: str
    decision: Decision
    reason: str = ""
    """Who decided and why: 'policy', 'approved once', 'approved for this run' (asked),
    'allowed for this run' (not asked again), or a denial's reason."""
    event: Literal["approval"] = "approval"


@dataclass(frozen=True, kw_only=True)
class ToolResultEvent:
    id: str
    tool: str
    ok: bool
    output: str
    event: Literal["tool_result"] = "tool_result"


@dataclass(frozen=True, kw_only=True)
class UsageEvent:
    input_tokens: int
    output_tokens: int
    total_tokens: int
    """Spent so far in the run."""
    budget: int
    event: Literal["usage"] = "usage"


@dataclass(frozen=True, kw_only=True)
class Done:
    reason: StopReason
    answer: str
    iterations: int
    event: Literal["done"] = "done"


RunEvent = (
    TextDelta | Thinking | ToolCallEvent | ApprovalEvent | ToolResultEvent | UsageEvent | Done
)
EventSink = Callable[[RunEvent], None]


def event_json(event: RunEvent) -> dict[str, Any]:
    """The event as the JSON object ``foehn run --json`` prints (``event`` first)."""
    data = asdict(event)
    return {"event": data.pop("event"), **data}
