"""The embedded model, for real: assembled from its wheels, verified, and asked to act."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foehn_lsp.errors import ConfigError
from foehn_lsp.providers.local import (
    MODEL_NAME,
    MODEL_SHA256,
    MODEL_SIZE,
    NO_ANSWER,
    PARTS,
    LocalProvider,
    _servers,
    copies_tool_output_or_prompt,
    ensure_model,
    inline_refs,
    is_available,
    step_schema,
)
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.tools import ToolRegistry

pytestmark = pytest.mark.skipif(not is_available(), reason="foehn-lsp[local] is not installed")


@pytest.fixture(scope="session")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_model(tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="session")
def provider(model_file: Path) -> LocalProvider:
    return LocalProvider(model_path=model_file)


def test_the_assembled_model_is_verified(model_file: Path) -> None:
    import hashlib

    assert hashlib.sha256(model_file.read_bytes()).hexdigest() == MODEL_SHA256


def test_anything_but_the_expected_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="refusing to load them"):
        ensure_model(tmp_path, parts=PARTS[:1])
    assert list(tmp_path.iterdir()) == []  # nothing half-assembled is left behind


def test_a_tampered_cache_is_rebuilt(tmp_path: Path) -> None:
    (tmp_path / f"{MODEL_NAME}.gguf").write_bytes(b"not a model")
    rebuilt = ensure_model(tmp_path)
    assert rebuilt.stat().st_size == MODEL_SIZE == 1_117_320_768


def test_step_schema_admits_exactly_a_tool_call_or_an_answer(registry: ToolRegistry) -> None:
    schema = step_schema(registry.definitions())
    choices = schema["anyOf"]
    assert choices[-1]["required"] == ["answer"]
    assert {c["properties"]["tool"]["const"] for c in choices[:-1]} == {t.name for t in registry}
    assert "$ref" not in json.dumps(schema)
    assert inline_refs(
        {"$defs": {"A": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/A"}}}
    ) == {"properties": {"a": {"type": "string"}}}


async def test_list_the_python_files_gets_a_scan_call(
    provider: LocalProvider, registry: ToolRegistry
) -> None:
    response = await provider.complete(
        [UserMessage(content="list the Python files")], registry.definitions()
    )
    [call] = response.message.tool_calls
    assert call.name == "scan"
    assert "py" in json.loads(call.arguments).get("pattern", "")
    assert response.finish_reason == "tool_calls"


async def test_a_question_that_needs_no_tool_gets_an_answer(
    provider: LocalProvider, registry: ToolRegistry
) -> None:
    response = await provider.complete(
        [UserMessage(content="What is 2 + 2?")], registry.definitions()
    )
    assert response.message.tool_calls == ()
    assert "4" in response.message.content


def test_a_call_that_only_adds_defaults_counts_as_the_same_call(registry: ToolRegistry) -> None:
    from foehn_lsp.providers.local import _canonical

    tools = registry.definitions()
    bare = _canonical("scan", '{"pattern": "*.py"}', tools)
    assert bare == _canonical("scan", '{"pattern": "*.py", "recursive": true, "path": "."}', tools)
    assert bare != _canonical("scan", '{"pattern": "*.md"}', tools)


def test_copied_tool_output_and_prompt_text_are_recognised() -> None:
    assert copies_tool_output_or_prompt("CHANGELOG.md: lines 1-1 of 4")
    assert copies_tool_output_or_prompt("3 entries under .:\na.py")
    assert copies_tool_output_or_prompt("     1\tport = 8080")
    assert copies_tool_output_or_prompt("If this is enough, reply with {")
    assert not copies_tool_output_or_prompt("config/settings.toml sets port 8080.")
    assert not copies_tool_output_or_prompt("42")


def test_every_step_and_turn_starts_with_the_same_prefix(registry: ToolRegistry) -> None:
    """The prompt cache can only help if each request extends the last one's prefix."""
    tools = registry.definitions()
    local = LocalProvider(model_path=Path("unused.gguf"))
    first = local.chat_messages([UserMessage(content="list files")], tools)
    call = ToolCall(id="c1", name="scan", arguments="{}")
    second = local.chat_messages(
        [
            UserMessage(content="list files"),
            AssistantMessage(tool_calls=(call,)),
            ToolResultMessage(call_id="c1", name="scan", content="1 entries under .:\na.py"),
        ],
        tools,
    )
    wrap_up = local.chat_messages([UserMessage(content="list files")], [])
    assert second[: len(first)] == first
    assert wrap_up == first
    assert (
        LocalProvider(model_path=Path("unused.gguf")).chat_messages(
            [UserMessage(content="another turn")], tools
        )[:-1]
        == first[:-1]
    )


