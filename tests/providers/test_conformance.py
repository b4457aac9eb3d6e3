"""Every HTTP provider against the same real server on 127.0.0.1, speaking its wire format in
JSON and SSE: text, tool calls, parallel calls, and every fault."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from foehn_lsp.config import load_settings
from foehn_lsp.errors import (
    MissingApiKeyError,
    ProviderAuthError,
    ProviderProtocolError,
    ProviderRequestError,
    ProviderUnavailableError,
)
from foehn_lsp.providers import Provider, create_provider
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.testing import Fault, ModelServer, Turn

KEY = "sk-test-0123456789-secret"
TOOLS = [
    ToolDefinition(
        name="scan",
        description="List files.",
        parameters={"type": "object", "properties": {"pattern": {"type": "string"}}},
    )
]
CONVERSATION: list[Message] = [
    SystemMessage(content="Be brief."),
    UserMessage(content="List the Python files."),
]
PROVIDERS = ["mistral", "openai", "anthropic"]


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def make(server: ModelServer, name: str, **overrides: Any) -> Provider:
    url = server.anthropic_url if name == "anthropic" else server.openai_url
    settings = load_settings(
        env={},
        user_file=_nowhere(),
        overrides={
            "provider": name,
            "base_url": url,
            "api_key": KEY,
            "max_retries": 1,
            **overrides,
        },
    )
    return create_provider(settings)


def _nowhere() -> Any:
    from pathlib import Path

    return Path("/nonexistent/foehn/config.toml")


@pytest.fixture(
    params=[(name, stream) for name in PROVIDERS for stream in (False, True)],
    ids=[f"{name}-{'sse' if stream else 'json'}" for name in PROVIDERS for stream in (False, True)],
)
def case(request: pytest.FixtureRequest) -> tuple[str, bool]:
    value: tuple[str, bool] = request.param
    return value


async def test_text_answer_and_usage(server: ModelServer, case: tuple[str, bool]) -> None:
    name, stream = case
    server.script(Turn(text="There are two Python files.", input_tokens=42, output_tokens=7))
    streamed: list[str] = []
    provider = make(server, name)
    response = await provider.complete(CONVERSATION, TOOLS, stream=stream, on_text=streamed.append)
    await provider.aclose()
    assert response.message.content == "There are two Python files."
    assert response.message.tool_calls == ()
    assert response.finish_reason == "stop"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (42, 7)
    if stream:
        assert len(streamed) > 1
        assert "".join(streamed) == "There are two Python files."


async def test_one_tool_call(server: ModelServer, case: tuple[str, bool]) -> None:
    name, stream = case
    server.script(Turn(tool_calls=[("scan", {"pattern": "*.py"})]))
    provider = make(server, name)
    response = await provider.complete(CONVERSATION, TOOLS, stream=stream)
    [call] = response.message.tool_calls
    assert call.name == "scan"
    assert json.loads(call.arguments) == {"pattern": "*.py"}
    assert call.id
    assert response.finish_reason == "tool_calls"


async def test_parallel_tool_calls_with_text(server: ModelServer, case: tuple[str, bool]) -> None:
    name, stream = case
    server.script(
        Turn(
            text="Looking.",
            tool_calls=[("scan", {"pattern": "*.py"}), ("scan", {"pattern": "*.md"})],
        )
    )
    response = await make(server, name).complete(CONVERSATION, TOOLS, stream=stream)
    assert response.message.content == "Looking."
    patterns = [json.loads(c.arguments)["pattern"] for c in response.message.tool_calls]
    assert patterns == ["*.py", "*.md"]
    assert len({c.id for c in response.message.tool_calls}) == 2


# Anthropic's JSON body carries tool input as an object, so only its stream can be malformed.
@pytest.mark.parametrize(
    ("name", "stream"),
    [
        ("mistral", False),
        ("mistral", True),
        ("openai", False),
        ("openai", True),
        ("anthropic", True),
    ],
)
async def test_malformed_tool_arguments_are_passed_on_verbatim(
    server: ModelServer, name: str, stream: bool
) -> None:
    server.script(Turn(tool_calls=[("scan", '{"pattern": "*.py"')]))
    response = await make(server, name).complete(CONVERSATION, TOOLS, stream=stream)
    assert response.message.tool_calls[0].arguments == '{"pattern": "*.py"'


async def test_unknown_finish_reason_is_kept_as_other(
    server: ModelServer, case: tuple[str, bool]
) -> None:
    name, stream = case
    server.script(Turn(text="Hm.", finish_reason="brand_new_reason"))
    response = await make(server, name).complete(CONVERSATION, TOOLS, stream=stream)
    assert response.finish_reason == "other"
    assert response.message.content == "Hm."


async def test_429_with_retry_after_is_retried(server: ModelServer, case: tuple[str, bool]) -> None:
    name, stream = case
    server.script(Fault(status=429, retry_after="0.2"), Turn(text="ok"))
    started = time.monotonic()
    response = await make(server, name).complete(CONVERSATION, TOOLS, stream=stream)
    assert response.message.content == "ok"
    assert time.monotonic() - started >= 0.2
    assert len(server.requests) == 2


async def test_500s_outlasting_the_retries_fail_clearly(
    server: ModelServer, case: tuple[str, bool]
) -> None:
    name, stream = case
    server.script(Fault(status=500), Fault(status=503), Fault(status=500))
    with pytest.raises(ProviderUnavailableError, match=r"unavailable \(503\).*gave up after 2"):
        await make(server, name).complete(CONVERSATION, TOOLS, stream=stream)
    assert len(server.requests) == 2


async def test_dropped_connection_is_retried(server: ModelServer, case: tuple[str, bool]) -> None:
    name, stream = case
    server.script(Fault(drop=True), Turn(text="ok"))
    response = await make(server, name).complete(CONVERSATION, TOOLS, stream=stream)
    assert response.message.content == "ok"


async def test_slow_answer_times_out_and_is_retried(
    server: ModelServer, case: tuple[str, bool]
) -> None:
    name, stream = case
    # 2 s: time for the retry's answer from 127.0.0.1 on a busy machine (0.5 s was not)
    server.script(Fault(delay=10.0, then=Turn(text="late")), Turn(text="ok"))
    provider = make(server, name, timeout_seconds=2.0)
    response = await provider.complete(CONVERSATION, TOOLS, stream=stream)
    assert response.message.content == "ok"


async def test_timeouts_outlasting_the_retries_fail_clearly(
    server: ModelServer, case: tuple[str, bool]
) -> None:
    name, stream = case
    server.script(Fault(delay=2.0), Fault(delay=2.0))
    with pytest.raises(ProviderUnavailableError, match="did not answer in time"):
        await make(server, name, timeout_seconds=0.3).complete(CONVERSATION, TOOLS, stream=stream)


async def test_cut_off_answer_is_an_error_not_a_half_answer(
    server: ModelServer, case: tuple[str, bool]
) -> None:
    name, stream = case
    turn = Turn(text="a long answer that will not arrive whole " * 3)
    server.script(Fault(truncate=True, then=turn), Fault(truncate=True, then=turn))
    with pytest.raises((ProviderProtocolError, ProviderUnavailableError), match=r"cut off|reach"):
        await make(server, name).complete(CONVERSATION, TOOLS, stream=stream)


@pytest.mark.parametrize("body", ["this is not json", "{}", '{"choices": []}'])
async def test_bodies_that_break_the_wire_format_fail_clearly(
    server: ModelServer, body: str
) -> None:
    for name in PROVIDERS:
        server.script(Fault(body=body))
        with pytest.raises(ProviderProtocolError):
            await make(server, name).complete(CONVERSATION, TOOLS)


async def test_401_names_the_provider_is_not_retried_and_hides_the_key(
    server: ModelServer,
) -> None:
    labels = {"mistral": "Mistral", "openai": "OpenAI-compatible", "anthropic": "Anthropic"}
    for name in PROVIDERS:
        server.script(Fault(status=401, body=json.dumps({"error": {"message": f"bad key {KEY}"}})))
        before = len(server.requests)
        with pytest.raises(ProviderAuthError) as caught:
            await make(server, name).complete(CONVERSATION, TOOLS)
        assert len(server.requests) == before + 1
        assert f"{labels[name]}" in str(caught.value)
        assert "rejected the API key (401)" in str(caught.value)
        assert KEY not in str(caught.value)


@pytest.mark.parametrize(
    ("status", "text"),
    [(400, r"refused the request \(400\)"), (404, "check the base URL and the model")],
)
async def test_client_errors_are_not_retried(server: ModelServer, status: int, text: str) -> None:
    server.script(Fault(status=status))
    with pytest.raises(ProviderRequestError, match=text):
        await make(server, "mistral").complete(CONVERSATION, TOOLS)
    assert len(server.requests) == 1


async def test_cancelling_closes_the_connection_at_once(server: ModelServer) -> None:
    server.script(Fault(delay=30.0, then=Turn(text="never")))
    task = asyncio.create_task(make(server, "mistral").complete(CONVERSATION, TOOLS, stream=True))
    assert await asyncio.to_thread(server.wait_for_requests, 1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=10)


def test_missing_api_key_names_the_variable() -> None:
    for name, variable in [("mistral", "MISTRAL_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]:
        settings = load_settings(env={}, user_file=_nowhere(), overrides={"provider": name})
        with pytest.raises(MissingApiKeyError, match=variable):
            create_provider(settings)


def test_the_key_is_never_in_a_repr() -> None:
    settings = load_settings(
        env={"MISTRAL_API_KEY": KEY, "FOEHN_PROVIDER": "mistral"}, user_file=_nowhere()
    )
    assert settings.api_key is not None
    assert KEY not in repr(settings)
    assert KEY not in str(settings)
    assert KEY not in repr(create_provider(settings).__dict__)


async def test_request_shapes(server: ModelServer) -> None:
    history: list[Message] = [
        *CONVERSATION,
        AssistantMessage(
            tool_calls=(
                ToolCall(id="local0001-long-id", name="scan", arguments='{"pattern": "*.py"}'),
            )
        ),
        ToolResultMessage(call_id="local0001-long-id", name="scan", content="a.py"),
    ]
    for name in PROVIDERS:
        server.script(Turn(text="ok"))
        await make(server, name).complete(history, TOOLS, stream=False)
    mistral, openai, anthropic = server.requests
    assert mistral.headers["authorization"] == f"Bearer {KEY}"
    assert mistral.body["model"] == "devstral-latest"
    assert mistral.body["tools"][0]["function"]["name"] == "scan"
    mistral_id = mistral.body["messages"][2]["tool_calls"][0]["id"]
    assert len(mistral_id) == 9
    assert mistral_id.isalnum()
    assert mistral.body["messages"][3] == {
        "role": "tool",
        "tool_call_id": mistral_id,
        "content": "a.py",
        "name": "scan",
    }
    assert openai.body["messages"][3] == {
        "role": "tool",
        "tool_call_id": "local0001-long-id",
        "content": "a.py",
    }
    assert anthropic.headers["x-api-key"] == KEY
    assert anthropic.body["system"] == "Be brief."
    assert anthropic.body["tools"][0]["input_schema"]["type"] == "object"
    assert anthropic.body["messages"][1]["content"][0]["type"] == "tool_use"
    assert anthropic.body["messages"][2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "local0001-long-id",
        "content": "a.py",
        "is_error": False,
    }
