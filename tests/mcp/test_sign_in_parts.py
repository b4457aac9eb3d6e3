"""The parts of signing in and of a server's requests, on their own: the configuration's
refusals, what counts as secure enough to sign in over, the loopback listener (real sockets),
the stores (the OS keyring through keyring's own backend choice), and the checks of forms and
prompt arguments."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from pydantic import ValidationError

from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.mcp.consent import ConsentError, free_port, redirect_uri
from foehn_lsp.mcp.elicitation import UnsupportedForm, form_fields
from foehn_lsp.mcp.loopback import Loopback
from foehn_lsp.mcp.oauth import secure_enough
from foehn_lsp.mcp.prompts import PromptUsageError, prompt_commands
from foehn_lsp.mcp.stores import FileStore, KeyringStore
from foehn_lsp.mcp.tokens import Credentials
from foehn_lsp.tools.elicitation import complete, form_schema

pytestmark = pytest.mark.process

HERE = Path(__file__).parent
URL = "https://a.example/mcp"


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"command": "x", "oauth": {"client_id": "a"}}, "oauth is for HTTP servers"),
        (
            {"url": "https://a.example/mcp", "oauth": {"client_secret": "s"}},
            "needs oauth.client_id",
        ),
        (
            {
                "url": "https://a.example/mcp",
                "oauth": {"client_metadata_url": "http://a.example/c"},
            },
            "must be an https URL with a path",
        ),
        (
            {
                "url": "https://a.example/mcp",
                "oauth": {"client_metadata_url": "https://a.example/"},
            },
            "must be an https URL with a path",
        ),
        ({"url": "https://a.example/mcp", "oauth": {"redirect_port": 70000}}, "65535"),
    ],
)
def test_an_oauth_table_that_cannot_work_is_refused(fields: dict[str, Any], said: str) -> None:
    with pytest.raises(ValidationError, match=said):
        McpServerConfig.model_validate(fields)


def test_a_server_with_its_own_authorization_header_is_not_signed_in_to() -> None:
    own = McpServerConfig(url="https://a.example/mcp", headers={"authorization": "Bearer x"})
    assert not own.signs_in
    assert McpServerConfig(url="https://a.example/mcp").signs_in
    assert not McpServerConfig(command="x").signs_in
    secret = McpServerConfig.model_validate(
        {"url": "https://a.example/mcp", "oauth": {"client_id": "c", "client_secret": "s3cr3t"}}
    )
    assert "s3cr3t" in secret.secrets()
    assert "s3cr3t" not in repr(secret)


@pytest.mark.parametrize(
    ("url", "secure"),
    [
        ("https://a.example/t", True),
        ("http://127.0.0.1:9/t", True),
        ("http://localhost:9/t", True),
        ("http://[::1]:9/t", True),
        ("http://a.example/t", False),
        ("http://127.0.0.1.example/t", False),
    ],
)
def test_signing_in_is_over_https_or_to_this_computer(url: str, secure: bool) -> None:
    assert secure_enough(url) is secure


async def test_the_loopback_takes_only_its_answer() -> None:
    port = free_port()
    listener = Loopback(port)
    await listener.open("the-state")
    back = redirect_uri(port)
    async with httpx.AsyncClient(timeout=10) as browser:
        assert (await browser.get(f"http://127.0.0.1:{port}/other?code=x")).status_code == 404
        wrong = await browser.get(f"{back}?code=stolen&state=guessed")
        assert wrong.status_code == 400
        assert (await browser.post(f"{back}?code=x&state=the-state")).status_code == 404
        right = await browser.get(f"{back}?code=the-code&state=the-state&iss=https://as")
        assert right.status_code == 200
        answer = await listener.answer(5)
    assert (answer.code, answer.state, answer.iss) == ("the-code", "the-state", "https://as")
    with pytest.raises(httpx.ConnectError):  # it listens only while a sign-in waits
        async with httpx.AsyncClient(timeout=5) as late:
            await late.get(back)


async def test_a_declined_or_unanswered_sign_in_is_one_clear_error() -> None:
    port = free_port()
    declined = Loopback(port)
    await declined.open("s")
    async with httpx.AsyncClient(timeout=10) as browser:
        await browser.get(f"{redirect_uri(port)}?error=access_denied&error_description=no&state=s")
    with pytest.raises(ConsentError, match=r"^the sign-in was refused \(access_denied: no\)$"):
        await declined.answer(5)
    nobody = Loopback(free_port())
    await nobody.open("s")
    with pytest.raises(ConsentError, match=r"^nobody signed in within 0.2 s$"):
        await nobody.answer(0.2)


async def test_a_taken_port_is_said_with_the_setting_that_moves_it() -> None:
    port = free_port()
    first = Loopback(port)
    await first.open("a")
    try:
        with pytest.raises(ConsentError, match=r"oauth\.redirect_port"):
            await Loopback(port).open("b")
    finally:
        await first.close()


async def test_credentials_keep_nothing_until_committed(tmp_path: Path) -> None:
    from mcp.shared.auth import OAuthToken

    store = FileStore(tmp_path / "auth")
    kept = Credentials(store, "tracker", "https://a.example/mcp")
    await kept.set_tokens(OAuthToken(access_token="at", expires_in=60, refresh_token="rt"))
    assert not store.folder.exists()
    await kept.discard()
    assert await kept.get_tokens() is None
    await kept.set_tokens(OAuthToken(access_token="at", expires_in=60))
    await kept.commit()
    (path,) = store.folder.iterdir()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    other = Credentials(store, "tracker", "https://b.example/mcp")  # another URL: not reused
    assert await other.get_tokens() is None
    assert await kept.forget() is True
    assert list(store.folder.iterdir()) == []


async def test_a_store_in_the_os_keyring_keeps_and_forgets(tmp_path: Path) -> None:
    sys.path.insert(0, str(HERE.parent))
    try:
        from keyring_backend import FileKeyring
    finally:
        sys.path.remove(str(HERE.parent))
    os.environ["FOEHN_TEST_KEYRING"] = str(tmp_path / "keyring.json")
    try:
        store = KeyringStore(FileKeyring())  # type: ignore[no-untyped-call]
        await store.put("k", "v")
        assert await store.get("k") == "v"
        await store.delete("k")
        assert await store.get("k") is None
        await store.delete("k")  # forgetting what is not kept is no error
    finally:
        del os.environ["FOEHN_TEST_KEYRING"]


def test_the_os_keyring_is_chosen_where_there_is_one(tmp_path: Path) -> None:
    probe = (
        "import asyncio\n"
        "from foehn_lsp.mcp.stores import default_store\n"
        "store = default_store()\n"
        "asyncio.run(store.put('k', 'v'))\n"
        "print(store.description)\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(HERE.parent),
        "PYTHON_KEYRING_BACKEND": "keyring_backend.FileKeyring",
        "FOEHN_TEST_KEYRING": str(tmp_path / "keyring.json"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "the OS keyring (FileKeyring)"
    assert json.loads((tmp_path / "keyring.json").read_text()) == {"foehn-mcp/k": "v"}
    assert not (tmp_path / "state").exists()
    without = {k: v for k, v in env.items() if k != "PYTHON_KEYRING_BACKEND"}
    without["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    fallback = subprocess.run(
        [sys.executable, "-c", probe], env=without, capture_output=True, text=True, timeout=60
    )
    assert fallback.stdout.startswith("a file only you can read, in ")


SCHEMA = {
    "type": "object",
    "properties": {
        "color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g"}]},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 1},
        "count": {"type": "integer", "minimum": 1, "maximum": 3},
        "mail": {"type": "string", "format": "email"},
    },
    "required": ["count"],
}


def test_a_form_is_read_checked_and_written_back_the_same() -> None:
    fields = form_fields(SCHEMA)
    assert [(f.name, f.kind) for f in fields] == [
        ("color", "choice"),
        ("tags", "choices"),
        ("count", "integer"),
        ("mail", "string"),
    ]
    assert fields[0].options == (("r", "Red"), ("g", "g"))
    assert complete(fields, {"count": "2", "tags": ["a"]}) == {"count": 2, "tags": ["a"]}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"count": 9}, "count: value at most 3"),
        ({"count": 1.5}, "count: a whole number"),
        ({"count": 1, "tags": ["a", "b"]}, "tags: choices at most 1"),
        ({"count": 1, "mail": "nope"}, "mail: not a valid email"),
        ({"count": 1, "color": "blue"}, "color: one of r, g"),
        ({}, "count is required"),
        ({"count": 1, "extra": 1}, "no such field in the form: extra"),
    ]
    for wrong, said in cases:
        assert complete(fields, wrong) == said
    assert form_fields(form_schema(fields)) == fields


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array"},
        {"type": "object", "properties": {"nested": {"type": "object"}}},
        {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "string"}}}},
    ],
)
def test_a_form_mcp_does_not_allow_is_not_shown(schema: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedForm):
        form_fields(schema)


def test_prompt_arguments_bind_by_name_then_in_order() -> None:
    (command,) = prompt_commands(
        "docs",
        [
            types.Prompt(
                name="find",
                arguments=[
                    types.PromptArgument(name="topic", required=True),
                    types.PromptArgument(name="depth"),
                ],
            )
        ],
    )
    assert command.name == "mcp__docs__find"
    assert command.bind("retries") == {"topic": "retries"}
    assert command.bind("depth=2 retry budget") == {"depth": "2", "topic": "retry budget"}
    assert command.bind("'one two' three four") == {"topic": "one two", "depth": "three four"}
    with pytest.raises(PromptUsageError, match=r"topic missing; usage: /mcp__docs__find topic"):
        command.bind("depth=1")
    with pytest.raises(PromptUsageError, match="No closing quotation"):
        command.bind("'open")
