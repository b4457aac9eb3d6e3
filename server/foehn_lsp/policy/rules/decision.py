"""The one place that decides whether a call runs, is asked about, or is refused.

After validation and risk assessment, the approval gate (``policy.approval``) and ``foehn
explain`` both call ``decide`` with the call, the rules, the approval policy, the pre-tool hooks'
answers and whether an earlier approval of this run covers the call. Precedence, first that
applies wins:

1. the policy denies the call's risk or tool (``approval.destructive = "deny"``): deny;
2. a deny rule, or a hook that answers deny: deny, with the rule's (or hook's) message;
3. an ask rule, or a hook that answers ask: ask (every time, whatever was remembered);
4. an allow rule that covers the call: allow. It allows a read-only call nothing (that call
   runs already); a program runs under the rule's sandbox (read-only unless it says more, and
   ``full`` only when it says so) and may reach the rule's ``network`` besides ``[sandbox]
   network``; a call that starts no program needs a rule whose sandbox covers what the call
   does (``workspace-write`` for a write, ``full`` for an MCP tool);
5. a call that starts no program and reaches only domains the person granted (``fetch`` of a
   site in ``[sandbox] network``): allow, by that grant;
6. an approval remembered for this run: allow (never a call whose arguments may leave this
   computer: each of those is asked about);
7. the policy: allow (never a call that asks for the ``full`` sandbox, nor one whose arguments
   may leave this computer, which only an allow rule or the server's ``allow_open_world`` in
   the person's config lets run unasked, nor one that may reach the network, which only a rule
   or the grant lets run unasked) or ask.

A hook's allow means "no objection": it never lets a call run unasked that the rules and the
policy would ask about.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pydantic

from foehn_lsp.config import ApprovalMode, ApprovalSettings
from foehn_lsp.config.network import Domain
from foehn_lsp.policy.rules.match import Call, Match, covers, matches
from foehn_lsp.policy.rules.ruleset import Decision, Rule, RuleSet
from foehn_lsp.risk import RiskLevel
from foehn_lsp.sandbox.policy import SANDBOX_ORDER, SandboxPolicy
from foehn_lsp.tools.plans import PlannedEdit
from foehn_lsp.tools.registry import Answer, Invocation
from foehn_lsp.workspace.edits import changed_paths

PolicySource = Literal["table", "default"]
"""Where a call's risk came from: the risk table (a per-call assessment) or the tool's
declared level."""


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """What ``decide`` found, and why."""

    decision: Decision
    source: str
    """``FILE:LINE`` of the rule or hook that decided, else ``table`` or ``default``."""
    rule: Rule | None = None
    """The rule that decided, if one did."""
    others: tuple[Rule, ...] = ()
    """Every other rule that matched the call, whatever it said (conflicts are shown)."""
    sandbox: SandboxPolicy | None = None
    """For a program: the policy it runs under if it runs."""
    reason: str
    """Who decided, in words for the person ('rule FILE:LINE', 'policy')."""
    message: str | None = None
    """On deny: what the model reads."""
    remembered: bool = False
    """Allowed by an approval remembered for this run."""
    network: tuple[Domain, ...] = ()
    """What the call may reach if it runs: its own, and the deciding allow rule's."""
    hook_failed: bool = False
    """Denied because a hook failed or could not start (not by the person's rule)."""


def call_of(invocation: Invocation) -> Call:
    """What rules look at in ``invocation`` (validated, assessed and planned). A tool whose
    arguments name no paths (``rename``, ``rename_symbol``) is seen by the files its plan
    changes, so a rule about paths covers it too."""
    arguments: Mapping[str, Any]
    if isinstance(invocation.arguments, pydantic.BaseModel):
        arguments = invocation.arguments.model_dump()
    elif isinstance(invocation.arguments, Mapping):
        arguments = invocation.arguments
    else:
        arguments = {}
    scope = invocation.scope
    cwd = arguments.get("cwd") if scope.argv is not None else None
    planned = invocation.plan
    workspace = invocation.ctx.workspace
    changes = (
        tuple(workspace.display(path) for path in changed_paths(planned.plan))
        if isinstance(planned, PlannedEdit) and invocation.tool.paths is None
        else ()
    )
    return Call(
        tool=invocation.tool.name,
        arguments=arguments,
        risk=invocation.risk,
        argv=scope.argv,
        sandbox=scope.sandbox,
        cwd=cwd if isinstance(cwd, str) and cwd else ".",
        outside=scope.outside,
        network=scope.network,
        granted=scope.granted,
        changes=changes,
        workspace=workspace,
    )


def risk_source(invocation: Invocation) -> PolicySource:
    """``table`` when the call's risk was assessed from its arguments, else ``default``."""
    return "table" if invocation.tool.assess is not None else "default"


