"""The official MCP conformance suite (npm ``@modelcontextprotocol/conformance`` 0.1.16, on the
Node 22 it needs, both pinned in ``tests/conformance/package.json``) against both sides of
Foehn.

Client: each scenario starts its own test server and runs ``client.py`` (Foehn's MCP client as
a person's config uses it) against it; a scenario passes when none of its checks fails (a
warning, such as a reconnection later than the suite hoped on a busy machine, is not a
failure). Server: ``foehn mcp --http`` behind ``token_proxy.py`` (the suite sends no bearer
token), the whole server suite run once. Every scenario is listed below, either as one that
applies (it must pass) or with why it does not apply (it must not pass either: a scenario that
starts passing is a reason that went stale). ``docs/mcp.md`` states the same lists.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.process

HERE = Path(__file__).parent
SUITE = HERE / "node_modules" / ".bin" / "conformance"
NODE = HERE / "node_modules" / "node" / "bin"
STAMP = re.compile(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$")
"""The time the suite adds to each result folder's name."""
TIMEOUT_MS = 120_000
"""How long the suite lets one client run; a busy machine may take a while to start Python."""

CLIENT = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
]
"""Client scenarios that apply to Foehn: each must pass."""

EXTENSION = (
    "an authorization extension for programs that act on their own behalf; Foehn signs in as "
    "the person, in their browser"
)
CLIENT_NOT_APPLICABLE = {
    "auth/2025-03-26-oauth-metadata-backcompat": (
        "its authorization server metadata, found at the server's own origin, names another "
        "issuer (the origin's /oauth); RFC 8414 section 3.3 requires them to match, and Foehn "
        "refuses metadata whose issuer does not match where it was found"
    ),
    "auth/2025-03-26-oauth-endpoint-fallback": (
        "it publishes no metadata and expects registration and tokens at /register and /token "
        "of the server's address; Foehn sends credentials only to endpoints named by metadata "
        "it found and checked"
    ),
    "auth/client-credentials-jwt": EXTENSION,
    "auth/client-credentials-basic": EXTENSION,
    "auth/cross-app-access-complete-flow": (
        "an enterprise authorization extension (SEP-990: a token exchanged at the company's "
        "identity provider); Foehn signs in as the person, in their browser"
    ),
}

SERVER = [
    "server-initialize",
    "ping",
    "tools-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
]
"""Server scenarios that apply to ``foehn mcp``: each must pass."""

SUITES_OWN_TOOL = "it calls a test tool of the suite's own ({}), which Foehn does not have"
SERVER_VACUOUS = {
    "tools-call-simple-text": SUITES_OWN_TOOL.format("test_simple_text"),
    "tools-call-error": SUITES_OWN_TOOL.format("test_error_handling"),
}
"""Server scenarios that pass, but only because their checks accept Foehn's error result for
a tool it does not have."""
SERVER_NOT_APPLICABLE = {
    "logging-set-level": (
        "foehn mcp declares no logging capability (deprecated in the 2026-07-28 protocol, "
        "SEP-2577); its tools' log goes to Foehn's own log"
    ),
    "completion-complete": "foehn mcp offers no prompts or resource templates to complete",
    **{
        name: SUITES_OWN_TOOL.format(tool)
        for name, tool in {
            "tools-call-image": "test_image_content",
            "tools-call-audio": "test_audio_content",
            "tools-call-embedded-resource": "test_embedded_resource",
            "tools-call-mixed-content": "test_multiple_content_types",
            "tools-call-with-logging": "test_tool_with_logging",
            "tools-call-with-progress": "test_tool_with_progress",
            "tools-call-sampling": "test_sampling",
            "tools-call-elicitation": "test_elicitation",
            "json-schema-2020-12": "json_schema_2020_12_tool",
            "elicitation-sep1034-defaults": "test_elicitation_sep1034_defaults",
            "elicitation-sep1330-enums": "test_elicitation_sep1330_enums",
            "server-sse-polling": "test_reconnection",
        }.items()
    },
    **{
        name: "foehn mcp offers its tools only: no resources"
        for name in (
            "resources-list",
            "resources-read-text",
            "resources-read-binary",
            "resources-templates-read",
            "resources-subscribe",
            "resources-unsubscribe",
        )
    },
    **{
        name: "foehn mcp offers its tools only: no prompts"
        for name in (
            "prompts-list",
            "prompts-get-simple",
            "prompts-get-with-args",
            "prompts-get-embedded-resource",
            "prompts-get-with-image",
        )
    },
}


