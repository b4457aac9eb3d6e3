"""Foehn's MCP client as the conformance suite runs a client: ``python client.py SERVER_URL``,
with the scenario in ``MCP_CONFORMANCE_SCENARIO`` (and its data in ``MCP_CONFORMANCE_CONTEXT``).

It does what Foehn does with a server in a person's config: connects through the hub
(``mcp.tools.connect_servers``) with the URL as ``[mcp.servers.conformance] url``, signs in when
the server asks (the person's browser is played by ``visit``: it opens the authorization page
and follows its redirect back to Foehn's loopback listener, as a browser does when the
authorization server approves at once), lists the tools and calls them through the same chain
as a model's calls. A question the server asks is answered by a person who accepts the form as
it is (its defaults). The suite runs a scenario's authorization server on another port of
localhost, which Foehn reaches only where the person granted it (``[sandbox] network``): the
grant is written first, as the person would after Foehn's first refusal named it. Exit status 0
when every step worked, 1 otherwise (the reason on stderr).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import tempfile
import urllib.parse
from pathlib import Path
from typing import Any

import httpx

from foehn_lsp.agent.chain import steps
from foehn_lsp.config.mcp import McpServerConfig, McpSettings
from foehn_lsp.mcp.consent import SignIn
from foehn_lsp.mcp.stores import FileStore
from foehn_lsp.mcp.tools import connect_servers
from foehn_lsp.tools.contract import ToolContext
from foehn_lsp.tools.elicitation import ElicitationAnswer, ElicitationRequest
from foehn_lsp.tools.registry import ToolRegistry
from foehn_lsp.workspace import FileAccess, Workspace

CIMD_URL = "https://conformance-test.local/client-metadata.json"
"""The client metadata document URL the suite's CIMD scenario expects as the client id."""
ARGUMENTS = {"add_numbers": {"a": 2, "b": 3}}
PING = {"jsonrpc": "2.0", "id": 0, "method": "ping"}


async def visit(server: str, url: str) -> None:
    """The person's browser: the page approves at once; its redirect comes back to Foehn."""

    async def follow() -> None:
        async with httpx.AsyncClient(timeout=20) as browser:
            page = await browser.get(url)
            location = page.headers.get("location")
            if location:
                await browser.get(location)

    asyncio.get_running_loop().create_task(follow())


async def grant_authorization_server(url: str, home: Path) -> None:
    """Grant (in a config of this run's own) the authorization servers the server names."""
    parts = urllib.parse.urlsplit(url)
    candidates = [
        f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path}",
        f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource",
    ]
    named: list[str] = []
    async with httpx.AsyncClient(timeout=10) as http:
        asked = await http.post(url, json=PING, headers={"Accept": "application/json"})
        said = re.search(r'resource_metadata="([^"]+)"', asked.headers.get("www-authenticate", ""))
        if said:
            candidates.insert(0, said[1])
        for candidate in candidates:
            found = await http.get(candidate)
            if found.status_code == 200:
                named = list(found.json().get("authorization_servers") or [])
                break
    hosts = sorted(
        {
            f"{server.hostname}:{server.port}"
            for server in map(urllib.parse.urlsplit, named)
            if server.hostname and server.port
        }
    )
    config = home / "config" / "foehn" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    listed = json.dumps(hosts)
    config.write_text(f"[sandbox]\nnetwork = {listed}\nnetwork_local = {listed}\n")
    os.environ["XDG_CONFIG_HOME"] = str(home / "config")


async def accept_defaults(request: ElicitationRequest) -> ElicitationAnswer:
    """A person who accepts the form as it is."""
    return ElicitationAnswer(action="accept", content={})


def oauth_settings(scenario: str) -> dict[str, Any]:
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    settings: dict[str, Any] = {"consent_timeout_seconds": 20, "request_timeout_seconds": 10}
    if "client_id" in context:
        settings["client_id"] = context["client_id"]
        if context.get("client_secret"):
            settings["client_secret"] = context["client_secret"]
    elif scenario == "auth/basic-cimd":
        settings["client_metadata_url"] = CIMD_URL
    return settings


async def main(url: str, scenario: str) -> int:
    """Runs the scenario in a workspace of its own, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="foehn-conformance-") as folder:
        return await run_in(Path(folder), url, scenario)


async def run_in(root: Path, url: str, scenario: str) -> int:
    await grant_authorization_server(url, root)
    config = McpServerConfig.model_validate(
        {"url": url, "startup_timeout_seconds": 20, "oauth": oauth_settings(scenario)}
    )
    catalogue = connect_servers(
        McpSettings(servers={"conformance": config}, start="startup"),
        ToolRegistry(),
        root=root,
        default_timeout=20,
        sign_in=SignIn(store=FileStore(root / "auth"), show=visit),
    )
    assert catalogue is not None
    try:
        await asyncio.to_thread(catalogue.hub.ready, "conformance")
        workspace = Workspace([root])
        ctx = ToolContext(workspace=workspace, files=FileAccess(workspace), elicit=accept_defaults)
        failed = 0
        for name, origin in sorted(catalogue.origins.items()):
            arguments = ARGUMENTS.get(origin.tool, {})
            result = await catalogue.registry.call(name, json.dumps(arguments), ctx, steps=steps())
            print(f"{origin.tool}: {'ok' if result.ok else 'failed'}: {result.output[:200]}")
            failed += not result.ok
        return 1 if failed else 0
    finally:
        catalogue.close()


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main(sys.argv[1], os.environ.get("MCP_CONFORMANCE_SCENARIO", ""))))
    except Exception as exc:  # the suite reads the exit status; the reason goes to stderr
        print(f"foehn: {exc}", file=sys.stderr)
        sys.exit(1)
