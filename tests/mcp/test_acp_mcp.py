"""The MCP servers Foehn uses, through ``foehn acp`` and the official SDK's client: a server's
question as ACP ``elicitation/create`` (or a permission request where it fits), its prompts in
the available commands and as a turn's task, and a sign-in page shown by the client (URL mode)
or said in the session."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from acp import schema, text_block

from acp_harness import EditorClient, acp_agent
from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.testing import ModelServer, Turn
from oauth_harness import OAuthServer

pytestmark = pytest.mark.process

FORMS = schema.ElicitationCapabilities(
    form=schema.ElicitationFormCapabilities(), url=schema.ElicitationUrlCapabilities()
)


class AskingClient(EditorClient):
    """An ACP client that shows forms and pages: it fills forms with ``content`` and opens
    pages as a browser would (following the sign-in's redirect back to Foehn)."""

    def __init__(self, content: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.content = content or {}
        self.elicited: list[tuple[str, Any]] = []

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        async with self.changed:
            self.elicited.append((message, mode))
            self.changed.notify_all()
        url = getattr(mode, "url", None)
        if url is not None and "authorize" in str(url):
            async with httpx.AsyncClient(timeout=20) as browser:
                page = await browser.get(str(url))
                await browser.get(page.headers["location"])
        return schema.AcceptElicitationResponse(action="accept", content=self.content)


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


def outputs(client: EditorClient) -> list[str]:
    return [
        block["content"]["text"]
        for update in client.of("tool_call_update")
        if update.get("status") == "completed"
        for block in update.get("content", [])
        if block.get("type") == "content"
    ]


async def test_a_servers_form_is_shown_by_the_client_and_its_answer_sent(
    root: Path, model: ModelServer, awkward: Any
) -> None:
    env = configure(root, awkward_entry(awkward()))
    model.script(Turn(tool_calls=[("mcp__awkward__ask", {})]), Turn(text="Asked."))
    client = AskingClient({"title": "From Zed"})
    async with acp_agent(root, model, client, env=env, elicitation=FORMS) as conn:
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("file it")])
    ((message, mode),) = client.elicited
    assert message == "The MCP server 'awkward' asks during ask: Which issue?"
    assert mode.session_id == session.session_id
    assert mode.requested_schema.required == ["title"]
    assert any(
        json.loads(text)
        == {
            "action": "accept",
            "content": {"project": "core", "title": "From Zed", "urgent": False},
        }
        for text in outputs(client)
    )


async def test_without_forms_a_form_is_declined_and_nothing_is_sent(
    root: Path, model: ModelServer, awkward: Any
) -> None:
    env = configure(root, awkward_entry(awkward()))
    model.script(Turn(tool_calls=[("mcp__awkward__ask", {})]), Turn(text="Asked."))
    client = EditorClient()
    async with acp_agent(root, model, client, env=env) as conn:
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("file it")])
    assert client.permissions == []
    assert any(json.loads(t) == {"action": "decline", "content": None} for t in outputs(client))


async def test_prompts_are_available_commands_and_one_becomes_the_task(
    root: Path, model: ModelServer, awkward: Any
) -> None:
    env = configure(root, awkward_entry(awkward()))
    model.script(Turn(text="Reviewed."))
    client = EditorClient()
    async with acp_agent(root, model, client, env=env) as conn:
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        await conn.prompt(
            session_id=session.session_id, prompt=[text_block("/mcp__awkward__review a.py")]
        )
    (offered,) = client.of("available_commands_update")
    names = {c["name"]: c for c in offered["availableCommands"]}
    assert names["mcp__awkward__review"]["input"]["hint"] == "path [focus]"
    (request,) = model.requests
    assert "Review a.py with an eye on everything." in json.dumps(request.body["messages"])


async def test_a_sign_in_page_is_opened_by_the_client_and_the_tools_come(
    root: Path, model: ModelServer, oauth_server: OAuthServer
) -> None:
    env = configure(root, f'[mcp.servers.tracker]\nurl = "{oauth_server.url}"\n')
    model.script(Turn(tool_calls=[("mcp__tracker__whoami", {})]), Turn(text="You are you."))
    client = AskingClient()
    async with acp_agent(root, model, client, env=env, elicitation=FORMS) as conn:
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        await client.until(lambda: bool(client.elicited))
        kept = root.parent / "state" / "foehn" / "mcp" / "auth"
        for _ in range(300):  # signed in: kept once the server took the token and listed
            if kept.is_dir() and any(kept.iterdir()):
                break
            await asyncio.sleep(0.1)
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("who?")])
    assert answer.stop_reason == "end_turn"
    ((message, mode),) = client.elicited
    assert message == "The MCP server 'tracker' asks: sign in, to use its tools"
    assert "code_challenge_method=S256" in str(mode.url)
    assert "whoami: ok" in outputs(client)


async def test_without_url_elicitation_the_sign_in_page_is_said_in_the_session(
    root: Path, model: ModelServer, oauth_server: OAuthServer
) -> None:
    env = configure(root, f'[mcp.servers.tracker]\nurl = "{oauth_server.url}"\n')
    client = EditorClient()
    async with acp_agent(root, model, client, env=env) as conn:
        await conn.new_session(cwd=str(root), mcp_servers=[])
        await client.until(lambda: "asks you to sign in" in client.text())
    said = client.text()
    assert "The MCP server 'tracker' asks you to sign in: open http://127.0.0.1:" in said


async def test_without_url_elicitation_a_page_to_open_is_a_permission_request(
    root: Path, model: ModelServer, awkward: Any
) -> None:
    env = configure(root, awkward_entry(awkward()))
    model.script(Turn(tool_calls=[("mcp__awkward__ask_url", {})]), Turn(text="Asked."))
    client = EditorClient(answers=["accept"])
    async with acp_agent(root, model, client, env=env) as conn:
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("confirm")])
    (asked,) = client.permissions
    assert asked["toolCall"]["title"] == "The MCP server 'awkward' asks during ask_url"
    assert "https://example.com/confirm" in json.dumps(asked["toolCall"]["content"])
    assert [o["optionId"] for o in asked["options"]] == ["accept", "decline"]
    assert any(json.loads(text) == {"action": "accept"} for text in outputs(client))
