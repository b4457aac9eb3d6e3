"""A turn that fails says what kind of failure it was (``done``'s ``error``, and the run's
result), so an editor can offer the fix in its own words; an editor that shows run events is
not also sent the server's own toast."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.errors import (
    ConfigError,
    MissingApiKeyError,
    ProviderAuthError,
    ProviderProtocolError,
    ProviderRequestError,
    ProviderUnavailableError,
    error_kind,
)
from foehn_lsp.testing import Fault, ModelServer, Turn
from lsp.harness import lsp_client, run

pytestmark = pytest.mark.process

EVENTS = {"runEvents": True, "confirmRequest": True}


def test_each_error_has_its_kind() -> None:
    assert error_kind(MissingApiKeyError("x")) == "missing_key"
    assert error_kind(ConfigError("x")) == "config"
    assert error_kind(ProviderAuthError("x")) == "auth"
    assert error_kind(ProviderUnavailableError("x")) == "unavailable"
    assert error_kind(ProviderRequestError("x")) == "request"
    assert error_kind(ProviderProtocolError("x")) == "protocol"
    assert error_kind(RuntimeError("x")) == "internal"


async def test_a_refused_key_ends_the_turn_with_an_auth_error(
    root: Path, model: ModelServer
) -> None:
    model.script(Fault(status=401, body='{"error": {"message": "bad key"}}'))
    async with lsp_client(root, model, init_options=EVENTS) as client:
        received: list[Any] = []
        client.feature("foehn/runEvent")(lambda params: received.append(params))
        result = await run(client, {"task": "hello", "runId": "r1"})
        await asyncio.sleep(0.1)
    assert result["stopReason"] == "error"
    assert result["error"] == "auth"
    assert "rejected the API key (401)" in result["answer"]
    done = [e for e in received if _get(e, "event") == "done"]
    assert [_get(e, "error") for e in done] == ["auth"]


async def test_a_missing_key_is_a_missing_key_error_without_a_toast(
    root: Path, model: ModelServer
) -> None:
    env = {"FOEHN_PROVIDER": "mistral", "MISTRAL_API_KEY": ""}
    async with lsp_client(root, model, env=env, init_options=EVENTS) as client:
        result = await run(client, {"task": "hello", "runId": "r2"})
        shown = list(client.messages)
    assert result["stopReason"] == "error"
    assert result["error"] == "missing_key"
    assert "Mistral needs an API key" in result["answer"]
    assert not any("needs an API key" in m.message for m in shown)
    assert model.requests == []


async def test_an_answer_has_no_error_kind(root: Path, model: ModelServer) -> None:
    model.script(Turn(text="Hello."))
    async with lsp_client(root, model, init_options=EVENTS) as client:
        result = await run(client, {"task": "hello", "runId": "r3"})
    assert result["stopReason"] == "answer"
    assert "error" not in result


def _get(event: Any, name: str) -> Any:
    return event[name] if isinstance(event, dict) else getattr(event, name, None)
