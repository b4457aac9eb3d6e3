"""Signing in to a remote MCP server with OAuth 2.1, against ``servers/oauth_server.py`` (a real
SDK server with its own authorization server) and a real browser's requests: the sign-in,
kept tokens, refresh, step-up, a client registered by hand; and every fault the issue names,
each with its clear line and with what was stored and sent counted."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.agent.chain import steps
from foehn_lsp.config.mcp import McpServerConfig, McpSettings
from foehn_lsp.mcp.client import ServerStatus, ServerUnavailableError
from foehn_lsp.mcp.consent import SignIn
from foehn_lsp.mcp.stores import FileStore
from foehn_lsp.mcp.tools import McpCatalogue, connect_servers
from foehn_lsp.tools.contract import ToolContext, ToolResult
from foehn_lsp.tools.registry import ToolRegistry
from oauth_harness import Browser, OAuthServer

pytestmark = pytest.mark.process

Connect = Callable[..., McpCatalogue]


@pytest.fixture
def store(tmp_path: Path) -> FileStore:
    return FileStore(tmp_path / "user" / "state" / "foehn" / "mcp" / "auth")


@pytest.fixture
def connect(root: Path, store: FileStore) -> Iterator[Connect]:
    opened: list[McpCatalogue] = []

    def open_servers(
        servers: Mapping[str, McpServerConfig], browser: Browser | None = None
    ) -> McpCatalogue:
        catalogue = connect_servers(
            McpSettings(servers=dict(servers)),
            ToolRegistry(),
            root=root,
            default_timeout=20,
            sign_in=SignIn(store=store, show=browser),
        )
        assert catalogue is not None
        opened.append(catalogue)
        return catalogue

    yield open_servers
    for catalogue in opened:
        catalogue.close()


def server(oauth_server: OAuthServer, **oauth: Any) -> McpServerConfig:
    return McpServerConfig.model_validate(
        {"url": oauth_server.url, "startup_timeout_seconds": 20, "oauth": oauth}
    )


async def call(catalogue: McpCatalogue, name: str, ctx: ToolContext) -> ToolResult:
    return await catalogue.registry.call(name, "{}", ctx, steps=steps())


def kept(store: FileStore) -> list[dict[str, Any]]:
    """The sign-in records in the store, read as the file is."""
    if not store.folder.exists():
        return []
    return [json.loads(p.read_text()) for p in sorted(store.folder.glob("*.json"))]


def mentions(folder: Path, text: str) -> bool:
    return any(text in p.read_text() for p in folder.rglob("*") if p.is_file())


def problems(catalogue: McpCatalogue) -> list[str]:
    return [p.problem for p in catalogue.problems]


async def settled(catalogue: McpCatalogue) -> ServerStatus:
    """The server's status once its start (which may wait for the person) is over."""
    for _ in range(600):
        (status,) = catalogue.statuses()
        if status.state in ("running", "failed"):
            return status
        await asyncio.sleep(0.05)
    raise AssertionError(f"the start did not end: {status}")


async def test_a_sign_in_in_the_browser_is_kept_and_the_tools_work_without_asking_again(
    connect: Connect, oauth_server: OAuthServer, store: FileStore, ctx: ToolContext, root: Path
) -> None:
    browser = Browser()
    catalogue = connect({"tracker": server(oauth_server)}, browser)
    assert (await settled(catalogue)).state == "running"
    assert problems(catalogue) == []
    # The start's outcome (it waited for the person) may reach the catalogue after the sign-in
    # ended and the tools came: its line does not stand then.
    catalogue.unstarted("tracker", "is waiting for you to sign in (the page was shown)")
    assert problems(catalogue) == []
    assert len(browser.shown) == 1
    assert browser.back == [200]
    name, page = browser.shown[0]
    assert name == "tracker"
    assert "code_challenge_method=S256" in page
    assert "resource=" in page
    result = await call(catalogue, "mcp__tracker__whoami", ctx)
    assert result.ok
    assert result.output == "whoami: ok"
    # One registration, one authorization (with the resource indicator), one code exchange.
    assert [e["kind"] for e in oauth_server.events() if e["kind"] != "mcp"].count("register") == 1
    (authorized,) = oauth_server.events("authorize")
    assert authorized["resource"] == oauth_server.url
    assert authorized["method"] == "S256"
    assert [t["grant"] for t in oauth_server.events("token")] == ["authorization_code"]
    # Kept in the user's state folder, readable by the person only; not in the workspace.
    (record,) = kept(store)
    assert record["tokens"]["access_token"]
    assert record["client"]["client_id"]
    files = list(store.folder.iterdir())
    assert [stat.S_IMODE(p.stat().st_mode) for p in files] == [0o600]
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700
    assert not mentions(root, record["tokens"]["access_token"])
    catalogue.close()
    # A new process: the kept token is used, nobody is asked.
    again = Browser()
    second = connect({"tracker": server(oauth_server)}, again)
    assert problems(second) == []
    assert again.shown == []
    assert (await call(second, "mcp__tracker__whoami", ctx)).ok


