"""The same grant for the MCP servers Foehn starts and connects to: a stdio server in the
sandbox reaches the granted site through its own proxy and nothing else, however it tries (its
attempts at its own sockets are counted at the servers they aimed at); one run read-only
reaches nothing; an HTTP server a workspace lists is reached only if its site is granted, and
every request to an HTTP server goes to the person's own URL or a granted site, recorded."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from foehn_lsp import ToolContext
from foehn_lsp.agent.chain import steps
from foehn_lsp.config.mcp import McpServerConfig, McpSettings
from foehn_lsp.config.network import Domain, parse_domain
from foehn_lsp.mcp.egress import GrantedTransport, origin
from foehn_lsp.mcp.tools import McpCatalogue, connect_servers
from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.sandbox.network import Connection, Grant
from foehn_lsp.tools import ToolRegistry
from network_places import Counting, Names, Package, StandIn, UdpCounting, hosts_names

pytestmark = pytest.mark.process
HERE = Path(__file__).parent
needs_sandbox = pytest.mark.skipif(
    not system_sandbox().available or system_sandbox().prlimit is None,
    reason="needs the sandbox and util-linux's prlimit",
)


@pytest.fixture(scope="module")
def names() -> Iterator[Names]:
    with hosts_names() as found:
        yield found


@pytest.fixture
def site(names: Names) -> Iterator[StandIn]:
    server = StandIn(names.granted, Package(name="demo"))
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def grant(names: Names, site: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "xdg"
    (folder / "foehn").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    config = folder / "foehn" / "config.toml"
    config.write_text(
        f'[sandbox]\nnetwork = ["{names.granted}:{site.port}"]\n'
        f'network_local = ["{names.granted}"]\n'
    )
    return config


def _open(
    root: Path, servers: dict[str, McpServerConfig], records: list[Connection], **more: object
) -> McpCatalogue:
    catalogue = connect_servers(
        McpSettings(servers=servers),
        ToolRegistry(),
        root=root,
        default_timeout=30,
        report=records.append,
        **more,  # type: ignore[arg-type]
    )
    assert catalogue is not None
    return catalogue


async def _get(catalogue: McpCatalogue, ctx: ToolContext, url: str) -> str:
    result = await catalogue.registry.call(
        "mcp__sockets__get", json.dumps({"url": url}), ctx, steps=steps()
    )
    return result.output


@needs_sandbox
async def test_a_sandboxed_server_reaches_the_grant_and_nothing_else(
    root: Path, ctx: ToolContext, names: Names, site: StandIn, grant: Path
) -> None:
    target, udp = Counting(), UdpCounting()
    script = root / "sockets.py"  # the sandbox shows the workspace
    shutil.copy(HERE / "servers" / "sockets.py", script)
    config = McpServerConfig(
        command=sys.executable,
        args=(
            str(script),
            str(root),
            str(target.port),
            names.granted,
            str(site.port),
            str(udp.port),
        ),
        sandbox="workspace-write",
    )
    records: list[Connection] = []
    catalogue = _open(root, {"sockets": config}, records)
    try:
        assert catalogue.problems == []
        granted = await _get(catalogue, ctx, f"{site.url}/simple/demo/")
        other = await _get(catalogue, ctx, f"http://{names.other}:{target.port}/CANARY")
    finally:
        catalogue.close()
        target.close()
        udp.close()
    attempts = (root / "attempts").read_text().splitlines()
    assert attempts == [
        "direct to 127.0.0.1: ConnectionRefusedError",
        "direct to the granted name: ConnectionRefusedError",
        "a datagram: went through",  # into the sandbox's own loopback, where nobody listens
    ]
    assert target.connections == 0
    assert udp.datagrams == 0
    assert "demo-1.0.0" in granted
    assert "403" in other
    assert [seen.path for seen in site.seen] == ["/simple/demo/"]
    # A connection is recorded when it ends (with its bytes): the granted one may end after
    # the refused one was made and recorded, on a busy machine (seen once in a run from /tmp).
    assert sorted((r.call, r.host, r.allowed) for r in records) == sorted(
        [("mcp:sockets", names.granted, True), ("mcp:sockets", names.other, False)]
    )


@needs_sandbox
async def test_a_server_run_read_only_has_no_network(
    root: Path, ctx: ToolContext, names: Names, site: StandIn, grant: Path
) -> None:
    script = root / "sockets.py"
    shutil.copy(HERE / "servers" / "sockets.py", script)
    config = McpServerConfig(
        command=sys.executable,
        args=(str(script), str(root), "9", names.granted, str(site.port), "9"),
        sandbox="read-only",
    )
    records: list[Connection] = []
    catalogue = _open(root, {"sockets": config}, records)
    try:
        answer = await _get(catalogue, ctx, f"{site.url}/simple/demo/")
    finally:
        catalogue.close()
    assert answer.startswith("failed:")
    assert site.seen == []
    assert records == []


def domain(text: str) -> Domain:
    parsed = parse_domain(text, "test:1")
    assert isinstance(parsed, Domain)
    return parsed


async def test_an_http_servers_requests_go_to_its_own_url_or_a_granted_site(
    names: Names, site: StandIn
) -> None:
    target = Counting()
    records: list[Connection] = []
    own = f"http://127.0.0.1:{site.port}"
    transport = GrantedTransport(
        httpx2.AsyncHTTPTransport(),
        server="remote",
        own=origin(own),
        grant=Grant(
            domains=(domain(f"{names.granted}:{site.port}"),), local=(domain(names.granted),)
        ),
        report=records.append,
        private=("Authorization",),
    )
    configured = {"Authorization": "Bearer for-the-server-only"}
    try:
        async with httpx2.AsyncClient(transport=transport, headers=configured) as client:
            mine = await client.get(f"{own}/simple/demo/")
            granted = await client.get(f"{site.url}/files/{site.package.wheel_name}")
            with pytest.raises(httpx2.ConnectError, match=f"refused: {names.other} is not"):
                await client.get(f"http://{names.other}:{target.port}/CANARY")
    finally:
        target.close()
    assert mine.status_code == 200
    assert granted.content == site.wheel
    assert target.connections == 0
    assert [seen.headers["host"] for seen in site.seen] == [
        f"127.0.0.1:{site.port}",
        f"{names.granted}:{site.port}",
    ]
    assert [seen.headers.get("authorization") for seen in site.seen] == [
        "Bearer for-the-server-only",  # to the URL it was configured for
        None,  # never anywhere else
    ]
    assert [(r.host, r.allowed) for r in records] == [
        ("127.0.0.1", True),
        (names.granted, True),
        (names.other, False),
    ]
    assert records[1].bytes_in == len(site.wheel)


def test_a_workspaces_http_server_is_reached_only_if_its_site_is_granted(
    root: Path, site: StandIn, grant: Path
) -> None:
    listed = McpServerConfig(url=f"http://127.0.0.1:{site.port}/mcp")
    records: list[Connection] = []
    catalogue = connect_servers(
        McpSettings(),
        ToolRegistry(),
        root=root,
        default_timeout=10,
        extra={"theirs": listed},
        report=records.append,
    )
    assert catalogue is not None
    try:
        (problem,) = catalogue.problems
    finally:
        catalogue.close()
    assert "127.0.0.1 is an address, not a granted name" in problem.problem
    assert site.seen == []
    assert [(r.host, r.allowed) for r in records] == [("127.0.0.1", False)]
