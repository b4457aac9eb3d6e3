"""Scripted model turns shared by the tiers: answers and tool calls for the scripted provider
(``say``, ``calls``), and the calls that read and fix the ``app`` fixture's TODO (``READ``,
``EDIT``, for the model server's ``Turn``)."""

from __future__ import annotations

import json
from typing import Any

from foehn_lsp.providers.messages import AssistantMessage, ModelResponse, ToolCall, Usage

EDIT = (
    "edit_file",
    {"path": "app.py", "edits": [{"old_text": "return 1  # TODO", "new_text": "return 2"}]},
)
"""Fixes the TODO in the ``app`` fixture's ``app.py``."""
PLAN_EDIT = (
    "edit_file",
    {"path": "app.py", "edits": [{"old_text": "return 1", "new_text": "return 2"}]},
)
"""Changes ``return 1`` to ``return 2`` in ``app.py``, with or without the TODO after it (the
plan-mode tests' app has none)."""
READ = ("read_file", {"path": "app.py"})
"""Reads the ``app`` fixture's ``app.py``: an edit is refused in a session that has not read
the file, so ``READ`` goes before ``EDIT``."""


def say(text: str, tokens: int = 10) -> ModelResponse:
    return ModelResponse(
        message=AssistantMessage(content=text),
        usage=Usage(input_tokens=tokens, output_tokens=tokens),
    )


def calls(*pairs: tuple[str, Any], tokens: int = 10, prefix: str = "c") -> ModelResponse:
    tool_calls = tuple(
        ToolCall(
            id=f"{prefix}{i}",
            name=name,
            arguments=args if isinstance(args, str) else json.dumps(args),
        )
        for i, (name, args) in enumerate(pairs)
    )
    return ModelResponse(
        message=AssistantMessage(tool_calls=tool_calls),
        usage=Usage(input_tokens=tokens, output_tokens=tokens),
        finish_reason="tool_calls",
    )