async def test_an_expired_token_is_refreshed_without_asking(
    connect: Connect, oauth_server: OAuthServer, ctx: ToolContext, store: FileStore
) -> None:
    oauth_server.faults(expires_in=1)
    browser = Browser()
    catalogue = connect({"tracker": server(oauth_server)}, browser)
    assert (await settled(catalogue)).state == "running"
    assert problems(catalogue) == []
    await asyncio.sleep(1.5)
    assert (await call(catalogue, "mcp__tracker__whoami", ctx)).ok
    assert [t["grant"] for t in oauth_server.events("token")] == [
        "authorization_code",
        "refresh_token",
    ]
    assert all(t["resource"] == oauth_server.url for t in oauth_server.events("token"))
    assert len(browser.shown) == 1
    (record,) = kept(store)
    assert record["expires_at"] is not None


async def test_a_revoked_token_is_refreshed_and_when_that_is_refused_the_person_is_told(
    connect: Connect, oauth_server: OAuthServer, ctx: ToolContext, store: FileStore
) -> None:
    browser = Browser()
    catalogue = connect({"tracker": server(oauth_server)}, browser)
    await settled(catalogue)
    oauth_server.revoke()
    assert (await call(catalogue, "mcp__tracker__whoami", ctx)).ok
    assert [t["grant"] for t in oauth_server.events("token")][-1] == "refresh_token"
    catalogue.close()
    # Both revoked, and nobody to ask: one clear line, and the refused tokens are dropped.
    oauth_server.revoke(refresh=True)
    unattended = connect({"tracker": server(oauth_server)})
    assert problems(unattended) == [
        "did not start: it needs you to sign in, and nobody can be asked here: sign in with "
        "`foehn mcp login tracker`"
    ]
    (record,) = kept(store)
    assert "tokens" not in record
    assert record["client"]["client_id"]
    assert len(browser.shown) == 1


async def test_a_scope_step_up_asks_for_the_scopes_held_and_the_new_one(
    connect: Connect, oauth_server: OAuthServer, ctx: ToolContext
) -> None:
    oauth_server.faults()
    browser = Browser()
    catalogue = connect({"tracker": server(oauth_server)}, browser)
    await settled(catalogue)
    first = oauth_server.events("authorize")[0]["scope"]
    assert set(first.split()) == {"mcp"}
    result = await call(catalogue, "mcp__tracker__admin", ctx)
    assert result.ok, result.output
    assert len(browser.shown) == 2
    assert set(oauth_server.events("authorize")[-1]["scope"].split()) == {"mcp", "admin"}


async def test_without_anyone_to_ask_a_step_up_is_a_clear_failure(
    connect: Connect, oauth_server: OAuthServer, ctx: ToolContext
) -> None:
    first = connect({"tracker": server(oauth_server)}, Browser())
    await settled(first)
    first.close()
    unattended = connect({"tracker": server(oauth_server)})
    result = await call(unattended, "mcp__tracker__admin", ctx)
    assert not result.ok
    assert "HTTP 403 Forbidden (insufficient_scope)" in result.output
    assert "mcp admin" in result.output
    assert "foehn mcp login tracker" in result.output


