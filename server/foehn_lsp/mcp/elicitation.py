"""A server's ``elicitation/create``, put to the person and answered.

``form_fields`` reads the requested schema (MCP allows a flat object of primitive properties:
text with an optional format and length, numbers with bounds, a yes/no, one choice from
``enum`` or ``oneOf``, several choices from an array of them); a schema outside that is
declined without asking, with a line in the log saying why. ``answer`` asks through the call's
front end (``tools.elicitation``), checks what the person accepted (``complete``: defaults
added, types and choices checked) and makes the server's ``ElicitResult``. A server that asks
while none of its calls runs is declined: there is nobody in that conversation to ask.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import mcp_types as types

from foehn_lsp.tools.elicitation import (
    Elicit,
    ElicitationRequest,
    FormField,
    complete,
)

log = logging.getLogger(__name__)

ASK_TIMEOUT = 600.0
"""How long a question may wait for the person before it counts as cancelled."""


class UnsupportedForm(Exception):
    """The requested schema is not a form MCP allows."""


def form_fields(schema: Mapping[str, Any]) -> tuple[FormField, ...]:
    """The fields of an elicitation's requested schema, in its order."""
    if schema.get("type", "object") != "object":
        raise UnsupportedForm("the requested schema is not an object")
    properties = schema.get("properties") or {}
    if not isinstance(properties, Mapping):
        raise UnsupportedForm("its properties are not an object")
    required = set(schema.get("required") or ())
    return tuple(_field(str(name), spec, name in required) for name, spec in properties.items())


def _field(name: str, spec: Any, required: bool) -> FormField:
    if not isinstance(spec, Mapping):
        raise UnsupportedForm(f"field {name!r} is not described by an object")
    kind = spec.get("type")
    common: dict[str, Any] = {
        "name": name,
        "title": str(spec.get("title") or name),
        "description": spec.get("description"),
        "required": required,
        "default": spec.get("default"),
    }
    options = _options(spec)
    if kind == "string" and options:
        return FormField(kind="choice", options=options, **common)
    if kind == "array":
        items = spec.get("items")
        choices = _options(items) if isinstance(items, Mapping) else ()
        if not choices:
            raise UnsupportedForm(f"field {name!r} is a list of something other than choices")
        return FormField(
            kind="choices",
            options=choices,
            minimum=spec.get("minItems"),
            maximum=spec.get("maxItems"),
            **common,
        )
    if kind == "string":
        return FormField(
            kind="string",
            format=spec.get("format"),
            minimum=spec.get("minLength"),
            maximum=spec.get("maxLength"),
            **common,
        )
    if kind in ("number", "integer"):
        return FormField(
            kind=kind, minimum=spec.get("minimum"), maximum=spec.get("maximum"), **common
        )
    if kind == "boolean":
        return FormField(kind="boolean", **common)
    raise UnsupportedForm(f"field {name!r} has type {kind!r}, which a form cannot ask")


def _options(spec: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The choices of an ``enum`` (labels from ``enumNames``) or of ``oneOf``/``anyOf``
    entries with ``const`` and ``title``."""
    if isinstance(spec.get("enum"), list):
        values = [str(v) for v in spec["enum"]]
        names = spec.get("enumNames")
        labels = [str(n) for n in names] if isinstance(names, list) else values
        return tuple(zip(values, labels + values[len(labels) :], strict=False))
    entries = spec.get("oneOf") or spec.get("anyOf")
    if isinstance(entries, list) and all(isinstance(e, Mapping) and "const" in e for e in entries):
        return tuple((str(e["const"]), str(e.get("title") or e["const"])) for e in entries)
    return ()


async def answer(
    server: str,
    params: types.ElicitRequestParams,
    ask: Elicit | None,
    *,
    tool: str | None,
) -> types.ElicitResult:
    """Ask the person ``params`` through ``ask`` (``None``: no call of this server runs, so
    nobody is asked) and make the server's answer."""
    if ask is None:
        log.warning(
            "MCP server %s asked %r while none of its calls ran; declined", server, params.message
        )
        return types.ElicitResult(action="decline")
    if isinstance(params, types.ElicitRequestURLParams):
        request = ElicitationRequest(
            server=server, message=params.message, url=params.url, tool=tool
        )
        fields: tuple[FormField, ...] = ()
    else:
        try:
            fields = form_fields(params.requested_schema)
        except UnsupportedForm as exc:
            log.warning(
                "MCP server %s asked with a form Foehn cannot show (%s); declined", server, exc
            )
            return types.ElicitResult(action="decline")
        request = ElicitationRequest(
            server=server, message=params.message, fields=fields, tool=tool
        )
    given = await ask(request)
    if given.note:
        log.warning("MCP server %s asked %r: %s", server, params.message, given.note)
    if given.action != "accept":
        return types.ElicitResult(action=given.action)
    if request.url is not None:
        return types.ElicitResult(action="accept")  # the person opened it; nothing to send
    content = complete(fields, given.content)
    if isinstance(content, str):
        log.warning("MCP server %s: the answer was not sent (%s); declined", server, content)
        return types.ElicitResult(action="decline")
    return types.ElicitResult(action="accept", content=content)
