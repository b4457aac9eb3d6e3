"""Without a sandbox (here: ``FOEHN_SANDBOX=off``, which the runner treats exactly like a
machine without one) Foehn says so at start-up and in ``foehn tools``, and every program
asks, whatever the risk table or the approval policy says. Without util-linux's ``prlimit``
programs are still sandboxed; only an MCP server set to run sandboxed (whose limits
``prlimit`` sets) does not start, and says why."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from foehn_lsp import ToolContext
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalMode, ApprovalSettings
from foehn_lsp.config.mcp import McpServerConfig, McpSettings
from foehn_lsp.mcp.tools import connect_servers
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalGate, ApprovalRequest, Denied
from foehn_lsp.sandbox import SandboxUnavailableError, limits, runner, system_sandbox
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.workspace import Workspace
from preloaded import foehn_argv

pytestmark = pytest.mark.process

AWKWARD = Path(__file__).parents[1] / "mcp" / "servers" / "awkward.py"

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("run_command", {"command": ["ls"]}),
    ("run_command", {"command": ["echo", "hello"]}),
    ("run_command", {"command": ["cat", "a.txt"]}),
    ("run_command", {"command": ["git", "status"]}),
    ("run_command", {"command": ["touch", "new.txt"]}),
    ("git", {"args": ["status"]}),
    ("git", {"args": ["log", "--oneline"]}),
    ("run_tests", {}),
]


class Refuser:
    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return Denied(reason="no")


@pytest.fixture
def repo(root: Path) -> Path:
    (root / "a.txt").write_text("a\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOEHN_SANDBOX", "off")
    assert not system_sandbox().available


@pytest.fixture
def no_prlimit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine with bubblewrap but without util-linux's ``prlimit`` (detected afresh)."""
    if not system_sandbox().available:
        pytest.skip(system_sandbox().note)
    monkeypatch.setattr(limits, "prlimit", lambda: None)
    runner._detect.cache_clear()
    yield
    runner._detect.cache_clear()


