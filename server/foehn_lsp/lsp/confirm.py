"""Asking the person in the editor: ``foehn/confirm`` where the client handles it (a modal with
the diff), else ``window/showMessageRequest``. No answer, or a dismissed dialog, is a denial."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from pygls.exceptions import JsonRpcException

from foehn_lsp.agent.approval import ApprovalDecision, ApprovalRequest, Denied
from foehn_lsp.lsp import convert

if TYPE_CHECKING:
    from foehn_lsp.lsp.server import FoehnServer

log = logging.getLogger(__name__)


class EditorApprover:
    def __init__(self, server: FoehnServer, run_id: str, report: Callable[[str], None]) -> None:
        self.server = server
        self.run_id = run_id
        self.report = report

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.report(f"Waiting for your approval of {request.tool}…")
        try:
            if self.server.init_options.get("confirmRequest"):
                answer = await self.server.protocol.send_request_async(
                    "foehn/confirm", convert.confirm_params(self.run_id, request)
                )
                return convert.confirm_decision(answer)
            choice = await self.server.window_show_message_request_async(
                convert.message_request(request)
            )
            return convert.message_decision(choice)
        except JsonRpcException as exc:
            log.warning("the editor could not confirm %s: %s", request.tool, exc)
            return Denied(reason=f"the editor could not ask ({exc})")
