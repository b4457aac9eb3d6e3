"""An MCP server's question in the editor, asked as approvals are (``lsp.confirm``).

A client that says ``initializationOptions.elicitation: true`` gets the request
``foehn/elicit``::

    {runId, server, tool, message, url?, fields: [{name, title, description?, kind, required,
     default?, options?: [{value, label}], format?, minimum?, maximum?}], schema}

(``kind``: string, number, integer, boolean, choice, choices; ``schema`` is the same form as
the JSON Schema MCP carries) and answers ``{action: "accept" | "decline" | "cancel",
content?: {name: value}}``. An answer of another shape, an error or no answer in time is a
cancel. Other clients get ``window/showMessageRequest`` when the question fits its buttons (no
field, one yes/no, one choice); a form that does not is declined, and the log says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from foehn_lsp.lsp.wire import client
from foehn_lsp.tools.elicitation import (
    ElicitationAnswer,
    ElicitationRequest,
    FormField,
    form_schema,
)

if TYPE_CHECKING:
    from foehn_lsp.lsp.server import FoehnServer

ACCEPT = "Accept"
DECLINE = "Decline"
YES = "Yes"
NO = "No"


def params(run_id: str, request: ElicitationRequest) -> dict[str, Any]:
    return {
        "runId": run_id,
        "server": request.server,
        "tool": request.tool,
        "message": request.message,
        "url": request.url,
        "fields": [_field(spec) for spec in request.fields],
        "schema": form_schema(request.fields),
    }


def _field(spec: FormField) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "name": spec.name,
        "title": spec.title,
        "kind": spec.kind,
        "required": spec.required,
    }
    for key, value in (
        ("description", spec.description),
        ("default", spec.default),
        ("format", spec.format),
        ("minimum", spec.minimum),
        ("maximum", spec.maximum),
    ):
        if value is not None:
            shown[key] = value
    if spec.options:
        shown["options"] = [{"value": value, "label": label} for value, label in spec.options]
    return shown


def answer_of(value: Any) -> ElicitationAnswer:
    """The client's answer; any other shape is a cancel."""
    action = value.get("action") if isinstance(value, dict) else None
    content = value.get("content") if isinstance(value, dict) else None
    if action not in ("accept", "decline", "cancel"):
        return ElicitationAnswer(action="cancel", note=f"the editor answered {value!r}")
    if action == "accept" and content is not None and not isinstance(content, dict):
        return ElicitationAnswer(action="cancel", note="the editor's content is not an object")
    return ElicitationAnswer(action=action, content=content or {})


async def ask(server: FoehnServer, run_id: str, request: ElicitationRequest) -> ElicitationAnswer:
    within = server.timeouts.confirm
    if server.init_options.get("elicitation"):
        reply = await client.request(
            server.protocol, "foehn/elicit", params(run_id, request), within
        )
        if isinstance(reply, client.Answer):
            return answer_of(reply.value)
        return ElicitationAnswer(action="cancel", note=f"the editor could not ask ({reply.reason})")
    buttons = _buttons(request)
    if buttons is None:
        return ElicitationAnswer(
            action="decline",
            note="the editor cannot show forms (it does not declare "
            "initializationOptions.elicitation)",
        )
    actions, meaning = buttons
    where = f"\n{request.url}" if request.url else ""
    question = types.ShowMessageRequestParams(
        type=types.MessageType.Info,
        message=f"{request.title()}: {request.message}{where}",
        actions=[types.MessageActionItem(title=title) for title in actions],
    )
    reply = await client.request(server.protocol, "window/showMessageRequest", question, within)
    chosen = reply.value if isinstance(reply, client.Answer) else None
    title = chosen.get("title") if isinstance(chosen, dict) else getattr(chosen, "title", None)
    if title not in meaning:
        return ElicitationAnswer(action="cancel")
    return meaning[title]


def _buttons(
    request: ElicitationRequest,
) -> tuple[list[str], dict[str, ElicitationAnswer]] | None:
    """The buttons a message can offer for ``request``, and what each answers; ``None`` for a
    form that needs more than buttons."""
    declined = ElicitationAnswer(action="decline")
    if not request.fields:
        return [ACCEPT, DECLINE], {ACCEPT: ElicitationAnswer(action="accept"), DECLINE: declined}
    if len(request.fields) != 1:
        return None
    (spec,) = request.fields
    if spec.kind == "boolean":
        return [YES, NO, DECLINE], {
            YES: ElicitationAnswer(action="accept", content={spec.name: True}),
            NO: ElicitationAnswer(action="accept", content={spec.name: False}),
            DECLINE: declined,
        }
    if spec.kind == "choice":
        meaning = {
            label: ElicitationAnswer(action="accept", content={spec.name: value})
            for value, label in spec.options
        }
        return [*meaning, DECLINE], {**meaning, DECLINE: declined}
    return None
