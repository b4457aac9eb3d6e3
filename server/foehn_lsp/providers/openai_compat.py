"""The OpenAI chat-completions wire format: OpenAI, Mistral, Ollama, vLLM, llama.cpp server,
LM Studio. Mistral's differences are handled in ``MistralDialect`` and nowhere else."""

from __future__ import annotations

import hashlib
import json
import logging
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from foehn_lsp.errors import ProviderProtocolError
from foehn_lsp.providers.http import HttpClient
from foehn_lsp.providers.messages import (
    AssistantMessage,
    FinishReason,
    Message,
    ModelResponse,
    StatusSink,
    SystemMessage,
    TextSink,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    Usage,
    UserMessage,
)

log = logging.getLogger(__name__)

FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "model_length": "length",
    "content_filter": "content_filter",
}


def finish_reason(value: object) -> FinishReason:
    if value is None:
        return "stop"
    reason = FINISH_REASONS.get(str(value))
    if reason is None:
        log.warning("unknown finish_reason %r; treating it as 'other'", value)
        return "other"
    return reason


class OpenAIDialect:
    """The plain OpenAI shapes."""

    label = "OpenAI-compatible server"
    stream_usage = True

    def call_id(self, call_id: str) -> str:
        return call_id

    def tool_message(self, message: ToolResultMessage) -> dict[str, Any]:
        return {
            "role": "tool",
            "tool_call_id": self.call_id(message.call_id),
            "content": message.content,
        }


_ALPHANUMERIC = string.ascii_letters + string.digits


class MistralDialect(OpenAIDialect):
    """Mistral: tool call ids are exactly nine alphanumerics, and tool messages carry the
    tool's name. Ids from elsewhere (a replayed transcript, another provider) are mapped to
    stable nine-character ids."""

    label = "Mistral"
    stream_usage = False

    def call_id(self, call_id: str) -> str:
        if len(call_id) == 9 and call_id.isascii() and call_id.isalnum():
            return call_id
        digest = hashlib.sha256(call_id.encode()).digest()
        return "".join(_ALPHANUMERIC[byte % len(_ALPHANUMERIC)] for byte in digest[:9])

    def tool_message(self, message: ToolResultMessage) -> dict[str, Any]:
        return {**super().tool_message(message), "name": message.name}


