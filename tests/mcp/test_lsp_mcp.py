"""The MCP servers Foehn uses, in the editor, through ``foehn serve`` and pytest-lsp's real
client: a server's question as ``foehn/elicit`` (or the message buttons), its prompts in
``foehn.commands.list`` and as a turn's task, and signing in through the editor with the tokens
in its secret storage (``foehn/mcpSignIn``, ``foehn/secrets*``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from lsprotocol import types

from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.testing import ModelServer, Turn
from lsp.harness import lsp_client, run
from oauth_harness import OAuthServer

pytestmark = pytest.mark.process


def configure(root: Path, text: str) -> dict[str, str]:
    config = root.parent / "config" / "foehn" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)
    return {"XDG_CACHE_HOME": str(root.parent / "cache")}


def awkward_entry(config: McpServerConfig) -> str:
    return (
        f"[mcp.servers.awkward]\ncommand = {json.dumps(config.command)}\n"
        f"args = {json.dumps(list(config.args))}\n"
    )


def results(events: list[Any]) -> list[Any]:
    return [e for e in events if getattr(e, "event", None) == "tool_result"]


async def test_a_servers_question_is_asked_with_foehn_elicit(
    root: Path, model: ModelServer, awkward: Any
) -> None:
    env = configure(root, awkward_entry(awkward()))
    model.script(Turn(tool_calls=[("mcp__awkward__ask", {})]), Turn(text="Asked."))
    asked: list[Any] = []

    async def answer(params: Any) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"title": "From the editor", "urgent": True}}

    async with lsp_client(root, model, init_options={"elicitation": True}, env=env) as client:
        client.feature("foehn/elicit")(answer)
        events: list[Any] = []
        client.feature("foehn/runEvent")(lambda params: events.append(params))
        await run(client, "file an issue")
    (question,) = asked
    assert question.server == "awkward"
    assert question.message == "Which issue?"
    assert [f.name for f in question.fields] == ["project", "title", "urgent"]
    assert list(question.schema.required) == ["title"]
    (result,) = results(events)
    assert json.loads(result.output) == {
        "action": "accept",
        "content": {"project": "core", "title": "From the editor", "urgent": True},
    }


async def test_without_forms_the_editor_gets_buttons_where_they_fit_and_a_form_is_declined(
    root: Path, model: ModelServer, awkward: Any
) -> None:
    env = configure(root, awkward_entry(awkward()))
    model.script(
        Turn(tool_calls=[("mcp__awkward__ask_url", {}), ("mcp__awkward__ask", {})]),
        Turn(text="Asked."),
    )
    shown: list[str] = []

    async def buttons(params: Any) -> Any:
        shown.append(params.message)
        return types.MessageActionItem(title="Accept")

    async with lsp_client(root, model, env=env) as client:
        client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)(buttons)
        events: list[Any] = []
        client.feature("foehn/runEvent")(lambda params: events.append(params))
        await run(client, "ask twice")
    (page,) = shown
    assert "The MCP server 'awkward' asks during ask_url: Please confirm" in page
    assert "https://example.com/confirm" in page
    by_tool = {result.tool: result for result in results(events)}
    opened, form = by_tool["mcp__awkward__ask_url"], by_tool["mcp__awkward__ask"]
    assert json.loads(opened.output) == {"action": "accept"}
    assert json.loads(form.output) == {"action": "decline", "content": None}


async def test_prompts_are_listed_and_a_prompt_command_becomes_the_task(
    root: Path, model: ModelServer, awkward: Any
) -> None:
    env = configure(root, awkward_entry(awkward()))
    model.script(Turn(text="Hello, team."))
    async with lsp_client(root, model, env=env) as client:
        listed: Any = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="foehn.commands.list", arguments=[])
        )
        by_name = {c["name"]: c for c in listed["commands"]}
        assert by_name["mcp__awkward__review"]["hint"] == "path [focus]"
        assert by_name["mcp__awkward__review"]["source"] == "MCP server awkward"
        result = await run(client, "/mcp__awkward__review app.py security")
    assert result["answer"] == "Hello, team."
    (request,) = model.requests
    said = json.dumps(request.body["messages"])
    assert "Review app.py with an eye on security." in said
    assert "/mcp__awkward__review" not in said


async def test_signing_in_through_the_editor_keeps_the_tokens_in_its_secret_storage(
    root: Path, model: ModelServer, oauth_server: OAuthServer
) -> None:
    env = configure(root, f'[mcp.servers.tracker]\nurl = "{oauth_server.url}"\nstart = "startup"\n')
    secrets: dict[str, str] = {}
    pages: list[Any] = []

    async def sign_in(params: Any) -> dict[str, Any]:
        pages.append(params)
        async with httpx.AsyncClient(timeout=20) as browser:
            page = await browser.get(params.url)
            await browser.get(page.headers["location"])
        return {"opened": True}

    async def get(params: Any) -> dict[str, Any]:
        return {"value": secrets.get(params.key)}

    async def store(params: Any) -> dict[str, Any]:
        secrets[params.key] = params.value
        return {}

    async def delete(params: Any) -> dict[str, Any]:
        secrets.pop(params.key, None)
        return {}

    options = {"mcpSignIn": True, "secretStorage": True}
    async with lsp_client(root, model, init_options=options, env=env) as client:
        client.feature("foehn/mcpSignIn")(sign_in)
        client.feature("foehn/secretsGet")(get)
        client.feature("foehn/secretsStore")(store)
        client.feature("foehn/secretsDelete")(delete)
        listed: Any = None
        for _ in range(100):
            listed = await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="foehn.mcp.list", arguments=[])
            )
            if listed["servers"][0]["state"] in ("running", "failed"):
                break
            await asyncio.sleep(0.1)
        (entry,) = listed["servers"]
        assert entry["state"] == "running", entry
        assert entry["signedIn"] is True
        assert entry["expiresAt"] is not None
        (page,) = pages
        assert page.server == "tracker"
        (kept,) = secrets.values()
        assert json.loads(kept)["tokens"]["access_token"]
        out: Any = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="foehn.mcp.signOut", arguments=["tracker"])
        )
        assert out == {"forgotten": True}
    assert secrets == {}
    state = root.parent / "state" / "foehn" / "mcp" / "auth"
    assert not state.exists() or not any(state.iterdir())


async def test_an_editor_without_the_sign_in_request_shows_the_page_it_was_asked_to_open(
    root: Path, model: ModelServer, oauth_server: OAuthServer
) -> None:
    env = configure(root, f'[mcp.servers.tracker]\nurl = "{oauth_server.url}"\nstart = "startup"\n')
    asked: list[str] = []
    shown: list[Any] = []

    async def question(params: Any) -> Any:
        asked.append(params.message)
        return types.MessageActionItem(title="Open the sign-in page")

    async def show(params: Any) -> Any:
        shown.append(params)
        async with httpx.AsyncClient(timeout=20) as browser:
            page = await browser.get(params.uri)
            await browser.get(page.headers["location"])
        return types.ShowDocumentResult(success=True)

    async with lsp_client(root, model, env=env) as client:
        client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)(question)
        client.protocol.fm.features.pop(types.WINDOW_SHOW_DOCUMENT)  # pytest-lsp's own
        client.feature(types.WINDOW_SHOW_DOCUMENT)(show)
        for _ in range(100):
            listed: Any = await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="foehn.mcp.list", arguments=[])
            )
            if listed["servers"][0]["state"] in ("running", "failed"):
                break
            await asyncio.sleep(0.1)
    assert listed["servers"][0]["signedIn"] is True
    assert asked == ["The MCP server 'tracker' asks you to sign in."]
    (page,) = shown
    assert page.external is True
    assert "code_challenge_method=S256" in page.uri
