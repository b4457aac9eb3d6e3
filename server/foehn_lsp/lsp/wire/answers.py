"""The client's answers to Foehn's requests, checked against their exact shape.

Every function takes the raw JSON the client sent (never a converter's guess at it) and returns
what Foehn does with it. Anything but the expected shape is a denial, an edit that was not
applied, or settings left as they were, always with the reason: ``{"applied": "false"}`` is
not an applied edit, ``{"decision": "yes"}`` is not an approval.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from foehn_lsp.policy.approval import ApprovalDecision
    from foehn_lsp.workspace.edits import ApplyOutcome

CONFIRM_DECISIONS = {"allow": "once", "allowRun": "run"}
ALWAYS = "allowAlways"
"""Allow, and save the request's ``proposedRule`` to the user config."""
CONFIRM_KEYS = {"decision", "reason"}


def shown(value: Any, limit: int = 120) -> str:
    """The answer as the reason quotes it: compact JSON, cut short."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def confirm_decision(answer: Any) -> ApprovalDecision:
    """``foehn/confirm``: ``{decision: "allow" | "allowRun" | "allowAlways" | "deny", reason?:
    string}``; ``allowAlways`` saves the request's ``proposedRule`` (when it had one)."""
    from foehn_lsp.policy.approval import Approved, Denied

    if answer is None:
        return Denied(reason="dismissed")
    if (
        not isinstance(answer, Mapping)
        or not set(answer) <= CONFIRM_KEYS
        or not isinstance(answer.get("reason", ""), str)
    ):
        return Denied(reason=f"the editor's answer was not understood: {shown(answer)}")
    decision = answer.get("decision")
    if not isinstance(decision, str):
        return Denied(reason=f"the editor's answer was not understood: {shown(answer)}")
    if decision == ALWAYS:
        return Approved(scope="once", save_rule=True)
    if decision in CONFIRM_DECISIONS:
        return Approved(scope=CONFIRM_DECISIONS[decision])  # type: ignore[arg-type]
    if decision == "deny":
        return Denied(reason=answer.get("reason") or "denied in the editor")
    return Denied(reason=f"the editor's answer was not understood: {shown(answer)}")


def message_decision(answer: Any, choices: Mapping[str, ApprovalDecision]) -> ApprovalDecision:
    """``window/showMessageRequest``: ``null`` (dismissed) or one of the offered actions,
    ``{title, ...}`` (clients may add properties to an action item)."""
    from foehn_lsp.policy.approval import Denied

    if answer is None:
        return Denied(reason="dismissed")
    title = answer.get("title") if isinstance(answer, Mapping) else None
    if isinstance(title, str) and title in choices:
        return choices[title]
    return Denied(reason=f"the editor's answer was not understood: {shown(answer)}")


NOT_APPLIED = (
    "the editor did not apply the edit: {why} (nobody refused it; read the file again before "
    "retrying)"
)
"""What the model reads about an edit the editor did not make: an editor's failure, never a
person's refusal, so the model does not conclude that it was told no."""


def apply_outcome(answer: Any) -> ApplyOutcome:
    """``workspace/applyEdit``: ``{applied: boolean, failureReason?: string, failedChange?:
    uinteger}``. Only ``applied: true`` is an applied edit; anything else is the editor's
    failure, with its reason."""
    from foehn_lsp.workspace.edits import ApplyOutcome

    well_formed = (
        isinstance(answer, Mapping)
        and isinstance(answer.get("applied"), bool)
        and isinstance(answer.get("failureReason", ""), str)
        and _is_uinteger(answer.get("failedChange", 0))
    )
    if not well_formed:
        return not_applied(f"its answer was not understood ({shown(answer)})")
    if answer["applied"]:
        return ApplyOutcome(applied=True)
    return not_applied(answer.get("failureReason") or "it gave no reason")


def not_applied(why: str) -> ApplyOutcome:
    """An edit the editor did not make, and ``why``."""
    from foehn_lsp.workspace.edits import ApplyOutcome

    return ApplyOutcome(applied=False, reason=NOT_APPLIED.format(why=why))


def configuration(answer: Any, items: int) -> list[Mapping[str, Any] | None] | str:
    """``workspace/configuration``: one entry per item asked, each an object or ``null``.
    Returns the entries, or what was wrong with the answer."""
    if not isinstance(answer, Sequence) or isinstance(answer, str) or len(answer) != items:
        return f"expected a list of {items} setting object(s), got {shown(answer)}"
    if not all(entry is None or isinstance(entry, Mapping) for entry in answer):
        return f"expected setting objects or null, got {shown(answer)}"
    return list(answer)


def _is_uinteger(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