def _wire_message(message: Message, dialect: OpenAIDialect) -> dict[str, Any]:
    match message:
        case SystemMessage(content=content) | UserMessage(content=content):
            return {"role": message.role, "content": content}
        case AssistantMessage(content=content, tool_calls=calls):
            wire: dict[str, Any] = {"role": "assistant", "content": content or None}
            if calls:
                wire["tool_calls"] = [
                    {
                        "id": dialect.call_id(call.id),
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for call in calls
                ]
            return wire
        case ToolResultMessage():
            return dialect.tool_message(message)
    raise AssertionError(f"unknown message {message!r}")


def _text_of(content: object) -> str:
    """Message content as text: a string, or a list of chunks (Mistral's newer models)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            c.get("text", "")
            for c in content
            if isinstance(c, dict) and c.get("type") in ("text", None)
        ]
        return "".join(str(p) for p in parts)
    raise ProviderProtocolError(f"message content has an unexpected shape: {content!r:.200}")


def _usage(value: object) -> Usage:
    if not isinstance(value, Mapping):
        return Usage()
    return Usage(
        input_tokens=int(value.get("prompt_tokens") or 0),
        output_tokens=int(value.get("completion_tokens") or 0),
    )


def _arguments_text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value)  # some servers send an object instead of JSON text


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class OpenAICompatProvider:
    """A provider that speaks chat completions over ``HttpClient``."""

    def __init__(
        self,
        *,
        name: str,
        model: str,
        http: HttpClient,
        dialect: OpenAIDialect,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.model = model
        self.http = http
        self.dialect = dialect
        self.extra_body = dict(extra_body or {})

    async def aclose(self) -> None:
        await self.http.aclose()

    def request_body(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition], *, stream: bool
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [_wire_message(m, self.dialect) for m in messages],
            **self.extra_body,
        }
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": dict(t.parameters),
                    },
                }
                for t in tools
            ]
            body["tool_choice"] = "auto"
        if stream:
            body["stream"] = True
            if self.dialect.stream_usage:
                body["stream_options"] = {"include_usage": True}
        return body

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        *,
        stream: bool = False,
        on_text: TextSink | None = None,
        on_status: StatusSink | None = None,
    ) -> ModelResponse:
        body = self.request_body(messages, tools, stream=stream)
        if stream:
            return await self._complete_streaming(body, on_text)
        return self.parse_response(await self.http.post_json("/chat/completions", body))

    def parse_response(self, data: Any) -> ModelResponse:
        try:
            choice = data["choices"][0]
            message = choice["message"]
            calls = tuple(
                ToolCall(
                    id=str(c.get("id") or f"call_{i}"),
                    name=str(c["function"]["name"]),
                    arguments=_arguments_text(c["function"].get("arguments", "")),
                )
                for i, c in enumerate(message.get("tool_calls") or [])
            )
            return ModelResponse(
                message=AssistantMessage(
                    content=_text_of(message.get("content")), tool_calls=calls
                ),
                usage=_usage(data.get("usage")),
                finish_reason=finish_reason(choice.get("finish_reason")),
            )
        except (KeyError, IndexError, TypeError) as exc:
            raise ProviderProtocolError(
                f"{self.dialect.label} sent a response without {exc}: {str(data)[:200]}"
            ) from None

    async def _complete_streaming(
        self, body: dict[str, Any], on_text: TextSink | None
    ) -> ModelResponse:
        text: list[str] = []
        calls: dict[int, _PartialCall] = {}
        usage = Usage()
        reason: FinishReason | None = None
        done = False
        async with self.http.stream_events("/chat/completions", body) as events:
            async for event in events:
                if event.data.strip() == "[DONE]":
                    done = True
                    break
                if not event.data.strip():
                    continue
                try:
                    chunk = json.loads(event.data)
                except json.JSONDecodeError:
                    raise ProviderProtocolError(
                        f"{self.dialect.label} streamed a chunk that is not JSON: "
                        f"{event.data[:200]!r}"
                    ) from None
                if isinstance(chunk, dict) and "error" in chunk:
                    raise ProviderProtocolError(
                        f"{self.dialect.label} failed mid-answer: {chunk['error']}"
                    )
                if chunk.get("usage"):
                    usage = _usage(chunk["usage"])
                for choice in chunk.get("choices") or []:
                    delta = choice.get("delta") or {}
                    if piece := _text_of(delta.get("content")):
                        text.append(piece)
                        if on_text is not None:
                            on_text(piece)
                    for position, part in enumerate(delta.get("tool_calls") or []):
                        index = part.get("index", len(calls) if part.get("id") else position)
                        partial = calls.setdefault(int(index), _PartialCall())
                        partial.id = partial.id or str(part.get("id") or "")
                        function = part.get("function") or {}
                        partial.name += str(function.get("name") or "")
                        if "arguments" in function and function["arguments"] is not None:
                            partial.arguments.append(_arguments_text(function["arguments"]))
                    if choice.get("finish_reason"):
                        reason = finish_reason(choice["finish_reason"])
        if not done and reason is None:
            raise ProviderProtocolError(
                f"the answer from {self.dialect.label} was cut off before it finished"
            )
        tool_calls = tuple(
            ToolCall(id=p.id or f"call_{i}", name=p.name, arguments="".join(p.arguments))
            for i, p in sorted(calls.items())
        )
        return ModelResponse(
            message=AssistantMessage(content="".join(text), tool_calls=tool_calls),
            usage=usage,
            finish_reason=reason or ("tool_calls" if tool_calls else "stop"),
        )