def environment(**extra: str) -> dict[str, str]:
    assert SUITE.exists(), (
        "the conformance suite is not installed: run scripts/test, or "
        "(cd tests/conformance && npm ci) by hand"
    )
    return {**os.environ, "PATH": f"{NODE}{os.pathsep}{os.environ['PATH']}", **extra}


def checks(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Each scenario's checks in ``folder`` (the suite's ``-o``), by scenario name."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in folder.rglob("checks.json"):
        scenario = STAMP.sub("", str(path.parent.relative_to(folder)))
        found[scenario.removeprefix("server-")] = json.loads(path.read_text())
    return found


def failures(found: list[dict[str, Any]]) -> list[str]:
    return [
        f"{c['id']}: {c.get('errorMessage') or c.get('description', '')}"
        for c in found
        if c["status"] == "FAILURE"
    ]


def test_the_lists_name_every_scenario_of_the_pinned_suite() -> None:
    listed = subprocess.run(
        [str(SUITE), "list"], env=environment(), capture_output=True, text=True, timeout=120
    )
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[1] for line in listed.stdout.splitlines() if line.startswith("  - ")]
    server = set(SERVER) | set(SERVER_VACUOUS) | set(SERVER_NOT_APPLICABLE)
    client = set(CLIENT) | set(CLIENT_NOT_APPLICABLE)
    assert sorted(names) == sorted(server | client)
    assert not server & client


def run_client(scenario: str, out: Path, home: Path) -> list[dict[str, Any]]:
    command = f"{sys.executable} {HERE / 'client.py'}"
    done = subprocess.run(
        [
            str(SUITE),
            "client",
            "--command",
            command,
            "--scenario",
            scenario,
            "--timeout",
            str(TIMEOUT_MS),
            "-o",
            str(out),
        ],
        env=environment(XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache")),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_MS / 1000 + 120,
    )
    found = checks(out)
    assert scenario in found, done.stdout + done.stderr
    return found[scenario]


@pytest.mark.parametrize("scenario", CLIENT)
def test_foehns_client_passes(scenario: str, tmp_path: Path) -> None:
    found = run_client(scenario, tmp_path / "out", tmp_path / "home")
    assert failures(found) == []


@pytest.mark.parametrize("scenario", sorted(CLIENT_NOT_APPLICABLE))
def test_a_client_scenario_that_does_not_apply_does_not_pass(scenario: str, tmp_path: Path) -> None:
    found = run_client(scenario, tmp_path / "out", tmp_path / "home")
    assert failures(found), f"{scenario} passes now: it is not {CLIENT_NOT_APPLICABLE[scenario]!r}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert process.poll() is None, f"it exited with {process.returncode}"
            assert time.monotonic() < deadline, "it did not listen"
            time.sleep(0.1)


@pytest.fixture(scope="module")
def server_checks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The whole server suite, run once against ``foehn mcp --http`` (read-only tools)."""
    home = tmp_path_factory.mktemp("foehn-mcp")
    workspace = home / "workspace"
    workspace.mkdir()
    token = home / "token"
    token.write_text("conformance-token-0123456789abcdef\n")
    port, proxied = free_port(), free_port()
    own = {
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    foehn = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "foehn_lsp",
            "mcp",
            "--workspace",
            str(workspace),
            "--http",
            f"127.0.0.1:{port}",
            "--token-file",
            str(token),
        ],
        env={**os.environ, **own},
        stderr=subprocess.DEVNULL,
    )
    proxy = subprocess.Popen(
        [sys.executable, str(HERE / "token_proxy.py"), str(proxied), str(port), str(token)],
        stderr=subprocess.DEVNULL,
    )
    try:
        listening(port, foehn)
        listening(proxied, proxy)
        out = home / "out"
        subprocess.run(
            [
                str(SUITE),
                "server",
                "--url",
                f"http://127.0.0.1:{proxied}/mcp",
                "--suite",
                "all",
                "-o",
                str(out),
            ],
            env=environment(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        yield checks(out)
    finally:
        for process in (proxy, foehn):
            process.terminate()
            process.wait(timeout=30)


@pytest.mark.parametrize("scenario", [*SERVER, *SERVER_VACUOUS])
def test_foehn_mcp_passes(scenario: str, server_checks: dict[str, Any]) -> None:
    assert scenario in server_checks
    assert failures(server_checks[scenario]) == []


@pytest.mark.parametrize("scenario", sorted(SERVER_NOT_APPLICABLE))
def test_a_server_scenario_that_does_not_apply_does_not_pass(
    scenario: str, server_checks: dict[str, Any]
) -> None:
    assert failures(server_checks[scenario]), (
        f"{scenario} passes now: it is not {SERVER_NOT_APPLICABLE[scenario]!r}"
    )
