"""Without a sandbox (here: ``FOEHN_SANDBOX=off``, which the runner treats exactly like a
machine without one) Foehn says so at start-up and in ``foehn tools``, and every program
asks, whatever the risk table or the approval policy says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp import ToolContext
from foehn_lsp.agent.approval import ApprovalDecision, ApprovalGate, ApprovalRequest, Denied
from foehn_lsp.config import ApprovalMode, ApprovalSettings
from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.tools import ToolRegistry

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
    person = Refuser()
    gate = ApprovalGate(policy, person, lambda event: None)
    for name, arguments in CALLS:
        result = await registry.call(name, arguments, ctx, call_id=name, middleware=[gate])
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
    result = await registry.call("read_file", {"path": "a.txt"}, ctx, middleware=[gate])
    assert result.ok
    assert person.asked == []


def _foehn(*args: str, sandbox: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FOEHN_SANDBOX": sandbox}
    return subprocess.run(
        [sys.executable, "-m", "foehn_lsp", *args],
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
    told = _serve_until_warned(tmp_path, sandbox="off")
    assert told.count("every program Foehn runs asks first") == 1


def test_with_a_sandbox_tools_names_it(tmp_path: Path) -> None:
    if not system_sandbox().available:
        pytest.skip(system_sandbox().note)
    listed = _foehn("tools", "--workspace", str(tmp_path), sandbox="auto")
    assert listed.stdout.splitlines()[0].startswith("sandbox: programs run in a bubblewrap")


def _serve_until_warned(root: Path, *, sandbox: str) -> str:
    """``foehn serve`` on stdio through initialize and initialized, until it warns that there
    is no sandbox (it tells once it has answered initialize); its stderr up to then."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    ]  # fmt: skip
    framed = "".join(
        f"Content-Length: {len(body.encode())}\r\n\r\n{body}"
        for body in (json.dumps(message) for message in messages)
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "foehn_lsp", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "FOEHN_SANDBOX": sandbox},
    )
    assert server.stdin is not None
    assert server.stderr is not None
    told: list[str] = []
    warned = threading.Event()

    def read() -> None:
        assert server.stderr is not None
        for line in server.stderr:
            told.append(line)
            if "every program Foehn runs asks first" in line:
                warned.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        server.stdin.write(framed)
        server.stdin.flush()
        warned.wait(timeout=120)
    finally:
        server.stdin.close()
        server.wait(timeout=60)
        reader.join(timeout=10)
    return "".join(told)
