"""One turn: the loop, executing calls, approval, events, the system message, the context window
and the editor context. A saved conversation (sessions, transcripts, audit) is ``sessions/``."""

from foehn_lsp.agent.approval import (
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequest,
    Approved,
    Approver,
    Denied,
    FixedApprover,
)
from foehn_lsp.agent.events import Done, EventSink, RunEvent, event_json
from foehn_lsp.agent.loop import Agent, RunOutcome, RunRequest

__all__ = [
    "Agent",
    "ApprovalDecision",
    "ApprovalGate",
    "ApprovalRequest",
    "Approved",
    "Approver",
    "Denied",
    "Done",
    "EventSink",
    "FixedApprover",
    "RunEvent",
    "RunOutcome",
    "RunRequest",
    "event_json",
]
