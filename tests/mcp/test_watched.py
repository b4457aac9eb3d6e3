"""Which MCP tools' calls go into the turn's checkpoint (the workspace watched during the call,
the file a write names kept before it): those of servers on this computer, which can change
its files; a server elsewhere cannot, so its calls cost no watch (off Linux, a snapshot of the
whole workspace) and show no diff of a local file. The tools are loaded as a lazy server's are,
from the listing Foehn stored, so no server is contacted."""

from __future__ import annotations

import sys
from pathlib import Path

import mcp_types as types
import pytest

from foehn_lsp.config.mcp import McpServerConfig, McpSettings
from foehn_lsp.mcp import cache as listings
from foehn_lsp.mcp.client import Listing
from foehn_lsp.mcp.tools import connect_servers
from foehn_lsp.risk import RiskLevel
from foehn_lsp.tools.contract import CallScope, ToolContext
from foehn_lsp.tools.registry import ToolRegistry

HERE = Path(__file__).parent
OBJECT = {"type": "object"}
LISTING = Listing(
    tools=(
        types.Tool(name="plain_echo", input_schema=OBJECT),
        types.Tool(name="write_file", input_schema=OBJECT),
    )
)
ON_THIS_COMPUTER = [
    "http://127.0.0.1:9/mcp",
    "http://127.8.0.1:9/mcp",
    "http://localhost:9/mcp",
    "http://LOCALHOST.:9/mcp",
    "http://[::1]:9/mcp",
    "http://[::ffff:127.0.0.1]:9/mcp",
]
ELSEWHERE = [
    "https://mcp.example.com/mcp",
    "http://203.0.113.7:8000/mcp",
    "http://[2001:db8::7]/mcp",
    "http://localhost.example.com/mcp",
]


def scopes(
    config: McpServerConfig, root: Path, ctx: ToolContext, cache: Path
) -> tuple[CallScope, CallScope]:
    """The scopes of a call of ``plain_echo`` and of ``write_file`` (on ``notes.txt``)."""
    listings.store(listings.listing_path(cache, "srv", config), LISTING)
    catalogue = connect_servers(
        McpSettings(servers={"srv": config}, start="lazy"),
        ToolRegistry(),
        root=root,
        default_timeout=20,
        cache=cache,
    )
    assert catalogue is not None
    try:
        assert catalogue.problems == []
        echo = catalogue.registry.get("mcp__srv__plain_echo")
        write = catalogue.registry.get("mcp__srv__write_file")
        assert echo is not None
        assert write is not None
        assert echo.risk is RiskLevel.DESTRUCTIVE  # no annotations: it may change anything
        assert echo.scope is not None
        assert write.scope is not None
        note = {"path": str(root / "notes.txt"), "content": "new\n"}
        return echo.scope({}, ctx), write.scope(note, ctx)
    finally:
        catalogue.close()


@pytest.mark.parametrize("url", ON_THIS_COMPUTER)
def test_a_server_on_this_computer_is_watched(
    url: str, root: Path, ctx: ToolContext, tmp_path: Path
) -> None:
    (root / "notes.txt").write_text("old\n")
    echo, write = scopes(McpServerConfig(url=url), root, ctx, tmp_path / "cache")
    assert echo.writes == ()
    assert write.writes == (root / "notes.txt",)
    assert write.preview is not None
    assert "+new" in write.preview


def test_a_server_foehn_starts_is_watched(root: Path, ctx: ToolContext, tmp_path: Path) -> None:
    (root / "notes.txt").write_text("old\n")
    state = tmp_path / "state"
    server = McpServerConfig(
        command=sys.executable, args=(str(HERE / "servers" / "awkward.py"), str(state))
    )
    echo, write = scopes(server, root, ctx, tmp_path / "cache")
    assert echo.writes == ()
    assert write.writes == (root / "notes.txt",)
    assert not state.exists()  # loaded from the stored listing: never started


@pytest.mark.parametrize("url", ELSEWHERE)
def test_a_server_elsewhere_is_not_watched_and_shows_no_local_diff(
    url: str, root: Path, ctx: ToolContext, tmp_path: Path
) -> None:
    (root / "notes.txt").write_text("old\n")
    echo, write = scopes(McpServerConfig(url=url), root, ctx, tmp_path / "cache")
    assert echo.writes is None
    assert write.writes is None
    assert write.preview is None
    assert echo.outside is not None  # its arguments still leave this computer, and it asks