def decide(
    call: Call,
    *,
    rules: RuleSet,
    policy: ApprovalSettings,
    risk_source: PolicySource,
    hooks: Sequence[Answer] = (),
    remembered: bool = False,
    sandbox_available: bool = True,
) -> Verdict:
    """The decision for ``call`` (see the module docstring for the precedence)."""
    found = [m for r in rules.rules if r.decision != "allow" and (m := matches(r, call))]
    allowing = [r for r in rules.rules if r.decision == "allow" and covers(r, call)]
    matched = [m.rule for m in found] + allowing
    mode = policy.mode_for(call.tool, call.risk)

    verdict = functools.partial(_verdict, call, matched)

    if mode is ApprovalMode.DENY:
        # A front end may say why its policy refuses (Restricted Mode): the person reads it.
        refusal = policy.refusal_for(call.tool)
        return verdict(
            "deny",
            risk_source,
            refusal or "policy",
            message=f"policy denies {call.risk.value} calls" + (f" ({refusal})" if refusal else ""),
        )
    for kind in ("deny", "ask"):
        decided = _strongest(found, kind)
        if decided is not None:
            rule = decided.rule
            message = rule.message or f"a rule of the person's {kind}s this call"
            if decided.why:
                message += f" ({decided.why}, and a rule covers {_program_shape(rule)})"
            return verdict(kind, rule.source, f"rule {rule.source}", rule=rule, message=message)
        for answer in hooks:
            if answer.decision == kind:
                return verdict(
                    kind,
                    answer.source,
                    answer.failed or f"hook {answer.source}",
                    message=answer.message or f"a hook {kind}s this call",
                    hook_failed=answer.failed is not None,
                )
    for rule in allowing:
        allowed, sandbox = _allow_sandbox(rule, call, sandbox_available)
        if allowed:
            return verdict("allow", rule.source, f"rule {rule.source}", rule=rule, sandbox=sandbox)
    if call.granted is not None and call.argv is None and call.outside is None:
        return verdict("allow", call.granted, f"granted in {call.granted}")
    if remembered and call.outside is None:
        return verdict("allow", risk_source, "allowed for this run", remembered=True)
    if (
        mode is ApprovalMode.ALLOW
        and call.sandbox != "full"
        and call.outside is None
        and not call.network
    ):
        return verdict("allow", risk_source, "policy")
    return verdict("ask", risk_source, "policy")


def _verdict(
    call: Call,
    matched: Sequence[Rule],
    decision: Decision,
    source: str,
    reason: str,
    *,
    rule: Rule | None = None,
    message: str | None = None,
    sandbox: SandboxPolicy | None = None,
    remembered: bool = False,
    hook_failed: bool = False,
) -> Verdict:
    """The verdict ``decide`` found, with the other rules that ``matched`` the call and the
    network an allow rule adds."""
    extra = rule.network if rule is not None and decision == "allow" else ()
    return Verdict(
        hook_failed=hook_failed,
        decision=decision,
        source=source,
        reason=reason,
        rule=rule,
        others=tuple(r for r in matched if r is not rule),
        sandbox=sandbox or call.sandbox,
        message=message,
        remembered=remembered,
        network=(*call.network, *(d for d in extra if d not in call.network)),
    )


def _strongest(found: Sequence[Match], kind: Decision) -> Match | None:
    """The first rule of ``kind``, preferring one that matched the call itself over one that
    matched only because the argv may run anything."""
    of_kind = [m for m in found if m.rule.decision == kind]
    direct = [m for m in of_kind if m.why is None]
    chosen = direct or of_kind
    return chosen[0] if chosen else None


def _program_shape(rule: Rule) -> str:
    words = [rule.program or "", *(rule.args or ())]
    return "`" + " ".join(w for w in words if w) + "`"


def _allow_sandbox(
    rule: Rule, call: Call, sandbox_available: bool
) -> tuple[bool, SandboxPolicy | None]:
    """Whether an allow ``rule`` can allow ``call``, and the sandbox it runs under (``None``
    for a call that starts no program)."""
    if call.risk is RiskLevel.READ_ONLY and call.sandbox in (None, "read-only"):
        return False, None  # a rule only makes a read-only call ask or deny
    granted = rule.allowed_sandbox
    if call.sandbox is not None:
        # without a sandbox every program asks, unless the rule grants full access itself
        return granted == "full" or sandbox_available, granted
    needed: SandboxPolicy = "full" if call.tool.startswith("mcp__") else "workspace-write"
    return SANDBOX_ORDER.index(granted) >= SANDBOX_ORDER.index(needed), None


def allow_needs(rule: Rule, call: Call) -> str | None:
    """Why an allow ``rule`` that covers ``call`` does not allow it, in words, or ``None``."""
    if _allow_sandbox(rule, call, True)[0]:
        return None
    if call.risk is RiskLevel.READ_ONLY and call.sandbox in (None, "read-only"):
        return "the call is read-only, which rules can only make ask or deny"
    needed = "full" if call.tool.startswith("mcp__") else "workspace-write"
    return f'a {call.risk.value} {call.tool} call needs sandbox = "{needed}" in the rule'
