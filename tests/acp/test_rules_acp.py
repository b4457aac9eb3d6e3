"""Rules and custom commands through ``foehn acp``: the official SDK's client drives the real
process, the scripted model server plays the model, programs run in the real sandbox."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from acp_harness import EditorClient, acp_agent
from foehn_lsp.testing import ModelServer, Turn

pytestmark = pytest.mark.process


@pytest.fixture
def folders(root: Path) -> Path:
    """The person's config folder (the harness's XDG folder), with one custom command."""
    config = root.parent / "config" / "foehn"
    (config / "commands").mkdir(parents=True)
    (config / "commands" / "tidy.md").write_text("Tidy up $ARGUMENTS, then say done.\n")
    (root / "keep").mkdir()
    return config


def call(*argv: str) -> tuple[str, dict[str, Any]]:
    return ("run_command", {"command": list(argv)})


async def test_allow_always_saves_the_narrow_rule_and_rm_still_asks(
    root: Path, folders: Path, model: ModelServer
) -> None:
    model.script(
        Turn(tool_calls=[call("touch", "notes.txt")]),
        Turn(tool_calls=[call("touch", "other.txt")]),
        Turn(tool_calls=[call("rm", "-rf", "keep")]),
        Turn(text="Done."),
    )
    client = EditorClient(answers=["allow_always", "reject_once"])
    async with acp_agent(root, model, client) as conn:
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        answer = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("/tidy the notes")]
        )
    assert answer.stop_reason == "end_turn"
    users = [m["content"] for m in model.requests[0].body["messages"] if m["role"] == "user"]
    assert users == ["Tidy up the notes, then say done."]
    [offered] = client.of("available_commands_update")
    assert [c["name"] for c in offered["availableCommands"]] == ["undo", "redo", "compact", "tidy"]
    asked = [p["toolCall"]["rawInput"]["command"] for p in client.permissions]
    assert asked == [["touch", "notes.txt"], ["rm", "-rf", "keep"]]
    always = client.permissions[0]["options"][1]
    assert always["name"] == (
        "Always allow: save the rule allow run_command touch ? (sandbox workspace-write) "
        "to your config"
    )
    assert tomllib.loads((folders / "config.toml").read_text())["rules"] == [
        {
            "tool": "run_command",
            "program": "touch",
            "args": ["?"],
            "decision": "allow",
            "sandbox": "workspace-write",
        }
    ]
    assert (root / "other.txt").exists()  # the saved rule allowed it without asking
    assert (root / "keep").is_dir()
