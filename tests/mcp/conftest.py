"""Fixtures: the real MCP servers the tests start, as Foehn configures them."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from foehn_lsp.config.mcp import McpServerConfig
from oauth_harness import OAuthServer

HERE = Path(__file__).parent
EVERYTHING = HERE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist"
FILESYSTEM = HERE / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist"
BIN = Path(sys.executable).parent


@pytest.fixture(autouse=True)
def user_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The servers' logs and stored tool lists go to the test's own folders."""
    home = tmp_path / "user"
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    return home


def everything_js() -> Path:
    script = EVERYTHING / "index.js"
    assert script.is_file(), (
        "the npm test server is not installed: run scripts/test, or "
        "(cd tests/mcp && npm ci) by hand"
    )
    assert shutil.which("node"), "the MCP tests need Node 20 on PATH"
    return script


@pytest.fixture
def everything() -> McpServerConfig:
    """``@modelcontextprotocol/server-everything`` over stdio."""
    return McpServerConfig(command="node", args=(str(everything_js()), "stdio"))


@pytest.fixture
def filesystem() -> Callable[..., McpServerConfig]:
    """``@modelcontextprotocol/server-filesystem`` over stdio, allowed into the folders given."""
    script = FILESYSTEM / "index.js"
    assert script.is_file(), "the npm test server is not installed: (cd tests/mcp && npm ci)"
    assert shutil.which("node"), "the MCP tests need Node 20 on PATH"

    def configure(*allowed: Path) -> McpServerConfig:
        return McpServerConfig(command="node", args=(str(script), *map(str, allowed)))

    return configure


@pytest.fixture
def time_server() -> McpServerConfig:
    return McpServerConfig(command=str(BIN / "mcp-server-time"))


@pytest.fixture
def git_server(root: Path) -> McpServerConfig:
    """``mcp-server-git`` on a fresh repository at the workspace root."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return McpServerConfig(command=str(BIN / "mcp-server-git"), args=("--repository", str(root)))


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """Where ``servers/awkward.py`` leaves its evidence (started, calls, cancelled)."""
    folder = tmp_path / "state"
    folder.mkdir()
    return folder


@pytest.fixture
def awkward(state: Path) -> Callable[..., McpServerConfig]:
    """``servers/awkward.py`` with extra config fields: the cases published servers lack."""

    def configure(**fields: object) -> McpServerConfig:
        script = str(HERE / "servers" / "awkward.py")
        return McpServerConfig.model_validate(
            {"command": sys.executable, "args": [script, str(state)]} | fields
        )

    return configure


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def awkward_over_http(state: Path) -> Iterator[str]:
    """``servers/awkward.py`` over streamable HTTP; yields its ``/mcp`` URL."""
    yield from _awkward_over_http(state, json_bodies=False)


@pytest.fixture(params=["sse", "json"])
def awkward_over_http_both(state: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """``servers/awkward.py`` over streamable HTTP, answering with server-sent events and then
    with JSON bodies; yields its ``/mcp`` URL."""
    yield from _awkward_over_http(state, json_bodies=request.param == "json")


def _awkward_over_http(state: Path, *, json_bodies: bool) -> Iterator[str]:
    port = free_port()
    script = str(HERE / "servers" / "awkward.py")
    process = subprocess.Popen(
        [sys.executable, script, str(state), "--http", str(port)]
        + (["--json"] if json_bodies else []),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert process.poll() is None, "the test server exited at start"
            assert time.monotonic() < deadline, "the test server did not listen"
            time.sleep(0.1)


@pytest.fixture
def everything_over_http() -> Iterator[str]:
    """server-everything's streamable-HTTP mode on a free port; yields its ``/mcp`` URL."""
    port = free_port()
    process = subprocess.Popen(
        ["node", "-r", str(HERE / "loopback.cjs"), str(everything_js()), "streamableHttp"],
        env={"PATH": str(Path(shutil.which("node") or "node").parent), "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def oauth_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OAuthServer]:
    """``servers/oauth_server.py`` on a free port of 127.0.0.1, for the tests of a module."""
    state = tmp_path_factory.mktemp("oauth-state")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(HERE / "servers" / "oauth_server.py"), str(state), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield OAuthServer(url=f"http://127.0.0.1:{port}/mcp", state=state)
    finally:
        process.kill()  # a test may leave a request hanging in it on purpose
        process.wait(timeout=10)


@pytest.fixture
def oauth_server(oauth_service: OAuthServer) -> OAuthServer:
    """An MCP server behind OAuth 2.1 with its own authorization server (``servers/
    oauth_server.py``), as new: no faults, clients, tokens or evidence."""
    oauth_service.reset()
    return oauth_service
