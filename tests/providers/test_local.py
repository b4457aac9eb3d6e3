"""The embedded model, for real: assembled from its wheels, verified, and asked to act."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foehn_lsp.errors import ConfigError
from foehn_lsp.providers.local import (
    MODEL_SHA256,
    PARTS,
    LocalProvider,
    ensure_model,
    inline_refs,
    is_available,
    step_schema,
)
from foehn_lsp.providers.messages import UserMessage
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
    (tmp_path / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf").write_bytes(b"not a model")
    rebuilt = ensure_model(tmp_path)
    assert rebuilt.stat().st_size == 491_400_064


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
