"""What a turn reports as it goes. The CLI prints these, ``--json`` writes them one per line,
the language server turns them into progress and ``foehn/runEvent`` notifications, and
session files (transcripts) and the audit log record them.

Optional fields that are ``None`` are left out of the JSON (``event_json``), so the pinned shapes
of DESIGN.md stay as they are and newer fields appear only when known."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from foehn_lsp.errors import ErrorKind
from foehn_lsp.tools.tasks import TaskItem

StopReason = Literal["answer", "max_iterations", "budget", "repeated_call", "cancelled", "error"]
Decision = Literal["allow", "deny"]
FileChangeKind = Literal["created", "modified", "deleted", "moved"]


@dataclass(frozen=True, kw_only=True)
class TextDelta:
    """A piece of the model's text, as it streams."""

    text: str
    event: Literal["text"] = "text"


@dataclass(frozen=True, kw_only=True)
class Thinking:
    """The model is being asked (for progress indicators); again, with ``detail``, when the
    provider says what the wait is for."""

    iteration: int
    detail: str | None = None
    """What is happening, in words: "loading the model…", "reading the prompt (first run
    only)… 40%", "writing a tool call · 7.1 tokens/s"."""
    event: Literal["thinking"] = "thinking"


@dataclass(frozen=True, kw_only=True)
class ToolCallEvent:
    id: str
    tool: str
    arguments: Any
    """The parsed arguments, or the raw text when they are not valid JSON."""
    risk: str
    policy: str | None = None
    """The sandbox policy a program call runs under (read-only, workspace-write, full)."""
    preview: str | None = None
    """The unified diff of the edits the call would make, when known before it runs."""
    tool_kind: str | None = None
    """What the tool does (read, search, edit, move, delete, execute, think, fetch, other), for
    the front end's icon; left out for a tool that does not exist."""
    event: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True, kw_only=True)
class ToolProgress:
    """What a running call says of its progress ("3 of 10: indexing"), for long calls."""

    id: str
    tool: str
    message: str
    event: Literal["tool_progress"] = "tool_progress"


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
    data: Mapping[str, Any] | None = None
    """The tool's structured detail for the editor (e.g. ``{"diff": ...}``)."""
    event: Literal["tool_result"] = "tool_result"


@dataclass(frozen=True, kw_only=True)
class UsageEvent:
    input_tokens: int
    output_tokens: int
    total_tokens: int
    """Spent so far in the turn."""
    budget: int
    window: int | None = None
    """The model's context window in tokens, when known."""
    context_tokens: int | None = None
    """Tokens the conversation takes in the window now (the last request's input)."""
    cost: float | None = None
    """The session's cost so far in US dollars, where the provider's prices are known."""
    event: Literal["usage"] = "usage"


@dataclass(frozen=True, kw_only=True)
class Done:
    reason: StopReason
    answer: str
    iterations: int
    error: ErrorKind | None = None
    """For ``reason`` "error": what kind of failure it was (the answer says it in words)."""
    event: Literal["done"] = "done"


@dataclass(frozen=True, kw_only=True)
class TurnStarted:
    """A session's turn begins (first event of a turn)."""

    session: str
    turn: int
    """1-based index of the turn in the session."""
    event: Literal["turn"] = "turn"


@dataclass(frozen=True, kw_only=True)
class ChangedFile:
    path: str
    """Relative to the workspace root, with "/"."""
    change: FileChangeKind
    source: str | None = None
    """For ``moved``: where the file was."""


@dataclass(frozen=True, kw_only=True)
class FilesChanged:
    """At a turn's end, before ``done``: the files the turn changed, which ``undo`` can put
    back (the checkpoint)."""

    session: str
    turn: int
    files: tuple[ChangedFile, ...]
    event: Literal["files_changed"] = "files_changed"


@dataclass(frozen=True, kw_only=True)
class Compacted:
    """Older parts of the conversation were shortened to fit the context window."""

    before_tokens: int
    after_tokens: int
    summary: str
    """What was compacted, in words (the same note the model gets)."""
    event: Literal["compacted"] = "compacted"


@dataclass(frozen=True, kw_only=True)
class TodoEvent:
    """The task list changed (the ``todo`` tool, or an approved plan): the whole list."""

    items: tuple[TaskItem, ...]
    event: Literal["todo"] = "todo"


@dataclass(frozen=True, kw_only=True)
class CheckedProblem:
    path: str
    line: int
    message: str
    source: str


@dataclass(frozen=True, kw_only=True)
class Checked:
    """The files the turn changed were checked before the answer: the problems its edits
    added (which go back to the model) and the checkers that were skipped, one line each."""

    problems: tuple[CheckedProblem, ...]
    skipped: tuple[str, ...]
    event: Literal["checked"] = "checked"


@dataclass(frozen=True, kw_only=True)
class NetworkEvent:
    """One connection a call attempted through its network proxy (or ``fetch`` made), allowed
    or refused, once it has ended: the audit log records the same."""

    call: str
    """The id of the call it belongs to."""
    host: str
    """The name asked for (or the address, when an address was asked for and refused)."""
    port: int
    allowed: bool
    reason: str
    """Why it was allowed (the granted entry and where it is written) or refused
    ("evil.example is not granted"); for an allowed one cut short, why."""
    bytes_out: int
    bytes_in: int
    event: Literal["network"] = "network"

    @classmethod
    def of(cls, attempt: Any) -> NetworkEvent:
        """The event of one attempt as the proxy reports it (``sandbox.network.Connection``,
        the same fields)."""
        return cls(**asdict(attempt))


PlanStatus = Literal["proposed", "approved", "edited", "rejected", "unreviewed"]


@dataclass(frozen=True, kw_only=True)
class PlanEvent:
    """Plan mode: the plan the model proposes (``proposed``), then what the person decided:
    ``approved`` (as proposed) or ``edited`` (their version) and the same turn carries it out,
    ``rejected`` (with ``reason``; the model plans again, and a second rejection ends the
    turn), or ``unreviewed`` (nobody could be asked: the turn ends with the plan)."""

    status: PlanStatus
    plan: str
    """The plan in words (for ``edited``, the person's version)."""
    steps: tuple[str, ...]
    files: tuple[str, ...]
    """The files the plan names."""
    reason: str = ""
    event: Literal["plan"] = "plan"


TurnEvent = (
    TextDelta
    | Thinking
    | ToolCallEvent
    | ToolProgress
    | ApprovalEvent
    | ToolResultEvent
    | UsageEvent
    | Done
    | TurnStarted
    | FilesChanged
    | Compacted
    | TodoEvent
    | PlanEvent
    | Checked
    | NetworkEvent
)
EventSink = Callable[[TurnEvent], None]


def event_json(event: TurnEvent) -> dict[str, Any]:
    """The event as the JSON object ``foehn run --json`` prints (``event`` first)."""
    data = _without_unknown(asdict(event))
    return {"event": data.pop("event"), **data}


_OPTIONAL = frozenset(
    {
        "policy",
        "preview",
        "data",
        "window",
        "context_tokens",
        "cost",
        "source",
        "error",
        "detail",
        "tool_kind",
    }
)


def _without_unknown(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _without_unknown(v) for k, v in value.items() if not (v is None and k in _OPTIONAL)
        }
    if isinstance(value, list | tuple):
        return [_without_unknown(v) for v in value]
    return value
