"""The network a call reaches, as the terminal, ``--json`` and the audit log show it, and as
``foehn sandbox`` and ``foehn explain`` tell it beforehand: a real ``foehn`` process, a real
model server, a site on 127.0.0.1 reached by name through the sandbox's proxy."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.harness import events, foehn
from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.testing import ModelServer, Turn
from network_places import Names, Package, StandIn, hosts_names

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        not system_sandbox().available, reason=f"needs the sandbox: {system_sandbox().note}"
    ),
]
GET = "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read())"


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
def state(tmp_path: Path, names: Names, site: StandIn) -> Path:
    folder = tmp_path / "state"
    (folder / "config" / "foehn").mkdir(parents=True)
    (folder / "config" / "foehn" / "config.toml").write_text(
        f'[sandbox]\nnetwork = ["{names.granted}:{site.port}"]\n'
        f'network_local = ["{names.granted}"]\n'
    )
    return folder


def _get(url: str) -> tuple[str, dict[str, object]]:
    return ("run_command", {"command": [os.path.realpath(sys.executable), "-c", GET, url]})


def _script(model: ModelServer, names: Names, site: StandIn) -> None:
    model.script(
        Turn(tool_calls=[_get(f"{site.url}/simple/demo/")]),
        Turn(tool_calls=[_get(f"http://{names.other}:{site.port}/CANARY")]),
        Turn(text="Done."),
    )


def test_every_attempt_is_an_event_and_an_audit_record(
    model: ModelServer, app: Path, state: Path, names: Names, site: StandIn
) -> None:
    _script(model, names, site)
    arguments = ("run", "get it", "--workspace", str(app), "--approve", "all", "--json")
    done = foehn(*arguments, server=model, state=state)
    assert done.returncode == 0, done.stderr
    network = [e for e in events(done.stdout) if e["event"] == "network"]
    assert [list(e) for e in network] == [
        ["event", "call", "host", "port", "allowed", "reason", "bytes_out", "bytes_in"]
    ] * 2
    reached, refused = network
    assert (reached["host"], reached["port"], reached["allowed"]) == (
        names.granted,
        site.port,
        True,
    )
    assert reached["bytes_in"] > 0
    assert (refused["host"], refused["allowed"], refused["bytes_out"]) == (names.other, False, 0)
    assert refused["reason"] == f"{names.other} is not granted"
    results = [e for e in events(done.stdout) if e["event"] == "tool_result"]
    assert f"refused: {names.other} is not granted" in results[1]["output"]
    assert [seen.path for seen in site.seen] == ["/simple/demo/"]
    (log,) = (state / "foehn" / "audit").glob("*.jsonl")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    audited = [r for r in records if r.get("event") == "network"]
    assert [(r["call"], r["host"], r["allowed"]) for r in audited] == [
        (reached["call"], names.granted, True),
        (refused["call"], names.other, False),
    ]
    assert all(r["run"] and r["time"] for r in audited)


def test_the_terminal_says_what_was_refused(
    model: ModelServer, app: Path, state: Path, names: Names, site: StandIn
) -> None:
    _script(model, names, site)
    done = foehn(
        "run", "get it", "--workspace", str(app), "--approve", "all", server=model, state=state
    )
    assert done.returncode == 0, done.stderr
    assert f"⊘ network: refused: {names.other} is not granted" in done.stderr


def test_foehn_sandbox_and_explain_show_the_network(
    app: Path, state: Path, names: Names, site: StandIn
) -> None:
    config = state / "config" / "foehn" / "config.toml"
    config.write_text(
        f'[sandbox]\nnetwork = ["{names.granted}:{site.port}", "10.0.0.1"]\n'
        f'network_local = ["{names.granted}"]\n'
        f'[sandbox.network_headers]\n"{names.granted}:{site.port}" = ["Authorization"]\n'
        f'"{names.other}" = ["Authorization"]\n'
    )
    shown = foehn("sandbox", "--workspace", str(app), "--json", state=state)
    assert shown.returncode == 0, shown.stderr
    network = json.loads(shown.stdout)["network"]
    assert network["granted"] == [
        {"domain": f"{names.granted}:{site.port}", "source": f"{config}:2"}
    ]
    assert network["local"] == [{"domain": names.granted, "source": f"{config}:3"}]
    assert network["problems"] == [
        f"{config}:2: sandbox.network: '10.0.0.1': an address, not a domain name: grant the "
        "name the program asks for; it is not granted",
        f"{config}:6: sandbox.network_headers.'{names.other}': {names.other} is not granted in "
        "sandbox.network (network_headers grants nothing by itself); no header is allowed",
    ]
    assert network["headers"] == [
        {
            "domain": f"{names.granted}:{site.port}",
            "headers": ["Authorization"],
            "source": f"{config}:5",
        }
    ]
    assert "127.0.0.1:3128" in network["how"]
    text = foehn("sandbox", "--workspace", str(app), state=state)
    assert f"  granted  {names.granted}:{site.port}  ({config}:2)" in text.stdout
    assert (
        f"  headers  {names.granted}:{site.port}  ({config}:5): a key may go in Authorization"
        in text.stdout
    )
    explained = foehn("explain", "--json", "--workspace", str(app), "--", "npm", "ci", state=state)
    assert explained.returncode == 0, explained.stderr
    assert json.loads(explained.stdout)["network"] == [
        {"domain": f"{names.granted}:{site.port}", "source": f"{config}:2"}
    ]
