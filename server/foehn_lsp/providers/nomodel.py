"""A provider for sessions that need their files and history but no model (undo, load, the
calls of ``foehn mcp``): asking it fails with the reason it was made for."""

from __future__ import annotations

from collections.abc import Sequence

from foehn_lsp.errors import ConfigError
from foehn_lsp.providers.messages import (
    Message,
    ModelResponse,
    StatusSink,
    TextSink,
    ToolDefinition,
)


class NoModel:
    """A provider for sessions that only need their files and history (undo, load) where no
    model is configured: asking it raises ``ConfigError`` with ``reason``."""

    name = "none"
    model = "none"

    def __init__(self, reason: str = "no model is needed for this") -> None:
        self.reason = reason

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        *,
        stream: bool = False,
        on_text: TextSink | None = None,
        on_status: StatusSink | None = None,
    ) -> ModelResponse:
        raise ConfigError(self.reason)

    async def aclose(self) -> None:
        return None
