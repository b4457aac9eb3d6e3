"""A real HTTP server on 127.0.0.1 that speaks the OpenAI/Mistral chat-completions and the
Anthropic messages wire formats, JSON and SSE, and plays scripted turns and faults.

    with ModelServer() as server:
        server.script(Turn(tool_calls=[("scan", {"pattern": "*.py"})]), Turn(text="Done."))
        ... point a provider at server.openai_url or server.anthropic_url ...
        server.requests  # what the provider sent

Faults: an HTTP status (with ``Retry-After``), a dropped connection, a slow answer, a stream
cut off midway, or a raw body. A reply may also be a function of the request body.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True, kw_only=True)
class Turn:
    """One model turn: text and/or tool calls ``(name, arguments)``; arguments given as a
    string are sent verbatim (malformed JSON included)."""

    text: str = ""
    tool_calls: Sequence[tuple[str, Mapping[str, Any] | str]] = ()
    finish_reason: str | None = None
    """Overrides the wire finish/stop reason (to test unknown ones)."""
    input_tokens: int = 10
    output_tokens: int = 5


@dataclass(frozen=True, kw_only=True)
class Fault:
    status: int | None = None
    retry_after: str | None = None
    body: str | None = None
    """Raw body to send (with ``status``, default 200)."""
    drop: bool = False
    """Close the connection without answering."""
    delay: float = 0.0
    """Seconds to wait before answering with ``then`` (or closing, if ``then`` is None)."""
    truncate: bool = False
    """With ``then``: send half of the answer's stream (or JSON body), then close."""
    then: Turn | None = None


Reply = Turn | Fault | Callable[[dict[str, Any]], "Turn | Fault"]


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class _Script:
    replies: list[Reply] = field(default_factory=list)
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Condition = field(default_factory=threading.Condition)
    calls: int = 0


