"""Reads through the ACP client, driven by the official SDK's client against the real ``foehn
acp`` process: ACP does not say whether ``fs/read_text_file`` answered from a buffer or the disk,
so only text that differs from the disk is called an unsaved editor buffer; and a file read from
the disk is still not written over a buffer the person typed into since."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from acp_harness import EditorClient, acp_agent
from agent.turns import EDIT
from foehn_lsp.testing import ModelServer, Turn

pytestmark = pytest.mark.process

READ = Turn(tool_calls=[("read_file", {"path": "app.py"})])


def tool_results(model: ModelServer, request: int) -> list[str]:
    messages = model.requests[request].body["messages"]
    return [m["content"] for m in messages if m["role"] == "tool"]


async def turn(app: Path, model: ModelServer, client: EditorClient) -> str:
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("Go")])
    return answer.stop_reason


async def test_a_file_open_in_no_buffer_is_not_called_an_unsaved_buffer(
    app: Path, model: ModelServer
) -> None:
    model.script(READ, Turn(text="ok"))
    client = EditorClient()
    assert await turn(app, model, client) == "end_turn"
    assert client.reads == [str(app / "app.py")]  # the client was asked, and read its disk
    (told,) = tool_results(model, 1)
    assert told.startswith("app.py: lines 1-2 of 2"), told
    assert "unsaved" not in told


async def test_a_buffer_that_differs_from_the_disk_is_called_one(
    app: Path, model: ModelServer
) -> None:
    model.script(READ, Turn(text="ok"))
    path = str(app / "app.py")
    client = EditorClient(buffers={path: "def main():\n    return 1  # TODO\n# typed\n"})
    assert await turn(app, model, client) == "end_turn"
    (told,) = tool_results(model, 1)
    assert told.startswith("app.py (unsaved editor buffer): lines 1-3 of 3"), told


class TypingWhileAsked(EditorClient):
    """An editor whose person types into ``path``'s buffer while the approval is asked."""

    def __init__(self, path: str, typed: str) -> None:
        super().__init__(answers=["allow_once"])
        self.typed_path, self.typed = path, typed

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        self.buffers[self.typed_path] = self.typed
        return await super().request_permission(*args, **kwargs)


async def test_a_buffer_typed_into_after_a_disk_read_is_not_written_over(
    app: Path, model: ModelServer
) -> None:
    path = str(app / "app.py")
    on_disk = (app / "app.py").read_text()
    typed = on_disk + "# typed while asked, not saved\n"
    client = TypingWhileAsked(path, typed)
    # The failed edit is asked once more for a tool call; the model answers again.
    model.script(READ, Turn(tool_calls=[EDIT]), Turn(text="ok"), Turn(text="ok"))
    assert await turn(app, model, client) == "end_turn"
    assert len(client.permissions) == 1
    assert client.writes == []
    assert client.buffers[path] == typed
    assert (app / "app.py").read_text() == on_disk
    (_, told) = tool_results(model, 2)
    assert "changed in the editor since it was read" in told


async def test_a_file_read_from_the_disk_is_edited_through_the_client(
    app: Path, model: ModelServer
) -> None:
    model.script(READ, Turn(tool_calls=[EDIT]), Turn(text="ok"))
    client = EditorClient(answers=["allow_once"])
    assert await turn(app, model, client) == "end_turn"
    fixed = "def main():\n    return 2\n"
    assert client.writes == [(str(app / "app.py"), fixed)]
    assert (app / "app.py").read_text() == fixed
