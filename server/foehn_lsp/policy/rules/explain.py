"""Why a call is allowed, asked about or denied, as ``foehn explain``, the LSP's
``foehn.explain`` and the approval prompts' "why" show it:

    {"decision": "allow" | "ask" | "deny",
     "rule": {tool, program, args, paths, decision, sandbox, message, source,
              applied, note, conflicts: [{…, applied, note}]} | null,
     "source": "FILE:LINE" | "table" | "default",
     "risk": "read_only" | "write" | "destructive" | "undefined",
     "sandbox": "read-only" | "workspace-write" | "full" | null,
     "network": [{"domain": "*.example.org", "source": "FILE:LINE"}, …],
     "remembered": {"run": "what 'for this run' remembers", "always": {rule} | null} | null}

``rule`` is the rule that decided; when none did but some matched (a policy that denies wins
over an allow rule; an allow rule cannot allow a read-only call), the first of them, with
``applied: false`` and a ``note`` saying why. Every other rule that matched is in
``conflicts``. ``network`` lists the domains the call would reach if it ran (empty: none),
each with where it is granted. ``source`` says what decided: a rule's (or hook's)
``FILE:LINE``, the risk table (``table``: the risk was assessed from the arguments) or the
tool's declared risk under the approval policy (``default``). ``remembered`` is set when the
person would be asked: what "allow for this run" would remember, and the rule "always" would
save.
"""

from __future__ import annotations

import json
from typing import Any

from foehn_lsp.config import ApprovalSettings
from foehn_lsp.errors import ToolInputError
from foehn_lsp.policy.remember import RememberedScope
from foehn_lsp.policy.rules.decision import Verdict, allow_needs, call_of, decide, risk_source
from foehn_lsp.policy.rules.match import Call
from foehn_lsp.policy.rules.proposal import propose
from foehn_lsp.policy.rules.ruleset import Rule, RuleSet
from foehn_lsp.tools.contract import ToolResult
from foehn_lsp.tools.registry import Invocation


def explanation(
    verdict: Verdict, call: Call, *, remember: str | None, proposed: Rule | None
) -> dict[str, Any]:
    """The pinned ``explain`` object for ``verdict`` on ``call``."""
    shown = verdict.rule or (verdict.others[0] if verdict.others else None)
    rule: dict[str, Any] | None = None
    if shown is not None:
        rule = {
            **_entry(shown, verdict, call),
            "conflicts": [_entry(r, verdict, call) for r in verdict.others if r is not shown],
        }
    asked = verdict.decision == "ask"
    return {
        "decision": verdict.decision,
        "rule": rule,
        "source": verdict.source,
        "risk": call.risk.value,
        "sandbox": verdict.sandbox,
        "network": [{"domain": d.shown(), "source": d.source} for d in verdict.network],
        "remembered": (
            {"run": remember or None, "always": proposed.json() if proposed else None}
            if asked
            else None
        ),
    }


def _entry(rule: Rule, verdict: Verdict, call: Call) -> dict[str, Any]:
    applied = rule is verdict.rule
    note = None
    if not applied:
        if rule.decision == "allow":
            note = allow_needs(rule, call) or f"{verdict.decision} wins over allow"
        else:
            note = f"{verdict.source} decided first"
    return {**rule.json(), "applied": applied, "note": note}


def describe(explained: dict[str, Any], *, asked: str | None = None) -> str:
    """The explanation for people, a line per fact."""
    lines = [f"decision  {explained['decision']}"]
    source = explained["source"]
    if source == "table":
        lines.append("because   the approval policy for the risk the risk table gave this call")
    elif source == "default":
        lines.append("because   the approval policy for the tool's declared risk")
    else:
        lines.append(f"because   {source}")
    rule = explained["rule"]
    if rule is not None:
        lines.append(f"rule      {_rule_line(rule)}")
        if rule["message"] and explained["decision"] == "deny":
            lines.append(f"message   {rule['message']}")
        lines.extend(f"conflict  {_rule_line(other)}" for other in rule["conflicts"])
    lines.append(f"risk      {explained['risk']}")
    lines.append(f"sandbox   {explained['sandbox'] or 'none (starts no program)'}")
    reached = [f"{entry['domain']} ({entry['source']})" for entry in explained["network"]]
    lines.append(f"network   {', '.join(reached) or 'none'}")
    remembered = explained["remembered"]
    if remembered is not None:
        if asked:
            lines.append(f"asked     {asked}")
        if remembered["run"]:
            lines.append(f"for run   {remembered['run']}")
        always = remembered["always"]
        lines.append(
            "always    " + (_toml_line(always) if always else "saves no rule for this call")
        )
    return "\n".join(lines)


def _rule_line(rule: dict[str, Any]) -> str:
    text = f"{rule['source']}  {_toml_line(rule)}"
    if not rule["applied"]:
        text += f"  (not applied: {rule['note']})"
    return text


def _toml_line(rule: dict[str, Any]) -> str:
    keys = ("tool", "program", "args", "paths", "decision", "sandbox", "network", "message")
    return " ".join(
        f"{key}={json.dumps(rule[key], ensure_ascii=False)}"
        for key in keys
        if rule.get(key) is not None
    )


class CannotExplain(ToolInputError):
    """A call that cannot be explained as given: an unknown tool or arguments that do not
    validate (the message says which and what to fix)."""


def explain_call(
    prepared: Invocation | ToolResult, *, policy: ApprovalSettings, rules: RuleSet
) -> dict[str, Any]:
    """The ``explain`` object for one call as the chain prepared it (``agent.chain.prepare``:
    validated, assessed and planned, up to the decision; nothing runs and no hook is asked).
    Raises ``CannotExplain`` with why the call could not be prepared."""
    from foehn_lsp.sandbox import system_sandbox

    if isinstance(prepared, ToolResult):
        raise CannotExplain(prepared.output)
    call = call_of(prepared)
    verdict = decide(
        call,
        rules=rules,
        policy=policy,
        risk_source=risk_source(prepared),
        sandbox_available=system_sandbox().available,
    )
    remember = RememberedScope.of(prepared).describe()
    return explanation(verdict, call, remember=remember, proposed=propose(call, rules))
