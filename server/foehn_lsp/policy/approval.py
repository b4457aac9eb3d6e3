"""Approval: one step of the call chain (``agent.chain``) that decides, asks and remembers;
decisions are data.

``policy.rules.decision.decide`` weighs the person's rules, the pre-tool hooks' answers (the
step before, ``policy.hook_steps``) and the policy (risk, or the tool's name, to allow, ask or
deny) in one place, and the gate does what it says: a denial goes back to the model with the
rule's or hook's message, an allowed call runs (a program under the sandbox an allow rule
names), and ``ask`` goes to an ``Approver`` (the editor, the terminal, or a fixed answer) with
the exact arguments, the scope (for programs: which program, under which sandbox policy) and,
for tools that change files, the plan the chain made: its diff and files. What was approved is
what runs: the chain applies that very plan (the applier refuses if a file changed in between),
and arguments an approver changed while it was asked are a denial.

"Allow for this run" remembers a ``RememberedScope`` no wider than what the person saw: the
tool, the risk level, and for programs the program and sandbox policy. A ``deny`` policy wins
over anything remembered, and a call that asks for the ``full`` sandbox is asked about every
time unless the person explicitly chose to remember full access. "Always" saves the narrowest
rule that covers the call (``policy.rules.proposal``), which the person saw, to their config.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from foehn_lsp.config import ApprovalSettings
from foehn_lsp.errors import ConfigError
from foehn_lsp.events import ApprovalEvent, EventSink
from foehn_lsp.policy.guards import Guards, TurnGuards
from foehn_lsp.policy.plans import ApprovePlan, PlanDecision, ProposedPlan
from foehn_lsp.policy.remember import RememberedScope
from foehn_lsp.policy.rules.decision import Verdict, call_of, decide, risk_source
from foehn_lsp.policy.rules.explain import explanation
from foehn_lsp.policy.rules.match import Call
from foehn_lsp.policy.rules.proposal import propose
from foehn_lsp.policy.rules.ruleset import Rule
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.tools.contract import ToolResult
from foehn_lsp.tools.plans import FilePreview
from foehn_lsp.tools.registry import Handler, Invocation


@dataclass(frozen=True, kw_only=True)
class Approved:
    scope: Literal["once", "run"] = "once"
    """``run``: also allow, until the turn ends, later calls within the request's ``remember``
    scope."""
    full_access: bool = False
    """With ``run``, for a call that asks for the ``full`` sandbox: the person chose, under a
    label that says so, to remember full access too. Without it such a call is allowed once."""
    save_rule: bool = False
    """"Always": save the request's ``proposed_rule`` to the user config (the person saw it)."""


@dataclass(frozen=True, kw_only=True)
class Denied:
    reason: str = "denied"
    asked: bool = True
    """False: nobody could be asked (the front end has no way to), so the model must not read
    the refusal as the person's."""


ApprovalDecision = Approved | Denied


@dataclass(frozen=True, kw_only=True)
class ApprovalRequest:
    """What the person is asked about."""

    call_id: str
    tool: str
    arguments: Mapping[str, Any]
    risk: str
    preview: str | None = None
    """The unified diff of the edits, for tools that change files."""
    summary: str | None = None
    """One line: 'edit src/app.py (2 blocks)'."""
    files: tuple[FilePreview, ...] = ()
    """Whole before/after texts of the files the edit writes, for a side-by-side diff."""
    program: str | None = None
    """For calls that start a program: the program."""
    sandbox: SandboxPolicy | None = None
    """For calls that start a program: the sandbox policy it runs under. ``full`` means the
    person's own rights and the network; front ends say so plainly."""
    remember: str = ""
    """Exactly what "allow for this run" remembers, in words (show it next to that choice).
    For a ``full`` call it is remembered only with ``Approved(full_access=True)``, which a front
    end offers under its own label ("allow full access for this run")."""
    proposed_rule: Rule | None = None
    """What "always" saves (``Approved(save_rule=True)``): the narrowest rule that covers this
    call; ``None`` when no rule should (then "always" is not offered, or means this run)."""
    why: Mapping[str, Any] | None = None
    """Why the call is asked about: the ``foehn explain`` object (``policy.rules.explain``)."""
    kind: str = "other"
    """What the tool does (``Tool.kind``), for the front end's icon."""
    outside: str | None = None
    """For a call whose arguments may leave this computer: where they go. Front ends say so
    next to the arguments (what would leave, in full); such a call is asked every time, so
    "for this run" allows it once."""
    network: tuple[str, ...] = ()
    """The domains the call may reach if it runs (``*.example.org``, ``registry.example:8443``);
    front ends list them ("may reach: …"). Empty: none."""

    def describe(self) -> str:
        arguments = json.dumps(self.arguments, indent=2, ensure_ascii=False)
        where = f" running `{self.program}`" if self.program is not None else ""
        sandbox = f" in the {self.sandbox} sandbox" if self.sandbox is not None else ""
        reach = f", which may reach {reaching(self.network)}," if self.network else ""
        return f"{self.tool} ({self.risk}){where}{sandbox}{reach} with {arguments}"


