"""Asking the person in the editor: ``foehn/confirm`` where the client handles it (a modal with
the diff), else ``window/showMessageRequest``. No answer in time, a dismissed dialog, an error or
an answer of the wrong shape is a denial, and the person is told when time ran out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from foehn_lsp.agent.approval import ApprovalDecision, ApprovalRequest, Approved, Denied
from foehn_lsp.lsp import convert
from foehn_lsp.lsp.wire import answers, client

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

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.report(f"Waiting for your approval of {request.tool}…")
        timeout = self.server.timeouts.confirm
        if self.server.init_options.get("confirmRequest"):
            reply = await client.request(
                self.server.protocol,
                "foehn/confirm",
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
