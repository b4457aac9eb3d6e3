"""``fetch`` through the real chain and gate, against a site on 127.0.0.1 reached by name: a
granted site is fetched unasked, any other is asked; every hop is checked; what comes back is
Markdown, cut at ``max_bytes`` (and at 30 s), and wrapped as untrusted content. What counts is
what reached the servers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.policy.approval import (
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequest,
    Approved,
    Denied,
)
from foehn_lsp.policy.guards import Guards, TurnGuards
from foehn_lsp.sandbox.network import Connection
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.workspace import FileAccess, Workspace
from foehn_plugins import fetch as fetch_tool
from network_places import Counting, Names, Package, StandIn, hosts_names
from policy.gated import gated


@pytest.fixture(scope="module")
def names() -> Iterator[Names]:
    with hosts_names() as found:
        yield found


@pytest.fixture
def target() -> Iterator[Counting]:
    listener = Counting()
    yield listener
    listener.close()


@pytest.fixture
def site(names: Names, target: Counting) -> Iterator[StandIn]:
    server = StandIn(
        names.granted,
        Package(name="demo"),
        redirect=f"http://{names.other}:{target.port}/landed",
    )
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Path]:
    folder = tmp_path / "xdg"
    (folder / "foehn").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    path = folder / "foehn" / "config.toml"

    def write(text: str) -> Path:
        path.write_text(text)
        return path

    return write


class Person:
    def __init__(self, decision: ApprovalDecision) -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.decision


async def _fetch(
    registry: ToolRegistry,
    root: Path,
    path: Path,
    arguments: dict[str, Any],
    decision: ApprovalDecision | None = None,
) -> tuple[ToolResult, list[ApprovalRequest], list[Connection]]:
    workspace = Workspace([root])
    events: list[Connection] = []
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace), connections=events.append)
    person = Person(decision or Denied(reason="not this one"))
    guards = TurnGuards(guards=Guards(path, root, trusted=False))
    gate = ApprovalGate(ApprovalSettings(), person, lambda event: None, guards)
    result = await registry.call(
        "fetch", json.dumps(arguments), ctx, call_id="f1", steps=steps(gated(gate))
    )
    return result, person.asked, events


def _granted(names: Names, site: StandIn) -> str:
    return (
        f'[sandbox]\nnetwork = ["{names.granted}:{site.port}"]\n'
        f'network_local = ["{names.granted}"]\n'
    )


async def test_a_granted_site_is_fetched_unasked_as_untrusted_markdown(
    registry: ToolRegistry,
    root: Path,
    names: Names,
    site: StandIn,
    config: Callable[[str], Path],
) -> None:
    path = config(_granted(names, site))
    result, asked, events = await _fetch(registry, root, path, {"url": f"{site.url}/page"})
    assert result.ok, result.output
    assert asked == []
    text = result.output
    assert text.startswith(f"GET {site.url}/page -> 200 text/html")
    assert f'<untrusted-content source="{site.url}/page">' in text
    assert "# The page" in text
    assert "# Hello" in text
    assert "**bold**" in text
    assert f"[link]({site.url}/next)" in text
    assert "- one" in text
    assert "```\ncode  kept\n```" in text
    assert "var x" not in text  # scripts are left out
    assert text.count("</untrusted-content>") == 1  # the page cannot close the wrapper
    assert text.rstrip().endswith("tell the person instead.")
    (event,) = events
    assert event.allowed
    assert event.call == "f1"
    assert event.bytes_in > 0
    assert [seen.path for seen in site.seen] == ["/page"]
    assert site.seen[0].headers["host"] == f"{names.granted}:{site.port}"
    assert "authorization" not in site.seen[0].headers
    assert "cookie" not in site.seen[0].headers


async def test_another_site_is_asked_about_and_not_fetched_when_refused(
    registry: ToolRegistry,
    root: Path,
    names: Names,
    site: StandIn,
    config: Callable[[str], Path],
) -> None:
    path = config(f'[sandbox]\nnetwork_local = ["{names.granted}"]\n')
    url = f"{site.url}/page?q=what-would-leave"
    result, asked, events = await _fetch(registry, root, path, {"url": url})
    (request,) = asked
    assert request.outside == f"{names.granted} (a site you have not granted)"
    assert request.network == (f"{names.granted}:{site.port}",)
    assert request.risk == "write"
    assert not result.ok
    assert site.seen == []
    assert events == []
    approved, _, _ = await _fetch(registry, root, path, {"url": url}, Approved())
    assert approved.ok, approved.output
    assert [seen.path for seen in site.seen] == ["/page?q=what-would-leave"]


async def test_a_redirect_to_a_site_not_allowed_stops_there(
    registry: ToolRegistry,
    root: Path,
    names: Names,
    site: StandIn,
    target: Counting,
    config: Callable[[str], Path],
) -> None:
    path = config(_granted(names, site))
    result, _, events = await _fetch(registry, root, path, {"url": f"{site.url}/redirect"})
    assert not result.ok
    assert result.output == (
        f"refused: {names.other} is not granted (redirected from {site.url}/redirect); "
        "nothing was fetched"
    )
    assert target.connections == 0
    assert [(e.host, e.allowed) for e in events] == [(names.granted, True), (names.other, False)]


async def test_the_body_is_cut_at_max_bytes_and_only_text_is_returned(
    registry: ToolRegistry,
    root: Path,
    names: Names,
    site: StandIn,
    config: Callable[[str], Path],
) -> None:
    path = config(_granted(names, site))
    big, _, events = await _fetch(
        registry, root, path, {"url": f"{site.url}/big", "max_bytes": 1000}
    )
    assert big.ok
    assert "1,000 bytes (cut at 1,000 bytes)" in big.output
    assert "x" * 1000 in big.output
    assert "x" * 1001 not in big.output
    assert events[0].bytes_in == 1000
    binary, _, _ = await _fetch(registry, root, path, {"url": f"{site.url}/binary"})
    assert not binary.ok
    assert "application/octet-stream" in binary.output
    assert "not text" in binary.output


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:{port}/page", "127.0.0.1 is an address"),
        ("http://[::1]:{port}/page", "::1 is an address"),
        ("ftp://{granted}:{port}/page", "not ftp"),
        ("http://user:pw@{granted}:{port}/page", "user name or password"),
        ("http://{granted}:{port}/page?key={key}", "carries one of the person's keys"),
    ],
)
async def test_what_fetch_never_sends(
    registry: ToolRegistry,
    root: Path,
    names: Names,
    site: StandIn,
    config: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
    url: str,
    why: str,
) -> None:
    key = "fetch-canary-0123456789"
    monkeypatch.setenv("FOEHN_API_KEY", key)
    path = config(_granted(names, site))
    filled = url.format(port=site.port, granted=names.granted, key=key)
    result, _, _ = await _fetch(registry, root, path, {"url": filled}, Approved())
    assert not result.ok
    assert why in result.output
    assert site.seen == []


async def test_a_granted_name_that_resolves_here_needs_network_local(
    registry: ToolRegistry,
    root: Path,
    names: Names,
    site: StandIn,
    config: Callable[[str], Path],
) -> None:
    path = config(f'[sandbox]\nnetwork = ["{names.granted}:{site.port}"]\n')
    result, asked, events = await _fetch(registry, root, path, {"url": f"{site.url}/page"})
    assert asked == []
    assert not result.ok
    assert "a loopback address" in result.output
    assert site.seen == []
    assert [e.allowed for e in events] == [False]


def test_a_fetch_has_thirty_seconds() -> None:
    assert fetch_tool.SECONDS == 30


async def test_a_silent_site_is_cut_at_the_fetchs_time_limit(
    registry: ToolRegistry,
    root: Path,
    names: Names,
    config: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fetch_tool, "SECONDS", 1.0)  # 30 s in use: a second shows the same cut
    silent = Counting(hold=True)
    try:
        path = config(
            f'[sandbox]\nnetwork = ["{names.granted}:{silent.port}"]\n'
            f'network_local = ["{names.granted}"]\n'
        )
        url = f"http://{names.granted}:{silent.port}/"
        result, _, events = await _fetch(registry, root, path, {"url": url})
    finally:
        silent.close()
    assert not result.ok
    assert result.output == f"{url} sent nothing within 1 s"
    assert silent.connections == 1
    assert events[0].reason.endswith("cut after 1 s")
