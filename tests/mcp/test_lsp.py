"""MCP servers' tools in the editor: ``foehn serve`` lists them in ``foehn.tools`` with their
origin, and a run calls them like any other tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.testing import ModelServer, Turn
from lsp.harness import lsp_client, run

pytestmark = pytest.mark.process


async def test_the_editor_lists_and_runs_an_mcp_tool(
    root: Path, model: ModelServer, time_server: McpServerConfig
) -> None:
    config = root.parent / "config" / "foehn" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[mcp.servers.time]\ncommand = "{time_server.command}"\n')
    model.script(
        Turn(tool_calls=[("mcp__time__get_current_time", {"timezone": "Europe/Paris"})]),
        Turn(text="Noted the time."),
    )
    async with lsp_client(
        root, model, env={"XDG_CACHE_HOME": str(root.parent / "cache")}
    ) as client:
        listed: Any = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="foehn.tools", arguments=[])
        )
        tools = {tool["name"]: tool for tool in listed["tools"]}
        assert tools["mcp__time__get_current_time"]["mcp"]["server"] == "time"
        assert tools["mcp__time__get_current_time"]["risk"] == "read_only"
        events: list[Any] = []
        client.feature("foehn/runEvent")(lambda params: events.append(params))
        result = await run(client, "what time is it in Paris?")
    assert result["answer"] == "Noted the time."
    (outcome,) = [e for e in events if getattr(e, "event", None) == "tool_result"]
    assert outcome.ok, outcome
    assert "Europe/Paris" in outcome.output
