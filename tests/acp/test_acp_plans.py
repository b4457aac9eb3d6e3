"""The task list and plan mode over ACP: the real ``foehn acp`` process, the official SDK's
client, the scripted model server, real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import text_block

from acp_harness import EditorClient, acp_agent
from agent.turns import PLAN_EDIT as EDIT
from foehn_lsp.testing import ModelServer, Turn

pytestmark = pytest.mark.process

READ = ("read_file", {"path": "app.py"})
WRITE = ("write_file", {"path": "NOTES.md", "content": "notes\n"})


def todo(*statuses: str) -> tuple[str, dict[str, object]]:
    steps = ["Read app.py", "Make main return 2"]
    return (
        "todo",
        {
            "items": [
                {"id": str(n), "text": text, "status": status}
                for n, (text, status) in enumerate(zip(steps, statuses, strict=True), 1)
            ]
        },
    )


@pytest.fixture
def app(root: Path) -> Path:
    (root / "app.py").write_text("def main():\n    return 1\n")
    return root


async def test_the_task_list_reaches_the_client_as_plan_updates(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(tool_calls=[todo("in_progress", "pending")]),
        Turn(tool_calls=[READ, EDIT]),
        Turn(tool_calls=[todo("done", "done")]),
        Turn(text="main returns 2 now."),
    )
    client = EditorClient(answers=["allow_once"])
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Make main return 2")])
        loaded = EditorClient()
    plans = client.of("plan")
    assert [[(e["content"], e["status"]) for e in p["entries"]] for p in plans] == [
        [("Read app.py", "in_progress"), ("Make main return 2", "pending")],
        [("Read app.py", "completed"), ("Make main return 2", "completed")],
    ]
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"
    async with acp_agent(app, model, loaded) as conn:
        await conn.load_session(cwd=str(app), session_id=session.session_id, mcp_servers=[])
    [replayed] = loaded.of("plan")
    assert [e["status"] for e in replayed["entries"]] == ["completed", "completed"]


async def test_plan_mode_refuses_a_write_and_runs_the_plan_the_person_approves(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(tool_calls=[WRITE]),
        Turn(text="1. Edit app.py to return 2."),
        Turn(tool_calls=[READ, EDIT]),
        Turn(text="I changed app.py."),
    )
    client = EditorClient(answers=["allow_once", "allow_once"])
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        assert session.modes is not None
        assert "plan" in [m.id for m in session.modes.available_modes]
        [option] = session.config_options or []
        assert option.id == "mode"
        changed = await conn.set_config_option(
            config_id="mode", session_id=session.session_id, value="plan"
        )
        assert changed is not None
        assert changed.config_options[0].current_value == "plan"
        answer = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("Make main return 2")]
        )
    assert answer.stop_reason == "end_turn"
    asked_plan, asked_edit = client.permissions
    assert asked_plan["toolCall"]["title"] == "Carry out this plan?"
    assert asked_plan["toolCall"]["rawInput"]["steps"] == ["Edit app.py to return 2."]
    assert [o["optionId"] for o in asked_plan["options"]] == ["allow_once", "reject_once"]
    assert asked_edit["toolCall"]["rawInput"]["path"] == "app.py"
    refused = model.requests[1].body["messages"][-1]
    assert refused["role"] == "tool"
    assert refused["content"].startswith("plan mode: write_file was not run")
    assert not (app / "NOTES.md").exists()
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"
    [plan, todo_list] = client.of("plan")
    assert plan["entries"][0]["content"] == "Edit app.py to return 2."
    assert todo_list["entries"][0]["status"] == "pending"


async def test_a_plan_rejected_twice_in_the_client_ends_the_turn(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(text="1. Edit app.py."), Turn(text="1. Edit app.py, carefully."))
    client = EditorClient(answers=["reject_once", "reject_once"])
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("Fix")])
    assert answer.stop_reason == "end_turn"
    assert len(client.permissions) == 2
    assert "rejected the plan twice" in client.text()
    assert (app / "app.py").read_text() == "def main():\n    return 1\n"
