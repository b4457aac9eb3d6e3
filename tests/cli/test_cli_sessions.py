"""``foehn chat``, ``foehn run --continue/--session``, ``foehn sessions`` and ``foehn undo`` as
people and scripts use them: real processes, the scripted model server on 127.0.0.1, real
workspaces, programs in the real sandbox."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli.harness import events, foehn, spawn
from foehn_lsp.testing import Fault, ModelServer, Turn

pytestmark = pytest.mark.process


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


@pytest.fixture
def project(root: Path) -> Path:
    (root / "app.py").write_text("def main():\n    return 1  # TODO\n")
    (root / "old.txt").write_text("old name\n")
    (root / "gone.txt").write_text("to be deleted\n")
    (root / "data.txt").write_text("before the program\n")
    return root


def user_tasks(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user"]


def remembers(body: dict[str, Any]) -> Turn:
    said = json.dumps(body["messages"])
    return Turn(text="It was HELIX." if "codename HELIX" in said else "I do not know.")


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".foehn" not in p.parts
    }


def test_chat_holds_a_conversation(server: ModelServer, project: Path, tmp_path: Path) -> None:
    server.script(Turn(text="Noted."), Turn(text="Sure: fine."), remembers)
    typed = "\n".join(
        [
            "Remember the codename HELIX.",
            "Say fine.",
            "/cost",
            "What was the codename?",
            "/sessions",
            "/undo",
        ]
    )
    done = foehn(
        "chat", "--workspace", str(project), server=server, state=tmp_path, stdin=typed + "\n"
    )
    assert done.returncode == 0, done.stderr
    assert "Noted." in done.stdout
    assert "It was HELIX." in done.stdout
    assert user_tasks(server.requests[-1].body) == [
        "Remember the codename HELIX.",
        "Say fine.",
        "What was the codename?",
    ]
    assert "context " in done.stderr
    assert "spent 20 in + 10 out" in done.stderr
    assert "3 turns" in done.stderr
    assert "no turn changed any file" in done.stderr
    listed = foehn("sessions", "list", "--json", "--workspace", str(project), state=tmp_path)
    [session] = json.loads(listed.stdout)["sessions"]
    assert (session["turns"], session["title"]) == (3, "Remember the codename HELIX.")


def test_run_continues_a_saved_session_after_a_restart(
    server: ModelServer, project: Path, tmp_path: Path
) -> None:
    server.script(Turn(text="Noted."), remembers, remembers)
    first = foehn(
        "run", "Remember the codename HELIX.", "--workspace", str(project), "--json",
        server=server, state=tmp_path,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    [turn] = [e for e in events(first.stdout) if e["event"] == "turn"]
    second = foehn(
        "run", "What was the codename?", "--continue", "--workspace", str(project),
        server=server, state=tmp_path,
    )  # fmt: skip
    assert second.stdout.strip() == "It was HELIX."
    third = foehn(
        "run", "Again?", "--session", turn["session"], "--workspace", str(project),
        server=server, state=tmp_path,
    )  # fmt: skip
    assert third.stdout.strip() == "It was HELIX."
    assert user_tasks(server.requests[-1].body) == [
        "Remember the codename HELIX.",
        "What was the codename?",
        "Again?",
    ]
    shown = foehn("sessions", "show", turn["session"], "--workspace", str(project), state=tmp_path)
    assert "[3] Again?" in shown.stdout
    missing = foehn(
        "run", "x", "--session", "nope", "--workspace", str(project), server=server,
        state=tmp_path,
    )  # fmt: skip
    assert missing.returncode == 1
    assert "no session 'nope'" in missing.stderr
    foehn("sessions", "delete", turn["session"], "--workspace", str(project), state=tmp_path)
    listed = foehn("sessions", "list", "--json", "--workspace", str(project), state=tmp_path)
    assert json.loads(listed.stdout)["sessions"] == []


def test_undo_puts_back_every_kind_of_change(
    server: ModelServer, project: Path, tmp_path: Path
) -> None:
    before = tree(project)
    program = (
        "import os; open('data.txt','w').write('after\\n'); open('made.txt','w').write('x');"
        "os.makedirs('gen'); open('gen/out.txt','w').write('y')"
    )
    server.script(
        Turn(tool_calls=[("read_file", {"path": "data.txt"}), ("read_file", {"path": "app.py"})]),
        Turn(
            tool_calls=[
                (
                    "edit_file",
                    {
                        "path": "app.py",
                        "edits": [{"old_text": "return 1  # TODO", "new_text": "return 2"}],
                    },
                ),
                ("write_file", {"path": "pkg/new.py", "content": "NEW = 1\n"}),
                ("move_path", {"source": "old.txt", "destination": "renamed.txt"}),
                ("delete_path", {"path": "gone.txt"}),
            ]
        ),
        Turn(tool_calls=[("run_command", {"command": [sys.executable, "-c", program]})]),
        Turn(text="Changed everything."),
    )
    done = foehn(
        "run", "change things", "--approve", "all", "--json", "--workspace", str(project),
        server=server, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [changed] = [e for e in events(done.stdout) if e["event"] == "files_changed"]
    assert {f["path"]: f["change"] for f in changed["files"]} == {
        "app.py": "modified",
        "pkg/new.py": "created",
        "old.txt": "deleted",
        "renamed.txt": "moved",
        "gone.txt": "deleted",
        "data.txt": "modified",
        "made.txt": "created",
        "gen/out.txt": "created",
    }
    (project / "app.py").write_text("changed by hand\n")
    refused = foehn("undo", "--workspace", str(project), state=tmp_path)
    assert refused.returncode == 1
    assert "changed since by someone else: app.py" in refused.stderr
    assert (project / "pkg" / "new.py").exists()
    forced = foehn("undo", "--force", "--workspace", str(project), state=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert tree(project) == before
    assert not (project / "pkg").exists()
    assert not (project / "gen").exists()
    redo = foehn("undo", "--redo", "--workspace", str(project), state=tmp_path)
    assert redo.returncode == 0, redo.stderr
    assert "redid turn 1" in redo.stderr
    assert (project / "renamed.txt").read_text() == "old name\n"
    audit = next((tmp_path / "foehn" / "audit").glob("*.jsonl")).read_text().splitlines()
    actions = [json.loads(line).get("action") for line in audit]
    assert actions.count("checkpoint") == 1
    assert actions.count("undo") == 2


def test_a_damaged_session_file_is_reported_and_skipped(
    server: ModelServer, project: Path, tmp_path: Path
) -> None:
    server.script(Turn(text="Noted."))
    foehn("run", "hello", "--workspace", str(project), server=server, state=tmp_path)
    [folder] = (tmp_path / "foehn" / "sessions").iterdir()
    (folder / "broken.jsonl").write_text('{"kind": "sess')
    listed = foehn("sessions", "list", "--workspace", str(project), state=tmp_path)
    assert listed.returncode == 0
    assert "hello" in listed.stdout
    assert "broken.jsonl is damaged and was skipped" in listed.stderr


def request_size(body: dict[str, Any]) -> int:
    return len(json.dumps(body["messages"])) + len(json.dumps(body.get("tools", [])))


def reading_model(steps: int, limit: int) -> Any:
    """A model that reads ``f0.txt`` … one file per step and then answers, and refuses, like a
    real provider, any request longer than ``limit`` characters. It reports usage as a real
    provider would (about four characters a token), and summarises when asked without tools."""
    done: list[int] = []

    def reply(body: dict[str, Any]) -> Turn | Fault:
        size = request_size(body)
        if size > limit:
            message = f"This model's maximum context length is {limit // 4} tokens"
            return Fault(status=400, body=json.dumps({"error": {"message": message}}))
        tokens = size // 4
        if not body.get("tools"):
            return Turn(text="Read the first files; nothing changed.", input_tokens=tokens)
        if len(done) == steps:
            return Turn(text=f"Read all {steps} files.", input_tokens=tokens)
        done.append(len(done))
        call = ("read_file", {"path": f"f{len(done) - 1}.txt"})
        return Turn(tool_calls=[call], input_tokens=tokens)

    return reply


@pytest.mark.parametrize("window", ["setting", "provider"])
def test_a_long_task_finishes_on_a_small_window(
    server: ModelServer, root: Path, tmp_path: Path, window: str
) -> None:
    steps = 100 if window == "setting" else 60
    for number in range(steps):
        (root / f"f{number}.txt").write_text(f"file {number}\n" + "x" * 60 + "\n" * 25)
    config = tmp_path / "config" / "foehn"
    config.mkdir(parents=True)
    # "provider": the setting claims a larger window, so only the provider's refusal (a 400
    # that says the request is too long) makes Foehn compact, once, and retry.
    size = 6000 if window == "setting" else 40_000
    (config / "config.toml").write_text(f"context_window = {size}\n")
    server.script(*([reading_model(steps, limit=26_000)] * (steps * 3)))
    done = foehn(
        "run", "Read every file.", "--max-iterations", "150", "--json", "--workspace",
        str(root), server=server, state=tmp_path,
    )  # fmt: skip
    stream = events(done.stdout)
    assert done.returncode == 0, done.stderr
    assert stream[-1]["answer"] == f"Read all {steps} files."
    compactions = [e for e in stream if e["event"] == "compacted"]
    assert compactions
    assert all(e["after_tokens"] < e["before_tokens"] for e in compactions)
    refused = [r for r in server.requests if request_size(r.body) > 26_000]
    assert (len(refused) > 0) == (window == "provider")
    last = server.requests[-1].body["messages"]
    assert last[1]["content"].startswith("Read every file.")
    assert "compacted" in json.dumps(last)
    usage = [e for e in stream if e["event"] == "usage"]
    assert usage[-1]["window"] == size


def test_ctrl_c_cancels_the_turn_and_a_second_one_leaves(
    server: ModelServer, project: Path, tmp_path: Path
) -> None:
    import pexpect

    released = threading.Event()

    def slow(body: dict[str, Any]) -> Turn:
        released.wait(60)
        return Turn(text="too late")

    server.script(slow, Turn(text="Second answer."))
    child = spawn(["chat", "--workspace", str(project)], server, tmp_path)
    try:
        child.expect_exact("›")
        child.sendline("a slow question")
        assert server.wait_for_requests(1)
        child.sendcontrol("c")
        child.expect_exact("cancelling the turn")
        child.expect_exact("›")
        released.set()
        child.sendline("another question")
        child.expect_exact("Second answer.")
        child.expect_exact("›")
        child.sendcontrol("c")
        child.expect_exact("Ctrl-C again or Ctrl-D to leave")
        child.expect_exact("›")  # the next prompt is up: Ctrl-D now reaches it
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        released.set()
        child.close()
    assert child.exitstatus == 0
    listed = foehn("sessions", "list", "--json", "--workspace", str(project), state=tmp_path)
    [session] = json.loads(listed.stdout)["sessions"]
    assert session["turns"] == 2


def test_two_quick_ctrl_c_leave_the_chat(
    server: ModelServer, project: Path, tmp_path: Path
) -> None:
    import pexpect

    released = threading.Event()

    def slow(body: dict[str, Any]) -> Turn:
        released.wait(60)
        return Turn(text="too late")

    server.script(slow)
    child = spawn(["chat", "--workspace", str(project)], server, tmp_path)
    try:
        child.expect_exact("›")
        child.sendline("a slow question")
        assert server.wait_for_requests(1)
        child.sendcontrol("c")
        child.expect_exact("cancelling the turn… (Ctrl-C again to leave)")
        child.expect_exact("›")  # the turn ended; the second Ctrl-C reaches the prompt
        child.sendcontrol("c")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        released.set()
        child.close()
    assert child.exitstatus == 0
    assert "Ctrl-C again or Ctrl-D to leave" not in child.before


def test_replay_plays_a_session_file_back(
    server: ModelServer, project: Path, tmp_path: Path
) -> None:
    server.script(
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(text="It returns 1."),
        Turn(tool_calls=[("scan", {"pattern": "*.txt"})]),
        Turn(text="Three text files."),
    )
    first = foehn(
        "run", "What does main return?", "--workspace", str(project), server=server,
        state=tmp_path,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    second = foehn(
        "run", "And the text files?", "--continue", "--workspace", str(project),
        server=server, state=tmp_path,
    )  # fmt: skip
    assert second.returncode == 0, second.stderr
    [path] = (tmp_path / "foehn" / "sessions").glob("*/*.jsonl")
    replayed = foehn("replay", str(path), state=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    assert "replayed 2 tool calls" in replayed.stdout


def test_chat_asks_for_approval_in_place_and_undoes(
    server: ModelServer, project: Path, tmp_path: Path
) -> None:
    server.script(
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(
            tool_calls=[
                (
                    "edit_file",
                    {
                        "path": "app.py",
                        "edits": [{"old_text": "return 1  # TODO", "new_text": "return 2"}],
                    },
                )
            ]
        ),
        Turn(text="Fixed."),
    )
    typed = "Fix the TODO.\ny\n/undo\n/undo\n/redo\n"
    done = foehn("chat", "--workspace", str(project), server=server, state=tmp_path, stdin=typed)
    assert done.returncode == 0, done.stderr
    assert "Allow? [y] once" in done.stderr
    assert "Fixed." in done.stdout
    assert "undid turn 1: app.py" in done.stderr
    # The second /undo goes further back (there is nothing before turn 1); /redo comes forward.
    assert "nothing undone: every turn that changed files is undone already" in done.stderr
    assert "redid turn 1: app.py" in done.stderr
    assert (project / "app.py").read_text() == "def main():\n    return 2\n"


def test_a_mention_sends_the_file_and_clear_starts_a_new_session(
    server: ModelServer, project: Path, tmp_path: Path
) -> None:
    (project / "me@example.org").write_text("not a mention\n")
    server.script(Turn(text="It returns 1."), Turn(text="A fresh start."))
    typed = "What does @app.py, not @nope.txt, return? Mail me@example.org\n/clear\nHello\n"
    done = foehn("chat", "--workspace", str(project), server=server, state=tmp_path, stdin=typed)
    assert done.returncode == 0, done.stderr
    first, second = (r.body["messages"] for r in server.requests)
    asked = first[-1]["content"]
    assert asked.startswith("What does @app.py, not @nope.txt, return?")
    assert "The person mentioned app.py:\n```\ndef main():\n    return 1  # TODO\n```" in asked
    assert "not a mention" not in asked
    assert "(with app.py)" in done.stderr
    assert "(@nope.txt is no file in the workspace; sent as typed)" in done.stderr
    # After /clear the model hears nothing of the first conversation.
    assert "It returns 1." not in json.dumps(second)
    assert "new session " in done.stderr
    listed = foehn("sessions", "list", "--json", "--workspace", str(project), state=tmp_path)
    assert [s["turns"] for s in json.loads(listed.stdout)["sessions"]] == [1, 1]
