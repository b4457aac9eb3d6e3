"""Foehn's name for a server's tool: ``mcp__SERVER__TOOL``.

Providers accept tool names matching ``^[a-zA-Z0-9_-]{1,64}$`` (OpenAI's rule, the strictest
of those Foehn speaks; Anthropic's and Mistral's accept the same set), so the name keeps only
those characters. It ends with the server's own tool name whenever that fits, so the person and
the model recognise it; the ``mcp__`` prefix keeps it apart from built-in tools, whose names are
snake_case without a double underscore after a prefix like this. The server part never contains
``__``, so the first ``__`` after the prefix ends it and a name decodes to one (server, tool)
pair. When anything had to change (a character replaced, a run of underscores collapsed, a name
cut to fit 64), a short hash of the original pair goes after the server part: the name stays
deterministic (the same server and tool give the same name on every start, which approval
memory and transcripts rely on) and two different originals cannot end up with the same name.
"""

from __future__ import annotations

import hashlib
import re

PREFIX = "mcp__"
MAX_LENGTH = 64
ALLOWED = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    """The name the model calls for ``tool`` of ``server``; always matches ``ALLOWED``."""
    server_part = re.sub(r"_+", "_", _UNSAFE.sub("_", server)).strip("_") or "server"
    tool_part = _UNSAFE.sub("_", tool) or "tool"
    plain = f"{PREFIX}{server_part}__{tool_part}"
    if server_part == server and tool_part == tool and len(plain) <= MAX_LENGTH:
        return plain
    mark = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    head = f"{PREFIX}{server_part[:16].rstrip('_')}_{mark}__"
    return head + tool_part[-(MAX_LENGTH - len(head)) :]
