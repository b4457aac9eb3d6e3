"""VS Code's per-file Undo, as the extension sends it (vscode-extension/src/review.ts:
``foehn.session.undo [{sessionId, toTurn, paths}]``): only that file goes back, through the
editor, and the turn's other files stay as the turn left them."""

from __future__ import annotations

from pathlib import Path

import pytest

from foehn_lsp.testing import ModelServer, Turn
from lsp.harness import lsp_client
from lsp.test_lsp_sessions import command, editor

pytestmark = pytest.mark.process


async def test_undo_of_one_file_puts_back_that_file_alone(app: Path, model: ModelServer) -> None:
    model.script(
        Turn(
            tool_calls=[
                ("write_file", {"path": "notes.md", "content": "# Notes\n"}),
                ("write_file", {"path": "todo.md", "content": "- ship\n"}),
            ]
        ),
        Turn(text="Wrote both."),
    )
    labels: list[str] = []
    async with lsp_client(app, model, init_options={"confirmRequest": True}) as client:
        editor(client, labels)
        session = (await command(client, "foehn.session.new", {}))["sessionId"]
        await command(client, "foehn.session.prompt", {"sessionId": session, "task": "Write."})
        assert (app / "notes.md").exists()
        assert (app / "todo.md").exists()
        report = await command(
            client,
            "foehn.session.undo",
            {"sessionId": session, "toTurn": 1, "paths": ["notes.md"]},
        )
    assert report["applied"], report
    assert report["restored"] == ["notes.md"]
    assert not (app / "notes.md").exists()
    assert (app / "todo.md").read_text() == "- ship\n"
