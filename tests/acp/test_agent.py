"""``foehn acp`` end to end: the official SDK's client drives the real process over stdio, the
scripted model server plays the model, and the files are real."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import schema, text_block
from acp.exceptions import RequestError

from acp_harness import NEVER, EditorClient, acp_agent
from agent.turns import EDIT, READ
from foehn_lsp.testing import Fault, ModelServer, Turn

pytestmark = pytest.mark.process


def tool_results(model: ModelServer, request: int) -> list[dict[str, Any]]:
    """The tool results the agent sent the model in its ``request``-th request (from 0)."""
    messages = model.requests[request].body["messages"]
    return [m for m in messages if m["role"] == "tool"]


async def test_initialize_advertises_what_foehn_does(app: Path, model: ModelServer) -> None:
    client = EditorClient()
    async with acp_agent(app, model, client) as conn:
        answer = await conn.initialize(protocol_version=7)
        older = await conn.initialize(protocol_version=0)
    assert answer.protocol_version == 1
    assert older.protocol_version == 1
    capabilities = answer.agent_capabilities
    assert capabilities is not None
    assert capabilities.load_session is True
    assert capabilities.prompt_capabilities is not None
    assert capabilities.prompt_capabilities.embedded_context is True
    assert capabilities.prompt_capabilities.image is False
    assert answer.auth_methods == []
    assert answer.agent_info is not None
    assert answer.agent_info.name == "foehn"


async def test_a_missing_key_is_an_auth_method_and_session_new_says_so(
    app: Path, model: ModelServer
) -> None:
    client = EditorClient()
    async with acp_agent(app, model, client, env={"FOEHN_PROVIDER": "mistral"}) as conn:
        answer = await conn.initialize(protocol_version=1)
        [method] = answer.auth_methods or []
        assert method.model_dump(by_alias=True)["vars"][0]["name"] == "MISTRAL_API_KEY"
        with pytest.raises(RequestError) as refused:
            await conn.new_session(cwd=str(app), mcp_servers=[])
        with pytest.raises(RequestError) as still:
            await conn.authenticate(method_id="api-key")
        with pytest.raises(RequestError, match="methodId"):
            await conn.authenticate(method_id="oauth")
    assert refused.value.code == -32000
    assert "MISTRAL_API_KEY" in str(refused.value.data)
    assert still.value.code == -32000


async def test_a_client_without_fs_gets_disk_reads_and_writes(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(tool_calls=[EDIT]),
        Turn(text="Fixed."),
    )
    client = EditorClient(answers=["allow_once"])
    async with acp_agent(app, model, client, fs=False) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("Fix")])
    assert answer.stop_reason == "end_turn"
    assert (client.reads, client.writes) == ([], [])
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"
    finished = [u for u in client.of("tool_call_update") if u.get("status") == "completed"]
    assert finished[1]["content"][0]["oldText"] == "def main():\n    return 1  # TODO\n"


async def test_a_turn_reads_the_buffer_and_writes_an_approved_edit_through_the_client(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(tool_calls=[EDIT]),
        Turn(text="Fixed the TODO."),
    )
    path = str(app / "app.py")
    unsaved = "def main():\n    return 1  # TODO\n# unsaved line\n"
    client = EditorClient(answers=["allow_once"], buffers={path: unsaved})
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("Fix it")])
    assert answer.stop_reason == "end_turn"
    assert "# unsaved line" in tool_results(model, 1)[0]["content"]
    [asked] = client.permissions
    assert asked["announced"], "the call is sent as a tool_call before it is asked about"
    assert asked["toolCall"]["kind"] == "edit"
    assert asked["toolCall"]["content"] == [
        {
            "type": "diff",
            "path": path,
            "oldText": unsaved,
            "newText": "def main():\n    return 2\n# unsaved line\n",
        }
    ]
    assert [o["kind"] for o in asked["options"]] == [
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    ]
    assert client.writes == [(path, "def main():\n    return 2\n# unsaved line\n")]
    assert (app / "app.py").read_text() == "def main():\n    return 2\n# unsaved line\n"
    calls = client.of("tool_call")
    assert [(c["title"], c["kind"]) for c in calls] == [
        ("read_file app.py", "read"),
        ("edit_file app.py", "edit"),
    ]
    assert calls[1]["locations"] == [{"path": path}]
    assert calls[1]["rawInput"] == EDIT[1]
    finished = [u for u in client.of("tool_call_update") if u.get("status") == "completed"]
    assert [u["toolCallId"] for u in finished] == [c["toolCallId"] for c in calls]
    assert finished[1]["content"][0]["type"] == "diff"
    assert client.text() == "Fixed the TODO."
    meter = client.of("usage_update")[-1]
    assert 0 < meter["used"] < meter["size"]


async def test_a_denied_call_changes_nothing_and_the_model_hears_why(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Understood, I left it."))
    client = EditorClient(answers=["reject_once"])
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("Fix it")])
    assert answer.stop_reason == "end_turn"
    assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"
    assert client.writes == []
    [failed] = [u for u in client.of("tool_call_update") if u.get("status") == "failed"]
    assert "denied" in failed["rawOutput"]["output"]
    result = tool_results(model, 1)[-1]
    assert "denied" in result["content"]


async def test_cancel_while_a_permission_request_waits_ends_the_turn(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="unused"))
    client = EditorClient(answers=[NEVER])
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        turn = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Fix it")])
        )
        await client.until(lambda: bool(client.permissions))
        await conn.cancel(session_id=session.session_id)
        answer = await asyncio.wait_for(turn, 60)
    assert answer.stop_reason == "cancelled"
    assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"


async def test_cancel_during_a_running_program(app: Path, model: ModelServer) -> None:
    sleeper = ("run_command", {"command": ["sleep", "30"]})
    model.script(Turn(tool_calls=[sleeper]))
    client = EditorClient(answers=["allow_once"])
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        turn = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Wait")])
        )
        await client.until(lambda: any(u.get("status") == "in_progress" for u in client.updates))
        await conn.cancel(session_id=session.session_id)
        answer = await asyncio.wait_for(turn, 60)
    assert answer.stop_reason == "cancelled"
    [call] = client.of("tool_call")
    last = [u for u in client.of("tool_call_update") if u["toolCallId"] == call["toolCallId"]][-1]
    assert last["status"] == "failed"
    assert last["content"][0]["content"]["text"] == "not finished: the turn was stopped"


async def test_allow_always_saves_a_rule_for_exactly_its_scope(
    app: Path, model: ModelServer
) -> None:
    def edit(old: str, new: str) -> tuple[str, dict[str, Any]]:
        return ("edit_file", {"path": "app.py", "edits": [{"old_text": old, "new_text": new}]})

    model.script(
        Turn(tool_calls=[READ, EDIT]),
        Turn(tool_calls=[edit("return 2", "return 3")]),
        Turn(tool_calls=[("write_file", {"path": "new.py", "content": "x = 1\n"})]),
        Turn(text="Done."),
        Turn(tool_calls=[edit("return 3", "return 4")]),
        Turn(tool_calls=[("delete_path", {"path": "app.py"})]),
        Turn(text="Done again."),
    )
    client = EditorClient(answers=["allow_always", "reject_once", "reject_once"])
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        first = await conn.prompt(session_id=session.session_id, prompt=[text_block("Go")])
        second = await conn.prompt(session_id=session.session_id, prompt=[text_block("More")])
    assert (first.stop_reason, second.stop_reason) == ("end_turn", "end_turn")
    assert (app / "app.py").read_text() == "def main():\n    return 4\n"
    asked = [p["toolCall"]["title"] for p in client.permissions]
    assert asked == ["edit_file app.py", "write_file new.py", "delete_path app.py"]
    always = client.permissions[0]["options"][1]
    assert always["kind"] == "allow_always"
    assert always["name"] == (
        "Always allow: save the rule allow edit_file paths app.py (sandbox workspace-write) "
        "to your config"
    )
    assert not (app / "new.py").exists()


async def test_load_replays_the_history_in_a_new_process(app: Path, model: ModelServer) -> None:
    model.script(Turn(tool_calls=[("read_file", {"path": "app.py"})]), Turn(text="It returns 1."))
    first = EditorClient()
    async with acp_agent(app, model, first) as conn:
        await conn.new_session(cwd=str(app), mcp_servers=[])
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        await conn.new_session(cwd=str(app), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("What is main?")])
    model.script(Turn(text="Still 1."))
    second = EditorClient()
    async with acp_agent(app, model, second) as conn:
        listed = await conn.list_sessions(cwd=str(app))
        await conn.load_session(cwd=str(app), session_id=session.session_id, mcp_servers=[])
        replayed = list(second.updates)
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("And now?")])
    [info] = listed.sessions  # the two sessions nobody wrote in are not listed
    assert info.session_id == session.session_id
    assert info.title == "What is main?"
    assert info.cwd == await asyncio.to_thread(os.path.realpath, app)
    kinds = [u["sessionUpdate"] for u in replayed]
    assert kinds == [
        "user_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "available_commands_update",
    ]
    assert replayed[0]["content"]["text"] == "What is main?"
    assert replayed[1]["title"] == "read_file app.py"
    assert replayed[3]["content"]["text"] == "It returns 1."
    assert answer.stop_reason == "end_turn"
    sent = [m.get("content") for m in model.requests[-1].body["messages"]]
    assert "What is main?" in sent
    assert "It returns 1." in sent


async def test_load_replays_undo_and_redo_where_they_happened(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Fixed."), Turn(text="It returns 1."))
    first = EditorClient(answers=["allow_once"])
    async with acp_agent(app, model, first) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        for typed in ("Fix", "/undo", "/redo", "/undo", "What is main?"):
            await conn.prompt(session_id=session.session_id, prompt=[text_block(typed)])
    assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"
    second = EditorClient()
    async with acp_agent(app, model, second) as conn:
        await conn.load_session(cwd=str(app), session_id=session.session_id, mcp_servers=[])
    said = [
        (u["sessionUpdate"], u["content"]["text"].split("\n")[0])
        for u in second.updates
        if u["sessionUpdate"] in ("user_message_chunk", "agent_message_chunk")
    ]
    assert said[0] == ("user_message_chunk", "Fix")
    assert said[1] == ("agent_message_chunk", "Fixed.")
    assert said[2:8] == [
        ("user_message_chunk", "/undo"),
        ("agent_message_chunk", "Undid turn 1: put back app.py."),
        ("user_message_chunk", "/redo"),
        ("agent_message_chunk", "Redid turn 1: put back app.py."),
        ("user_message_chunk", "/undo"),
        ("agent_message_chunk", "Undid turn 1: put back app.py."),
    ]
    assert said[8][1].startswith("What is main?")
    assert said[9] == ("agent_message_chunk", "It returns 1.")


async def test_read_only_mode_refuses_edits_without_asking(app: Path, model: ModelServer) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="I cannot edit in read-only mode."))
    client = EditorClient(answers=["allow_once"])
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        assert session.modes is not None
        assert session.modes.current_mode_id == "ask"
        await conn.set_session_mode(session_id=session.session_id, mode_id="read-only")
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("Fix")])
        with pytest.raises(RequestError, match="modeId"):
            await conn.set_session_mode(session_id=session.session_id, mode_id="yolo")
    assert answer.stop_reason == "end_turn"
    assert client.permissions == []
    assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"


async def test_a_client_reading_only_config_options_reaches_read_only_mode(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="I cannot edit in read-only mode."))
    client = EditorClient(answers=["allow_once"])
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        assert session.config_options is not None
        [option] = session.config_options
        assert isinstance(option, schema.SessionConfigOptionSelect)
        assert (option.id, option.category, option.current_value) == ("mode", "mode", "ask")
        assert [o.value for o in option.options] == ["ask", "read-only", "plan"]
        changed = await conn.set_config_option(
            config_id="mode", session_id=session.session_id, value="read-only"
        )
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("Fix")])
        with pytest.raises(RequestError, match="configId"):
            await conn.set_config_option(
                config_id="model", session_id=session.session_id, value="x"
            )
        with pytest.raises(RequestError, match="unknown mode 'yolo'"):
            await conn.set_config_option(
                config_id="mode", session_id=session.session_id, value="yolo"
            )
        # The modes follow: a client that reads modes sees the change too, and back.
        await conn.set_session_mode(session_id=session.session_id, mode_id="ask")
        loaded = await conn.load_session(
            cwd=str(app), session_id=session.session_id, mcp_servers=[]
        )
    assert [o.current_value for o in changed.config_options] == ["read-only"]
    assert [u["currentModeId"] for u in client.of("current_mode_update")] == ["read-only"]
    [update] = client.of("config_option_update")
    assert update["configOptions"][0]["currentValue"] == "ask"
    assert loaded.modes is not None
    assert loaded.modes.current_mode_id == "ask"
    assert loaded.config_options is not None
    assert loaded.config_options[0].current_value == "ask"
    assert answer.stop_reason == "end_turn"
    assert client.permissions == []
    assert client.writes == []
    assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"


async def test_limits_map_to_stop_reasons_and_say_why(app: Path, model: ModelServer) -> None:
    read = ("read_file", {"path": "app.py"})
    model.script(
        Turn(tool_calls=[read]),
        Turn(tool_calls=[read]),
        Turn(tool_calls=[read]),
        Turn(text="I kept reading the same file."),
    )
    client = EditorClient()
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("Loop")])
    assert answer.stop_reason == "end_turn"
    assert "Stopped: read_file was called 3 times in a row" in client.text()


async def test_a_provider_error_is_an_error_response(app: Path, model: ModelServer) -> None:
    model.script(Fault(status=401))
    client = EditorClient()
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        with pytest.raises(RequestError) as failed:
            await conn.prompt(session_id=session.session_id, prompt=[text_block("Hi")])
    assert "401" in str(failed.value) or "key" in str(failed.value).lower()


async def test_bad_requests_get_clear_errors(app: Path, model: ModelServer) -> None:
    model.script(Fault(delay=30, then=Turn(text="late")))
    client = EditorClient()
    async with acp_agent(app, model, client) as conn:
        with pytest.raises(RequestError) as unknown:
            await conn.prompt(session_id="nope", prompt=[text_block("Hi")])
        assert unknown.value.code == -32602
        assert "unknown session" in str(unknown.value)
        with pytest.raises(RequestError, match="cwd"):
            await conn.new_session(cwd="relative/path", mcp_servers=[])
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        with pytest.raises(RequestError, match="image"):
            await conn.prompt(
                session_id=session.session_id,
                prompt=[
                    text_block("look"),
                    schema.ImageContentBlock(type="image", data="", mime_type="image/png"),
                ],
            )
        turn = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Slow")])
        )
        await asyncio.to_thread(model.wait_for_requests, 1)
        with pytest.raises(RequestError, match="busy"):
            await conn.prompt(session_id=session.session_id, prompt=[text_block("Again")])
        await conn.cancel(session_id=session.session_id)
        assert (await asyncio.wait_for(turn, 60)).stop_reason == "cancelled"


async def test_an_unanswered_permission_request_times_out_as_a_denial(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="No answer, so I left it."))
    client = EditorClient(answers=[NEVER])
    async with acp_agent(app, model, client, args=("--permission-timeout", "1")) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("Fix")])
    assert answer.stop_reason == "end_turn"
    assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"
    result = tool_results(model, 1)[-1]
    assert "no answer within 1 seconds" in result["content"]


@pytest.mark.parametrize("ending", ["stdin closed", "SIGTERM"])
async def test_a_client_that_goes_away_ends_the_turn_and_the_session_is_saved(
    app: Path, model: ModelServer, ending: str
) -> None:
    model.script(Fault(delay=30, then=Turn(text="too late")))
    first = EditorClient()
    async with acp_agent(app, model, first) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        turn = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[text_block("A long task")])
        )
        await asyncio.to_thread(model.wait_for_requests, 1)
        if ending == "SIGTERM":
            assert first.process is not None
            first.process.terminate()
            async with asyncio.timeout(60):
                await first.process.wait()
    turn.cancel()
    second = EditorClient()
    async with acp_agent(app, model, second) as conn:
        await conn.load_session(cwd=str(app), session_id=session.session_id, mcp_servers=[])
    [said] = second.of("user_message_chunk")
    assert said["content"]["text"] == "A long task"


async def test_mcp_servers_from_the_client_are_used_or_reported(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(text="Hello."))
    clock = schema.McpServerStdio(
        name="clock", command=sys.executable, args=["-m", "mcp_server_time"], env=[]
    )
    legacy = schema.SseMcpServer(
        type="sse", name="legacy", url="http://127.0.0.1:9/sse", headers=[]
    )
    client = EditorClient()
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[clock, legacy])
        notes = (session.field_meta or {}).get("foehn", {}).get("notes", [])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Hi")])
    assert notes == ["legacy: sse servers are not supported (stdio and http are)"]
    offered = {tool["function"]["name"] for tool in model.requests[0].body["tools"]}
    assert "mcp__clock__get_current_time" in offered
    assert client.text().startswith(f"[Foehn] {notes[0]}")


async def test_undo_redo_and_compact_are_slash_commands(app: Path, model: ModelServer) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Fixed."))
    client = EditorClient(answers=["allow_once"])
    async with acp_agent(app, model, client) as conn:
        session = await conn.new_session(cwd=str(app), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Fix")])
        [offered] = client.of("available_commands_update")
        assert [c["name"] for c in offered["availableCommands"]] == ["undo", "redo", "compact"]
        assert (app / "app.py").read_text() == "def main():\n    return 2\n"
        undone = await conn.prompt(session_id=session.session_id, prompt=[text_block("/undo")])
        said = client.of("agent_message_chunk")[-1]["content"]["text"]
        assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"
        again = await conn.prompt(session_id=session.session_id, prompt=[text_block("/undo")])
        further = client.of("agent_message_chunk")[-1]["content"]["text"]
        redone = await conn.prompt(session_id=session.session_id, prompt=[text_block("/redo")])
        said_redo = client.of("agent_message_chunk")[-1]["content"]["text"]
        assert (app / "app.py").read_text() == "def main():\n    return 2\n"
        nothing = await conn.prompt(session_id=session.session_id, prompt=[text_block("/undo 9")])
        refused = client.of("agent_message_chunk")[-1]["content"]["text"]
        compacted = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("/compact")]
        )
        meter = client.of("agent_message_chunk")[-1]["content"]["text"]
        with pytest.raises(RequestError, match="turn number"):
            await conn.prompt(session_id=session.session_id, prompt=[text_block("/undo all")])
    assert (undone.stop_reason, nothing.stop_reason, compacted.stop_reason) == ("end_turn",) * 3
    assert said.startswith("Undid turn 1: put back app.py.")
    assert "/redo puts it back" in said
    # A second /undo goes further back (there is nothing before turn 1); it does not redo.
    assert (again.stop_reason, redone.stop_reason) == ("end_turn", "end_turn")
    assert further == (
        "Nothing was undone: every turn that changed files is undone already; redo takes the "
        "last undo back."
    )
    assert said_redo.startswith("Redid turn 1: put back app.py.")
    assert client.writes[-1] == (str(app / "app.py"), "def main():\n    return 2\n")
    assert refused.startswith("Nothing was undone: there is no turn 9")
    assert meter.startswith("Nothing to compact yet; context ")  # one short turn so far
