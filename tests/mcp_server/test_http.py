"""``foehn mcp --http`` driven by the official Python SDK's streamable-HTTP client (and raw HTTP
for what a client should not do): the same tools, approvals, audit log and undo as over stdio;
a bearer token, ``Host``/``Origin`` checked, sessions kept apart, a flood bounded. The attacks
count what happened on the computer (files, audit records), not what the server said."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp.client.streamable_http import streamable_http_client

from preloaded import foehn_argv

pytestmark = pytest.mark.process

TOKEN = "t0ken-for-the-tests-only-0123456789"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
JSONRPC_HEADERS = {"Accept": "application/json, text/event-stream"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Served:
    url: str
    process: subprocess.Popen[str]
    home: Path

    def audit(self) -> list[dict[str, Any]]:
        """The audit log's records of tool calls."""
        found = list((self.home / "state" / "foehn" / "audit").glob("*.jsonl"))
        records = [json.loads(line) for path in found for line in path.read_text().splitlines()]
        return [record for record in records if "tool" in record]

    def sessions(self) -> list[Path]:
        return list((self.home / "state" / "foehn" / "sessions").glob("*/*.jsonl"))


def environment(home: Path) -> dict[str, str]:
    return {
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "PATH": os.environ["PATH"],
    }


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return path


def start(root: Path, home: Path, *flags: str) -> Served:
    port = free_port()
    process = subprocess.Popen(
        foehn_argv("mcp", "--workspace", str(root), "--http", f"127.0.0.1:{port}", *flags),
        env=environment(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert process.poll() is None, process.communicate(timeout=10)
            assert time.monotonic() < deadline, "foehn mcp --http did not listen"
            time.sleep(0.1)
    return Served(url=f"http://127.0.0.1:{port}/mcp", process=process, home=home)


@pytest.fixture
def served(root: Path, tmp_path: Path, token_file: Path) -> Iterator[Served]:
    server = start(root, tmp_path / "home", "--allow-writes", "--token-file", str(token_file))
    try:
        yield server
    finally:
        server.process.terminate()
        server.process.communicate(timeout=20)


@asynccontextmanager
async def client(
    url: str, *, token: str = TOKEN, elicit: ElicitationFnT | None = None
) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=120.0)) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write, elicitation_callback=elicit) as session,
    ):
        await session.initialize()
        yield session


def text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def answering(decision: str, asked: list[str]) -> ElicitationFnT:
    async def answer(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": decision})

    return answer


async def test_the_same_tools_approvals_audit_and_undo_as_over_stdio(
    served: Served, root: Path
) -> None:
    (root / "notes.txt").write_text("one\n")
    asked: list[str] = []
    async with client(served.url, elicit=answering("allow once", asked)) as session:
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert {"read_file", "write_file", "edit_file"} <= names
        assert "delete_path" not in names
        read = await session.call_tool("read_file", {"path": "notes.txt"})
        assert "one" in text(read)
        wrote = await session.call_tool("write_file", {"path": "new.txt", "content": "made\n"})
        assert not wrote.is_error, text(wrote)
    assert len(asked) == 1
    assert "write_file" in asked[0]
    assert (root / "new.txt").read_text() == "made\n"
    assert [(r["tool"], r["ok"]) for r in served.audit()] == [
        ("read_file", True),
        ("write_file", True),
    ]
    undo = await asyncio.to_thread(
        subprocess.run,
        foehn_argv("undo", "--workspace", str(root)),
        env=environment(served.home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert undo.returncode == 0, undo.stderr
    assert not (root / "new.txt").exists()


async def test_progress_of_a_long_call_reaches_the_client(served: Served) -> None:
    said: list[str] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        said.append(message or "")

    async with client(served.url) as session:
        result = await session.call_tool(
            "run_command", {"command": ["ls"]}, progress_callback=progress
        )
    assert not result.is_error, text(result)
    assert said == ["Running ls…"]


@pytest.mark.parametrize(
    "authorization", [None, "Bearer wrong-token-of-the-same-sort", f"Basic {TOKEN}", TOKEN]
)
async def test_a_request_without_the_token_is_refused_unread(
    served: Served, root: Path, authorization: str | None
) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}},
    }
    headers = dict(JSONRPC_HEADERS)
    if authorization is not None:
        headers["Authorization"] = authorization
    async with httpx.AsyncClient(timeout=20) as http:
        for body in (INIT, call):
            answer = await http.post(served.url, json=body, headers=headers)
            assert answer.status_code == 401
            assert answer.headers["www-authenticate"].startswith("Bearer")
            assert "mcp-session-id" not in answer.headers
    assert not (root / "x.txt").exists()
    assert served.audit() == []


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("evil.example", None),
        ("evil.example:80", "http://evil.example"),
        (None, "http://evil.example"),
        (None, "null"),
    ],
)
async def test_a_foreign_host_or_origin_is_refused_as_dns_rebinding(
    served: Served, host: str | None, origin: str | None
) -> None:
    headers = {**JSONRPC_HEADERS, "Authorization": f"Bearer {TOKEN}"}
    if host is not None:
        headers["Host"] = host
    if origin is not None:
        headers["Origin"] = origin
    async with httpx.AsyncClient(timeout=20) as http:
        answer = await http.post(served.url, json=INIT, headers=headers)
    assert 400 <= answer.status_code < 500
    assert "mcp-session-id" not in answer.headers


