"""``investigate`` through the real language server and pytest-lsp's client: the read-only
sub-run's summary reaches the model, a write inside it is refused before anyone is asked, the
editor sees one call, and cancelling the run ends the sub-run's request in flight."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from foehn_lsp.testing import Fault, ModelServer, Turn
from lsp.harness import lsp_client, run

pytestmark = pytest.mark.process

QUESTION = ("investigate", {"question": "Where is main defined?"})
SUB_CALLS = Turn(
    tool_calls=[
        ("read_file", {"path": "app.py"}),
        ("write_file", {"path": "notes.md", "content": "found it\n"}),
    ]
)
SUB_ANSWER = Turn(text="main is defined in app.py, line 1.")
WRITES_ALLOWED = {"userLevel": {"approval": {"write": "allow"}}}
"""So that a refused write is the sub-run's doing, not the policy's."""


def tool_messages(model: ModelServer, request: int) -> list[dict[str, Any]]:
    return [m for m in model.requests[request].body["messages"] if m["role"] == "tool"]


def plain(value: Any) -> Any:
    """A notification's parameters as plain data (pygls gives named tuples)."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def offered(model: ModelServer, request: int) -> set[str]:
    return {t["function"]["name"] for t in model.requests[request].body.get("tools", [])}


async def test_an_investigation_reads_only_and_its_summary_reaches_the_model(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[QUESTION]), SUB_CALLS, SUB_ANSWER, Turn(text="It is in app.py."))
    events: list[dict[str, Any]] = []
    asked: list[Any] = []
    async with lsp_client(
        app, model, init_options={"runEvents": True}, configuration=WRITES_ALLOWED
    ) as client:
        client.feature("foehn/runEvent")(lambda params: events.append(plain(params)))

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            asked.append(params)
            return types.ApplyWorkspaceEditResult(applied=False)

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        def confirm(params: types.ShowMessageRequestParams) -> None:
            asked.append(params)

        result = await run(client, "Where is main?")
    assert result["answer"] == "It is in app.py."
    assert "investigate" in offered(model, 0)
    assert "read_file" in offered(model, 1)
    assert not offered(model, 1) & {"write_file", "edit_file", "investigate", "todo"}
    read, write = tool_messages(model, 2)
    assert "def main():" in read["content"]
    assert write["content"].startswith("investigate is read-only: write_file was not run")
    [found] = tool_messages(model, 3)
    assert found["content"] == "main is defined in app.py, line 1.\n\nFiles cited: app.py"
    assert not (app / "notes.md").exists()
    assert asked == []
    calls = [e for e in events if e.get("event") == "tool_call"]
    assert [c["tool"] for c in calls] == ["investigate"]
    [shown] = [e for e in events if e.get("event") == "tool_result"]
    assert shown["data"]["files"] == ["app.py"]
    assert shown["data"]["summary"] == "main is defined in app.py, line 1."


async def test_cancelling_the_run_ends_the_investigation_in_flight(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[QUESTION]), Fault(delay=600, then=Turn(text="too late")))
    async with lsp_client(app, model) as client:
        turn = asyncio.ensure_future(run(client, {"task": "Where is main?", "runId": "r1"}))
        # The sub-run's request is at the model, which holds it far longer than this test.
        assert await asyncio.to_thread(model.wait_for_requests, 2, 600)
        cancelled = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="foehn.cancel", arguments=["r1"])
        )
        result = await asyncio.wait_for(turn, 300)
    assert cancelled == {"cancelled": ["r1"]}
    assert result["stopReason"] == "cancelled"
    assert len(model.requests) == 2
