"""Approval: one policy, one gate in the call chain, decisions as data.

Policy maps a call's risk (or the tool's name) to allow, ask or deny. ``ask`` goes to an
``Approver`` (the editor, the terminal, or a fixed answer) with the exact arguments, the scope
(for programs: which program, under which sandbox policy) and, for tools that change files, the
diff. What was approved is what runs: an edit is planned once, shown, and that very plan is
applied (the applier refuses if a file changed in between).

"Allow for this run" remembers a ``RememberedScope`` no wider than what the person saw: the
tool, the risk level, and for programs the program and sandbox policy. A ``deny`` policy wins
over anything remembered, and a call that asks for the ``full`` sandbox is asked about every
time unless the person explicitly chose to remember full access.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from foehn_lsp.agent.events import ApprovalEvent, EventSink
from foehn_lsp.agent.plan_mode import ApprovePlan, PlanDecision, ProposedPlan
from foehn_lsp.config import ApprovalMode, ApprovalSettings
from foehn_lsp.errors import ToolInputError
from foehn_lsp.tools.contract import Execute, RiskLevel, SandboxPolicy, ToolContext, ToolResult
from foehn_lsp.tools.registry import Handler, Invocation
from foehn_lsp.tools.validation import InvalidArgumentsError, parse_arguments
from foehn_lsp.workspace import apply_plan
from foehn_lsp.workspace.edits import EditPlan, WriteFile


@dataclass(frozen=True, kw_only=True)
class Approved:
    scope: Literal["once", "run"] = "once"
    """``run``: also allow, until the run ends, later calls within the request's ``remember``
    scope."""
    full_access: bool = False
    """With ``run``, for a call that asks for the ``full`` sandbox: the person chose, under a
    label that says so, to remember full access too. Without it such a call is allowed once."""


@dataclass(frozen=True, kw_only=True)
class Denied:
    reason: str = "denied"


ApprovalDecision = Approved | Denied


@dataclass(frozen=True, kw_only=True)
class RememberedScope:
    """What "allow for this run" remembers: later calls are allowed unasked only when all four
    are equal, so an approval never widens to another program, sandbox or risk level."""

    tool: str
    risk: RiskLevel
    program: str | None
    """For calls that start a program: the program, as the model wrote it."""
    sandbox: SandboxPolicy | None

    @classmethod
    def of(cls, invocation: Invocation) -> RememberedScope:
        return cls(
            tool=invocation.tool.name,
            risk=invocation.risk,
            program=invocation.scope.program,
            sandbox=invocation.scope.sandbox,
        )

    def describe(self) -> str:
        """In words, as the person is shown it: 'run_command calls that run `touch`, at risk
        write, in the workspace-write sandbox'."""
        text = f"{self.tool} calls"
        if self.program is not None:
            text += f" that run `{self.program}`"
        text += f", at risk {self.risk.value}"
        if self.sandbox is not None:
            text += f", in the {self.sandbox} sandbox"
        return text


@dataclass(frozen=True, kw_only=True)
class FilePreview:
    path: Path
    before: str | None
    """``None`` for a file the edit creates."""
    after: str


MAX_PREVIEW_CHARS = 1_000_000


def file_previews(plan: EditPlan) -> tuple[FilePreview, ...]:
    return tuple(
        FilePreview(path=change.path, before=change.old_text, after=change.text)
        for change in plan.changes
        if isinstance(change, WriteFile)
        and len(change.text) + len(change.old_text or "") <= MAX_PREVIEW_CHARS
    )


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

    def describe(self) -> str:
        arguments = json.dumps(self.arguments, indent=2, ensure_ascii=False)
        where = f" running `{self.program}`" if self.program is not None else ""
        sandbox = f" in the {self.sandbox} sandbox" if self.sandbox is not None else ""
        return f"{self.tool} ({self.risk}){where}{sandbox} with {arguments}"


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


