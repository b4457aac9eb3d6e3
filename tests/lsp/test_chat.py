"""The chat view's server commands over a real client and stdio: the provider status, the
workspace's files for @-mentions (.gitignore honoured), and provider_status's rules."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pydantic import SecretStr

from foehn_lsp.config import Settings
from foehn_lsp.lsp.chat import provider_status
from foehn_lsp.testing import ModelServer
from lsp.harness import lsp_client


@pytest.fixture
def model() -> Iterator[ModelServer]:
    with ModelServer() as server:
        yield server


async def command(client: Any, name: str, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(arguments))
    )


async def test_status_names_the_provider_the_server_will_use(
    root: Path, model: ModelServer
) -> None:
    async with lsp_client(root, model) as client:
        status = await command(client, "foehn.chat.status")
    assert status == {
        "provider": "openai",
        "model": "gpt-4.1-mini",
        "embedded": False,
        "needsKey": False,
        "error": None,
    }


async def test_files_for_mentions_leave_out_what_gitignore_ignores(
    root: Path, model: ModelServer
) -> None:
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("x = 1\n")
    (root / "README.md").write_text("# app\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("")
    (root / "debug.log").write_text("")
    async with lsp_client(root, model) as client:
        listed = await command(client, "foehn.chat.files")
    assert listed["files"] == [".gitignore", "README.md", "src/app.py"]
    assert listed["truncated"] is False


def test_provider_status_follows_the_providers_rules() -> None:
    assert provider_status(Settings(provider="mistral"), None, False)["needsKey"] is True
    keyed = Settings(provider="mistral", api_key=SecretStr("k"))
    assert provider_status(keyed, None, False) == {
        "provider": "mistral",
        "model": "devstral-latest",
        "embedded": False,
        "needsKey": False,
        "error": None,
    }
    local_server = Settings(provider="openai", base_url="http://127.0.0.1:11434/v1")
    assert provider_status(local_server, None, False)["needsKey"] is False
    assert provider_status(Settings(provider="local"), None, False)["embedded"] is True
    assert provider_status(Settings(), None, True)["embedded"] is True
    assert "No model is configured" in provider_status(Settings(), None, False)["error"]
    assert provider_status(Settings(), "invalid settings: x", True)["error"] == (
        "invalid settings: x"
    )
