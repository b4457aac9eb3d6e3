"""The chat view's server commands over a real client and stdio: the provider status, the
workspace's files for @-mentions (.gitignore honoured), and provider_status's rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pydantic import SecretStr
from pygls.exceptions import JsonRpcException

from foehn_lsp.config import Settings
from foehn_lsp.lsp.chat import provider_status
from foehn_lsp.testing import ModelServer, Turn
from lsp.harness import apply_to_disk, lsp_client

pytestmark = pytest.mark.process


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
        "keyless": False,
        "noModel": False,
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


async def test_file_before_a_turn_comes_from_the_sessions_checkpoint(
    root: Path, model: ModelServer
) -> None:
    (root / "app.py").write_text("def main():\n    return 1  # TODO\n")
    fix = {"path": "app.py", "edits": [{"old_text": "return 1  # TODO", "new_text": "return 2"}]}
    model.script(
        Turn(tool_calls=[("read_file", {"path": "app.py"}), ("edit_file", fix)]),
        Turn(tool_calls=[("write_file", {"path": "new.py", "content": "x = 1\n"})]),
        Turn(text="Done."),
    )
    async with lsp_client(root, model, init_options={"confirmRequest": True}) as client:

        @client.feature("foehn/confirm")
        def confirm(params: Any) -> dict[str, str]:
            return {"decision": "allow"}

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            apply_to_disk(params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

        session = (await command(client, "foehn.session.new"))["sessionId"]
        turn = await command(
            client, "foehn.session.prompt", {"sessionId": session, "task": "fix", "runId": "r1"}
        )
        assert turn["runId"] == "r1"

        async def before(path: str) -> Any:
            return await command(
                client,
                "foehn.chat.fileDiff",
                {"session": session, "turn": turn["turn"], "path": path},
            )

        edited, created = await before("app.py"), await before("new.py")
        with pytest.raises(JsonRpcException, match="did not change"):
            await before("other.py")
        with pytest.raises(JsonRpcException, match="takes"):
            await command(client, "foehn.chat.fileDiff", {"session": session})
    assert (root / "app.py").read_text() == "def main():\n    return 2\n"
    assert edited == {
        "before": "def main():\n    return 1  # TODO\n",
        "lost": False,
        "binary": False,
    }
    assert created == {"before": None, "lost": False, "binary": False}


def test_provider_status_follows_the_providers_rules() -> None:
    assert provider_status(Settings(provider="mistral"), None, False)["needsKey"] is True
    keyed = Settings(provider="mistral", api_key=SecretStr("k"))
    assert provider_status(keyed, None, False) == {
        "provider": "mistral",
        "model": "devstral-latest",
        "embedded": False,
        "needsKey": False,
        "keyless": False,
        "noModel": False,
        "error": None,
    }
    local_server = Settings(provider="openai", base_url="http://127.0.0.1:11434/v1")
    assert provider_status(local_server, None, False)["needsKey"] is False
    # No key for it: requests go without an Authorization header, which the chat says once.
    assert provider_status(local_server, None, False)["keyless"] is True
    assert provider_status(Settings(provider="mistral"), None, False)["keyless"] is False
    assert provider_status(Settings(provider="local"), None, False)["embedded"] is True
    assert provider_status(Settings(), None, True)["embedded"] is True
    assert "No model is configured" in provider_status(Settings(), None, False)["error"]
    assert provider_status(Settings(), None, False)["noModel"] is True
    assert provider_status(Settings(), "invalid settings: x", True)["error"] == (
        "invalid settings: x"
    )
