"""The language server end to end: a real client over stdio, a real model server, real files."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from agent.turns import EDIT, READ
from foehn_lsp.testing import Fault, ModelServer, Turn
from lsp.harness import apply_to_disk, lsp_client, run

pytestmark = pytest.mark.process


def text_edits(
    edit: types.WorkspaceEdit,
) -> list[tuple[types.TextDocumentEdit, list[types.TextEdit | types.AnnotatedTextEdit]]]:
    """The text document edits in ``edit`` (none of them snippets)."""
    found = []
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            edits = [
                e for e in change.edits if isinstance(e, types.TextEdit | types.AnnotatedTextEdit)
            ]
            assert len(edits) == len(change.edits)
            found.append((change, edits))
    return found


async def test_tools_and_commands_are_advertised(app: Path, model: ModelServer) -> None:
    async with lsp_client(app, model) as client:
        result: Any = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="foehn.tools", arguments=[])
        )
        names = [t["name"] for t in result["tools"]]
        assert {"scan", "read_file", "edit_file", "search"} <= set(names)
        assert result["problems"] == []
        assert result["auditLog"].endswith(".jsonl")
        capabilities = client.initialize_result.capabilities  # type: ignore[attr-defined]
        provider = capabilities.execute_command_provider
        assert provider is not None
        assert set(provider.commands) >= {"foehn.run", "foehn.cancel", "foehn.tools"}


async def test_a_run_answers_with_progress_events_and_a_message(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[("scan", {"pattern": "*.py"})]), Turn(text="One file: app.py."))
    async with lsp_client(app, model) as client:
        received: list[dict[str, Any]] = []
        client.feature("foehn/runEvent")(lambda params: received.append(params))
        result = await run(client, "list the files")
        assert result["answer"] == "One file: app.py."
        assert result["stopReason"] == "answer"
        assert result["iterations"] == 1
        assert result["runId"]
        await asyncio.sleep(0)
        kinds = [
            event._asdict()["event"] if hasattr(event, "_asdict") else event["event"]
            for event in received
        ]
        assert kinds[:2] == ["turn", "thinking"]
        assert "tool_call" in kinds
        assert kinds[-1] == "done"
        [(token, reports)] = client.progress_reports.items()
        assert str(token).startswith("foehn-")
        assert isinstance(reports[0], types.WorkDoneProgressBegin)
        assert reports[0].cancellable
        messages = [r.message for r in reports if isinstance(r, types.WorkDoneProgressReport)]
        assert "Calling scan…" in messages
        assert isinstance(reports[-1], types.WorkDoneProgressEnd)
        assert any("One file: app.py." in m.message for m in client.messages)


async def test_palette_calls_without_a_task_are_refused(app: Path, model: ModelServer) -> None:
    async with lsp_client(app, model) as client:
        with pytest.raises(JsonRpcException, match=r"foehn\.run takes one argument"):
            await run(client)


async def test_confirm_request_shows_the_diff_and_the_edit_goes_through_the_editor(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(tool_calls=[EDIT]),
        Turn(text="Done."),
    )
    confirmations: list[Any] = []
    edits: list[types.ApplyWorkspaceEditParams] = []
    async with lsp_client(app, model, init_options={"confirmRequest": True}) as client:

        @client.feature("foehn/confirm")
        def confirm(params: Any) -> dict[str, str]:
            confirmations.append(params)
            return {"decision": "allow"}

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            edits.append(params)
            apply_to_disk(params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

        result = await run(client, "fix the TODO")
    assert result["stopReason"] == "answer"
    [asked] = confirmations
    assert asked.tool == "edit_file"
    assert asked.risk == "write"
    assert asked.arguments.path == "app.py"
    assert "+    return 2" in asked.preview.diff
    [file] = asked.preview.files
    assert file.uri == (app / "app.py").as_uri()
    assert file.before == "def main():\n    return 1  # TODO\n"
    assert file.after == "def main():\n    return 2\n"
    [applied] = edits
    assert applied.label == "Foehn: edit app.py (1 block)"
    [(_, [text_edit])] = text_edits(applied.edit)
    assert isinstance(text_edit, types.AnnotatedTextEdit)
    assert text_edit.new_text == "2"
    assert text_edit.range.start == types.Position(line=1, character=11)
    assert text_edit.annotation_id == "foehn"
    assert applied.edit.change_annotations is not None
    assert applied.edit.change_annotations["foehn"].label == "Foehn: edit_file"
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"


@pytest.mark.parametrize(
    ("answer", "applied"),
    [
        ("Allow", True),
        ("Allow for this run", True),
        ("Always allow (save the rule)", True),
        ("Deny", False),
        (None, False),
    ],
)
async def test_show_message_request_is_the_fallback(
    app: Path, model: ModelServer, answer: str | None, applied: bool
) -> None:
    model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="ok"))
    async with lsp_client(app, model) as client:
        asked: list[types.ShowMessageRequestParams] = []

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        def choose(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
            asked.append(params)
            return types.MessageActionItem(title=answer) if answer else None

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            apply_to_disk(params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

        await run(client, "fix")
    assert [a.title for a in asked[0].actions or []] == [
        "Allow",
        "Allow for this run",
        "Always allow (save the rule)",
        "Deny",
    ]
    assert "edit_file (write)" in asked[0].message
    assert asked[0].message.endswith(
        "'Always allow (save the rule)' saves to your config: allow edit_file paths app.py "
        "(sandbox workspace-write)."
    )
    saved = app.parent / "config" / "foehn" / "config.toml"
    assert saved.exists() is (answer == "Always allow (save the rule)")
    assert ("return 2" in (app / "app.py").read_text()) is applied


async def test_a_rejected_edit_is_a_failed_result_the_model_sees(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(tool_calls=[READ, EDIT]), Turn(text="It was rejected."), Turn(text="It was rejected.")
    )
    async with lsp_client(app, model, init_options={"confirmRequest": True}) as client:
        client.feature("foehn/confirm")(lambda params: {"decision": "allow"})
        client.feature(types.WORKSPACE_APPLY_EDIT)(
            lambda params: types.ApplyWorkspaceEditResult(
                applied=False, failure_reason="read-only file"
            )
        )
        await run(client, "fix")
    tool_result = [m for m in model.requests[1].body["messages"] if m["role"] == "tool"][-1]
    assert "the editor did not apply the edit: read-only file" in tool_result["content"]
    assert "No file was changed." in tool_result["content"]
    assert "TODO" in (app / "app.py").read_text()


async def test_reads_and_edits_use_the_unsaved_buffer(app: Path, model: ModelServer) -> None:
    model.script(
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(
            tool_calls=[
                (
                    "edit_file",
                    {"path": "app.py", "edits": [{"old_text": "unsaved", "new_text": "edited"}]},
                )
            ]
        ),
        Turn(text="ok"),
    )
    edits: list[types.ApplyWorkspaceEditParams] = []
    async with lsp_client(
        app, model, configuration={"userLevel": {"approval": {"write": "allow"}}}
    ) as client:

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            edits.append(params)
            return types.ApplyWorkspaceEditResult(applied=True)

        uri = (app / "app.py").as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=7, text="x = 'unsaved'\n"
                )
            )
        )
        await run(client, "edit")
    tool_result = [m for m in model.requests[1].body["messages"] if m["role"] == "tool"][-1]
    assert "(unsaved editor buffer)" in tool_result["content"]
    assert "x = 'unsaved'" in tool_result["content"]
    [applied] = edits
    [(document_edit, [text_edit])] = text_edits(applied.edit)
    assert document_edit.text_document.version == 7
    assert text_edit.new_text == "edit"
    assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"


async def test_code_actions_offer_explain_refactor_and_fix(app: Path, model: ModelServer) -> None:
    uri = (app / "app.py").as_uri()
    selection = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=1, character=5)
    )
    diagnostic = types.Diagnostic(range=selection, message="undefined name 'x'", source="pyflakes")
    async with lsp_client(app, model) as client:
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=selection,
                context=types.CodeActionContext(diagnostics=[diagnostic]),
            )
        )
        assert actions is not None
        titles = [a.title for a in actions]
        assert titles == [
            "Foehn: Explain selection",
            "Foehn: Refactor selection…",
            "Foehn: Fix 'undefined name 'x''",
        ]
        fix = actions[2]
        assert isinstance(fix, types.CodeAction)
        assert fix.command is not None
        arguments: list[Any] = list(fix.command.arguments or [])
        [argument] = arguments
        assert argument["uri"] == uri
        assert argument["diagnostic"]["message"] == "undefined name 'x'"
        empty = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(start=selection.start, end=selection.start),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        assert not empty
        model.script(Turn(text="It returns 1."))
        await run(client, argument)
    user = model.requests[0].body["messages"][1]["content"]
    assert user.startswith("Fix this problem: undefined name 'x'")
    assert "Selected lines 1-2:\n     1\tdef main():" in user
    assert "Diagnostic from pyflakes: undefined name 'x'" in user


async def _cancel_case(app: Path, model: ModelServer, how: str) -> dict[str, Any]:
    """The run's result after it is cancelled ``how``; the model would answer after 60 s, so a
    run that ends within the 20 s waited for was stopped by the cancel."""
    model.script(Fault(delay=60, then=Turn(text="too late")))
    async with lsp_client(app, model) as client:
        done = asyncio.Event()
        finished: list[Any] = []

        def on_event(params: Any) -> None:
            if params.event == "done":
                finished.append(params)
                done.set()

        client.feature("foehn/runEvent")(on_event)
        if how == "request":
            pending = asyncio.ensure_future(
                client.protocol.send_request_async(
                    types.WORKSPACE_EXECUTE_COMMAND,
                    types.ExecuteCommandParams(command="foehn.run", arguments=["wait"]),
                    msg_id="run-1",
                )
            )
        else:
            pending = asyncio.ensure_future(run(client, "wait"))
        assert await asyncio.to_thread(model.wait_for_requests, 1)
        if how == "progress":
            # The server creates the run's progress as the run starts; on a busy machine that
            # may reach the client after the model's first request. pytest-lsp records it with
            # no event to wait on.
            async with asyncio.timeout(20):
                while not client.progress_reports:  # noqa: ASYNC110
                    await asyncio.sleep(0.05)
            [token] = client.progress_reports
            client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        elif how == "request":
            client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="run-1"))
        else:
            cancelled: Any = await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="foehn.cancel", arguments=[])
            )
            assert len(cancelled["cancelled"]) == 1
        await asyncio.wait_for(done.wait(), timeout=20)
        result: dict[str, Any]
        try:
            result = await asyncio.wait_for(pending, timeout=20)
        except JsonRpcException:
            result = {"stopReason": finished[0].reason}
    return result


@pytest.mark.parametrize("how", ["progress", "request", "command"])
async def test_each_way_of_cancelling_stops_the_run(
    app: Path, model: ModelServer, how: str
) -> None:
    result = await _cancel_case(app, model, how)
    assert result["stopReason"] == "cancelled"


async def test_settings_come_from_the_editor_and_follow_changes(
    app: Path, model: ModelServer
) -> None:
    model.script(
        Turn(tool_calls=[("scan", {})]),
        Turn(tool_calls=[("scan", {"path": "."})]),
        Turn(text="summary"),
    )
    configuration = {"maxToolIterations": 1, "provider": "", "model": "", "baseUrl": ""}
    async with lsp_client(app, model, configuration=configuration) as client:
        result = await run(client, "scan twice")
        assert result["stopReason"] == "max_iterations"
        client.set_configuration({"userLevel": {"approval": {"write": "deny"}}}, section="foehn")
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await asyncio.sleep(0.5)
        model.script(Turn(tool_calls=[READ, EDIT]), Turn(text="denied"))
        await run(client, "fix")
    tool_result = [m for m in model.requests[-1].body["messages"] if m["role"] == "tool"][-1]
    assert "policy denies write calls" in tool_result["content"]


def _held(gate: threading.Event, text: str) -> Callable[[dict[str, Any]], Turn]:
    """A reply of ``text`` that waits until ``gate`` opens (at most a minute)."""

    def reply(_body: dict[str, Any]) -> Turn:
        gate.wait(timeout=60)
        return Turn(text=text)

    return reply


async def test_runs_in_parallel_and_the_server_stays_responsive(
    app: Path, model: ModelServer
) -> None:
    gate = threading.Event()
    model.script(_held(gate, "first"), _held(gate, "2nd"))
    async with lsp_client(app, model) as client:
        runs = [asyncio.ensure_future(run(client, f"task {n}")) for n in range(2)]
        assert await asyncio.to_thread(model.wait_for_requests, 2)
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=(app / "app.py").as_uri()),
                range=types.Range(
                    start=types.Position(line=0, character=0),
                    end=types.Position(line=0, character=3),
                ),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        assert actions
        assert not any(r.done() for r in runs), "answered while both runs wait for their model"
        gate.set()
        answers = sorted(r["answer"] for r in await asyncio.gather(*runs))
    assert answers == ["2nd", "first"]


async def test_a_missing_key_is_one_clear_error(app: Path, model: ModelServer) -> None:
    async with lsp_client(
        app, model, env={"FOEHN_PROVIDER": "mistral", "MISTRAL_API_KEY": ""}
    ) as client:
        result = await run(client, "x")
        assert result["stopReason"] == "error"
        assert "Mistral needs an API key" in result["answer"]
        assert any("Mistral needs an API key" in m.message for m in client.messages)
