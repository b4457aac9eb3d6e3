"""``foehn run`` and ``foehn replay`` as people and scripts use them: a real process, a real
model server on 127.0.0.1, a real workspace."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.testing import Fault, ModelServer, Turn

EDIT = (
    "edit_file",
    {"path": "app.py", "edits": [{"old_text": "return 1  # TODO", "new_text": "return 2"}]},
)


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


@pytest.fixture
def app(root: Path) -> Path:
    (root / "app.py").write_text("def main():\n    return 1  # TODO\n")
    return root


def _environment(
    server: ModelServer | None, state: Path, env: dict[str, str] | None = None
) -> dict[str, str]:
    """This process's environment without Foehn's variables, pointed at ``server``."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FOEHN_")}
    environment.update(
        {
            "XDG_STATE_HOME": str(state),
            "XDG_CONFIG_HOME": str(state / "config"),
            "OPENAI_API_KEY": "sk-test-key-0123456789abcdef",
        }
    )
    if server is not None:
        environment.update({"FOEHN_PROVIDER": "openai", "FOEHN_BASE_URL": server.openai_url})
    environment.update(env or {})
    return environment


def foehn(
    *args: str,
    server: ModelServer | None = None,
    state: Path,
    stdin: str = "",
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    environment = _environment(server, state, env)
    return subprocess.run(
        [sys.executable, "-m", "foehn_lsp", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
    )


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def script_fix(server: ModelServer) -> None:
    server.script(
        Turn(tool_calls=[("scan", {"pattern": "*.py"})]),
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(tool_calls=[EDIT]),
        Turn(text="Fixed the TODO."),
    )


def test_a_multi_step_task_with_approval_edits_the_file(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    script_fix(server)
    done = foehn(
        "run",
        "fix the TODO",
        "--workspace",
        str(app),
        "--approve",
        "all",
        server=server,
        state=tmp_path / "state",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Fixed the TODO."
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"
    assert "every call will run without asking" in done.stderr
    assert "▸ edit_file" in done.stderr
    assert "[write]" in done.stderr
    assert "Traceback" not in done.stderr


def test_approve_never_leaves_the_workspace_untouched(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    script_fix(server)
    before = (app / "app.py").read_bytes()
    done = foehn(
        "run",
        "fix the TODO",
        "--workspace",
        str(app),
        "--approve",
        "never",
        "--json",
        server=server,
        state=tmp_path / "state",
    )
    assert done.returncode == 0
    assert (app / "app.py").read_bytes() == before
    stream = events(done.stdout)
    approvals = [e for e in stream if e["event"] == "approval"]
    assert approvals[-1] == {
        "event": "approval",
        "id": approvals[-1]["id"],
        "tool": "edit_file",
        "decision": "deny",
        "reason": "--approve never",
    }
    assert stream[-1] == {
        "event": "done",
        "reason": "answer",
        "answer": "Fixed the TODO.",
        "iterations": 3,
    }
    kinds = {e["event"] for e in stream}
    assert kinds >= {"text", "tool_call", "approval", "tool_result", "usage", "done"}
    call = next(e for e in stream if e["event"] == "tool_call")
    assert set(call) == {"event", "id", "tool", "arguments", "risk"}
    assert call["risk"] == "read_only"


def test_the_terminal_prompt_shows_the_call_and_the_diff(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Turn(tool_calls=[EDIT]), Turn(text="ok"))
    done = foehn(
        "run",
        "fix",
        "--workspace",
        str(app),
        "--approve",
        "ask",
        stdin="y\n",
        server=server,
        state=tmp_path / "state",
    )
    assert done.returncode == 0
    assert "Foehn wants to run edit_file (write):" in done.stderr
    assert '"old_text": "return 1  # TODO"' in done.stderr
    assert "+    return 2" in done.stderr
    assert "Allow? [y] once, [a] for this run, [N] deny:" in done.stderr
    assert (app / "app.py").read_text().endswith("return 2\n")


def test_limits_exit_with_3(server: ModelServer, app: Path, tmp_path: Path) -> None:
    server.script(
        *[Turn(tool_calls=[("read_file", {"path": "app.py", "limit": n})]) for n in range(1, 4)],
        Turn(text="summary"),
    )
    done = foehn(
        "run",
        "loop",
        "--workspace",
        str(app),
        "--max-iterations",
        "2",
        "--json",
        server=server,
        state=tmp_path / "state",
    )
    assert done.returncode == 3
    assert events(done.stdout)[-1]["reason"] == "max_iterations"


def test_provider_errors_exit_with_1_and_one_clear_line(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Fault(status=401))
    done = foehn("run", "x", "--workspace", str(app), server=server, state=tmp_path / "state")
    assert done.returncode == 1
    assert "rejected the API key (401)" in done.stdout
    assert "Traceback" not in done.stderr
    assert "sk-test-key" not in done.stdout + done.stderr


def test_no_provider_and_no_local_model_is_one_message(app: Path, tmp_path: Path) -> None:
    done = foehn(
        "run",
        "x",
        "--workspace",
        str(app),
        state=tmp_path / "state",
        env={"FOEHN_PROVIDER": "mistral", "MISTRAL_API_KEY": ""},
    )
    assert done.returncode == 1
    assert done.stderr.strip().startswith("foehn: Mistral needs an API key: set MISTRAL_API_KEY")


def test_usage_errors_exit_with_2(app: Path, tmp_path: Path) -> None:
    assert foehn("run", state=tmp_path).returncode == 2
    assert foehn("run", "x", "--approve", "maybe", state=tmp_path).returncode == 2
    missing = foehn("run", "x", "--workspace", str(tmp_path / "nope"), state=tmp_path)
    assert missing.returncode == 2


def test_ctrl_c_cancels_with_130(server: ModelServer, app: Path, tmp_path: Path) -> None:
    server.script(Fault(delay=60, then=Turn(text="late")))
    process = subprocess.Popen(
        [sys.executable, "-m", "foehn_lsp", "run", "x", "--workspace", str(app), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_environment(server, tmp_path),
    )
    assert server.wait_for_requests(1)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert events(stdout)[-1]["reason"] == "cancelled"


def test_transcript_replay_and_audit(server: ModelServer, app: Path, tmp_path: Path) -> None:
    script_fix(server)
    transcript = tmp_path / "run.jsonl"
    done = foehn(
        "run",
        "fix the TODO",
        "--workspace",
        str(app),
        "--approve",
        "all",
        "--transcript",
        str(transcript),
        server=server,
        state=tmp_path / "state",
    )
    assert done.returncode == 0
    text = transcript.read_text()
    assert "sk-test-key" not in text
    kinds = [json.loads(line)["kind"] for line in text.splitlines()]
    assert kinds[0] == "run"
    assert kinds.count("response") == 4
    audit = list((tmp_path / "state" / "foehn" / "audit").glob("*.jsonl"))
    [log] = audit
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    calls = [e for e in entries if "tool" in e]
    assert [(e["tool"], e["risk"], e["decision"], e["ok"]) for e in calls] == [
        ("scan", "read_only", "allow", True),
        ("read_file", "read_only", "allow", True),
        ("edit_file", "write", "allow", True),
    ]
    [checkpoint] = [e for e in entries if e.get("action") == "checkpoint"]
    assert checkpoint["files"] == [{"path": "app.py", "change": "modified"}]
    assert entries[2]["arguments"]["path"] == "app.py"

    (app / "app.py").write_text("def main():\n    return 1  # TODO\n")
    replayed = foehn("replay", str(transcript), state=tmp_path / "state")
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.strip() == "replayed 3 tool calls; all match the transcript"
    assert (app / "app.py").read_text().endswith("return 2\n")

    lines = text.splitlines()
    doctored = [
        line.replace('"path\\": \\"app.py\\"', '"path\\": \\"other.py\\"', 1)
        if '"kind": "response"' in line and "read_file" in line
        else line
        for line in lines
    ]
    assert doctored != lines
    transcript.write_text("\n".join(doctored) + "\n")
    diverged = foehn("replay", str(transcript), state=tmp_path / "state")
    assert diverged.returncode == 1
    assert "replay diverged at tool call 2" in diverged.stderr


@pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import xllamacpp"], capture_output=True).returncode != 0,
    reason="foehn-lsp[local] is not installed",
)
def test_the_demo_runs_offline_with_the_embedded_model(tmp_path: Path) -> None:
    demo = Path(__file__).parent.parent / "demo" / "workspace"
    done = foehn(
        "run",
        "List the Python files and tell me which has a TODO",
        "--workspace",
        str(demo),
        "--approve",
        "never",
        "--json",
        state=tmp_path,
        timeout=600,
        env={"XDG_CACHE_HOME": str(Path.home() / ".cache")},
    )
    assert done.returncode == 0, done.stderr
    stream = events(done.stdout)
    assert any(e["event"] == "tool_call" and e["tool"] == "scan" for e in stream)
    assert stream[-1]["reason"] == "answer"
    assert stream[-1]["answer"]
