"""An MCP server's question through the ACP client, and its sign-in page.

A client that declares ``elicitation.form`` gets ACP's ``elicitation/create`` in form mode,
scoped to the session (the form as ``requestedSchema``); one that declares ``elicitation.url``
gets a page to open (a server's URL-mode question, or the sign-in page of an MCP server) the
same way in URL mode. Other clients get ``session/request_permission`` where the question fits
its options (nothing to fill in, one yes/no, one choice), and a form that does not fit is
declined with a line in the log; a sign-in page goes to the session as an agent message. A
cancelled request, an error or no answer within the timeout is a cancel.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import uuid
from collections.abc import Awaitable, Callable

from acp import schema
from acp.exceptions import RequestError
from acp.helpers import text_block, tool_content, update_agent_message_text
from acp.interfaces import Client
from pydantic import ValidationError

from foehn_lsp.acp.updates import UpdateStream
from foehn_lsp.mcp.consent import ConsentError, SignIn
from foehn_lsp.mcp.stores import default_store
from foehn_lsp.tools.elicitation import ElicitationAnswer, ElicitationRequest, form_schema

log = logging.getLogger(__name__)

_ids = itertools.count(1)
BIND_TIMEOUT = 60.0
"""How long a sign-in page waits for the session it is to be shown in to exist."""


async def ask(
    client: Client,
    session_id: str,
    offered: schema.ElicitationCapabilities | None,
    request: ElicitationRequest,
    *,
    within: float,
    before_asking: Callable[[], Awaitable[None]],
) -> ElicitationAnswer:
    """Put ``request`` to the person through ``client``."""
    await before_asking()
    mode_offered = offered and (offered.url if request.url else offered.form)
    try:
        async with asyncio.timeout(within):
            if mode_offered:
                return await _elicit(client, session_id, request)
            return await _permission(client, session_id, request)
    except TimeoutError:
        return ElicitationAnswer(action="cancel", note=f"no answer within {within:g} s")
    except (RequestError, ConnectionError, ValidationError) as exc:
        return ElicitationAnswer(action="cancel", note=f"the client could not ask ({exc})")


async def _elicit(
    client: Client, session_id: str, request: ElicitationRequest
) -> ElicitationAnswer:
    message = f"{request.title()}: {request.message}"
    mode: schema.ElicitationFormSessionMode | schema.ElicitationUrlSessionMode
    if request.url is not None:
        mode = schema.ElicitationUrlSessionMode(
            session_id=session_id, elicitation_id=uuid.uuid4().hex, url=request.url
        )
    else:
        mode = schema.ElicitationFormSessionMode(
            session_id=session_id,
            requested_schema=schema.ElicitationSchema.model_validate(form_schema(request.fields)),
        )
    answer = await client.create_elicitation(message=message, mode=mode)
    if isinstance(answer, schema.AcceptElicitationResponse):
        return ElicitationAnswer(action="accept", content=answer.content or {})
    return ElicitationAnswer(action="decline" if answer.action == "decline" else "cancel")


async def _permission(
    client: Client, session_id: str, request: ElicitationRequest
) -> ElicitationAnswer:
    options: list[tuple[str, str, ElicitationAnswer]] = []
    if not request.fields:
        options.append(("accept", "Accept", ElicitationAnswer(action="accept")))
    elif len(request.fields) == 1 and request.fields[0].kind == "boolean":
        name = request.fields[0].name
        options += [
            ("yes", "Yes", ElicitationAnswer(action="accept", content={name: True})),
            ("no", "No", ElicitationAnswer(action="accept", content={name: False})),
        ]
    elif len(request.fields) == 1 and request.fields[0].kind == "choice":
        spec = request.fields[0]
        options += [
            (f"choice-{n}", label, ElicitationAnswer(action="accept", content={spec.name: value}))
            for n, (value, label) in enumerate(spec.options)
        ]
    else:
        return ElicitationAnswer(
            action="decline", note="the client cannot show forms (no elicitation.form)"
        )
    options.append(("decline", "Decline", ElicitationAnswer(action="decline")))
    shown = f"{request.message}\n{request.url}" if request.url else request.message
    call = schema.ToolCallUpdate(
        tool_call_id=f"question-{next(_ids)}",
        title=request.title(),
        kind="other",
        status="pending",
        content=[tool_content(text_block(shown))],
    )
    response = await client.request_permission(
        session_id=session_id,
        tool_call=call,
        options=[
            schema.PermissionOption(
                option_id=option_id,
                name=label,
                kind="reject_once" if option_id == "decline" else "allow_once",
            )
            for option_id, label, _ in options
        ],
    )
    outcome = response.outcome
    chosen = outcome.option_id if isinstance(outcome, schema.AllowedOutcome) else None
    meaning = {option_id: answer for option_id, _, answer in options}
    return meaning.get(chosen or "", ElicitationAnswer(action="cancel"))


class AcpSignIn:
    """Signing in to an MCP server from an ACP session. The servers start while the session is
    made, so a page to show waits (``BIND_TIMEOUT``) until the session exists (``bind``)."""

    def __init__(
        self,
        client: Client,
        offered: schema.ElicitationCapabilities | None,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.client = client
        self.offered = offered
        self.loop = loop
        self.session_id = ""
        self.updates: UpdateStream | None = None
        self._bound = threading.Event()

    def bind(self, session_id: str, updates: UpdateStream) -> None:
        self.session_id, self.updates = session_id, updates
        self._bound.set()

    def sign_in(self) -> SignIn:
        return SignIn(store=default_store(), show=self.show)

    async def show(self, server: str, url: str) -> None:
        """On the MCP servers' loop: wait for the session, then show the page on the agent's."""
        if not await asyncio.to_thread(self._bound.wait, BIND_TIMEOUT):
            raise ConsentError("no ACP session came to show the sign-in page in")
        shown = asyncio.run_coroutine_threadsafe(self._show(server, url), self.loop)
        await asyncio.wrap_future(shown)

    async def _show(self, server: str, url: str) -> None:
        if self.offered is not None and self.offered.url:
            asked = "sign in, to use its tools"
            request = ElicitationRequest(server=server, message=asked, url=url)
            answer = await _elicit(self.client, self.session_id, request)
            if answer.action != "accept":
                raise ConsentError(f"the sign-in page was not opened (the client: {answer.action})")
            return
        assert self.updates is not None
        said = f"The MCP server {server!r} asks you to sign in: open {url}\n"
        self.updates.put(update_agent_message_text(said))
