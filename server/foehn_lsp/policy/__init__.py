"""The person's say over every call.

rules/         the person's rules, and the one argv reader (``rules/argv.py``)
hooks.py       programs the person configures to look at calls and turns
hook_steps.py  the pre- and post-tool hook steps of a call's chain
guards.py      the rules and hooks in force for a session
approval.py    the approval step: decides, asks, remembers
remember.py    what "allow for this run" remembers
plans.py       what the person decides about a plan
"""

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
