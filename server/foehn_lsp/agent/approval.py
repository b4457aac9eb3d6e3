"""Approval: one policy, one gate in the call chain, decisions as data.

Policy maps a call's risk (or the tool's name) to allow, ask or deny. ``ask`` goes to an
``Approver`` (the editor, the terminal, or a fixed answer) with the exact arguments and, for
tools that change files, the diff. What was approved is what runs: just before running, the
arguments are validated again and the edits planned again; any difference is a denial.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from foehn_lsp.agent.events import ApprovalEvent, EventSink
from foehn_lsp.config import ApprovalMode, ApprovalSettings
from foehn_lsp.errors import ToolInputError
from foehn_lsp.tools.contract import ToolResult
from foehn_lsp.tools.registry import Handler, Invocation
from foehn_lsp.tools.validation import InvalidArgumentsError, parse_arguments
from foehn_lsp.workspace.edits import EditPlan, WriteFile


@dataclass(frozen=True, kw_only=True)
class Approved:
    scope: Literal["once", "run"] = "once"
    """``run``: this tool needs no more asking until the run ends."""


@dataclass(frozen=True, kw_only=True)
class Denied:
    reason: str = "denied"


ApprovalDecision = Approved | Denied


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

    def describe(self) -> str:
        arguments = json.dumps(self.arguments, indent=2, ensure_ascii=False)
        return f"{self.tool} ({self.risk}) with {arguments}"


class Approver(Protocol):
    async def ask(self, request: ApprovalRequest) -> ApprovalDecision: ...


class FixedApprover:
    """Always the same answer: ``--approve all|never`` and tests."""

    def __init__(self, decision: ApprovalDecision) -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.decision


class ApprovalGate:
    """The middleware that applies policy; one per run (it remembers 'allow for this run')."""

    def __init__(self, policy: ApprovalSettings, approver: Approver, emit: EventSink) -> None:
        self.policy = policy
        self.approver = approver
        self.emit = emit
        self.allowed_for_run: set[str] = set()
        self._asking = asyncio.Lock()

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        tool = invocation.tool
        mode = self.policy.mode_for(tool.name, invocation.risk)
        if mode is ApprovalMode.ALLOW or tool.name in self.allowed_for_run:
            why = "policy" if mode is ApprovalMode.ALLOW else "allowed for this run"
            self.emit(
                ApprovalEvent(id=invocation.call_id, tool=tool.name, decision="allow", reason=why)
            )
            return await next_step(invocation)
        if mode is ApprovalMode.DENY:
            self.emit(
                ApprovalEvent(
                    id=invocation.call_id, tool=tool.name, decision="deny", reason="policy"
                )
            )
            return ToolResult.failure(
                f"{tool.name} was not run: policy denies {invocation.risk.value} calls. "
                "Find another way, or tell the person what you would need."
            )
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
        )
        async with self._asking:
            decision = await self.approver.ask(request)
        if isinstance(decision, Denied):
            self.emit(
                ApprovalEvent(
                    id=invocation.call_id, tool=tool.name, decision="deny", reason=decision.reason
                )
            )
            return ToolResult.failure(
                f"the person denied this call ({decision.reason}); it was not run. Do not "
                "repeat it unchanged: continue another way or ask what they want."
            )
        if mismatch := await _changed_since(invocation, request):
            self.emit(
                ApprovalEvent(
                    id=invocation.call_id, tool=tool.name, decision="deny", reason=mismatch
                )
            )
            return ToolResult.failure(f"{tool.name} was not run: {mismatch}")
        if decision.scope == "run":
            self.allowed_for_run.add(tool.name)
        self.emit(
            ApprovalEvent(
                id=invocation.call_id,
                tool=tool.name,
                decision="allow",
                reason="approved for this run" if decision.scope == "run" else "approved once",
            )
        )
        return await next_step(invocation)


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


async def _changed_since(invocation: Invocation, request: ApprovalRequest) -> str | None:
    """Why what would run now differs from what was approved, or ``None``."""
    try:
        again = invocation.tool.validate(parse_arguments(invocation.raw_arguments))
    except InvalidArgumentsError:
        return "its arguments no longer validate"
    if _shown_arguments(invocation) != dict(request.arguments) or again != invocation.arguments:
        return "its arguments differ from what was approved"
    if request.preview is not None:
        planned = await _plan(invocation)
        if not isinstance(planned, EditPlan):
            return "the edit can no longer be made as approved"
        if planned.diff(invocation.ctx.workspace) != request.preview:
            return "the files changed after approval, so the approved diff no longer applies"
    return None