def reaching(network: tuple[str, ...]) -> str:
    """The domains a call may reach, as one phrase for the person."""
    return ", ".join(network) + " (and nothing else on the network)"


class Approver(Protocol):
    async def ask(self, request: ApprovalRequest) -> ApprovalDecision: ...


class FixedApprover:
    """Always the same answer: ``--approve all|never`` and tests. A plan is approved when
    calls are (``--approve all``), and reviewed by nobody otherwise (the turn ends with it)."""

    def __init__(self, decision: ApprovalDecision) -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []
        self.plans: list[ProposedPlan] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.decision

    async def review_plan(self, plan: ProposedPlan) -> PlanDecision:
        self.plans.append(plan)
        return ApprovePlan() if isinstance(self.decision, Approved) else None


PendingPolicy = Callable[[], Awaitable[ApprovalSettings]]
"""The policy a front end is still waiting for (the editor's answer to
``workspace/configuration``), given once it is known or given up."""


class ApprovalGate:
    """The step that decides, asks and remembers; one per turn (it remembers 'allow for this
    run', the person's words for the turn). With ``pending``, no call is decided before that
    policy is given; it then replaces ``policy`` for the rest of the turn."""

    def __init__(
        self,
        policy: ApprovalSettings,
        approver: Approver,
        emit: EventSink,
        guards: TurnGuards | None = None,
        remembered: set[RememberedScope] | None = None,
        pending: PendingPolicy | None = None,
    ) -> None:
        self.policy = policy
        self._pending = pending
        self.approver = approver
        self.emit = emit
        self.guards = guards or TurnGuards(guards=Guards.none())
        self.remembered = remembered if remembered is not None else set()
        """What "allow for this run" remembers: this gate's own, or a set shared by the gates
        of several turns (``foehn mcp``: a client's whole connection)."""
        self._asking = asyncio.Lock()

    async def verdict(self, invocation: Invocation) -> Verdict:
        """The decision for ``invocation`` as it stands (with the answers of the steps before
        approval), once the policy is known."""
        from foehn_lsp.sandbox import system_sandbox

        if self._pending is not None:
            self.policy = await self._pending()
            self._pending = None
        return decide(
            call_of(invocation),
            rules=self.guards.guards.rules,
            policy=self.policy,
            risk_source=risk_source(invocation),
            hooks=invocation.answers,
            remembered=RememberedScope.of(invocation) in self.remembered,
            sandbox_available=system_sandbox().available,
        )

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        tool = invocation.tool
        verdict = await self.verdict(invocation)
        if verdict.decision == "deny":
            self._decided(invocation, "deny", verdict.reason)
            return ToolResult.failure(_refusal(tool.name, verdict))
        if verdict.decision == "allow":
            self._decided(invocation, "allow", verdict.reason)
            scope = invocation.scope
            if verdict.sandbox != scope.sandbox or verdict.network != scope.network:
                scope = dataclasses.replace(scope, sandbox=verdict.sandbox, network=verdict.network)
                invocation = dataclasses.replace(invocation, scope=scope)
            return await next_step(invocation)
        planned = invocation.plan
        if isinstance(planned, ToolResult):
            return planned  # the edit cannot be made as asked; nothing to approve
        call = call_of(invocation)
        remember = RememberedScope.of(invocation)
        proposed = propose(call, self.guards.guards.rules)
        shown = invocation.shown_arguments()
        request = ApprovalRequest(
            call_id=invocation.call_id,
            tool=tool.name,
            arguments=copy.deepcopy(shown),
            risk=invocation.risk.value,
            preview=planned.diff if planned else invocation.scope.preview,
            summary=planned.plan.summary if planned else invocation.scope.note,
            files=planned.files if planned else (),
            program=invocation.scope.program,
            sandbox=invocation.scope.sandbox,
            remember=remember.describe(),
            proposed_rule=proposed,
            why=explanation(verdict, call, remember=remember.describe(), proposed=proposed),
            outside=invocation.scope.outside,
            network=tuple(d.shown() for d in invocation.scope.network),
            kind=invocation.tool.kind,
        )
        async with self._asking:
            decision = await self.approver.ask(request)
        if isinstance(decision, Denied) and not decision.asked:
            self._decided(invocation, "deny", decision.reason)
            return ToolResult.failure(
                f"{tool.name} was not run: nobody could be asked, and nobody refused it "
                f"({decision.reason})."
            )
        if isinstance(decision, Denied):
            self._decided(invocation, "deny", decision.reason)
            return ToolResult.failure(
                f"the person denied this call ({decision.reason}); it was not run. Do not "
                "repeat it unchanged: continue another way or ask what they want."
            )
        if dict(request.arguments) != shown:
            mismatch = "its arguments differ from what was approved"
            self._decided(invocation, "deny", mismatch)
            return ToolResult.failure(f"{tool.name} was not run: {mismatch}")
        self._decided(invocation, "allow", self._remember(invocation, decision, proposed, call))
        return await next_step(invocation)

    def _remember(
        self, invocation: Invocation, decision: Approved, proposed: Rule | None, call: Call
    ) -> str:
        """Remember what the person's approval covers (no wider than what they saw); why the
        call was allowed, in words."""
        outside = invocation.scope.outside is not None
        remembered = (
            decision.scope == "run"
            and (invocation.scope.sandbox != "full" or decision.full_access)
            and not outside
        )
        if decision.save_rule and proposed is not None:
            return self._save(proposed, call)  # the rule, no wider, decides from now on
        if remembered:
            self.remembered.add(RememberedScope.of(invocation))
            return "approved for this run"
        if decision.scope == "run" and outside:
            return (
                "approved once (a call whose arguments may leave this computer is asked each time)"
            )
        if decision.scope == "run":
            return "approved once (full access is remembered only when chosen explicitly)"
        return "approved once"

    def _save(self, rule: Rule, call: Call) -> str:
        note = f"saved by Foehn when you chose always for a {call.tool} call"
        try:
            saved = self.guards.guards.save(rule, note=note)
        except (ConfigError, OSError) as exc:
            return f"approved once; the rule could not be saved: {exc}"
        return f"approved; rule saved at {saved.source}"

    def _decided(
        self, invocation: Invocation, decision: Literal["allow", "deny"], why: str
    ) -> None:
        self.emit(
            ApprovalEvent(
                id=invocation.call_id, tool=invocation.tool.name, decision=decision, reason=why
            )
        )


def _refusal(tool: str, verdict: Verdict) -> str:
    """What the model reads when a call is refused unasked."""
    if verdict.hook_failed:
        return f"{tool} was not run: {verdict.message}."
    if verdict.rule is None and verdict.source in ("table", "default"):
        return (
            f"{tool} was not run: {verdict.message}. Find another way, or tell the person what "
            "you would need."
        )
    return (
        f"{tool} was not run: {verdict.message}. This is the person's own rule; do not try to "
        "do the same another way. Tell them if you need it."
    )
