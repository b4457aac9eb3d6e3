"""The task list and plan mode through the real language server and pytest-lsp's client: the
task list arrives as ``foehn/runEvent`` notifications, and ``mode: "plan"`` plans first and asks
about the plan like a call."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from agent.turns import PLAN_EDIT as EDIT
from foehn_lsp.testing import ModelServer, Turn
from lsp.harness import apply_to_disk, lsp_client, run

pytestmark = pytest.mark.process

READ = ("read_file", {"path": "app.py"})


@pytest.fixture
def app(root: Path) -> Path:
    (root / "app.py").write_text("def main():\n    return 1\n")
    return root


def plain(value: Any) -> Any:
    """A notification's or request's params as plain JSON values (pygls hands over objects)."""
    if hasattr(value, "_asdict"):
        value = value._asdict()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def event_of(params: Any) -> dict[str, Any]:
    found: dict[str, Any] = plain(params)
    return found


async def test_the_task_list_arrives_as_run_events(app: Path, model: ModelServer) -> None:
    items = [{"id": "1", "text": "Look at app.py", "status": "in_progress"}]
    model.script(
        Turn(tool_calls=[("todo", {"items": items})]),
        Turn(tool_calls=[("todo", {"items": [{**items[0], "status": "done"}]})]),
        Turn(text="Looked."),
    )
    async with lsp_client(app, model) as client:
        received: list[Any] = []
        client.feature("foehn/runEvent")(lambda params: received.append(params))
        result = await run(client, {"task": "Look at app.py", "runId": "r1"})
        await asyncio.sleep(0)
    assert result["answer"] == "Looked."
    todos = [e for e in map(event_of, received) if e["event"] == "todo"]
    assert [[i["status"] for i in e["items"]] for e in todos] == [["in_progress"], ["done"]]
    assert all(e["runId"] == "r1" for e in todos)


@pytest.mark.parametrize("confirm_request", [True, False])
async def test_plan_mode_asks_about_the_plan_then_carries_it_out(
    app: Path, model: ModelServer, confirm_request: bool
) -> None:
    model.script(
        Turn(tool_calls=[("write_file", {"path": "NOTES.md", "content": "x\n"})]),
        Turn(text="1. Edit app.py to return 2."),
        Turn(tool_calls=[READ, EDIT]),
        Turn(text="I changed app.py."),
    )
    options = {"confirmRequest": True} if confirm_request else {}
    asked: list[Any] = []
    async with lsp_client(app, model, init_options=options) as client:
        if confirm_request:

            @client.feature("foehn/confirm")
            def confirm(params: Any) -> dict[str, str]:
                asked.append(event_of(params))
                return {"decision": "allow"}
        else:

            @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
            def choose(params: types.ShowMessageRequestParams) -> types.MessageActionItem:
                asked.append(params)
                titles = [a.title for a in params.actions or []]
                return types.MessageActionItem(title=titles[0])

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            apply_to_disk(params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

        received: list[Any] = []
        client.feature("foehn/runEvent")(lambda params: received.append(params))
        result = await run(client, {"task": "Make main return 2", "mode": "plan"})
    assert result["stopReason"] == "answer"
    assert result["answer"] == "I changed app.py."
    if confirm_request:
        plan, edit = asked
        assert plan["tool"] == "plan"
        assert plan["arguments"]["steps"] == ["Edit app.py to return 2."]
        assert edit["tool"] == "edit_file"
    else:
        plan, edit = asked
        assert plan.message.startswith("Foehn's plan:\n1. Edit app.py to return 2.")
        assert [a.title for a in plan.actions] == ["Approve plan", "Reject"]
    statuses = [e["status"] for e in map(event_of, received) if e["event"] == "plan"]
    assert statuses == ["proposed", "approved"]
    assert not (app / "NOTES.md").exists()
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"


async def test_a_mode_that_does_not_exist_is_invalid_params(app: Path, model: ModelServer) -> None:
    from pygls.exceptions import JsonRpcException

    async with lsp_client(app, model) as client:
        with pytest.raises(JsonRpcException, match='mode must be "act" or "plan"'):
            await run(client, {"task": "x", "mode": "yolo"})
    assert model.requests == []
