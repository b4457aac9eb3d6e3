"""A server's resources, readable by the model through one read-only tool named for the server:
``mcp__SERVER__read_resource`` with the resource's ``uri``.

The tool's description lists what the server offers (its resources and resource templates, the
first ``LISTED`` of each), so the model knows what to ask for. It is a tool of the server like
the others: its calls go through the same chain (approval, audit, the session) and reach the
server through the same connection; since the URI goes to the server and the server may read
it from anywhere, each call is asked about unless the person allowed the server's open-world
calls (``allow_open_world = true``, or ``"read_resource"`` among its names) in their config.
What comes back is shown as the model reads tool results: text as is, binary contents as a line
with their type and size, at most ``tools.MAX_OUTPUT_CHARS`` in all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mcp_types as types

from foehn_lsp.mcp.naming import tool_name

TOOL = "read_resource"
"""The server's own name for the tool, as ``allow_open_world`` and rules name it."""
LISTED = 40


def resource_tool_name(server: str) -> str:
    return tool_name(server, TOOL)


def parameters() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "uri": {
                "type": "string",
                "description": "The URI of the resource, as listed or made from a template.",
            }
        },
        "required": ["uri"],
        "additionalProperties": False,
    }


def description(
    server: str,
    resources: Sequence[types.Resource],
    templates: Sequence[types.ResourceTemplate],
) -> str:
    lines = [f"Read a resource of the MCP server {server!r} by its URI."]
    if resources:
        lines.append("Its resources:")
        lines += [_entry(r.uri, r.title or r.name, r.description) for r in resources[:LISTED]]
        if len(resources) > LISTED:
            lines.append(f"… and {len(resources) - LISTED} more.")
    if templates:
        lines.append("URI templates (fill in the {placeholders}):")
        lines += [
            _entry(t.uri_template, t.title or t.name, t.description) for t in templates[:LISTED]
        ]
    return "\n".join(lines)


def _entry(uri: str, name: str, about: str | None) -> str:
    return f"- {uri} ({name}){f': {about.strip()[:160]}' if about else ''}"


def contents_text(result: types.ReadResourceResult, size: Callable[[str], int]) -> str:
    """What the model reads of a resource: each part's text, or a line for binary data."""
    parts: list[str] = []
    for part in result.contents:
        if isinstance(part, types.TextResourceContents):
            parts.append(part.text)
        else:
            parts.append(
                f"[binary resource {part.uri} ({part.mime_type or 'unknown type'}), "
                f"{size(part.blob):,} bytes]"
            )
    return "\n".join(parts) if parts else "(the resource is empty)"
