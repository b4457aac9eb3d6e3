"""The person's say over every call: their rules (``rules/``, one argv reader), hooks
(``hooks``), the two in force for a session (``guards``), what "allow for this run" remembers
(``remember``), the approval gate that decides, asks and remembers (``approval``), and the
plan-review decisions (``plans``)."""

from foehn_lsp.policy.approval import (
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequest,
    Approved,
    Approver,
    Denied,
    FixedApprover,
)

__all__ = [
    "ApprovalDecision",
    "ApprovalGate",
    "ApprovalRequest",
    "Approved",
    "Approver",
    "Denied",
    "FixedApprover",
]
