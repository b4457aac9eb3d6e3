"""The pure converters between Foehn's types and the ACP schema, checked against the official
SDK's models (what goes on the wire is what they serialise)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from acp import schema
from acp.helpers import resource_block, resource_link_block, text_block

from foehn_lsp.acp import convert
from foehn_lsp.events import (
    ApprovalEvent,
    Done,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from foehn_lsp.policy.approval import ApprovalRequest, Approved, Denied
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.sessions.session import RestoreReport
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.tools.plans import FilePreview
from foehn_lsp.workspace import Workspace


def wire(update: Any) -> dict[str, Any]:
    """The update as the SDK sends it inside ``session/update``, read back by the SDK."""
    notification = schema.SessionNotification(session_id="s1", update=update)
    data = notification.model_dump(mode="json", by_alias=True, exclude_none=True)
    schema.SessionNotification.model_validate(data)
    result: dict[str, Any] = data["update"]
    return result


def test_tools_show_the_kind_they_declare_and_others_follow_their_risk(
    registry: ToolRegistry,
) -> None:
    def kind(tool: str, risk: str) -> str:
        declared = registry.get(tool)
        return convert.tool_kind(declared.kind if declared else None, tool, risk)

    assert kind("read_file", "read_only") == "read"
    assert kind("search", "read_only") == "search"
    assert kind("edit_file", "write") == "edit"
    assert kind("move_path", "destructive") == "move"
    assert kind("delete_path", "destructive") == "delete"
    assert kind("run_command", "read_only") == "execute"
    assert kind("docs_fetch_page", "read_only") == "fetch"
    assert kind("mcp_lookup", "read_only") == "read"
    assert kind("mcp_lookup", "write") == "other"


def test_titles_name_the_call() -> None:
    assert convert.tool_title("run_command", {"command": ["pytest", "-q"]}) == (
        "run_command: pytest -q"
    )
    assert convert.tool_title("git", {"args": ["status"]}) == "git: status"
    assert convert.tool_title("move_path", {"source": "a", "destination": "b"}) == (
        "move_path a → b"
    )
    assert convert.tool_title("read_file", {"path": "app.py"}) == "read_file app.py"
    assert convert.tool_title("search", {"pattern": "TODO"}) == "search 'TODO'"
    assert convert.tool_title("scan", "not json") == "scan"
    assert len(convert.tool_title("write_file", {"path": "x" * 500})) == 200


def test_locations_are_absolute_and_stay_inside(root: Path, canary: Path) -> None:
    (root / "app.py").write_text("x\n")
    os.symlink(canary / "secret.txt", root / "leak.txt")
    workspace = Workspace([root])
    found = convert.tool_locations(
        {"path": "app.py", "source": "../canary/secret.txt", "destination": "leak.txt"},
        workspace,
    )
    assert [location.path for location in found] == [str(root / "app.py")]
    assert convert.tool_locations({"paths": ["app.py", 3]}, workspace)[0].path == str(
        root / "app.py"
    )


def test_tool_call_event_becomes_a_pending_tool_call(root: Path) -> None:
    (root / "app.py").write_text("x\n")
    event = ToolCallEvent(
        id="c1",
        tool="edit_file",
        arguments={"path": "app.py", "edits": []},
        risk="write",
        tool_kind="edit",
    )
    [update] = convert.event_updates(event, Workspace([root]))
    assert wire(update) == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "edit_file app.py",
        "kind": "edit",
        "status": "pending",
        "locations": [{"path": str(root / "app.py")}],
        "rawInput": {"path": "app.py", "edits": []},
    }


def test_a_result_carries_status_output_and_the_diff_of_what_it_changed(root: Path) -> None:
    preview = FilePreview(path=root / "app.py", before="a\n", after="b\n")
    done = ToolResultEvent(id="c1", tool="edit_file", ok=True, output="edit app.py")
    [update] = convert.event_updates(done, Workspace([root]), [preview])
    data = wire(update)
    assert data["status"] == "completed"
    assert data["content"] == [
        {"type": "diff", "path": str(root / "app.py"), "oldText": "a\n", "newText": "b\n"},
        {"type": "content", "content": {"type": "text", "text": "edit app.py"}},
    ]
    assert data["rawOutput"] == {"ok": True, "output": "edit app.py"}
    failed = ToolResultEvent(id="c2", tool="read_file", ok=False, output="no such file")
    assert wire(convert.event_updates(failed, Workspace([root]))[0])["status"] == "failed"


def test_a_new_file_diff_has_no_old_text(root: Path) -> None:
    [content] = convert.diff_content([FilePreview(path=root / "n.py", before=None, after="x")])
    assert content.model_dump(by_alias=True, exclude_none=True) == {
        "type": "diff",
        "path": str(root / "n.py"),
        "newText": "x",
    }


def test_text_approval_usage_and_the_rest(root: Path) -> None:
    workspace = Workspace([root])
    [chunk] = convert.event_updates(TextDelta(text="Hel"), workspace)
    assert wire(chunk) == {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "Hel"},
    }
    [running] = convert.event_updates(
        ApprovalEvent(id="c1", tool="edit_file", decision="allow"), workspace
    )
    assert wire(running) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "in_progress",
    }
    assert convert.event_updates(ApprovalEvent(id="c1", tool="x", decision="deny"), workspace) == []
    assert convert.event_updates(Done(reason="answer", answer="", iterations=0), workspace) == []
    usage = UsageEvent(input_tokens=10, output_tokens=5, total_tokens=15, budget=1000)
    assert convert.event_updates(usage, workspace) == []
    known = UsageEvent(
        input_tokens=10,
        output_tokens=5,
        total_tokens=15,
        budget=1000,
        window=32_000,
        context_tokens=1_200,
        cost=0.25,
    )
    [meter] = convert.event_updates(known, workspace)
    assert wire(meter) == {
        "sessionUpdate": "usage_update",
        "used": 1_200,
        "size": 32_000,
        "cost": {"amount": 0.25, "currency": "USD"},
    }


def test_stop_reasons_are_mapped_honestly() -> None:
    assert convert.stop_reason("answer") == "end_turn"
    assert convert.stop_reason("max_iterations") == "max_turn_requests"
    assert convert.stop_reason("budget") == "max_tokens"
    assert convert.stop_reason("cancelled") == "cancelled"
    assert convert.stop_reason("repeated_call") == "end_turn"
    with pytest.raises(ValueError, match="error"):
        convert.stop_reason("error")


def test_a_limit_says_why_it_stopped() -> None:
    answer = "Stopped: read_file was called 3 times in a row.\n\nI looked at app.py."
    assert convert.stop_note("repeated_call", answer) == (
        "\n\nStopped: read_file was called 3 times in a row."
    )
    assert convert.stop_note("answer", "Done.") is None


def test_prompt_blocks_become_task_and_labelled_context(root: Path) -> None:
    workspace = Workspace([root])
    blocks = [
        text_block("Fix the bug"),
        resource_block(
            schema.TextResourceContents(uri=(root / "app.py").as_uri(), text="def f(): pass")
        ),
        resource_link_block(name="notes.md", uri=(root / "notes.md").as_uri()),
        resource_link_block(name="spec", uri="https://example.org/spec"),
    ]
    asked = convert.prompt_input(blocks, workspace)
    assert asked.text == "Fix the bug"
    assert asked.context == (
        "Attached app.py:\n```\ndef f(): pass\n```\n\nReferenced: notes.md\n\n"
        "Referenced: https://example.org/spec (spec)"
    )


def test_prompt_blocks_that_were_not_advertised_are_refused(root: Path) -> None:
    blocks = [text_block("look"), schema.ImageContentBlock(type="image", data="", mime_type="x")]
    with pytest.raises(convert.UnsupportedContent, match=r"prompt\[1\]: image"):
        convert.prompt_input(blocks, Workspace([root]))


def request(**fields: Any) -> ApprovalRequest:
    values: dict[str, Any] = {
        "call_id": "c1",
        "tool": "run_command",
        "arguments": {"command": ["touch", "x"]},
        "risk": "write",
        "program": "touch",
        "sandbox": "workspace-write",
        "remember": "run_command calls that run `touch`, at risk write, in the "
        "workspace-write sandbox",
    }
    values.update(fields)
    return ApprovalRequest(**values)


def test_permission_options_say_what_always_covers() -> None:
    options = convert.permission_options(request())
    assert [(o.option_id, o.kind) for o in options] == [
        ("allow_once", "allow_once"),
        ("allow_always", "allow_always"),
        ("reject_once", "reject_once"),
        ("reject_always", "reject_always"),
    ]
    assert options[1].name == (
        "Always allow run_command calls that run `touch`, at risk write, in the "
        "workspace-write sandbox, this session"
    )
    full = convert.permission_options(request(sandbox="full"))
    assert "FULL ACCESS" in full[1].name


def answer(outcome: dict[str, Any]) -> schema.RequestPermissionResponse:
    return schema.RequestPermissionResponse.model_validate({"outcome": outcome})


def test_choices_map_onto_decisions_and_anything_else_is_a_denial() -> None:
    plain, full = request(), request(sandbox="full")

    def decide(outcome: dict[str, Any], about: ApprovalRequest = plain) -> object:
        return convert.decision_for(convert.permission_choice(answer(outcome)), about)

    assert decide({"outcome": "selected", "optionId": "allow_once"}) == Approved(scope="once")
    assert decide({"outcome": "selected", "optionId": "allow_always"}) == Approved(scope="run")
    assert decide({"outcome": "selected", "optionId": "allow_always"}, full) == Approved(
        scope="run", full_access=True
    )
    assert isinstance(decide({"outcome": "selected", "optionId": "reject_once"}), Denied)
    assert isinstance(decide({"outcome": "selected", "optionId": "reject_always"}), Denied)
    assert decide({"outcome": "cancelled"}) == Denied(reason="the permission request was cancelled")
    assert isinstance(decide({"outcome": "selected", "optionId": "yes please"}), Denied)


def test_the_permission_request_shows_the_diff(root: Path) -> None:
    asked = request(
        tool="edit_file",
        kind="edit",
        arguments={"path": "app.py"},
        files=(FilePreview(path=root / "app.py", before="a\n", after="b\n"),),
        preview="--- a/app.py\n+++ b/app.py",
    )
    call = convert.permission_tool_call(asked, Workspace([root]))
    data = call.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert data["content"] == [
        {"type": "diff", "path": str(root / "app.py"), "oldText": "a\n", "newText": "b\n"}
    ]
    assert data["kind"] == "edit"
    assert data["rawInput"] == {"path": "app.py"}


def test_history_replays_as_updates(root: Path) -> None:
    messages: list[Message] = [
        SystemMessage(content="You are Foehn."),
        UserMessage(content="Read app.py"),
        AssistantMessage(
            content="Reading.",
            tool_calls=(ToolCall(id="c1", name="read_file", arguments='{"path": "app.py"}'),),
        ),
        ToolResultMessage(call_id="c1", name="read_file", content="no such file", is_error=True),
        AssistantMessage(content="It does not exist."),
    ]
    updates = [wire(u) for u in convert.history_updates(messages, Workspace([root]))]
    assert [u["sessionUpdate"] for u in updates] == [
        "user_message_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
    ]
    assert updates[0]["content"]["text"] == "Read app.py"
    assert updates[2]["title"] == "read_file app.py"
    assert updates[2]["rawInput"] == {"path": "app.py"}
    assert updates[3]["status"] == "failed"
    assert updates[4]["content"]["text"] == "It does not exist."


def test_client_mcp_servers_become_foehn_server_entries() -> None:
    servers = [
        schema.McpServerStdio(
            name="clock",
            command="uvx",
            args=["mcp-server-time"],
            env=[schema.EnvVariable(name="TZ", value="UTC")],
        ),
        schema.HttpMcpServer(
            type="http",
            name="docs",
            url="https://docs.example/mcp",
            headers=[schema.HttpHeader(name="Authorization", value="Bearer abc")],
        ),
        schema.SseMcpServer(type="sse", name="old", url="https://x/sse", headers=[]),
        schema.McpServerStdio(name="a/b", command="x", args=[], env=[]),
        schema.HttpMcpServer(type="http", name="ftp", url="ftp://x", headers=[]),
    ]
    configs, refused = convert.mcp_servers(servers)
    assert set(configs) == {"clock", "docs"}
    assert configs["clock"].command == "uvx"
    assert configs["clock"].args == ("mcp-server-time",)
    assert configs["clock"].env["TZ"].get_secret_value() == "UTC"
    assert configs["docs"].headers["Authorization"].get_secret_value() == "Bearer abc"
    assert refused[0] == "old: sse servers are not supported (stdio and http are)"
    assert refused[1].startswith("'a/b': a server name")
    assert refused[2].startswith("ftp: ")
    assert "http://" in refused[2]


def test_slash_commands_are_recognised_and_checked() -> None:
    assert convert.slash_command("/undo") == convert.Command(name="undo")
    assert convert.slash_command("/undo 3") == convert.Command(name="undo", turn=3)
    assert convert.slash_command(" /compact ") == convert.Command(name="compact")
    assert convert.slash_command("/redo") == convert.Command(name="redo")
    assert convert.slash_command("/undone work") is None
    assert convert.slash_command("please /undo") is None
    with pytest.raises(convert.UnsupportedContent, match="turn number"):
        convert.slash_command("/undo everything")
    with pytest.raises(convert.UnsupportedContent, match="no argument"):
        convert.slash_command("/compact now")
    with pytest.raises(convert.UnsupportedContent, match="/redo takes no argument"):
        convert.slash_command("/redo 2")


def test_an_undo_report_in_words() -> None:
    done = RestoreReport(applied=True, undone=(2, 3), turn=5, restored=("a.py", "b.py"))
    assert convert.undo_message(done) == (
        "Undid turns 2, 3: put back a.py, b.py. /undo again goes one turn further back; "
        "/redo puts it back."
    )
    redone = RestoreReport(applied=True, undone=(5,), redone=(2, 3), turn=6, restored=("a.py",))
    assert convert.undo_message(redone, redo=True) == (
        "Redid turns 2, 3: put back a.py. /redo again for the undo before it."
    )
    partly = RestoreReport(
        applied=True,
        undone=(1,),
        unrestorable=("c.bin",),
        reason="every file was already as before",
    )
    assert convert.undo_message(partly) == (
        "Undid turn 1: every file was already as before. Could not put back (a program "
        "changed them): c.bin."
    )
    refused = RestoreReport(applied=False, reason="no turn changed any file; nothing to undo")
    assert convert.undo_message(refused) == (
        "Nothing was undone: no turn changed any file; nothing to undo."
    )
