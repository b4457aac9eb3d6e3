"""Provider errors a person can act on: each names the URL and what to check, and only what
can pass with time is retried. Real servers on 127.0.0.1: the scripted model server, a port
nothing listens on, and a plain-HTTP server spoken to over TLS."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.config import load_settings
from foehn_lsp.errors import (
    ConfigError,
    ProviderAuthError,
    ProviderProtocolError,
    ProviderRequestError,
    ProviderUnavailableError,
)
from foehn_lsp.providers import Provider, create_provider
from foehn_lsp.providers.messages import UserMessage
from foehn_lsp.testing import Fault, ModelServer, Turn

PAGE = "<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>"


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def make(base_url: str, **overrides: Any) -> Provider:
    settings = load_settings(
        env={},
        user_file=Path("/nonexistent/foehn/config.toml"),
        overrides={
            "provider": "openai",
            "base_url": base_url,
            "model": "m",
            "api_key": "sk-test-0123456789-secret",
            "max_retries": 1,
            **overrides,
        },
    )
    return create_provider(settings)


async def ask(provider: Provider, *, stream: bool = False) -> None:
    try:
        await provider.complete([UserMessage(content="hi")], [], stream=stream)
    finally:
        await provider.aclose()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_a_base_url_without_a_scheme_is_refused_before_any_request() -> None:
    with pytest.raises(ConfigError) as caught:
        make("localhost:11434")
    message = str(caught.value)
    assert "'localhost:11434' needs http:// or https://" in message
    assert "'http://localhost:11434'" in message
    assert "--base-url, FOEHN_BASE_URL or baseUrl" in message


async def test_a_refused_connection_names_the_url_and_asks_if_the_server_runs() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(ProviderUnavailableError) as caught:
        await ask(make(url, max_retries=0))
    message = str(caught.value)
    assert f"at {url}/chat/completions: connection refused" in message
    assert "is the server running" in message


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_a_web_page_instead_of_json_says_so_and_is_not_retried(
    server: ModelServer, stream: bool
) -> None:
    server.script(Fault(body=PAGE), Turn(text="never asked"))
    with pytest.raises(ProviderProtocolError) as caught:
        await ask(make(server.openai_url), stream=stream)
    message = str(caught.value)
    assert "answered with a web page (HTML, status 200)" in message
    assert "check the base URL" in message
    assert "cut off" not in message
    assert len(server.requests) == 1


async def test_tls_to_a_plain_http_server_is_named_and_not_retried(server: ModelServer) -> None:
    url = server.openai_url.replace("http://", "https://")
    with pytest.raises(ProviderRequestError) as caught:
        await ask(make(url, max_retries=3))
    message = str(caught.value)
    assert f"the TLS handshake with {url}/chat/completions failed" in message
    assert "needs http://" in message


@pytest.mark.parametrize(
    ("status", "error", "hint"),
    [
        (401, ProviderAuthError, "rejected the API key (401)"),
        (403, ProviderAuthError, "check that the key may use this model"),
        (404, ProviderRequestError, "check the base URL and the model name"),
        (429, ProviderUnavailableError, "is rate-limiting requests (429)"),
        (503, ProviderUnavailableError, "is unavailable (503)"),
    ],
)
async def test_statuses_name_the_url_and_a_hint(
    server: ModelServer, status: int, error: type[Exception], hint: str
) -> None:
    server.script(*[Fault(status=status, retry_after="0")] * 2)
    with pytest.raises(error) as caught:
        await ask(make(server.openai_url))
    assert hint in str(caught.value)
    assert f"{server.openai_url}/chat/completions" in str(caught.value)