class ModelServer:
    """The server; use it as a context manager."""

    def __init__(self, replies: Sequence[Reply] = ()) -> None:
        self._state = _Script(replies=list(replies))
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self._state))
        self._http.daemon_threads = True
        self._http.block_on_close = False  # a handler sleeping in a slow-answer fault
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._http.shutdown()
        self._http.server_close()

    @property
    def url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_url(self) -> str:
        return self.url

    def script(self, *replies: Reply) -> None:
        with self._state.lock:
            self._state.replies.extend(replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._state.lock:
            return list(self._state.requests)

    def wait_for_requests(self, count: int, timeout: float = 30.0) -> bool:
        """Block until ``count`` requests have arrived (from a test: ``asyncio.to_thread``)."""
        with self._state.lock:
            return self._state.lock.wait_for(lambda: len(self._state.requests) >= count, timeout)

    @property
    def pending(self) -> int:
        with self._state.lock:
            return len(self._state.replies)


class _Handler(BaseHTTPRequestHandler):
    """Answers each POST with the next scripted reply of ``state``."""

    state: _Script
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_POST(self) -> None:
        try:
            self._post()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a timeout test); fine

    def _post(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        with self.state.lock:
            self.state.requests.append(
                RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            reply = self.state.replies.pop(0) if self.state.replies else None
            self.state.calls += 1
            number = self.state.calls
            self.state.lock.notify_all()
        if reply is None:
            self._send(500, {"error": {"message": "the model server has no scripted reply"}})
            return
        if callable(reply):
            reply = reply(body)
        anthropic = self.path.rstrip("/").endswith("/messages")
        stream = bool(body.get("stream"))
        if isinstance(reply, Fault):
            self._fault(reply, anthropic, stream, number)
            return
        self._answer(reply, anthropic, stream, number, truncate=False)

    def _fault(self, fault: Fault, anthropic: bool, stream: bool, number: int) -> None:
        if fault.delay:
            time.sleep(fault.delay)
        if fault.drop or (fault.delay and fault.then is None and fault.status is None):
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault.status is not None or fault.body is not None:
            headers = {"retry-after": fault.retry_after} if fault.retry_after else {}
            payload = (
                fault.body
                if fault.body is not None
                else json.dumps({"error": {"message": f"scripted status {fault.status}"}})
            )
            self._send(fault.status or 200, payload, headers)
            return
        if fault.then is not None:
            self._answer(fault.then, anthropic, stream, number, truncate=fault.truncate)

    def _answer(
        self, turn: Turn, anthropic: bool, stream: bool, number: int, truncate: bool
    ) -> None:
        if not stream:
            payload = json.dumps((_anthropic_json if anthropic else _openai_json)(turn, number))
            if truncate:
                self._send(200, payload[: len(payload) // 2], close=True)
            else:
                self._send(200, payload)
            return
        events = (_anthropic_events if anthropic else _openai_events)(turn, number)
        if truncate:
            events = events[: max(1, len(events) // 2)]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for name, data in events:
            prefix = f"event: {name}\n" if name else ""
            self.wfile.write(f"{prefix}data: {data}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True
        if truncate:
            self.connection.shutdown(socket.SHUT_RDWR)

    def _send(
        self,
        status: int,
        payload: str | dict[str, Any],
        headers: Mapping[str, str] | None = None,
        close: bool = False,
    ) -> None:
        data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if close:
            self.send_header("content-length", str(len(data) * 2))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _handler(state: _Script) -> type[BaseHTTPRequestHandler]:
    """A handler class bound to ``state`` (the server makes one instance per request)."""
    return type("Handler", (_Handler,), {"state": state})


def _arguments(arguments: Mapping[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _call_id(number: int, index: int) -> str:
    return f"c{number:05d}{index:03d}"  # nine alphanumerics, as Mistral requires


def _openai_json(turn: Turn, number: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.tool_calls:
        message["tool_calls"] = [
            {
                "id": _call_id(number, i),
                "type": "function",
                "function": {"name": name, "arguments": _arguments(args)},
            }
            for i, (name, args) in enumerate(turn.tool_calls)
        ]
    reason = turn.finish_reason or ("tool_calls" if turn.tool_calls else "stop")
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
        "usage": {
            "prompt_tokens": turn.input_tokens,
            "completion_tokens": turn.output_tokens,
            "total_tokens": turn.input_tokens + turn.output_tokens,
        },
    }


def _pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _openai_events(turn: Turn, number: int) -> list[tuple[str, str]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[str, str]:
        return "", json.dumps(
            {
                "id": f"chatcmpl-{number}",
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
        )

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in _pieces(turn.text)]
    for i, (name, args) in enumerate(turn.tool_calls):
        text = _arguments(args)
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": _call_id(number, i),
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        events += [
            chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
            for piece in _pieces(text, 11)
        ]
    reason = turn.finish_reason or ("tool_calls" if turn.tool_calls else "stop")
    events.append(chunk({}, reason))
    events.append(
        (
            "",
            json.dumps(
                {
                    "id": f"chatcmpl-{number}",
                    "choices": [],
                    "usage": {
                        "prompt_tokens": turn.input_tokens,
                        "completion_tokens": turn.output_tokens,
                    },
                }
            ),
        )
    )
    events.append(("", "[DONE]"))
    return events


def _anthropic_json(turn: Turn, number: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
    for i, (name, args) in enumerate(turn.tool_calls):
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{number}_{i}",
                "name": name,
                "input": args if isinstance(args, Mapping) else {},
            }
        )
    reason = turn.finish_reason or ("tool_use" if turn.tool_calls else "end_turn")
    return {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": "scripted",
        "content": content,
        "stop_reason": reason,
        "usage": {"input_tokens": turn.input_tokens, "output_tokens": turn.output_tokens},
    }


def _anthropic_events(turn: Turn, number: int) -> list[tuple[str, str]]:
    def event(name: str, data: dict[str, Any]) -> tuple[str, str]:
        return name, json.dumps({"type": name, **data})

    events = [
        event(
            "message_start",
            {
                "message": {
                    "id": f"msg_{number}",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "scripted",
                    "usage": {"input_tokens": turn.input_tokens, "output_tokens": 1},
                }
            },
        )
    ]
    index = 0
    if turn.text:
        events.append(
            event(
                "content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}
            )
        )
        events += [
            event(
                "content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": piece}}
            )
            for piece in _pieces(turn.text)
        ]
        events.append(event("content_block_stop", {"index": 0}))
        index = 1
    for i, (name, args) in enumerate(turn.tool_calls, start=index):
        events.append(
            event(
                "content_block_start",
                {
                    "index": i,
                    "content_block": {
                        "type": "tool_use",
                        "id": f"toolu_{number}_{i}",
                        "name": name,
                        "input": {},
                    },
                },
            )
        )
        events += [
            event(
                "content_block_delta",
                {"index": i, "delta": {"type": "input_json_delta", "partial_json": p}},
            )
            for p in _pieces(_arguments(args), 11)
        ]
        events.append(event("content_block_stop", {"index": i}))
    reason = turn.finish_reason or ("tool_use" if turn.tool_calls else "end_turn")
    events.append(
        event(
            "message_delta",
            {"delta": {"stop_reason": reason}, "usage": {"output_tokens": turn.output_tokens}},
        )
    )
    events.append(event("message_stop", {}))
    return events
