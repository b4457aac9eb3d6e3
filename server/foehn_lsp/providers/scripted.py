"""A provider that plays queued turns: for tests, and for ``foehn replay``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from foehn_lsp.errors import ProviderProtocolError
from foehn_lsp.providers.messages import (
    Message,
    ModelResponse,
    StatusSink,
    TextSink,
    ToolDefinition,
)


class ScriptedProvider:
    """Answers each ``complete`` with the next queued response, recording what it was sent."""

    def __init__(self, turns: Iterable[ModelResponse], *, model: str = "scripted") -> None:
        self.name = "scripted"
        self.model = model
        self.turns = list(turns)
        self.requests: list[tuple[list[Message], list[ToolDefinition]]] = []

    async def aclose(self) -> None:
        return None

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        *,
        stream: bool = False,
        on_text: TextSink | None = None,
        on_status: StatusSink | None = None,
    ) -> ModelResponse:
        self.requests.append((list(messages), list(tools)))
        if not self.turns:
            raise ProviderProtocolError("the scripted provider has no more turns")
        response = self.turns.pop(0)
        if stream and on_text is not None and response.message.content:
            on_text(response.message.content)
        return response
