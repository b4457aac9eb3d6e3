"""Provider-neutral conversation records. Each provider module translates these to its wire
format and back; nothing else in Foehn knows a wire format."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SystemMessage(_Record):
    role: Literal["system"] = "system"
    content: str


class UserMessage(_Record):
    role: Literal["user"] = "user"
    content: str


class ToolCall(_Record):
    """A call the model asked for."""

    id: str
    """The provider's id for the call; results must name it."""
    name: str
    arguments: str
    """The arguments exactly as the model wrote them (JSON text, possibly malformed)."""


class AssistantMessage(_Record):
    role: Literal["assistant"] = "assistant"
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


class ToolResultMessage(_Record):
    role: Literal["tool"] = "tool"
    call_id: str
    name: str
    content: str
    is_error: bool = False


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolResultMessage,
    Field(discriminator="role"),
]

FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "other"]


class Usage(_Record):
    input_tokens: int = 0
    output_tokens: int = 0
    context_tokens: int | None = 0
    """The prompt of the request the response came from, where a provider made several for
    one response (the embedded model asks again after a guard's note); 0: ``input_tokens``
    is that prompt; None: no request of the response held the conversation (the embedded
    model's fix written as code), so the window is estimated. The context window is measured
    by it, not by their sum."""


class ModelResponse(_Record):
    """One turn of the model: text and/or tool calls."""

    message: AssistantMessage
    usage: Usage = Usage()
    finish_reason: FinishReason = "stop"


TextSink = Callable[[str], None]
"""Receives streamed text as it arrives."""
StatusSink = Callable[[str], None]
"""Receives what the provider is doing while the person waits ("loading the model…")."""


@dataclass(frozen=True, kw_only=True)
class ToolDefinition:
    """A tool as providers describe it to a model."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    kind: str = "other"
    """What the tool does (``tools.contract.ToolKind``); the model is not told it."""
    changes_files: bool = False
    """Whether its calls change the workspace's files; the model is not told it."""
