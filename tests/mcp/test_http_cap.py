"""The capped HTTP transport against a real HTTP server on 127.0.0.1 that answers the way no
well-behaved MCP server does: a compressed body though asked for none, events over the cap
among small ones (split across writes, with CRLF line ends), an oversized event on a stream
that answers no request."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
import pytest

from foehn_lsp.mcp.cut import CUT_META
from foehn_lsp.mcp.http import CappedTransport

LIMIT = 64 * 1024
REQUEST = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "x"}}
NOTE = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"x": 1}}
SMALL = f"event: message\r\ndata: {json.dumps(NOTE)}\r\n\r\n".encode()
ASKED_ENCODINGS: list[str | None] = []


class Awkward(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        ASKED_ENCODINGS.append(self.headers.get("accept-encoding"))
        if self.path == "/gzip":
            body = gzip.compress(b'{"jsonrpc":"2.0","id":7,"result":{}}' + b" " * 10_000)
            self._start("application/json", ("content-encoding", "gzip"))
            self.wfile.write(body)
        elif self.path == "/gzip-sse":
            self._start("text/event-stream", ("content-encoding", "gzip"))
            self.wfile.write(gzip.compress(SMALL))
        else:
            self._start("text/event-stream")
            self._events()

    def do_GET(self) -> None:
        self._start("text/event-stream")
        self._events()

    def _start(self, kind: str, *extra: tuple[str, str]) -> None:
        self.send_response(200)
        self.send_header("content-type", kind)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("connection", "close")
        self.end_headers()

    def _events(self) -> None:
        self.wfile.write(SMALL[:10])  # an event split across writes
        self.wfile.flush()
        self.wfile.write(SMALL[10:])
        self.wfile.write(b'event: message\r\ndata: {"jsonrpc":"2.0","id":7,"result":{"content"')
        self.wfile.write(b':[{"type":"text","text":"start of it ' + b"x" * (4 * LIMIT))
        self.wfile.flush()


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Awkward)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        thread.join(timeout=10)


def client() -> httpx2.AsyncClient:
    transport = CappedTransport(httpx2.AsyncHTTPTransport(), max_message_bytes=LIMIT)
    return httpx2.AsyncClient(transport=transport, timeout=30)


async def test_a_compressed_body_is_refused_unread_for_the_request_it_answers(
    server: str,
) -> None:
    async with client() as http:
        response = await http.post(f"{server}/gzip", json=REQUEST)
    answer = response.json()
    assert ASKED_ENCODINGS[-1] == "identity"
    assert answer["id"] == 7
    assert answer["result"]["isError"] is True
    assert answer["result"]["_meta"][CUT_META] == {"sent": None, "read": 0}
    said = answer["result"]["content"][0]["text"]
    assert "the server compressed it, which Foehn does not read" in said
    assert "Nothing of it is shown" in said
    assert "bytes" not in said  # not refused for its size, which is far under the cap


async def test_a_compressed_event_stream_is_refused_unread_in_one_event(server: str) -> None:
    async with (
        client() as http,
        http.stream("POST", f"{server}/gzip-sse", json=REQUEST) as response,
    ):
        body = b"".join([chunk async for chunk in response.aiter_bytes()])
    assert body.startswith(b"event: message\ndata: ")
    data = json.loads(body.removeprefix(b"event: message\ndata: "))
    assert data["id"] == 7
    assert data["result"]["_meta"][CUT_META] == {"sent": None, "read": 0}
    assert "the server compressed it" in data["result"]["content"][0]["text"]


async def test_events_within_the_cap_pass_and_the_one_over_it_is_answered_truly(
    server: str,
) -> None:
    async with client() as http, http.stream("POST", f"{server}/sse", json=REQUEST) as response:
        body = b"".join([chunk async for chunk in response.aiter_bytes()])
    assert body.startswith(SMALL)
    instead = body[len(SMALL) :]
    assert instead.startswith(b"event: message\ndata: ")
    assert instead.endswith(b"\n\n")
    data = json.loads(instead.removeprefix(b"event: message\ndata: "))
    assert data["id"] == 7
    assert data["result"]["_meta"][CUT_META] == {"sent": None, "read": LIMIT}
    said = data["result"]["content"][0]["text"]
    assert said.startswith(f"[Foehn stopped reading this result at {LIMIT:,} bytes")
    assert "The start of its text follows.]\nstart of it xxx" in said


async def test_an_oversized_event_that_answers_no_request_ends_the_stream(server: str) -> None:
    async with client() as http, http.stream("GET", f"{server}/sse") as response:
        body = b"".join([chunk async for chunk in response.aiter_bytes()])
    assert body == SMALL
