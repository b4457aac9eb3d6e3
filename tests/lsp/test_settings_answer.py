"""A run does not wait for the editor's settings: it starts on those already known (the
initialization options, the user's config file, the defaults), and its calls are decided only
once the editor has answered ``workspace/configuration`` or the wait was given up, under what
the answer says. The real server over stdio, pytest-lsp's client, the real model server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from foehn_lsp.testing import ModelServer, Turn
from lsp.harness import apply_to_disk, lsp_client, run

pytestmark = pytest.mark.process

WRITE = ("write_file", {"path": "new.txt", "content": "written\n"})
ALLOWING = {"userLevel": {"approval": {"write": "allow"}}}


def told(model: ModelServer) -> str:
    """What the model was told about its call."""
    content: str = [m for m in model.requests[1].body["messages"] if m["role"] == "tool"][-1][
        "content"
    ]
    return content


async def test_a_stricter_answer_that_comes_after_the_first_request_decides_the_call(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[WRITE]), Turn(text="done"))
    requests_when_answered: list[int] = []

    async def answer(params: types.ConfigurationParams) -> list[Any]:
        # Held until the run's first request has reached the model.
        assert await asyncio.to_thread(model.wait_for_requests, 1, 600)
        requests_when_answered.append(len(model.requests))
        return [{"userLevel": {"approval": {"write": "deny"}}}]

    known = {**ALLOWING, "clientTimeouts": {"configurationSeconds": 600}}
    edits: list[types.ApplyWorkspaceEditParams] = []
    async with lsp_client(
        app, model, init_options={"settings": known}, answer_configuration=answer
    ) as client:

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            edits.append(params)
            apply_to_disk(params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

        result = await run(client, "write a file")
    assert requests_when_answered == [1]
    assert result["answer"] == "done"
    assert edits == []
    assert not (app / "new.txt").exists()
    assert "policy denies write calls" in told(model)


async def test_a_client_that_never_answers_gets_its_run_on_the_known_settings(
    app: Path, model: ModelServer
) -> None:
    model.script(Turn(tool_calls=[WRITE]), Turn(text="done"))

    async def never(params: types.ConfigurationParams) -> list[Any]:
        await asyncio.sleep(3600)  # the server gives up first and withdraws the request
        return []

    known = {**ALLOWING, "clientTimeouts": {"configurationSeconds": 1}}
    async with lsp_client(
        app, model, init_options={"settings": known}, answer_configuration=never
    ) as client:

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            apply_to_disk(params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

        result = await run(client, "write a file")
    assert result["answer"] == "done"
    assert (app / "new.txt").read_text() == "written\n"