async def test_a_client_registered_by_hand_signs_in_with_its_secret(
    connect: Connect, oauth_server: OAuthServer, ctx: ToolContext, store: FileStore
) -> None:
    from foehn_lsp.mcp.consent import free_port, redirect_uri

    port = free_port()
    oauth_server.faults(
        registration="none",
        clients={"by-hand": {"secret": "s3cret-value", "redirect_uri": redirect_uri(port)}},
    )
    config = server(
        oauth_server, client_id="by-hand", client_secret="s3cret-value", redirect_port=port
    )
    catalogue = connect({"tracker": config}, Browser())
    assert (await settled(catalogue)).state == "running"
    assert problems(catalogue) == []
    assert (await call(catalogue, "mcp__tracker__whoami", ctx)).ok
    assert oauth_server.events("register") == []
    # The secret stays in the config; the record keeps only the tokens.
    (record,) = kept(store)
    assert "s3cret-value" not in json.dumps(record)


async def test_a_server_without_dynamic_registration_says_to_register_by_hand(
    connect: Connect, oauth_server: OAuthServer, store: FileStore
) -> None:
    oauth_server.faults(registration="none")
    browser = Browser()
    catalogue = connect({"tracker": server(oauth_server)}, browser)
    (line,) = problems(catalogue)
    assert "allows no dynamic registration" in line
    assert "oauth.client_id" in line
    assert browser.shown == []
    assert kept(store) == []
    assert oauth_server.events("token") == []


BAD_METADATA = [
    (
        {"prm": "missing", "as": "missing"},
        "no authorization server metadata was found",
    ),
    ({"prm": "mismatch"}, "does not match"),
    ({"as": "wrong_issuer"}, "issuer mismatch"),
    ({"as": "no_pkce"}, "does not offer PKCE with S256"),
    ({"as": "redirect"}, "another origin; not followed"),
    ({"prm": "http_as"}, "plain http to another computer"),
]


@pytest.mark.parametrize(("faults", "said"), BAD_METADATA)
async def test_bad_metadata_is_refused_before_any_credential_is_sent(
    connect: Connect,
    oauth_server: OAuthServer,
    store: FileStore,
    faults: dict[str, str],
    said: str,
) -> None:
    oauth_server.faults(**faults)
    browser = Browser()
    catalogue = connect({"tracker": server(oauth_server)}, browser)
    (line,) = problems(catalogue)
    assert line.startswith("did not start: signing in failed: "), line
    assert said in line
    assert line.endswith("nothing was stored")
    # Nothing was registered, nobody was sent anywhere, no token was asked for or kept.
    assert oauth_server.events("register") == []
    assert oauth_server.events("authorize") == []
    assert browser.shown == []
    assert oauth_server.events("token") == []
    assert kept(store) == []


@pytest.mark.parametrize(
    ("fault", "said"),
    [("hang", "did not answer within 1 s"), ("garbage", "getting a token failed")],
)
async def test_a_token_endpoint_that_hangs_or_answers_garbage_is_a_clear_failure(
    connect: Connect, oauth_server: OAuthServer, store: FileStore, fault: str, said: str
) -> None:
    oauth_server.faults(token=fault)
    catalogue = connect({"tracker": server(oauth_server, request_timeout_seconds=1)}, Browser())
    assert (await settled(catalogue)).state == "failed"
    (line,) = problems(catalogue)
    assert said in line
    assert "nothing was stored" in line
    assert kept(store) == []


async def test_a_sign_in_nobody_finishes_times_out_with_one_line_and_is_not_asked_again(
    connect: Connect, oauth_server: OAuthServer, store: FileStore, ctx: ToolContext
) -> None:
    nobody = Browser(visits=False)
    catalogue = connect({"tracker": server(oauth_server, consent_timeout_seconds=1)}, nobody)
    (line,) = problems(catalogue)
    assert (
        line == "is waiting for you to sign in (the page was shown); its tools come once you have"
    )
    status = await settled(catalogue)
    assert status.error == (
        "nobody signed in within 1 s; nothing was stored. To try again, sign in with "
        "`foehn mcp login tracker`"
    )
    assert kept(store) == []
    assert oauth_server.events("token") == []
    # The server is not started again behind the person's back with another page.
    await asyncio.sleep(1.2)
    with pytest.raises(ServerUnavailableError, match=r"ended: nobody signed in within 1 s\)$"):
        await catalogue.hub.servers["tracker"].session()
    assert len(nobody.shown) == 1


