"""The HTTP side of the streamable-HTTP transport, reading what a server sends with a cap on
each message as it arrives.

The SDK reads a JSON answer whole into memory, and ends a server-sent-events stream with an
error (which Foehn took for a lost connection) at its own, smaller, limit on one event. Here the
HTTP client's transport wraps every response body: a JSON body, or one event of an event
stream, longer than ``max_message_bytes`` is not read on. Its start is kept, the response is
closed (only that request's: the session goes on), and the SDK reads, in its place, the answer
``cut.answer_for_cut`` makes of it for the request that POST carried. Bodies come uncompressed
(``Accept-Encoding: identity``), so the bytes counted are the bytes kept; a compressed body is
not read at all: the SDK reads in its place the answer ``cut.answer_for_compressed`` makes,
which says so. How long a call may take is the call's own timeout: when it passes, the SDK
aborts the request's POST (or, with servers of older protocol versions, tells the server to
cancel), and what was read stays within the cap.

A request made without a timeout of its own (those of the OAuth flow: metadata, registration,
token) gets ``request_timeout`` seconds for each step, so an endpoint that hangs is an error,
not a wait without end. ``on_response`` sees the status and headers of every response, before
its body is read (the client names a 401 or 403 with them).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable

import httpx2
import mcp_types as types
from mcp.shared.message import SessionMessage

from foehn_lsp.mcp.cut import (
    KEPT_BYTES,
    MAX_MESSAGE_BYTES,
    CutMessage,
    answer_for_compressed,
    answer_for_cut,
)

log = logging.getLogger(__name__)

EVENT_END = (b"\n\n", b"\r\n\r\n", b"\r\r")
REQUEST_TIMEOUT = 30.0

ResponseObserver = Callable[[httpx2.Request, httpx2.Response], None]


class CappedTransport(httpx2.AsyncBaseTransport):
    """An HTTP transport whose responses carry at most ``max_message_bytes`` per message."""

    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport,
        *,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
        request_timeout: float = REQUEST_TIMEOUT,
        on_response: ResponseObserver | None = None,
    ) -> None:
        self.inner = inner
        self.limit = max_message_bytes
        self.request_timeout = request_timeout
        self.on_response = on_response

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        request.headers["accept-encoding"] = "identity"
        if "timeout" not in request.extensions:
            request.extensions["timeout"] = httpx2.Timeout(self.request_timeout).as_dict()
        asked = _request_id(request)
        response = await self.inner.handle_async_request(request)
        if self.on_response is not None:
            self.on_response(request, response)
        kind = response.headers.get("content-type", "").lower()
        capped = _CappedEvents if kind.startswith("text/event-stream") else _CappedBody
        body: httpx2.AsyncByteStream
        if response.headers.get("content-encoding", "identity").lower() != "identity":
            await response.aclose()  # unread: nothing of it would be shown
            instead = _as_json(answer_for_compressed(_pending(asked)))
            body = httpx2.ByteStream(b"" if instead is None else capped.message(instead))
        else:
            body = capped(response, asked, self.limit)
        headers = [
            (key, value)
            for key, value in response.headers.multi_items()
            if key.lower() not in ("content-length", "content-encoding")
        ]
        return httpx2.Response(
            status_code=response.status_code,
            headers=headers,
            stream=body,
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def _request_id(request: httpx2.Request) -> types.RequestId | None:
    """The id of the JSON-RPC request a POST carries: what its response answers."""
    if request.method != "POST":
        return None
    try:
        sent = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return None
    found = sent.get("id") if isinstance(sent, dict) and "method" in sent else None
    return found if isinstance(found, int | str) and not isinstance(found, bool) else None


def _pending(asked: types.RequestId | None) -> list[types.RequestId]:
    return [] if asked is None else [asked]


def _as_json(answer: SessionMessage | ValueError) -> bytes | None:
    """The JSON of an answer Foehn made, or ``None`` if it answers no request (a notification
    stream's event: it is dropped)."""
    if isinstance(answer, ValueError):
        log.warning("MCP over HTTP: %s; it was dropped", answer)
        return None
    return answer.message.model_dump_json(by_alias=True, exclude_unset=True).encode()


class _Capped(httpx2.AsyncByteStream):
    """An uncompressed response body passed on with a cap on each message."""

    FRAME = (b"", b"")
    """What goes before and after one message in this kind of body."""

    def __init__(
        self, response: httpx2.Response, asked: types.RequestId | None, limit: int
    ) -> None:
        self.response, self.asked, self.limit = response, asked, limit

    @classmethod
    def message(cls, answer: bytes) -> bytes:
        """``answer`` (JSON) as this kind of body carries one message."""
        before, after = cls.FRAME
        return before + answer + after

    async def _cut(self, kept: bytes | bytearray) -> bytes | None:
        """Close the response and say what goes in place of the message cut after ``kept``
        (``None``: nothing, it answers no request)."""
        await self.response.aclose()
        cut = CutMessage(head=bytes(kept[:KEPT_BYTES]))
        instead = _as_json(answer_for_cut(cut, _pending(self.asked), self.limit))
        return None if instead is None else self.message(instead)

    async def aclose(self) -> None:
        await self.response.aclose()


class _CappedBody(_Capped):
    """A whole body as one message: passed on whole when within the cap, else replaced."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        kept = bytearray()
        async for chunk in self.response.aiter_raw():
            kept += chunk
            if len(kept) > self.limit:
                yield await self._cut(kept) or b""
                return
        yield bytes(kept)


class _CappedEvents(_Capped):
    """An event stream passed on event by event; an event over the cap is replaced by one
    carrying Foehn's answer, and the stream ends there."""

    FRAME = (b"event: message\ndata: ", b"\n\n")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        pending = bytearray()
        searched = 0  # where the search for an event's end goes on (each byte looked at once)
        async for chunk in self.response.aiter_raw():
            pending += chunk
            while (end := _event_end(pending, max(0, searched - 3))) is not None:
                yield bytes(pending[:end])
                del pending[:end]
                searched = 0
            searched = len(pending)
            if len(pending) > self.limit:
                if (instead := await self._cut(pending)) is not None:
                    yield instead
                return
        if pending:
            yield bytes(pending)


def _event_end(buffer: bytearray, start: int) -> int | None:
    """Where the first whole event in ``buffer`` ends (after its blank line), if one does."""
    ends = [(at, len(mark)) for mark in EVENT_END if (at := buffer.find(mark, start)) >= 0]
    if not ends:
        return None
    at, length = min(ends)
    return at + length