class _Llama:
    """Stands in for llama.cpp where a real model cannot be made to misbehave on cue: it
    replies with the scripted JSON steps and records what it was sent."""

    def __init__(self, *steps: dict[str, object]) -> None:
        self.steps = list(steps)
        self.requests: list[dict[str, object]] = []

    def handle_chat_completions(self, request: dict[str, object]) -> dict[str, object]:
        self.requests.append(request)
        step = self.steps.pop(0)
        return {
            "choices": [{"message": {"content": json.dumps(step)}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2},
            "timings": {"cache_n": 8, "predicted_n": 2, "predicted_per_token_ms": 1.0},
        }


@pytest.mark.parametrize(
    ("second", "expected"),
    [
        ("config/settings.toml sets port 8080.", "config/settings.toml sets port 8080."),
        ("config/settings.toml: lines 1-3 of 3", NO_ANSWER),
    ],
)
async def test_an_answer_that_copies_tool_output_is_sent_back_and_never_shown(
    registry: ToolRegistry, tmp_path: Path, second: str, expected: str
) -> None:
    path = tmp_path / "scripted.gguf"
    llama = _Llama({"answer": "config/settings.toml: lines 1-3 of 3"}, {"answer": second})
    _servers[path] = llama
    try:
        response = await LocalProvider(model_path=path).complete(
            [UserMessage(content="Which port?")], registry.definitions()
        )
    finally:
        del _servers[path]
    assert response.message.content == expected
    assert len(llama.requests) == 2
    assert "copies the tool output" in json.dumps(llama.requests[1]["messages"])


async def test_the_prompt_cache_is_reused_from_step_to_step(
    provider: LocalProvider, registry: ToolRegistry
) -> None:
    tools = registry.definitions()
    await provider.complete([UserMessage(content="list the Markdown files")], tools)
    call = ToolCall(id="c1", name="scan", arguments='{"pattern": "*.md"}')
    await provider.complete(
        [
            UserMessage(content="list the Markdown files"),
            AssistantMessage(tool_calls=(call,)),
            ToolResultMessage(call_id="c1", name="scan", content="1 entries under .:\nREADME.md"),
        ],
        tools,
    )
    later = provider.timings[-1]
    assert later.cached_tokens >= 0.8 * later.prompt_tokens
    assert LocalProvider(model_path=provider._model_path).load() is provider.load()


async def test_after_a_failed_change_the_next_step_must_act(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    """A small model answered 'I added the line' after write_file was refused; now the step
    after a failed change admits only tool calls (a denial by the person does not count)."""
    path = tmp_path / "scripted.gguf"
    llama = _Llama(
        {"tool": "read_file", "arguments": {"path": "notes.txt"}}, {"answer": "Not allowed."}
    )
    _servers[path] = llama
    call = ToolCall(id="c1", name="write_file", arguments='{"path": "notes.txt", "content": "x"}')
    history: list[Message] = [
        UserMessage(content="Add x to notes.txt"),
        AssistantMessage(tool_calls=(call,)),
    ]
    refused = ToolResultMessage(
        call_id="c1", name="write_file", is_error=True, content="read_file notes.txt first"
    )
    denied = ToolResultMessage(
        call_id="c1", name="write_file", is_error=True, content="the person denied this call"
    )
    try:
        local = LocalProvider(model_path=path)
        await local.complete([*history, refused], registry.definitions())
        await local.complete([*history, denied], registry.definitions())
    finally:
        del _servers[path]
    first, second = (r["response_format"]["json_schema"]["schema"] for r in llama.requests)  # type: ignore[index]
    assert all("tool" in choice["properties"] for choice in first["anyOf"])
    assert any("answer" in choice["properties"] for choice in second["anyOf"])
    assert "FAILED" in json.dumps(llama.requests[0]["messages"])


async def test_the_must_act_rule_survives_foehn_notes_and_the_repeated_call_re_ask(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    """After a failed edit, a note from the loop (or a budget warning) does not lift the rule,
    and neither does re-asking after a repeated call: only tool calls are admitted."""
    path = tmp_path / "scripted.gguf"
    read: dict[str, object] = {"tool": "read_file", "arguments": {"path": "notes.txt"}}
    llama = _Llama(read, {"tool": "scan", "arguments": {}})
    _servers[path] = llama
    earlier = ToolCall(id="c0", name="read_file", arguments='{"path": "notes.txt"}')
    failed = ToolCall(id="c1", name="edit_file", arguments='{"path": "notes.txt", "edits": []}')
    history: list[Message] = [
        UserMessage(content="Add x to notes.txt"),
        AssistantMessage(tool_calls=(earlier,)),
        ToolResultMessage(call_id="c0", name="read_file", content="notes.txt: lines 1-1 of 1"),
        AssistantMessage(tool_calls=(failed,)),
        ToolResultMessage(
            call_id="c1", name="edit_file", is_error=True, content="block 1: old_text not found"
        ),
        UserMessage(content="[Foehn] Your last change (edit_file) failed and changed nothing"),
    ]
    try:
        response = await LocalProvider(model_path=path).complete(history, registry.definitions())
    finally:
        del _servers[path]
    assert response.message.tool_calls[0].name == "scan"
    schemas = [r["response_format"]["json_schema"]["schema"] for r in llama.requests]  # type: ignore[index]
    assert len(schemas) == 2, "the repeated read was re-asked"
    for schema in schemas:
        assert all("tool" in choice["properties"] for choice in schema["anyOf"])


@pytest.mark.parametrize(
    ("second", "expected"),
    [
        (
            "debug is now false in config/settings.toml.",
            "debug is now false in config/settings.toml.",
        ),
        ("I set debug to false in app.ini.", NO_ANSWER),
    ],
)
async def test_an_answer_that_copies_the_examples_is_sent_back(
    registry: ToolRegistry, tmp_path: Path, second: str, expected: str
) -> None:
    path = tmp_path / "scripted.gguf"
    llama = _Llama({"answer": "I set debug to false in app.ini."}, {"answer": second})
    _servers[path] = llama
    try:
        response = await LocalProvider(model_path=path).complete(
            [UserMessage(content="In config/settings.toml set debug to false")],
            registry.definitions(),
        )
    finally:
        del _servers[path]
    assert response.message.content == expected
    assert "copies the tool output or the examples" in json.dumps(llama.requests[1]["messages"])
