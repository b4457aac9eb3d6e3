"""The terminal's approval answers as people type them: a denial with the reason the model
then reads, and answers typed ahead of their prompts (on a terminal and through a pipe). Real
processes on a pseudo-terminal or a pipe, the model server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.turns import EDIT, READ
from cli.harness import foehn, spawn
from foehn_lsp.testing import Fault, ModelServer, Turn

pytestmark = pytest.mark.process

BEFORE = "def main():\n    return 1  # TODO\n"
WRITE = ("write_file", {"path": "new.txt", "content": "x\n"})


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def told(server: ModelServer, request: int = 1) -> str:
    """What the model read about its last tool call, at its ``request``-th request."""
    messages: list[dict[str, Any]] = server.requests[request].body["messages"]
    content: str = [m for m in messages if m["role"] == "tool"][-1]["content"]
    return content


def audit_denials(state: Path) -> list[dict[str, Any]]:
    records = [
        json.loads(line)
        for path in (state / "foehn" / "audit").glob("*.jsonl")
        for line in path.read_text().splitlines()
    ]
    return [r for r in records if r.get("decision") == "deny"]


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("n use pathlib instead", "use pathlib instead"),
        ("no, keep the TODO for now", "keep the TODO for now"),
        ("leave app.py alone", "leave app.py alone"),
    ],
)
def test_a_denial_on_a_terminal_carries_the_reason_to_the_model(
    server: ModelServer, app: Path, tmp_path: Path, typed: str, reason: str
) -> None:
    import pexpect

    server.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Left it."))
    child = spawn(["run", "fix", "--workspace", str(app), "--approve", "ask"], server, tmp_path)
    child.expect_exact("[N] deny:")
    child.send(typed + "\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert (app / "app.py").read_text() == BEFORE
    assert f'they said: "{reason}"' in told(server)
    assert "the person denied this call" in told(server)
    [denial] = audit_denials(tmp_path)
    assert reason in denial["decided_by"]


def test_a_denial_through_a_pipe_carries_the_reason_too(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Left it."))
    done = foehn(
        "run", "fix", "--workspace", str(app), "--approve", "ask", "--json",
        stdin="n: not before the release\n", server=server, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert 'they said: "not before the release"' in told(server)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    approval = next(e for e in events if e["event"] == "approval" and e["tool"] == "edit_file")
    assert approval["decision"] == "deny"
    assert "not before the release" in approval["reason"]


def test_a_plain_n_denies_without_a_reason(server: ModelServer, app: Path, tmp_path: Path) -> None:
    server.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Left it."))
    done = foehn(
        "run", "fix", "--workspace", str(app), "--approve", "ask",
        stdin="n\n", server=server, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "(denied in the terminal)" in told(server)
    assert "they said" not in told(server)


def test_answers_typed_ahead_on_a_terminal_are_all_used(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    import pexpect

    # The second call comes while the person has typed both answers already.
    server.script(
        Turn(tool_calls=[READ, EDIT]),
        Fault(delay=1, then=Turn(tool_calls=[WRITE])),
        Turn(text="done"),
    )
    child = spawn(["run", "fix", "--workspace", str(app), "--approve", "ask"], server, tmp_path)
    child.send("y\ry\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert (app / "app.py").read_text().endswith("return 2\n")
    assert (app / "new.txt").read_text() == "x\n"


def test_answers_typed_ahead_in_a_chat_are_all_used(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    import pexpect

    server.script(
        Turn(tool_calls=[READ, EDIT]),
        Fault(delay=1, then=Turn(tool_calls=[WRITE])),
        Turn(text="done"),
    )
    child = spawn(["chat", "--workspace", str(app)], server, tmp_path)
    child.expect_exact("/help for commands")
    child.send("fix it\ry\ry\r")
    child.expect_exact("files changed: app.py, new.txt")
    child.expect_exact("›")  # the next prompt is up: Ctrl-D now reaches it
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert (app / "new.txt").read_text() == "x\n"


def test_answers_piped_ahead_are_all_used(server: ModelServer, app: Path, tmp_path: Path) -> None:
    server.script(Turn(tool_calls=[READ, EDIT]), Turn(tool_calls=[WRITE]), Turn(text="done"))
    done = foehn(
        "chat", "--workspace", str(app),
        stdin="fix it\ny\ny\n", server=server, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (app / "app.py").read_text().endswith("return 2\n")
    assert (app / "new.txt").read_text() == "x\n"


@pytest.mark.parametrize(
    ("content", "counted"),
    [("a\nb\n", "2 lines"), ("a\nb", "2 lines"), ("x\n", "1 line)"), ("", "0 lines")],
)
def test_a_new_file_s_approval_counts_its_lines_as_an_editor_does(
    server: ModelServer, app: Path, tmp_path: Path, content: str, counted: str
) -> None:
    server.script(
        Turn(tool_calls=[("write_file", {"path": "new.txt", "content": content})]),
        Turn(text="Wrote it."),
    )
    done = foehn(
        "run", "write", "--workspace", str(app), "--approve", "ask",
        stdin="y\n", server=server, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"create new.txt ({counted}" in done.stderr
    assert (app / "new.txt").read_text() == content
