"""Session commands through the real language server (pytest-lsp over stdio) and the scripted
model server on 127.0.0.1: a conversation over turns, saved, resumed after a restart, undone
through the editor."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from agent.turns import EDIT
from cli.harness import foehn
from foehn_lsp.testing import ModelServer, Turn
from lsp.harness import lsp_client

pytestmark = pytest.mark.process


async def command(client: LanguageClient, name: str, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(arguments))
    )


def path_of(uri: str) -> Path:
    return Path(uri.removeprefix("file://"))


def apply_edit(edit: types.WorkspaceEdit) -> None:
    """What an editor does with a workspace edit: whole-document replacements of these tests,
    created, renamed and deleted files."""
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            path = path_of(change.text_document.uri)
            text = path.read_text() if path.exists() else ""
            lines = text.splitlines(keepends=True)
            for text_edit in change.edits:
                assert isinstance(text_edit, types.TextEdit | types.AnnotatedTextEdit)
                start = sum(len(x) for x in lines[: text_edit.range.start.line])
                start += text_edit.range.start.character
                end = sum(len(x) for x in lines[: text_edit.range.end.line])
                end += text_edit.range.end.character
                text = text[:start] + text_edit.new_text + text[end:]
            path.write_text(text)
        elif isinstance(change, types.CreateFile):
            path_of(change.uri).write_text("")
        elif isinstance(change, types.RenameFile):
            path_of(change.old_uri).rename(path_of(change.new_uri))
        elif isinstance(change, types.DeleteFile):
            path_of(change.uri).unlink()


def editor(client: LanguageClient, labels: list[str]) -> None:
    client.feature("foehn/confirm")(lambda params: {"decision": "allow"})

    def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        labels.append(params.label or "")
        apply_edit(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    client.feature(types.WORKSPACE_APPLY_EDIT)(apply)


def sent_tasks(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user"]


def remembers(body: dict[str, Any]) -> Turn:
    said = json.dumps(body["messages"])
    return Turn(text="The codename is HELIX." if "codename HELIX" in said else "I do not know.")


async def test_a_conversation_is_saved_resumed_and_undone_in_the_editor(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(text="Noted."),
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(tool_calls=[EDIT]),
        Turn(text="Fixed."),
        remembers,
    )
    labels: list[str] = []
    events: list[Any] = []
    options = {"confirmRequest": True, "runEvents": True}
    async with lsp_client(app, model, init_options=options) as client:
        editor(client, labels)
        client.feature("foehn/runEvent")(lambda params: events.append(params))
        started = await command(client, "foehn.session.new", {})
        session = started["sessionId"]
        first = await command(
            client,
            "foehn.session.prompt",
            {"sessionId": session, "task": "Remember the codename HELIX.", "runId": "r1"},
        )
        assert (first["turn"], first["sessionId"], first["runId"]) == (1, session, "r1")
        second = await command(
            client, "foehn.run", {"task": "Fix the TODO.", "session": session, "runId": "r2"}
        )
        assert (second["stopReason"], second["turn"]) == ("answer", 2)
        third = await command(
            client,
            "foehn.session.prompt",
            {"sessionId": session, "task": "What was the codename?", "runId": "r3"},
        )
        assert third["answer"] == "The codename is HELIX."
        assert sent_tasks(model.requests[-1].body) == [
            "Remember the codename HELIX.",
            "Fix the TODO.",
            "What was the codename?",
        ]
        changed = [e for e in events if e.event == "files_changed" and e.runId == "r2"]
        assert [(f.path, f.change) for f in changed[0].files] == [("app.py", "modified")]
        assert {e.runId for e in events if e.event == "turn"} == {"r1", "r2", "r3"}

        listed = await command(client, "foehn.session.list")
        [summary] = listed["sessions"]
        assert (summary["id"], summary["turns"]) == (session, 3)
        assert summary["title"] == "Remember the codename HELIX."
        await command(client, "foehn.session.rename", session, "Codename and TODO")
        loaded = await command(client, "foehn.session.load", session)
        assert loaded["title"] == "Codename and TODO"
        assert [t["task"] for t in loaded["turns"]] == [
            "Remember the codename HELIX.",
            "Fix the TODO.",
            "What was the codename?",
        ]
        assert [f["path"] for f in loaded["turns"][1]["files"]] == ["app.py"]

        assert (app / "app.py").read_text() == "def main():\n    return 2\n"
        undone = await command(client, "foehn.session.undo", {"sessionId": session})
        assert undone["applied"]
        assert undone["undone"] == [2]
        assert undone["restored"] == ["app.py"]
        assert labels[-1] == "Foehn: undo turn 2: restore 1 file"
        assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"
        # The undo is a turn of its own, but not one the person asked: it is not counted.
        [summary] = (await command(client, "foehn.session.list"))["sessions"]
        assert summary["turns"] == 3
        further = await command(client, "foehn.session.undo", {"sessionId": session})
        assert not further["applied"]
        assert "undone already" in further["reason"]
        redone = await command(client, "foehn.session.undo", {"sessionId": session, "redo": True})
        assert (redone["applied"], redone["redone"], redone["undone"]) == (True, [2], [4])
        assert (app / "app.py").read_text() == "def main():\n    return 2\n"
        with pytest.raises(JsonRpcException, match="redo: true"):
            await command(
                client, "foehn.session.undo", {"sessionId": session, "redo": True, "toTurn": 1}
            )
        again = await command(client, "foehn.session.undo", {"sessionId": session})
        assert again["undone"] == [2]
        assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"

    model.script(remembers)
    async with lsp_client(app, model, init_options=options) as client:
        editor(client, labels)
        again = await command(
            client, "foehn.session.prompt", {"sessionId": session, "task": "And the codename?"}
        )
        assert again["answer"] == "The codename is HELIX."
        assert again["turn"] == 7
        tasks = sent_tasks(model.requests[-1].body)
        assert tasks[0] == "Remember the codename HELIX."
        assert tasks[-1].startswith("And the codename?")
        assert "The person undid turn 2" in tasks[-1]
        await command(client, "foehn.session.delete", session)
        assert (await command(client, "foehn.session.list"))["sessions"] == []


async def test_unknown_sessions_and_hand_edits_are_refused_clearly(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(tool_calls=[EDIT]),
        Turn(text="Fixed."),
    )
    async with lsp_client(app, model, init_options={"confirmRequest": True}) as client:
        editor(client, [])
        with pytest.raises(JsonRpcException, match="no session"):
            await command(client, "foehn.session.prompt", {"sessionId": "nope", "task": "x"})
        result = await command(client, "foehn.run", {"task": "Fix the TODO."})
        (app / "app.py").write_text("changed by hand\n")
        refused = await command(client, "foehn.session.undo", {"session": result["session"]})
        assert not refused["applied"]
        assert refused["conflicts"] == ["app.py"]
        forced = await command(
            client, "foehn.session.undo", {"session": result["session"], "force": True}
        )
        assert forced["applied"]
        assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"


async def test_one_file_is_undone_through_the_editor_and_the_rest_of_the_turn_stays(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(
            tool_calls=[
                ("write_file", {"path": "a.txt", "content": "a\n"}),
                ("write_file", {"path": "b.txt", "content": "b\n"}),
            ]
        ),
        Turn(text="Wrote both."),
    )
    labels: list[str] = []
    async with lsp_client(app, model, init_options={"confirmRequest": True}) as client:
        editor(client, labels)
        result = await command(client, "foehn.run", {"task": "Write a and b."})
        session = result["session"]
        with pytest.raises(JsonRpcException, match="paths"):
            await command(client, "foehn.session.undo", {"sessionId": session, "paths": "a.txt"})
        other = await command(
            client, "foehn.session.undo", {"sessionId": session, "paths": ["c.txt"]}
        )
        assert (other["applied"], other["reason"]) == (False, "turn 1 did not change c.txt")
        undone = await command(
            client, "foehn.session.undo", {"sessionId": session, "paths": ["a.txt"], "toTurn": 1}
        )
        assert (undone["applied"], undone["restored"], undone["undone"]) == (True, ["a.txt"], [1])
        assert labels[-1] == "Foehn: undo a.txt of turn 1: restore 1 file"
        assert not (app / "a.txt").exists()
        assert (app / "b.txt").read_text() == "b\n"
        loaded = await command(client, "foehn.session.load", {"sessionId": session})
        assert loaded["turns"][-1]["paths"] == ["a.txt"]


async def test_two_front_ends_prompting_one_session_get_busy(app: Path, model: ModelServer) -> None:
    released = threading.Event()

    def slow(body: dict[str, Any]) -> Turn:
        released.wait(60)
        return Turn(text="Slow answer.")

    model.script(slow)
    async with lsp_client(app, model) as client:
        session = (await command(client, "foehn.session.new", {}))["sessionId"]
        running = asyncio.ensure_future(
            command(client, "foehn.session.prompt", {"sessionId": session, "task": "slow"})
        )
        assert await asyncio.to_thread(model.wait_for_requests, 1)
        with pytest.raises(JsonRpcException, match="busy"):
            await command(client, "foehn.session.prompt", {"sessionId": session, "task": "x"})
        other = await asyncio.to_thread(
            foehn,
            "run", "from the terminal", "--session", session, "--workspace", str(app),
            server=model, state=app.parent / "state",
        )  # fmt: skip
        assert other.returncode == 1
        assert f"session {session} is busy" in other.stderr
        released.set()
        assert (await running)["answer"] == "Slow answer."