class ApprovalGate:
    """The middleware that applies policy; one per run (it remembers 'allow for this run')."""

    def __init__(self, policy: ApprovalSettings, approver: Approver, emit: EventSink) -> None:
        self.policy = policy
        self.approver = approver
        self.emit = emit
        self.remembered: set[RememberedScope] = set()
        self._asking = asyncio.Lock()

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        tool = invocation.tool
        scope = RememberedScope.of(invocation)
        mode = self.policy.mode_for(tool.name, invocation.risk)
        if mode is ApprovalMode.DENY:
            self._decided(invocation, "deny", "policy")
            return ToolResult.failure(
                f"{tool.name} was not run: policy denies {invocation.risk.value} calls. "
                "Find another way, or tell the person what you would need."
            )
        if scope in self.remembered:
            self._decided(invocation, "allow", "allowed for this run")
            return await next_step(invocation)
        if mode is ApprovalMode.ALLOW and invocation.scope.sandbox != "full":
            self._decided(invocation, "allow", "policy")
            return await next_step(invocation)
        planned = await _plan(invocation)
        if isinstance(planned, ToolResult):
            return planned  # the edit cannot be made as asked; nothing to approve
        request = ApprovalRequest(
            call_id=invocation.call_id,
            tool=tool.name,
            arguments=_shown_arguments(invocation),
            risk=invocation.risk.value,
            preview=planned.diff(invocation.ctx.workspace) if planned else None,
            summary=planned.summary if planned else None,
            files=file_previews(planned) if planned else (),
            program=invocation.scope.program,
            sandbox=invocation.scope.sandbox,
            remember=scope.describe(),
        )
        async with self._asking:
            decision = await self.approver.ask(request)
        if isinstance(decision, Denied):
            self._decided(invocation, "deny", decision.reason)
            return ToolResult.failure(
                f"the person denied this call ({decision.reason}); it was not run. Do not "
                "repeat it unchanged: continue another way or ask what they want."
            )
        if mismatch := _changed_since(invocation, request):
            self._decided(invocation, "deny", mismatch)
            return ToolResult.failure(f"{tool.name} was not run: {mismatch}")
        remembered = decision.scope == "run" and (
            invocation.scope.sandbox != "full" or decision.full_access
        )
        if remembered:
            self.remembered.add(scope)
            why = "approved for this run"
        elif decision.scope == "run":
            why = "approved once (full access is remembered only when chosen explicitly)"
        else:
            why = "approved once"
        self._decided(invocation, "allow", why)
        if planned is not None:
            invocation = dataclasses.replace(
                invocation, tool=dataclasses.replace(tool, execute=_applying(planned))
            )
        return await next_step(invocation)

    def _decided(
        self, invocation: Invocation, decision: Literal["allow", "deny"], why: str
    ) -> None:
        self.emit(
            ApprovalEvent(
                id=invocation.call_id, tool=invocation.tool.name, decision=decision, reason=why
            )
        )


def _applying(planned: EditPlan) -> Execute:
    """An ``execute`` that applies the approved plan instead of planning again."""

    async def execute(arguments: object, ctx: ToolContext) -> ToolResult:
        return await apply_plan(planned, ctx)

    return execute


def _shown_arguments(invocation: Invocation) -> dict[str, Any]:
    try:
        return parse_arguments(invocation.raw_arguments)
    except InvalidArgumentsError:
        return {}


async def _plan(invocation: Invocation) -> EditPlan | ToolResult | None:
    plan = invocation.tool.plan
    if plan is None:
        return None
    try:
        return await plan(invocation.arguments, invocation.ctx)
    except ToolInputError as exc:
        return ToolResult.failure(str(exc))
    except OSError as exc:
        # A file that vanished or became a link to elsewhere while planning (a race with
        # another program) is the model's problem to retry, not a crash of the run.
        return ToolResult.failure(f"{invocation.tool.name} could not be planned: {exc}")


def _changed_since(invocation: Invocation, request: ApprovalRequest) -> str | None:
    """Why the arguments that would run now differ from those approved, or ``None``. (The
    files are checked by the applier, against the plan that was shown.)"""
    try:
        again = invocation.tool.validate(parse_arguments(invocation.raw_arguments))
    except InvalidArgumentsError:
        return "its arguments no longer validate"
    if _shown_arguments(invocation) != dict(request.arguments) or again != invocation.arguments:
        return "its arguments differ from what was approved"
    return None
