"""What a step may be: exactly one tool call with that tool's arguments, or one answer.

The step's JSON Schema (``step_schema``) is sent as the request's ``response_format``, which
llama.cpp compiles into a grammar that constrains decoding: every reply parses, names a tool of
the catalogue, and has argument names and types that tool accepts. A schema llama.cpp cannot
compile (a remote ``$ref``, a regex it does not support) would make every request fail, so
each tool's parameters are reduced to the keywords that constrain structure (``constraining``);
the tool's own full schema still validates the arguments before the call runs.

``edit_file`` may name only files the conversation has read (it is not offered before one has
been), and as ``old_text`` only their lines (``seen``): an edit of a file the model has not
read fails anyway, and an ``old_text`` copied inexactly is the small model's most common miss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from foehn_lsp.providers.messages import ToolDefinition

KEPT = frozenset(
    {
        "type",
        "properties",
        "required",
        "items",
        "enum",
        "const",
        "anyOf",
        "additionalProperties",
        "minItems",
        "maxItems",
    }
)
"""Keywords llama.cpp's grammar compiler handles and that decide the shape of a call."""


def inline_refs(schema: Any, root: Mapping[str, Any] | None = None) -> Any:
    """``schema`` with local ``$ref``s replaced by what they point to, so that it can be
    embedded under another schema. A reference that does not resolve becomes ``{}``."""
    root = root if root is not None else schema
    if isinstance(schema, Mapping):
        reference = schema.get("$ref")
        if isinstance(reference, str):
            target: Any = root
            if not reference.startswith("#/"):
                return {}
            for part in reference[2:].split("/"):
                if not isinstance(target, Mapping) or part not in target:
                    return {}
                target = target[part]
            return inline_refs(target, root)
        return {k: inline_refs(v, root) for k, v in schema.items() if k not in ("$defs", "title")}
    if isinstance(schema, list):
        return [inline_refs(item, root) for item in schema]
    return schema


def constraining(schema: Any) -> Any:
    """``schema`` (references inlined) with only the keywords in ``KEPT``: ``oneOf`` is read
    as ``anyOf``; anything else (``pattern``, ``format``, ``allOf``, …) is dropped, which can
    only admit more, never reject a valid call."""
    if not isinstance(schema, Mapping):
        return {}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "oneOf":
            key = "anyOf"
        if key not in KEPT:
            continue
        if key == "properties" and isinstance(value, Mapping):
            out[key] = {name: constraining(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            out[key] = constraining(value)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [constraining(sub) for sub in value]
        elif key in ("items", "anyOf", "properties"):
            continue  # a malformed value: leave the shape open rather than fail every request
        else:
            out[key] = value
    return out


ANSWER: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}


def step_schema(
    tools: Sequence[ToolDefinition],
    *,
    answer_only: bool = False,
    tools_only: bool = False,
    files: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """A tool call of ``tools`` or an answer; only an answer with ``answer_only`` (or no
    tools), only a call with ``tools_only``. With ``files`` (each file read so far, and the
    ``old_text`` an edit of it may name), an edit is offered only for those files."""
    if answer_only or not tools:
        return ANSWER
    choices: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {"tool": {"const": t.name}, "arguments": arguments},
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        }
        for t in tools
        if (arguments := _arguments(t, files)) is not None
    ]
    if not choices:
        return ANSWER
    return {"anyOf": choices if tools_only else [*choices, ANSWER]}


def _arguments(tool: ToolDefinition, files: Mapping[str, Sequence[str]] | None) -> Any:
    """The tool's arguments schema; ``None`` for an edit while no file has been read."""
    arguments = constraining(inline_refs(tool.parameters))
    edits = arguments.get("properties", {}).get("edits", {})
    item = edits.get("items", {}).get("properties", {})
    if tool.kind != "edit" or files is None or set(item) != {"old_text", "new_text"}:
        return arguments
    known = {path: spans for path, spans in files.items() if spans}
    if not known:
        return None
    return {
        "anyOf": [
            {
                **arguments,
                "properties": {
                    **arguments["properties"],
                    "path": {"const": path},
                    "edits": {
                        **edits,
                        "items": {
                            **edits["items"],
                            "properties": {**item, "old_text": {"enum": list(spans)}},
                        },
                    },
                },
            }
            for path, spans in known.items()
        ]
    }
