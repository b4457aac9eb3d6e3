"""One turn: the loop, executing calls, approval, events, the system message, the context window
and the editor context; the person's rules (``agent.rules``), hooks (``agent.hooks``) and the
two in force for a session (``agent.guards``). A saved conversation (sessions, transcripts,
audit, slash and custom commands) is ``sessions/``."""

from foehn_lsp.agent.approval import (
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequest,
    Approved,
    Approver,
    Denied,
    FixedApprover,
)
from foehn_lsp.agent.events import Done, EventSink, TurnEvent, event_json
from foehn_lsp.agent.loop import Agent, TurnOutcome, TurnRequest

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
    "TurnEvent",
    "TurnOutcome",
    "TurnRequest",
    "event_json",
]