async def test_a_declined_sign_in_is_a_clear_failure_and_nothing_is_kept(
    connect: Connect, oauth_server: OAuthServer, store: FileStore
) -> None:
    oauth_server.faults(authorize="deny")
    browser = Browser()
    catalogue = connect({"tracker": server(oauth_server)}, browser)
    status = await settled(catalogue)
    assert status.error is not None
    assert status.error.startswith("the sign-in was refused (access_denied)")
    assert kept(store) == []


async def test_login_asks_again_and_keeps_the_old_token_if_it_fails_and_logout_forgets(
    connect: Connect, oauth_server: OAuthServer, store: FileStore
) -> None:
    browser = Browser()
    catalogue = connect({"tracker": server(oauth_server)}, browser)
    await settled(catalogue)
    (before,) = kept(store)
    oauth_server.faults(authorize="deny")
    with pytest.raises(ServerUnavailableError, match="refused"):
        await asyncio.to_thread(catalogue.login, "tracker")
    assert kept(store) == [before]
    oauth_server.faults()
    said = await asyncio.to_thread(catalogue.login, "tracker")
    assert said == "signed in to MCP server 'tracker'; it is running"
    (after,) = kept(store)
    assert after["tokens"]["access_token"] != before["tokens"]["access_token"]
    assert await asyncio.to_thread(catalogue.logout, "tracker") is True
    assert kept(store) == []


async def test_a_refusal_of_static_credentials_names_the_server_the_status_and_the_fix(
    connect: Connect, oauth_server: OAuthServer, store: FileStore
) -> None:
    config = McpServerConfig(url=oauth_server.url, headers={"Authorization": "Bearer wrong"})
    catalogue = connect({"tracker": config}, Browser())
    assert problems(catalogue) == [
        "did not start: it answered HTTP 401 Unauthorized: the Authorization header in its "
        "[mcp.servers] entry was refused: renew it"
    ]
    # The person's own header is theirs: Foehn does not sign in over it.
    assert oauth_server.events("register") == []
    assert kept(store) == []


async def test_a_plain_403_names_the_server_the_status_and_the_fix(
    connect: Connect, oauth_server: OAuthServer
) -> None:
    oauth_server.faults(mcp="forbid")
    catalogue = connect({"tracker": server(oauth_server)}, Browser())
    assert problems(catalogue) == [
        "did not start: it answered HTTP 403 Forbidden: the server refuses this account or "
        "address; check your access to it"
    ]


def test_the_token_file_is_never_readable_by_others(store: FileStore) -> None:
    asyncio.run(store.put("k", "secret"))
    path = store.folder / "k.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    os.chmod(path, 0o644)
    asyncio.run(store.put("k", "again"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


async def test_an_authorization_server_elsewhere_is_reached_only_once_granted(
    connect: Connect,
    oauth_server: OAuthServer,
    store: FileStore,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    oauth_server.faults(prm="other_origin")
    browser = Browser()
    refused = connect({"tracker": server(oauth_server)}, browser)
    assert (await settled(refused)).state == "failed"
    (line,) = problems(refused)
    assert "signing in failed: http://localhost:" in line
    assert "grant its domain in [sandbox] network" in line
    assert oauth_server.events("as") == []  # nothing reached it
    assert browser.shown == []
    assert kept(store) == []
    refused.close()
    port = oauth_server.url.split(":")[2].split("/")[0]
    config = tmp_path / "config" / "foehn" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[sandbox]\nnetwork = ["localhost:{port}"]\nnetwork_local = ["localhost:{port}"]\n'
    )
    granted = connect({"tracker": server(oauth_server)}, browser)
    assert (await settled(granted)).state == "running"
    assert oauth_server.events("as")
    (record,) = kept(store)
    assert record["metadata"]["issuer"].startswith("http://localhost:")
