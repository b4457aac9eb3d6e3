"""Offering a model server already running on this machine: found, described, never used."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.cli.terminal import run_header
from foehn_lsp.config import Settings
from foehn_lsp.providers.local import STRENGTHS, find_running, is_available


def _server(models: list[dict[str, Any]] | None, *, hang: bool = False) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if hang:
                threading.Event().wait(1)  # answers nothing, then closes
                return
            body = json.dumps({"object": "list", "data": models}).encode()
            self.send_response(200 if self.path == "/v1/models" else 404)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def closed_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]  # bound, not listening: connections are refused


async def test_the_first_server_with_a_model_is_offered(closed_port: int) -> None:
    empty = _server([])
    hanging = _server(None, hang=True)
    serving = _server([{"id": "qwen2.5-coder:7b"}, {"id": "llama3"}])
    try:
        found = await find_running(
            [
                (closed_port, "Nothing"),
                (empty.server_address[1], "Empty"),
                (hanging.server_address[1], "Hanging"),
                (serving.server_address[1], "Ollama"),
            ],
            # The probes run at once, so this is how long the hanging one costs; a busy machine
            # can take longer than a fraction of a second to answer from the serving one.
            seconds=10,
        )
    finally:
        for server in (empty, hanging, serving):
            server.shutdown()
    assert found is not None
    assert found.name == "Ollama"
    assert found.model == "qwen2.5-coder:7b"
    assert found.line() == (
        f"Ollama is running at {found.base_url} with qwen2.5-coder:7b; to use it: --provider "
        f"openai --base-url {found.base_url} --model qwen2.5-coder:7b (or FOEHN_PROVIDER, "
        "FOEHN_BASE_URL, FOEHN_MODEL)"
    )


async def test_nothing_running_offers_nothing(closed_port: int) -> None:
    assert await find_running([(closed_port, "Nothing")], seconds=0.3) is None


@pytest.mark.skipif(not is_available(), reason="foehn-lsp[local] is not installed")
def test_the_header_says_what_the_local_model_is_for(tmp_path: Path) -> None:
    header = run_header(Settings(provider="local"), tmp_path, "never")
    assert STRENGTHS in header.splitlines()[0]
