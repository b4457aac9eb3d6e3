"""A package installed from a registry by name, in the workspace-write sandbox, as the person
approved it: ``pip install`` and ``npm install`` against a stand-in for a package registry on
127.0.0.1, reached by its name through the proxy when the person granted it (and listed it in
``network_local``, since it answers on this machine), and refused, with the reason in the
result, when they did not. The person's keys in Foehn's environment never reach the registry.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.events import NetworkEvent
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalGate, ApprovalRequest, Approved
from foehn_lsp.policy.guards import Guards, TurnGuards
from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.sandbox.network import Connection
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.workspace import FileAccess, Workspace
from network_places import Names, Package, StandIn, hosts_names
from policy.gated import gated

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        not system_sandbox().available, reason=f"needs the sandbox: {system_sandbox().note}"
    ),
]

KEY = "sk-foehn-canary-0123456789abcdefghij"
PYTHON = os.path.realpath(sys.executable)


@dataclass(kw_only=True)
class Place:
    names: Names
    registry: StandIn
    root: Path
    config: Path


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    with hosts_names() as names:
        registry = StandIn(names.granted, Package(name="foehn-demo-pkg"))
        home = tmp_path / "xdg"
        (home / "foehn").mkdir(parents=True)
        monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
        for variable in ("FOEHN_API_KEY", "MISTRAL_API_KEY", "NPM_TOKEN"):
            monkeypatch.setenv(variable, KEY)  # what must never leave
        root = tmp_path / "ws"
        root.mkdir()
        try:
            yield Place(
                names=names, registry=registry, root=root, config=home / "foehn" / "config.toml"
            )
        finally:
            registry.shutdown()
            registry.server_close()


class Yes:
    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return Approved()


async def _install(
    place: Place, registry: ToolRegistry, argv: list[str]
) -> tuple[ToolResult, list[ApprovalRequest], list[Connection]]:
    workspace = Workspace([place.root])
    events: list[Connection] = []
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace), connections=events.append)
    person = Yes()
    guards = TurnGuards(guards=Guards(place.config, place.root, trusted=False))
    gate = ApprovalGate(ApprovalSettings(), person, lambda event: None, guards)
    result = await registry.call(
        "run_command",
        {"command": argv, "timeout_s": 240},
        ctx,
        call_id="install",
        steps=steps(gated(gate)),
    )
    return result, person.asked, events


def _grant(place: Place) -> None:
    name, port = place.names.granted, place.registry.port
    place.config.write_text(f'[sandbox]\nnetwork = ["{name}:{port}"]\nnetwork_local = ["{name}"]\n')


def _pip(place: Place) -> list[str]:
    return [
        PYTHON,
        "-m",
        "pip",
        "install",
        "--no-cache-dir",
        "--disable-pip-version-check",
        "--target",
        "vendor",
        "--index-url",
        f"{place.registry.url}/simple",
        "--trusted-host",
        place.names.granted,
        "foehn-demo-pkg",
    ]


def _npm(place: Place) -> list[str]:
    return [
        "npm",
        "install",
        "--no-audit",
        "--no-fund",
        "--no-update-notifier",
        "--registry",
        f"{place.registry.url}/",
        "foehn-demo-pkg",
    ]


def _nothing_secret_left(place: Place) -> None:
    for seen in place.registry.seen:
        assert KEY not in seen.path + json.dumps(seen.headers) + seen.body.decode("latin-1")


async def test_pip_installs_from_a_granted_registry_by_name(
    place: Place, registry: ToolRegistry
) -> None:
    _grant(place)
    result, asked, events = await _install(place, registry, _pip(place))
    assert result.ok, result.output
    (request,) = asked
    assert request.network == (f"{place.names.granted}:{place.registry.port}",)
    installed = place.root / "vendor" / "foehn_demo_pkg" / "__init__.py"
    assert place.registry.package.marker in installed.read_text()
    assert {seen.path for seen in place.registry.seen} >= {
        "/simple/foehn-demo-pkg/",
        f"/files/{place.registry.package.wheel_name}",
    }
    assert events
    assert all(event.allowed for event in events)
    assert sum(event.bytes_in for event in events) >= len(place.registry.wheel)
    assert f"network: {place.names.granted}:{place.registry.port}:" in result.output
    _nothing_secret_left(place)


async def test_pip_without_the_grant_is_refused_and_says_why(
    place: Place, registry: ToolRegistry
) -> None:
    name = place.names.granted
    place.config.write_text(f'[sandbox]\nnetwork = ["other.example"]\nnetwork_local = ["{name}"]\n')
    result, _, events = await _install(place, registry, _pip(place))
    assert not result.ok
    assert f"refused: {name} is not granted" in result.output
    assert place.registry.seen == []
    assert not (place.root / "vendor" / "foehn_demo_pkg").exists()
    assert events
    assert all(not event.allowed and event.bytes_out == 0 for event in events)


async def test_without_any_grant_there_is_no_network_at_all(
    place: Place, registry: ToolRegistry
) -> None:
    result, asked, events = await _install(place, registry, _pip(place))
    assert not result.ok
    assert asked[0].network == ()
    assert place.registry.seen == []
    assert events == []  # no proxy at all: the program found no way out to ask for


@pytest.fixture
def npm() -> str:
    found = shutil.which("npm")
    if found is None:
        pytest.skip("needs npm")
    return found


async def test_npm_installs_from_a_granted_registry_by_name(
    place: Place, registry: ToolRegistry, npm: str
) -> None:
    _grant(place)
    result, _, events = await _install(place, registry, _npm(place))
    assert result.ok, result.output
    installed = place.root / "node_modules" / "foehn-demo-pkg" / "index.js"
    assert place.registry.package.marker in installed.read_text()
    assert any(seen.path.endswith(".tgz") for seen in place.registry.seen)
    assert events
    assert all(event.allowed for event in events)
    _nothing_secret_left(place)


async def test_npm_without_the_grant_is_refused_and_says_why(
    place: Place, registry: ToolRegistry, npm: str
) -> None:
    name = place.names.granted
    place.config.write_text(f'[sandbox]\nnetwork = ["other.example"]\nnetwork_local = ["{name}"]\n')
    result, _, events = await _install(place, registry, _npm(place))
    assert not result.ok
    assert f"refused: {name} is not granted" in result.output
    assert place.registry.seen == []
    assert not (place.root / "node_modules" / "foehn-demo-pkg").exists()
    assert events
    assert all(not event.allowed for event in events)


def test_a_network_event_is_the_pinned_shape() -> None:
    from foehn_lsp.events import event_json

    event = NetworkEvent(
        call="c", host="h", port=1, allowed=True, reason="r", bytes_out=2, bytes_in=3
    )
    assert list(event_json(event)) == [
        "event",
        "call",
        "host",
        "port",
        "allowed",
        "reason",
        "bytes_out",
        "bytes_in",
    ]


async def test_inside_the_proxy_is_where_every_client_looks(
    place: Place, registry: ToolRegistry
) -> None:
    _grant(place)
    printed = "import os\nfor key, value in os.environ.items(): print(f'{key}={value}')"
    result, asked, _ = await _install(place, registry, [PYTHON, "-c", printed])
    assert result.ok, result.output
    assert asked[0].sandbox == "workspace-write"  # a read-only call has no network to point at
    shown = dict(line.split("=", 1) for line in result.output.splitlines()[2:] if "=" in line)
    proxy = "http://127.0.0.1:3128"
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "npm_config_proxy",
        "npm_config_https_proxy",
        "PIP_PROXY",
        "CARGO_HTTP_PROXY",
        "GIT_CONFIG_VALUE_0",
    ):
        assert shown[name] == proxy, name
    assert shown["NO_PROXY"] == "localhost,127.0.0.1,::1"
    assert shown["GIT_CONFIG_KEY_0"] == "http.proxy"
    assert KEY not in result.output


async def test_a_proxy_that_cannot_start_stops_the_call_in_one_line(
    place: Place, registry: ToolRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    _grant(place)
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/proc")  # where no folder can be made
    result, _, events = await _install(place, registry, _pip(place))
    assert not result.ok
    assert result.output.startswith(f"{PYTHON} was not run: the network proxy could not start: ")
    assert result.output.endswith("; nothing ran")
    assert "\n" not in result.output
    assert place.registry.seen == []
    assert events == []