async def test_without_prlimit_programs_are_still_sandboxed(
    no_prlimit: None, repo: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    sandbox = system_sandbox()
    assert sandbox.available
    assert sandbox.prlimit is None
    assert "prlimit" in sandbox.note
    assert "MCP server" in sandbox.note
    person = Refuser()
    gate = ApprovalGate(ApprovalSettings(), person, lambda event: None)
    listed = await registry.call("run_command", {"command": ["ls"]}, ctx, steps=(*steps(), gate))
    assert listed.ok, listed.output
    assert "a.txt" in listed.output
    assert "sandbox read-only" in listed.output
    writes = ApprovalGate(ApprovalSettings(write=ApprovalMode.ALLOW), person, lambda event: None)
    command = {"command": ["touch", "new.txt"]}
    written = await registry.call("run_command", command, ctx, steps=(*steps(), writes))
    assert written.ok, written.output
    assert "sandbox workspace-write" in written.output
    assert (repo / "new.txt").exists()
    assert person.asked == []


async def test_without_prlimit_a_sandboxed_mcp_server_does_not_start_and_says_why(
    no_prlimit: None, root: Path, tmp_path: Path
) -> None:
    launch = system_sandbox().launch(["true"], Workspace([root]), root, "read-only")
    with pytest.raises(SandboxUnavailableError, match="prlimit"), launch:
        pass
    state = tmp_path / "state"
    state.mkdir()
    server = McpServerConfig(
        command=sys.executable, args=(str(AWKWARD), str(state)), sandbox="read-only"
    )
    catalogue = connect_servers(
        McpSettings(servers={"awkward": server}), ToolRegistry(), root=root, default_timeout=20
    )
    assert catalogue is not None
    try:
        [problem] = catalogue.problems
        assert "prlimit" in str(problem)
        assert not (state / "started").exists()
    finally:
        catalogue.close()


@pytest.mark.parametrize(
    "policy",
    [
        ApprovalSettings(),
        ApprovalSettings(
            read_only=ApprovalMode.ALLOW,
            write=ApprovalMode.ALLOW,
            destructive=ApprovalMode.ALLOW,
            undefined=ApprovalMode.ALLOW,
        ),
    ],
    ids=["default policy", "everything allowed"],
)
async def test_every_program_asks(
    no_sandbox: None,
    repo: Path,
    ctx: ToolContext,
    registry: ToolRegistry,
    policy: ApprovalSettings,
) -> None:
    # run_tests needs a runner to ask about: the person's configured one.
    (repo / "pyproject.toml").write_text(
        '[tool.foehn]\ntest-command = ["python3", "-m", "pytest"]\n'
    )
    person = Refuser()
    gate = ApprovalGate(policy, person, lambda event: None)
    for name, arguments in CALLS:
        result = await registry.call(name, arguments, ctx, call_id=name, steps=(*steps(), gate))
        assert not result.ok
        assert "denied" in result.output
    assert len(person.asked) == len(CALLS)
    assert {request.sandbox for request in person.asked} == {"full"}
    assert not (repo / "new.txt").exists()


async def test_file_tools_still_work_without_asking(
    no_sandbox: None, root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "a.txt").write_text("a\n")
    person = Refuser()
    gate = ApprovalGate(ApprovalSettings(), person, lambda event: None)
    result = await registry.call("read_file", {"path": "a.txt"}, ctx, steps=(*steps(), gate))
    assert result.ok
    assert person.asked == []


def _foehn(*args: str, sandbox: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FOEHN_SANDBOX": sandbox}
    return subprocess.run(
        foehn_argv(*args),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_foehn_tools_and_start_up_say_there_is_no_sandbox(tmp_path: Path) -> None:
    listed = _foehn("tools", "--workspace", str(tmp_path), sandbox="off")
    assert listed.returncode == 0, listed.stderr
    first = listed.stdout.splitlines()[0]
    assert first.startswith("sandbox: the sandbox is turned off")
    assert "every program Foehn runs asks first" in first
    assert "run_command      assessed per call" in listed.stdout
    told = _serve_through_start_up(tmp_path, sandbox="off")
    assert told.count("every program Foehn runs asks first") == 1


def test_with_a_sandbox_tools_names_it_and_start_up_is_quiet(tmp_path: Path) -> None:
    if not system_sandbox().available:
        pytest.skip(system_sandbox().note)
    listed = _foehn("tools", "--workspace", str(tmp_path), sandbox="auto")
    assert listed.stdout.splitlines()[0].startswith("sandbox: programs run in a bubblewrap")
    told = _serve_through_start_up(tmp_path, sandbox="auto")
    assert "sandbox" not in told.lower()


def _serve_through_start_up(root: Path, *, sandbox: str) -> str:
    """``foehn serve`` on stdio through the whole lifecycle: ``initialize``, ``initialized``,
    a request that waits for start-up (``foehn.tools``, answered only after the start-up
    warning, if any, is on stderr), then ``shutdown`` and ``exit``; its stderr."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")},
        "FOEHN_SANDBOX": sandbox,
        "XDG_STATE_HOME": str(root / "state"),
        "XDG_CONFIG_HOME": str(root / "config"),
    }
    server = subprocess.Popen(
        foehn_argv("serve"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert server.stdin is not None
    replies: queue.Queue[dict[str, Any]] = queue.Queue()
    told: list[bytes] = []
    readers = [
        threading.Thread(target=_read_replies, args=(server.stdout, replies), daemon=True),
        threading.Thread(target=lambda: told.extend(server.stderr or ()), daemon=True),
    ]
    for reader in readers:
        reader.start()

    def call(msg_id: int, method: str, params: Any) -> dict[str, Any]:
        _send(server, {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        while True:
            reply = replies.get(timeout=600)
            if reply.get("id") == msg_id and "method" not in reply:
                return reply

    try:
        initialize: dict[str, Any] = {
            "processId": None,
            "rootUri": root.as_uri(),
            "capabilities": {},
        }
        assert "result" in call(1, "initialize", initialize)
        _send(server, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        tools = call(2, "workspace/executeCommand", {"command": "foehn.tools", "arguments": []})
        assert "run_command" in {tool["name"] for tool in tools["result"]["tools"]}
        assert call(3, "shutdown", None)["result"] is None
        _send(server, {"jsonrpc": "2.0", "method": "exit"})
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=60)
        for reader in readers:
            reader.join(timeout=10)
    return b"".join(told).decode()


def _send(server: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert server.stdin is not None
    body = json.dumps(message).encode()
    server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    server.stdin.flush()


def _read_replies(stdout: IO[bytes], replies: queue.Queue[dict[str, Any]]) -> None:
    while True:
        length = None
        while (line := stdout.readline()) not in (b"\r\n", b"\n"):
            if not line:
                return
            name, _, value = line.decode().partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        assert length is not None
        replies.put(json.loads(stdout.read(length)))