async def test_sessions_share_no_approval_and_no_reads(served: Served, root: Path) -> None:
    (root / "app.py").write_text("X = 1\n")
    first: list[str] = []
    second: list[str] = []
    edit = {"path": "app.py", "edits": [{"old_text": "X = 1", "new_text": "X = 2"}]}
    async with (
        client(served.url, elicit=answering("allow for this session", first)) as a,
        client(served.url, elicit=answering("allow once", second)) as b,
    ):
        await a.call_tool("write_file", {"path": "a.txt", "content": "a\n"})
        await a.call_tool("write_file", {"path": "a2.txt", "content": "a\n"})
        await b.call_tool("write_file", {"path": "b.txt", "content": "b\n"})
        await a.call_tool("read_file", {"path": "app.py"})
        refused = await b.call_tool("edit_file", edit)
    assert len(first) == 1  # A's "for this session" covered its second write...
    assert len(second) == 1  # ...and not B's, which was asked about
    assert "has not been read in this session" in text(refused)
    assert (root / "app.py").read_text() == "X = 1\n"
    assert len(served.sessions()) == 2


async def test_a_flood_is_bounded_and_the_server_keeps_serving(served: Served) -> None:
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=300)) as http:
        unauthorized = await asyncio.gather(
            *(http.post(served.url, json=INIT, headers=JSONRPC_HEADERS) for _ in range(200)),
            return_exceptions=True,
        )
        statuses = [a.status_code for a in unauthorized if isinstance(a, httpx.Response)]
        assert statuses
        assert set(statuses) <= {401, 503}
        headers = {**JSONRPC_HEADERS, "Authorization": f"Bearer {TOKEN}"}
        opened = await asyncio.gather(
            *(http.post(served.url, json=INIT, headers=headers) for _ in range(60)),
            return_exceptions=True,
        )
        codes = [a.status_code for a in opened if isinstance(a, httpx.Response)]
        assert codes.count(200) <= 32
        assert set(codes) <= {200, 503}
        assert 503 in codes
        too_big = await http.post(served.url, content=b"x" * (2 * 1024 * 1024), headers=headers)
        assert too_big.status_code == 413
    assert served.process.poll() is None


async def test_a_token_is_made_and_printed_once_when_no_file_is_given(
    root: Path, tmp_path: Path
) -> None:
    server = start(root, tmp_path / "home")
    try:
        assert server.process.stderr is not None
        lines = [server.process.stderr.readline() for _ in range(2)]
        (said,) = [line for line in lines if "Authorization: Bearer" in line]
        token = said.rsplit(" ", 1)[1].strip()
        assert len(token) >= 32
        async with client(server.url, token=token) as session:
            assert (await session.list_tools()).tools
    finally:
        server.process.terminate()
        _, rest = server.process.communicate(timeout=20)
    assert token not in rest


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--http", "127.0.0.1:notaport"], "--http takes HOST:PORT"),
        (["--http", "127.0.0.1:9", "--token-file", "missing-token"], "cannot be read"),
        (["--token-file", "x"], "--token-file and --stateless are for --http"),
    ],
)
def test_bad_addresses_and_token_files_are_usage_errors(
    root: Path, tmp_path: Path, flags: list[str], said: str
) -> None:
    done = subprocess.run(
        foehn_argv("mcp", "--workspace", str(root), *flags),
        env=environment(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert said in done.stderr


def test_a_short_token_file_is_refused(root: Path, tmp_path: Path) -> None:
    short = tmp_path / "short"
    short.write_text("abc\n")
    done = subprocess.run(
        foehn_argv("mcp", "--workspace", str(root), "--http", "9", "--token-file", str(short)),
        env=environment(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "at least 16 characters" in done.stderr


async def test_stateless_mode_serves_reads_and_refuses_what_it_cannot_ask(
    root: Path, tmp_path: Path, token_file: Path
) -> None:
    (root / "notes.txt").write_text("one\n")
    server = start(
        root, tmp_path / "home", "--allow-writes", "--stateless", "--token-file", str(token_file)
    )
    try:
        asked: list[str] = []
        async with client(server.url, elicit=answering("allow once", asked)) as session:
            read = await session.call_tool("read_file", {"path": "notes.txt"})
            assert "one" in text(read)
            wrote = await session.call_tool("write_file", {"path": "w.txt", "content": "w"})
        assert wrote.is_error
        assert "nobody refused it" in text(wrote)
        assert asked == []
        assert not (root / "w.txt").exists()
    finally:
        server.process.terminate()
        server.process.communicate(timeout=20)


async def test_the_typescript_sdk_client_lists_calls_and_is_asked(
    served: Served, root: Path
) -> None:
    script = Path(__file__).parents[1] / "mcp" / "http_client.mjs"
    done = await asyncio.to_thread(
        subprocess.run,
        [
            "node",
            str(script),
            served.url,
            TOKEN,
            "write_file",
            '{"path": "ts.txt", "content": "ts"}',
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert "read_file" in said["tools"]
    assert said["result"].get("isError") is not True, said
    assert (root / "ts.txt").read_text() == "ts"
