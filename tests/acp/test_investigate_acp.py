"""``investigate`` through ``foehn acp`` and the ACP SDK's client: the read-only sub-run's
summary reaches the model, a write inside it is refused before the client is asked, the client
sees one tool call, and cancelling the turn ends the sub-run's request in flight."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from acp_harness import EditorClient, acp_agent
from foehn_lsp.testing import Fault, ModelServer, Turn

pytestmark = pytest.mark.process

QUESTION = ("investigate", {"question": "Where is main defined?"})
SUB_CALLS = Turn(
    tool_calls=[
        ("read_file", {"path": "app.py"}),
        ("write_file", {"path": "notes.md", "content": "found it\n"}),
    ]
)
SUB_ANSWER = Turn(text="main is defined in app.py, line 1.")


def tool_messages(model: ModelServer, request: int) -> list[dict[str, Any]]:
    return [m for m in model.requests[request].body["messages"] if m["role"] == "tool"]


async def test_an_investigation_reads_only_and_its_summary_reaches_the_model(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[QUESTION]), SUB_CALLS, SUB_ANSWER, Turn(text="It is in app.py."))
    client = EditorClient(answers=["allow_once"])
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("Where?")])
    assert answer.stop_reason == "end_turn"
    offered = {t["function"]["name"] for t in model.requests[1].body["tools"]}
    assert "read_file" in offered
    assert not offered & {"write_file", "edit_file", "investigate", "todo"}
    read, write = tool_messages(model, 2)
    assert "def main():" in read["content"]
    assert write["content"].startswith("investigate is read-only: write_file was not run")
    [found] = tool_messages(model, 3)
    assert found["content"] == "main is defined in app.py, line 1.\n\nFiles cited: app.py"
    assert not (app / "notes.md").exists()
    assert client.permissions == []
    assert client.writes == []
    [call] = client.of("tool_call")
    assert call["title"].startswith("investigate")
    [done] = [
        u
        for u in client.of("tool_call_update")
        if u["toolCallId"] == call["toolCallId"] and u.get("status") == "completed"
    ]
    assert "main is defined in app.py" in done["content"][0]["content"]["text"]


async def test_cancelling_the_turn_ends_the_investigation_in_flight(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[QUESTION]), Fault(delay=600, then=Turn(text="too late")))
    client = EditorClient()
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        turn = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Where?")])
        )
        # The sub-run's request is at the model, which holds it far longer than this test.
        assert await asyncio.to_thread(model.wait_for_requests, 2, 600)
        await conn.cancel(session_id=session.session_id)
        answer = await asyncio.wait_for(turn, 300)
    assert answer.stop_reason == "cancelled"
    assert len(model.requests) == 2
