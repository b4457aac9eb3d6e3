"""Asking the person through ``session/request_permission``.

The four ACP options map onto Foehn's decisions: allow once; allow always (saves the narrowest
rule that covers the call to the person's config, which then decides; where no rule fits, for
the rest of the session exactly the scope the approval gate remembers: tool, risk, and for
programs the program and sandbox; the gate's own memory lasts one turn, this one the session);
reject once;
reject always (the same scope refused unasked for the rest of the session). The gate still
decides first, so a ``deny`` policy wins over anything remembered here. A cancelled request,
an answer that names no offered option, a client error or no answer within the timeout are
denials, so a silent client never holds a turn for longer than the timeout, and cancelling the
turn ends the wait at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from acp import schema
from acp.exceptions import RequestError
from acp.interfaces import Client
from pydantic import ValidationError

from foehn_lsp.acp import convert, elicit
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalRequest, Denied
from foehn_lsp.policy.plans import ApprovePlan, PlanDecision, ProposedPlan, RejectPlan
from foehn_lsp.tools.elicitation import ElicitationAnswer, ElicitationRequest
from foehn_lsp.workspace import Workspace

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 600.0
"""Seconds a permission request may stay unanswered before it counts as a denial."""


ScopeKey = tuple[str, str, str | None, str | None]


def scope_key(request: ApprovalRequest) -> ScopeKey:
    """What 'always' covers, allowing or rejecting: the approval gate's remembered scope (tool,
    risk, program, sandbox), so a write approval never covers a destructive call and an
    approval for one program never covers another."""
    return (request.tool, request.risk, request.program, request.sandbox)


class ClientApprover:
    """The ``Approver`` of one ACP session."""

    def __init__(
        self,
        client: Client,
        session_id: str,
        workspace: Workspace,
        *,
        before_asking: Callable[[], Awaitable[None]],
        timeout: float = DEFAULT_TIMEOUT,
        elicitation: schema.ElicitationCapabilities | None = None,
    ) -> None:
        self.client = client
        self.elicitation = elicitation
        """What the client can show of an MCP server's questions (forms, pages)."""
        self.session_id = session_id
        self.workspace = workspace
        self.before_asking = before_asking
        """Sends the updates so far, so the client knows the call before it is asked about it."""
        self.timeout = timeout
        self.allowed: set[ScopeKey] = set()
        self.rejected: set[ScopeKey] = set()
        self.read_only = False
        """The session's read-only mode: anything that is not a read is refused unasked."""
        self.plans = 0
        """Plans asked about so far (each permission request gets its own call id)."""

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        key = scope_key(request)
        if self.read_only and request.risk != "read_only":
            return Denied(reason="the session is in read-only mode")
        if key in self.rejected:
            return Denied(reason="rejected for the rest of the session")
        if key in self.allowed:
            return convert.decision_for("allow_always", request)
        await self.before_asking()
        try:
            async with asyncio.timeout(self.timeout):
                response = await self.client.request_permission(
                    session_id=self.session_id,
                    tool_call=convert.permission_tool_call(request, self.workspace),
                    options=convert.permission_options(request),
                )
        except TimeoutError:
            return Denied(reason=f"no answer within {self.timeout:g} seconds")
        except (RequestError, ConnectionError, ValidationError) as exc:
            log.warning("session %s: permission request failed: %s", self.session_id, exc)
            return Denied(reason=f"the editor could not ask ({exc})")
        choice = convert.permission_choice(response)
        if choice == "reject_always":
            self.rejected.add(key)
        elif choice == "allow_always" and request.proposed_rule is None and not request.outside:
            self.allowed.add(key)  # with a rule proposed, the saved rule decides from now on
        return convert.decision_for(choice, request)

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        """An MCP server's question, through the client (``acp.elicit``)."""
        return await elicit.ask(
            self.client,
            self.session_id,
            self.elicitation,
            request,
            within=self.timeout,
            before_asking=self.before_asking,
        )

    async def review_plan(self, plan: ProposedPlan) -> PlanDecision:
        """Plan mode's plan as a permission request: approve it, or keep planning. ACP has no
        way to edit it or say why; a rejection says it came from the client."""
        self.plans += 1
        call_id = f"plan-{self.plans}"
        await self.before_asking()
        try:
            async with asyncio.timeout(self.timeout):
                response = await self.client.request_permission(
                    session_id=self.session_id,
                    tool_call=convert.plan_permission(plan, call_id),
                    options=convert.PLAN_OPTIONS,
                )
        except TimeoutError:
            return RejectPlan(reason=f"no answer within {self.timeout:g} seconds")
        except (RequestError, ConnectionError, ValidationError) as exc:
            log.warning("session %s: plan review failed: %s", self.session_id, exc)
            return RejectPlan(reason=f"the editor could not ask ({exc})")
        if convert.permission_choice(response) == "allow_once":
            return ApprovePlan()
        return RejectPlan(reason="rejected in the editor")
