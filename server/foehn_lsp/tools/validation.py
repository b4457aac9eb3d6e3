"""Argument validation with messages a model can act on.

Every problem names the field as a JSON pointer under ``arguments`` and says what was expected,
e.g. ``arguments/unit: 'kelvin' is not one of ['celsius', 'fahrenheit']``. Typed tools validate
with the pydantic model their schema came from; hand-written schemas use jsonschema-rs (chosen by
``bench/bench_validation.py``). Nothing here raises anything but ``InvalidArguments``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema_rs
import pydantic


class InvalidArgumentsError(Exception):
    """The arguments do not fit the schema; ``problems`` lists each, pointer first."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def parse_arguments(raw: str | bytes | Mapping[str, Any] | Any) -> dict[str, Any]:
    """The arguments as a JSON object, from the model's raw text or an already parsed value."""
    if isinstance(raw, str | bytes | bytearray):
        text = bytes(raw).decode("utf-8", "replace") if not isinstance(raw, str) else raw
        if not text.strip():
            return {}
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            detail = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
            where = (
                f" at line {exc.lineno} column {exc.colno}"
                if isinstance(exc, json.JSONDecodeError)
                else ""
            )
            raise InvalidArgumentsError(
                [f"arguments: not valid JSON ({detail}{where}); send one JSON object"]
            ) from None
    else:
        value = raw
    if not isinstance(value, Mapping):
        raise InvalidArgumentsError([f"arguments: expected a JSON object, got {_json_type(value)}"])
    return dict(value)


def _json_type(value: object) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "a boolean"
        case int() | float():
            return "a number"
        case str():
            return "a string"
        case list() | tuple():
            return "an array"
        case _:
            return type(value).__name__


def _pointer(path: Sequence[str | int]) -> str:
    return "/".join(["arguments", *(str(part) for part in path)])


def _enum_at(schema: Mapping[str, Any], path: Sequence[str | int]) -> list[Any] | None:
    """The ``enum`` of the property at ``path`` in ``schema``, following local ``$ref``s."""
    node: Any = schema
    for part in path:
        node = _deref(schema, node)
        if isinstance(part, int):
            node = node.get("items") if isinstance(node, Mapping) else None
        else:
            props = node.get("properties") if isinstance(node, Mapping) else None
            node = props.get(part) if isinstance(props, Mapping) else None
        if node is None:
            return None
    node = _deref(schema, node)
    if isinstance(node, Mapping):
        if "enum" in node:
            return list(node["enum"])
        if "const" in node:
            return [node["const"]]
    return None


def _deref(root: Mapping[str, Any], node: Any) -> Any:
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
        ref: str = node["$ref"]
        if not ref.startswith("#/"):
            return node
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, Mapping) else None
        node = target
    return node


class ModelValidator:
    """Validates with the pydantic model the schema was derived from."""

    def __init__(self, model: type[pydantic.BaseModel]) -> None:
        self.model = model
        self.schema = model.model_json_schema()

    def __call__(self, arguments: Mapping[str, Any]) -> pydantic.BaseModel:
        try:
            return self.model.model_validate(arguments)
        except pydantic.ValidationError as exc:
            raise InvalidArgumentsError(self._problems(exc)) from None

    def _problems(self, exc: pydantic.ValidationError) -> list[str]:
        allowed = ", ".join(self.model.model_fields) or "none"
        problems = []
        for error in exc.errors(include_url=False):
            loc = list(error["loc"])
            pointer = _pointer(loc)
            kind = error["type"]
            if kind == "missing":
                problems.append(f"{pointer}: required property is missing")
            elif kind == "extra_forbidden":
                problems.append(f"{pointer}: unknown property; the properties are: {allowed}")
            elif kind in {"literal_error", "enum"} and (options := _enum_at(self.schema, loc)):
                problems.append(f"{pointer}: {error['input']!r} is not one of {options!r}")
            else:
                got = _json_type(error["input"])
                problems.append(f"{pointer}: {error['msg']} (got {got})")
        return problems


class SchemaValidator:
    """Validates against a hand-written JSON Schema with jsonschema-rs."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = dict(schema)
        self._validator = jsonschema_rs.validator_for(self.schema)

    def __call__(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        instance = dict(arguments)
        try:
            if self._validator.is_valid(instance):
                return instance
            errors = list(self._validator.iter_errors(instance))
        except (ValueError, OverflowError) as exc:
            # jsonschema-rs refuses values it cannot represent (huge integers, NaN).
            raise InvalidArgumentsError([f"arguments: {exc}"]) from None
        raise InvalidArgumentsError([self._describe(error) for error in errors])

    def _describe(self, error: jsonschema_rs.ValidationError) -> str:
        path = list(error.instance_path)
        kind = error.kind
        if isinstance(kind, jsonschema_rs.ValidationErrorKind.Required):
            return f"{_pointer([*path, kind.property])}: required property is missing"
        if isinstance(kind, jsonschema_rs.ValidationErrorKind.Enum):
            options = _enum_at(self.schema, path)
            if options is not None:
                return f"{_pointer(path)}: {error.instance!r} is not one of {options!r}"
        return f"{_pointer(path)}: {error.message}"


def check_schema(schema: object) -> list[str]:
    """Problems that make ``schema`` unusable as a tool's parameters schema (empty if none)."""
    if not isinstance(schema, Mapping):
        return ["parameters: must be a JSON Schema object"]
    problems = []
    if schema.get("type") != "object":
        problems.append('parameters: must be an object schema ("type": "object")')
    if "properties" in schema and not isinstance(schema["properties"], Mapping):
        problems.append("parameters/properties: must be an object")
    try:
        json.dumps(schema)
    except (TypeError, ValueError) as exc:
        problems.append(f"parameters: not JSON-serialisable ({exc})")
        return problems
    if not jsonschema_rs.meta.is_valid(dict(schema)):
        try:
            jsonschema_rs.meta.validate(dict(schema))
        except jsonschema_rs.ValidationError as exc:
            problems.append(f"parameters: not a valid JSON Schema ({exc.message})")
    return problems
