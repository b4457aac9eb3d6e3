"""Trust by content through ``foehn acp``: before the first turn, each waiting file is a
permission request carrying its diff; approving loads it for that very turn, anything else
leaves it unused. The official SDK's client drives the real process."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import text_block

from acp_harness import EditorClient, acp_agent
from foehn_lsp.testing import ModelServer, Turn
from workspace.trust.planted import PLANT, imports, plant

pytestmark = pytest.mark.process


def trust(root: Path) -> None:
    """The harness's XDG config folder, trusting workspaces."""
    config = root.parent / "config" / "foehn"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("trust_workspace = true\n")


async def test_a_waiting_plugin_is_asked_about_with_its_diff_and_used_once_approved(
    root: Path, model: ModelServer, counter: Path
) -> None:
    trust(root)
    plant(root, counter)
    plant(root, counter, "second.py")
    model.script(Turn(tool_calls=[("planted", {})]), Turn(text="done"))
    client = EditorClient(answers=["approve", "not_now"])
    async with acp_agent(root, model, client) as conn:
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        assert imports(counter) == 0
        await conn.prompt(session_id=session.session_id, prompt=[text_block("use it")])
    first, second = client.permissions
    call = first["toolCall"]
    assert call["title"].startswith("Use the workspace's .foehn/plugins/planted.py (new)")
    (diff,) = call["content"]
    assert diff["type"] == "diff"
    assert diff["path"] == str(root / ".foehn" / "plugins" / "planted.py")
    assert diff.get("oldText") is None
    assert diff["newText"] == PLANT.format(counter=str(counter))
    assert call["rawInput"]["status"] == "new"
    assert [o["optionId"] for o in first["options"]] == ["approve", "not_now"]
    assert second["toolCall"]["rawInput"]["path"] == ".foehn/plugins/second.py"
    assert imports(counter) == 1  # the approved one, once; the other never
    told = [m["content"] for m in model.requests[1].body["messages"] if m["role"] == "tool"]
    assert told == ["planted ran"]


async def test_a_rejected_plugin_stays_unused(
    root: Path, model: ModelServer, counter: Path
) -> None:
    trust(root)
    plant(root, counter)
    model.script(Turn(tool_calls=[("planted", {})]), Turn(text="done"))
    client = EditorClient(answers=["cancelled"])
    async with acp_agent(root, model, client) as conn:
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("use it")])
    assert len(client.permissions) == 1
    assert imports(counter) == 0
    assert "waits for your approval; not used" in client.text()
