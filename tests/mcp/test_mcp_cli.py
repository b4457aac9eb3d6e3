"""``foehn mcp list``, ``foehn mcp login NAME`` and ``foehn mcp logout NAME`` as a person runs
them, against the guarded server (``servers/oauth_server.py``): the page's address on stderr, a
real browser's requests, and what is kept where."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
from pathlib import Path

import httpx
import pytest

from oauth_harness import OAuthServer
from preloaded import foehn_argv

pytestmark = pytest.mark.process


def configure(home: Path, url: str) -> dict[str, str]:
    config = home / "config" / "foehn" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[mcp.servers.tracker]\nurl = "{url}"\n\n'
        '[mcp.servers.local]\ncommand = "mcp-server-time"\n\n'
        '[mcp.servers.keyed]\nurl = "https://mcp.example.com/mcp"\n'
        'headers = { Authorization = "Bearer my-own" }\n'
    )
    return {
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "PATH": os.environ["PATH"],
    }


def foehn(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        foehn_argv(*args), env=env, cwd=cwd, capture_output=True, text=True, timeout=60
    )


async def test_list_login_and_logout_from_the_terminal(
    oauth_server: OAuthServer, tmp_path: Path, root: Path
) -> None:
    env = configure(tmp_path / "home", oauth_server.url)
    before = await asyncio.to_thread(foehn, env, root, "mcp", "list", "--json")
    assert before.returncode == 0, before.stderr
    listed = {entry["name"]: entry for entry in json.loads(before.stdout)["servers"]}
    assert listed["tracker"]["signed_in"] is False
    assert listed["local"]["sign_in"] == "started by Foehn; no sign-in"
    assert listed["keyed"]["sign_in"].startswith("uses the Authorization header")
    assert "a file only you can read" in json.loads(before.stdout)["tokens_kept_in"]

    login = await asyncio.to_thread(
        subprocess.Popen,
        foehn_argv("mcp", "login", "tracker"),
        env=env,
        cwd=root,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    assert login.stderr is not None
    first = await asyncio.to_thread(login.stderr.readline)
    assert first.startswith("foehn: MCP server 'tracker' asks you to sign in")
    page = (await asyncio.to_thread(login.stderr.readline)).strip()
    async with httpx.AsyncClient(timeout=20) as browser:
        shown = await browser.get(page)
        back = await browser.get(shown.headers["location"])
    assert back.status_code == 200
    assert "Signed in" in back.text
    rest = await asyncio.to_thread(login.stderr.read)
    assert await asyncio.to_thread(login.wait, 60) == 0, rest
    assert "signed in to MCP server 'tracker'; it is running" in rest

    after = await asyncio.to_thread(foehn, env, root, "mcp", "list")
    assert "tracker: http " in after.stdout
    assert "signed in; the token expires" in after.stdout
    kept = list((tmp_path / "home" / "state" / "foehn" / "mcp" / "auth").iterdir())
    assert [stat.S_IMODE(p.stat().st_mode) for p in kept] == [0o600]
    assert (
        "access_token" not in (tmp_path / "home" / "config" / "foehn" / "config.toml").read_text()
    )

    logout = await asyncio.to_thread(foehn, env, root, "mcp", "logout", "tracker")
    assert logout.returncode == 0
    assert "deleted what was kept of its sign-in" in logout.stderr
    assert not any((tmp_path / "home" / "state" / "foehn" / "mcp" / "auth").iterdir())


def test_login_names_what_cannot_be_signed_in_to(tmp_path: Path, root: Path) -> None:
    env = configure(tmp_path / "home", "http://127.0.0.1:9/mcp")
    unknown = foehn(env, root, "mcp", "login", "nosuch")
    assert unknown.returncode == 2
    assert "no MCP server 'nosuch' is configured (configured: tracker, local, keyed)" in (
        unknown.stderr
    )
    keyed = foehn(env, root, "mcp", "login", "keyed")
    assert keyed.returncode == 2
    assert "uses its own Authorization header; there is no sign-in" in keyed.stderr
    down = foehn(env, root, "mcp", "login", "tracker")
    assert down.returncode == 1
    assert down.stderr.startswith("foehn: MCP server 'tracker' did not start: cannot reach")
