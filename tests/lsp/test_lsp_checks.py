"""Checking after edits in an editor that serves its own diagnostics: the real language server
asks ``foehn/diagnostics`` for the changed files before and after the edits, and only what the
edits added reaches the model; a client that claims the capability but does not answer times
out and the check is skipped with one line."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from foehn_lsp.testing import ModelServer, Turn
from lsp.harness import apply_to_disk, lsp_client, run
from lsp.test_lsp_plans import event_of

pytestmark = pytest.mark.process

READ = ("read_file", {"path": "app.py"})
BREAK = (
    "edit_file",
    {"path": "app.py", "edits": [{"old_text": "x = 1\n", "new_text": "x = 1\ny = 'BROKEN'\n"}]},
)
FIX = (
    "edit_file",
    {"path": "app.py", "edits": [{"old_text": "y = 'BROKEN'", "new_text": "y = 2"}]},
)


@pytest.fixture
def app(root: Path) -> Path:
    (root / "app.py").write_text("old = BROKEN_BEFORE\nx = 1\n")
    return root


def language_server(params: Any) -> dict[str, Any]:
    """What an editor's language server reports now: every line with BROKEN is an error (its
    text the message), and one hint that does not count."""
    files = []
    for uri in event_of(params)["uris"]:
        lines = Path(uri.removeprefix("file://")).read_text().splitlines()
        diagnostics: list[dict[str, Any]] = [
            {
                "range": {"start": {"line": n, "character": 0}, "end": {"line": n, "character": 1}},
                "message": text,
                "severity": 1,
                "source": "fake-ls",
            }
            for n, text in enumerate(lines)
            if "BROKEN" in text
        ]
        diagnostics.append(
            {
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                "message": "consider a docstring",
                "severity": 4,
            }
        )
        files.append({"uri": uri, "diagnostics": diagnostics})
    return {"files": files}


def editor(client: Any) -> None:
    @client.feature("foehn/confirm")
    def confirm(params: Any) -> dict[str, str]:
        return {"decision": "allow"}

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        apply_to_disk(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)


async def test_the_editors_new_diagnostics_reach_the_model(app: Path, model: ModelServer) -> None:
    model.script(
        Turn(tool_calls=[READ]),
        Turn(tool_calls=[BREAK]),
        Turn(text="Added y."),
        Turn(tool_calls=[FIX]),
        Turn(text="Added y."),
    )
    asked: list[Any] = []
    options = {"confirmRequest": True, "diagnostics": True}
    async with lsp_client(app, model, init_options=options) as client:
        editor(client)

        @client.feature("foehn/diagnostics")
        def diagnostics(params: Any) -> dict[str, Any]:
            asked.append(event_of(params))
            return language_server(params)

        received: list[Any] = []
        client.feature("foehn/runEvent")(lambda params: received.append(params))
        result = await run(client, {"task": "Add y to app.py", "runId": "r1"})
        await asyncio.sleep(0)
    assert result["answer"] == "Added y."
    assert [a["uris"] for a in asked] == [[(app / "app.py").as_uri()]] * 3
    assert all(a["runId"] == "r1" for a in asked)
    told = model.requests[3].body["messages"][-1]["content"]
    assert "app.py:3: y = 'BROKEN' (fake-ls)" in told
    assert "BROKEN_BEFORE" not in told
    assert "docstring" not in told
    checked = [e for e in map(event_of, received) if e["event"] == "checked"]
    assert [c["problems"] for c in checked] == [
        [{"path": "app.py", "line": 3, "message": "y = 'BROKEN'", "source": "fake-ls"}]
    ]
    assert len(model.requests) == 5
    assert (app / "app.py").read_text() == "old = BROKEN_BEFORE\nx = 1\ny = 2\n"


async def test_a_client_that_does_not_answer_times_out_and_the_check_is_skipped(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[READ]), Turn(tool_calls=[BREAK]), Turn(text="Added y."))
    options = {
        "confirmRequest": True,
        "diagnostics": True,
        "settings": {"clientTimeouts": {"diagnosticsSeconds": 0.5}},
    }
    async with lsp_client(app, model, init_options=options) as client:
        editor(client)

        @client.feature("foehn/diagnostics")
        async def diagnostics(params: Any) -> dict[str, Any]:
            await asyncio.sleep(5)
            return {"files": []}

        received: list[Any] = []
        client.feature("foehn/runEvent")(lambda params: received.append(params))
        result = await run(client, {"task": "Add y to app.py"})
        await asyncio.sleep(0)
    assert result["answer"] == "Added y."
    assert len(model.requests) == 3
    checked = [e for e in map(event_of, received) if e["event"] == "checked"]
    assert [c["skipped"] for c in checked] == [
        ["the editor's diagnostics skipped: no answer within 0.5 s"]
    ]


@pytest.mark.parametrize("answer", [None, {}, {"files": [{"uri": 5}]}, {"files": [{"uri": "x"}]}])
async def test_an_answer_of_the_wrong_shape_skips_the_check(
    app: Path, model: ModelServer, answer: Any
) -> None:
    model.script(Turn(tool_calls=[READ]), Turn(tool_calls=[BREAK]), Turn(text="Added y."))
    async with lsp_client(
        app, model, init_options={"confirmRequest": True, "diagnostics": True}
    ) as client:
        editor(client)
        client.feature("foehn/diagnostics")(lambda params: answer)
        received: list[Any] = []
        client.feature("foehn/runEvent")(lambda params: received.append(params))
        result = await run(client, {"task": "Add y to app.py"})
        await asyncio.sleep(0)
    assert result["answer"] == "Added y."
    checked = [e for e in map(event_of, received) if e["event"] == "checked"]
    assert [c["skipped"] for c in checked] == [
        ["the editor's diagnostics skipped: the answer was not {files: [{uri, diagnostics}]}"]
    ]
