"""A question an MCP server puts to the person during a call (MCP elicitation), as every front
end asks it: through the same place it asks for approvals (the terminal's prompt, the editor,
the ACP client, an MCP client), always shown as coming from that server.

The form is a flat list of ``FormField``s (text, numbers, a yes/no, one or several choices),
and the person accepts with values, declines, or cancels. ``complete`` is the one check of an
accepted answer: a field left out takes the form's default (SEP-1034), and a value of the wrong
type, not among the choices, out of its bounds or of the wrong format is refused with a line
saying which, so nothing the person did not give or see reaches the server. A front end that
cannot show a form declines, saying so (``ElicitationAnswer.note``).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

FieldKind = Literal["string", "number", "integer", "boolean", "choice", "choices"]
Action = Literal["accept", "decline", "cancel"]
FORMATS = {
    "email": re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$"),
    "uri": re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$"),
    "date": re.compile(r"^\d{4}-\d{2}-\d{2}$"),
    "date-time": re.compile(
        r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$"
    ),
}


@dataclass(frozen=True, kw_only=True)
class FormField:
    name: str
    title: str
    description: str | None = None
    kind: FieldKind = "string"
    required: bool = False
    default: Any = None
    options: tuple[tuple[str, str], ...] = ()
    """For ``choice`` and ``choices``: each value and the label to show for it."""
    format: str | None = None
    """For ``string``: ``email``, ``uri``, ``date`` or ``date-time``."""
    minimum: float | None = None
    """Least value (numbers), length (text) or number of choices."""
    maximum: float | None = None


@dataclass(frozen=True, kw_only=True)
class ElicitationRequest:
    server: str
    """The MCP server that asks; every front end names it."""
    message: str
    fields: tuple[FormField, ...] = ()
    url: str | None = None
    """URL mode: the page the server wants the person to open (the form is empty)."""
    tool: str | None = None
    """The call during which the server asks, if any."""

    def title(self) -> str:
        during = f" during {self.tool}" if self.tool else ""
        return f"The MCP server {self.server!r} asks{during}"


@dataclass(frozen=True, kw_only=True)
class ElicitationAnswer:
    action: Action
    content: Mapping[str, Any] = field(default_factory=dict)
    note: str | None = None
    """Why the front end answered as it did without the person (it cannot show the form),
    for the log."""


Elicit = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]


@runtime_checkable
class Elicitor(Protocol):
    """An approver that can also put a server's questions to the person."""

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer: ...


def elicit_of(approver: object) -> Elicit | None:
    """The approver's ``elicit``, if it has one."""
    return approver.elicit if isinstance(approver, Elicitor) else None


def form_schema(fields: tuple[FormField, ...]) -> dict[str, Any]:
    """The form as the flat JSON Schema MCP and ACP elicitations carry (for a front end that
    passes the question on to its client)."""
    properties: dict[str, Any] = {}
    for spec in fields:
        entry: dict[str, Any] = {"title": spec.title}
        if spec.description:
            entry["description"] = spec.description
        if spec.default is not None:
            entry["default"] = spec.default
        bounds = ("minimum", "maximum")
        if spec.kind == "choice":
            entry |= {"type": "string", "oneOf": _consts(spec)}
        elif spec.kind == "choices":
            entry |= {"type": "array", "items": {"anyOf": _consts(spec)}}
            bounds = ("minItems", "maxItems")
        elif spec.kind == "string":
            entry["type"] = "string"
            if spec.format:
                entry["format"] = spec.format
            bounds = ("minLength", "maxLength")
        else:
            entry["type"] = spec.kind
        for key, value in zip(bounds, (spec.minimum, spec.maximum), strict=True):
            if value is not None:
                entry[key] = value
        properties[spec.name] = entry
    return {
        "type": "object",
        "properties": properties,
        "required": [spec.name for spec in fields if spec.required],
    }


def _consts(spec: FormField) -> list[dict[str, str]]:
    return [{"const": value, "title": label} for value, label in spec.options]


def complete(fields: tuple[FormField, ...], given: Mapping[str, Any]) -> dict[str, Any] | str:
    """The content to send for an accepted answer: the given values checked and the defaults
    of the fields left out added; or why it cannot be sent."""
    known = {f.name: f for f in fields}
    if unknown := sorted(set(given) - set(known)):
        return f"no such field in the form: {', '.join(unknown)}"
    content: dict[str, Any] = {}
    for spec in fields:
        value = given.get(spec.name)
        if value is None or value == "":
            if spec.default is not None:
                content[spec.name] = spec.default
            elif spec.required:
                return f"{spec.title} is required"
            continue
        checked = check(spec, value)
        if isinstance(checked, str):
            return f"{spec.title}: {checked}"
        content[spec.name] = checked[0]
    return content


def check(spec: FormField, value: Any) -> tuple[Any] | str:
    """``(value,)`` converted to the field's type when it fits the field, else why not."""
    match spec.kind:
        case "boolean":
            if isinstance(value, bool):
                return (value,)
            if isinstance(value, str) and value.strip().lower() in ("y", "yes", "true", "1"):
                return (True,)
            if isinstance(value, str) and value.strip().lower() in ("n", "no", "false", "0"):
                return (False,)
            return "answer yes or no"
        case "integer" | "number":
            number = _number(value, integer=spec.kind == "integer")
            if number is None:
                return "a whole number" if spec.kind == "integer" else "a number"
            return _bounded(number, spec, float(number))
        case "choice":
            values = [v for v, _ in spec.options]
            text = str(value)
            if text not in values:
                return f"one of {', '.join(values)}"
            return (text,)
        case "choices":
            picked = [str(v) for v in value] if isinstance(value, list | tuple) else None
            if picked is None:
                return "a list of choices"
            values = [v for v, _ in spec.options]
            if wrong := [v for v in picked if v not in values]:
                return f"{', '.join(wrong)} not among {', '.join(values)}"
            return _bounded(picked, spec, float(len(picked)))
    if not isinstance(value, str):
        return "text"
    if spec.format in FORMATS and not FORMATS[spec.format].match(value):
        return f"not a valid {spec.format}"
    return _bounded(value, spec, float(len(value)))


def _number(value: Any, *, integer: bool) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number: int | float = value
    else:
        try:
            number = float(str(value).strip())
        except ValueError:
            return None
    if integer:
        return int(number) if float(number).is_integer() else None
    return number


def _bounded(value: Any, spec: FormField, size: float) -> tuple[Any] | str:
    what = (
        "value"
        if spec.kind in ("integer", "number")
        else ("choices" if spec.kind == "choices" else "length")
    )
    if spec.minimum is not None and size < spec.minimum:
        return f"{what} at least {spec.minimum:g}"
    if spec.maximum is not None and size > spec.maximum:
        return f"{what} at most {spec.maximum:g}"
    return (value,)
