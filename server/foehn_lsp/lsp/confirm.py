"""Asking the person in the editor: ``foehn/confirm`` where the client handles it (a modal with
the diff), else ``window/showMessageRequest``; an MCP server's questions likewise
(``lsp.elicit``). No answer in time, a dismissed dialog, an error or
an answer of the wrong shape is a denial, and the person is told when time ran out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from foehn_lsp.lsp import convert, elicit
from foehn_lsp.lsp.table import CONFIRM
from foehn_lsp.lsp.wire import answers, client
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalRequest, Approved, Denied
from foehn_lsp.policy.plans import ApprovePlan, PlanDecision, ProposedPlan, RejectPlan
from foehn_lsp.tools.elicitation import ElicitationAnswer, ElicitationRequest

if TYPE_CHECKING:
    from foehn_lsp.lsp.server import FoehnServer

CHOICES: dict[str, ApprovalDecision] = {
    convert.ALLOW: Approved(scope="once"),
    convert.ALLOW_RUN: Approved(scope="run"),
    convert.ALLOW_ALWAYS: Approved(scope="once", save_rule=True),
    convert.DENY: Denied(reason="denied in the editor"),
}


class EditorApprover:
    def __init__(self, server: FoehnServer, run_id: str, report: Callable[[str], None]) -> None:
        self.server = server
        self.run_id = run_id
        self.report = report
        self.plans = 0

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.report(f"Waiting for your approval of {request.tool}…")
        timeout = self.server.timeouts.confirm
        if self.server.init_options.get("confirmRequest"):
            reply = await client.request(
                self.server.protocol,
                CONFIRM,
                convert.confirm_params(self.run_id, request),
                timeout,
            )
            if isinstance(reply, client.Answer):
                return answers.confirm_decision(reply.value)
        else:
            reply = await client.request(
                self.server.protocol,
                "window/showMessageRequest",
                convert.message_request(request),
                timeout,
            )
            if isinstance(reply, client.Answer):
                return answers.message_decision(reply.value, CHOICES)
        if reply.timed_out:
            self.server.window_show_message(
                convert.show(
                    f"Foehn: no answer about {request.tool} within {timeout:g} s; it was denied",
                    error=True,
                )
            )
        return Denied(reason=f"the editor could not ask ({reply.reason})")

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        """An MCP server's question, in the editor (``lsp.elicit``)."""
        self.report(f"Waiting for your answer to the MCP server {request.server!r}…")
        return await elicit.ask(self.server, self.run_id, request)

    async def review_plan(self, plan: ProposedPlan) -> PlanDecision:
        """The plan through ``foehn/confirm`` (tool ``plan``), else a message with "Approve
        plan" and "Reject"; no answer in time is a rejection."""
        self.report("Waiting for your review of the plan…")
        self.plans += 1
        timeout = self.server.timeouts.confirm
        decision: ApprovalDecision
        if self.server.init_options.get("confirmRequest"):
            params = convert.plan_confirm_params(self.run_id, f"plan-{self.plans}", plan)
            reply = await client.request(self.server.protocol, CONFIRM, params, timeout)
            if not isinstance(reply, client.Answer):
                return RejectPlan(reason=f"the editor could not ask ({reply.reason})")
            decision = answers.confirm_decision(reply.value)
        else:
            reply = await client.request(
                self.server.protocol,
                "window/showMessageRequest",
                convert.plan_message(plan),
                timeout,
            )
            if not isinstance(reply, client.Answer):
                return RejectPlan(reason=f"the editor could not ask ({reply.reason})")
            decision = answers.message_decision(
                reply.value, {convert.APPROVE_PLAN: Approved(), convert.REJECT_PLAN: Denied()}
            )
        if isinstance(decision, Approved):
            return ApprovePlan()
        return RejectPlan(reason=decision.reason if decision.reason != "denied" else "rejected")
