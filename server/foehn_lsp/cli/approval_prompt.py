"""The terminal's approval question and the one parser of its answers (``foehn run`` and
``foehn chat`` ask the same way; only where the line is read from differs).

    Allow? [y] once, [a] for this run (…), [s] always: save a rule, [?] why,
    [n WHY] deny and say why, [N] deny:

``?`` (or ``why``) prints why the call is asked about (the ``foehn explain`` object) and asks
again. ``s`` (or ``always``) shows the narrowest rule that covers the call and saves it to the
user config only on a second yes; it is offered only when such a rule exists. Anything else
that is not a yes denies; no answer at all denies too. What follows ``n`` (``n use pathlib
instead``), or any other text typed, is the person's reason: the model reads it with the
denial.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from rich.console import Console
from rich.text import Text

from foehn_lsp.policy.approval import ApprovalDecision, ApprovalRequest, Approved, Denied
from foehn_lsp.policy.rules.explain import describe

Answer = Literal["once", "run", "always", "why", "deny", "none"]

ANSWERS: dict[str, Answer] = {
    "y": "once",
    "yes": "once",
    "a": "run",
    "all": "run",
    "s": "always",
    "always": "always",
    "?": "why",
    "w": "why",
    "why": "why",
    "": "none",
}


DENY_WORDS = frozenset({"n", "no", "deny"})


@dataclass(frozen=True, kw_only=True)
class Typed:
    """One typed line, understood."""

    answer: Answer
    said: str = ""
    """With a denial: the person's reason, in their words (the model reads it)."""


def parse(line: str) -> Typed:
    """One typed line; anything not listed is a denial, and its words are the reason."""
    text = line.strip()
    known = ANSWERS.get(text.lower())
    if known is not None:
        return Typed(answer=known)
    word, _, rest = text.partition(" ")
    if word.lower().rstrip(",:;.!-") in DENY_WORDS:
        return Typed(answer="deny", said=rest.strip(" ,:;-"))
    return Typed(answer="deny", said=text)


def choices(request: ApprovalRequest) -> str:
    """The question; "for this run" is not offered when a rule or hook asks (it asks every
    time) or the call's arguments may leave this computer (asked every time too), nor "always"
    when no rule can be proposed."""
    asked_by_rule = request.why is not None and request.why.get("source") not in (
        "table",
        "default",
    )
    remember = f" ({request.remember})" if request.remember else ""
    run = "" if asked_by_rule or request.outside else f", [a] for this run{remember}"
    always = ", [s] always: save a rule" if request.proposed_rule is not None else ""
    why = ", [?] why" if request.why is not None else ""
    return f"Allow? [y] once{run}{always}{why}, [n WHY] deny and say why, [N] deny: "


async def answer(
    request: ApprovalRequest, read: Callable[[str], Awaitable[str]], err: Console
) -> ApprovalDecision:
    """Ask until the person decides. ``read`` shows a prompt and returns the typed line; it
    raises ``EOFError`` at the end of input (a denial) and ``KeyboardInterrupt`` for Ctrl-C
    (left to the caller)."""
    while True:
        try:
            typed = parse(await read(choices(request)))
        except EOFError:
            typed = Typed(answer="none")
        match typed.answer:
            case "once":
                return Approved(scope="once")
            case "run":
                return Approved(scope="run")
            case "why" if request.why is not None:
                err.print(describe(dict(request.why)))
            case "always" if request.proposed_rule is not None:
                err.print(Text("This rule would be saved to your config.toml:", style="bold"))
                err.print(request.proposed_rule.toml().rstrip())
                try:
                    confirmed = parse(await read("Save it and allow this call? [y/N]: "))
                except EOFError:
                    confirmed = Typed(answer="none")
                if confirmed.answer == "once":
                    return Approved(scope="once", save_rule=True)
            case "none":
                return Denied(reason="no answer")
            case _ if typed.said:
                return Denied(reason=f'denied in the terminal; they said: "{typed.said}"')
            case _:
                return Denied(reason="denied in the terminal")
