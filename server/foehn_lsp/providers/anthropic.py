"""The Anthropic messages API: ``tool_use`` / ``tool_result`` content blocks, a separate
``system`` field, and its own streaming events."""

from __future__ import annotations

import json
from collections.abc import Sequence
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

API_VERSION = "2023-06-01"
MAX_TOKENS = 8192
STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}


def _input_object(arguments: str) -> dict[str, Any]:
    """Anthropic wants tool input as an object; malformed JSON from another provider's turn
    is kept as a string so the history stays truthful."""
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError:
        return {"_unparsed_arguments": arguments}
    return value if isinstance(value, dict) else {"_arguments": value}


def wire_messages(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    """The system text and the alternating user/assistant turns Anthropic expects; tool
    results become user turns, merged with neighbours of the same role."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for message in messages:
        match message:
            case SystemMessage(content=content):
                system.append(content)
            case UserMessage(content=content):
                add("user", [{"type": "text", "text": content}])
            case AssistantMessage(content=content, tool_calls=calls):
                blocks: list[dict[str, Any]] = (
                    [{"type": "text", "text": content}] if content else []
                )
                blocks += [
                    {
                        "type": "tool_use",
                        "id": c.id,
                        "name": c.name,
                        "input": _input_object(c.arguments),
                    }
                    for c in calls
                ]
                add("assistant", blocks or [{"type": "text", "text": "(no text)"}])
            case ToolResultMessage(call_id=call_id, content=content, is_error=is_error):
                add(
                    "user",
                    [
                        {
                            "type": "tool_result",
                            "tool_use_id": call_id,
                            "content": content,
                            "is_error": is_error,
                        }
                    ],
                )
    return "\n\n".join(system), turns


@dataclass
class _Block:
    kind: str
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)


class AnthropicProvider:
    def __init__(self, *, model: str, http: HttpClient, max_tokens: int = MAX_TOKENS) -> None:
        self.name = "anthropic"
        self.model = model
        self.http = http
        self.max_tokens = max_tokens

    async def aclose(self) -> None:
        await self.http.aclose()

    def request_body(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition], *, stream: bool
    ) -> dict[str, Any]:
        system, turns = wire_messages(messages)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": turns,
        }
        if system:
            body["system"] = system
        if tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
                for t in tools
            ]
        if stream:
            body["stream"] = True
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
        return parse_response(await self.http.post_json("/v1/messages", body))

    async def _complete_streaming(
        self, body: dict[str, Any], on_text: TextSink | None
    ) -> ModelResponse:
        blocks: dict[int, _Block] = {}
        input_tokens = output_tokens = 0
        stop: str | None = None
        finished = False
        async with self.http.stream_events("/v1/messages", body) as events:
            async for event in events:
                if not event.data.strip():
                    continue
                try:
                    data = json.loads(event.data)
                except json.JSONDecodeError:
                    raise ProviderProtocolError(
                        f"Anthropic streamed an event that is not JSON: {event.data[:200]!r}"
                    ) from None
                kind = data.get("type", event.event)
                if kind == "error":
                    error = data.get("error") or {}
                    raise ProviderProtocolError(
                        f"Anthropic failed mid-answer: {error.get('message', error)}"
                    )
                if kind == "message_start":
                    usage = (data.get("message") or {}).get("usage") or {}
                    input_tokens = int(usage.get("input_tokens") or 0)
                elif kind == "content_block_start":
                    block = data.get("content_block") or {}
                    blocks[int(data["index"])] = _Block(
                        kind=block.get("type", ""),
                        id=block.get("id", ""),
                        name=block.get("name", ""),
                    )
                elif kind == "content_block_delta":
                    delta = data.get("delta") or {}
                    target = blocks.setdefault(int(data["index"]), _Block(kind="text"))
                    if delta.get("type") == "text_delta":
                        target.parts.append(delta.get("text", ""))
                        if on_text is not None:
                            on_text(delta.get("text", ""))
                    elif delta.get("type") == "input_json_delta":
                        target.parts.append(delta.get("partial_json", ""))
                elif kind == "message_delta":
                    stop = (data.get("delta") or {}).get("stop_reason") or stop
                    output_tokens = int((data.get("usage") or {}).get("output_tokens") or 0)
                elif kind == "message_stop":
                    finished = True
                    break
        if not finished:
            raise ProviderProtocolError("the answer from Anthropic was cut off before it finished")
        ordered = [blocks[i] for i in sorted(blocks)]
        return ModelResponse(
            message=AssistantMessage(
                content="".join("".join(b.parts) for b in ordered if b.kind == "text"),
                tool_calls=tuple(
                    ToolCall(id=b.id, name=b.name, arguments="".join(b.parts))
                    for b in ordered
                    if b.kind == "tool_use"
                ),
            ),
            usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens),
            finish_reason=STOP_REASONS.get(stop or "", "other") if stop else "stop",
        )


def parse_response(data: Any) -> ModelResponse:
    try:
        content = data["content"]
        text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
        calls = tuple(
            ToolCall(id=str(b["id"]), name=str(b["name"]), arguments=json.dumps(b.get("input", {})))
            for b in content
            if b.get("type") == "tool_use"
        )
        usage = data.get("usage") or {}
        stop = data.get("stop_reason")
        return ModelResponse(
            message=AssistantMessage(content=text, tool_calls=calls),
            usage=Usage(
                input_tokens=int(usage.get("input_tokens") or 0),
                output_tokens=int(usage.get("output_tokens") or 0),
            ),
            finish_reason=STOP_REASONS.get(stop, "other") if stop else "stop",
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ProviderProtocolError(
            f"Anthropic sent a response without {exc}: {str(data)[:200]}"
        ) from None
