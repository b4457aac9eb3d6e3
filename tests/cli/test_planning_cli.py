"""Plans, task lists, precise reading and the honesty guards through the real ``foehn run`` and
``foehn chat``: real processes, the scripted model server on 127.0.0.1, real workspaces."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.turns import PLAN_EDIT as EDIT
from cli.harness import events, foehn
from foehn_lsp.testing import ModelServer, Turn

pytestmark = pytest.mark.process

READ = ("read_file", {"path": "app.py"})
WRITE = ("write_file", {"path": "NOTES.md", "content": "notes\n"})
PLAN = "1. Edit app.py so that main returns 2."


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


@pytest.fixture
def app(root: Path) -> Path:
    (root / "app.py").write_text("def main():\n    return 1\n")
    return root


def todo(*statuses: str) -> tuple[str, dict[str, Any]]:
    steps = ["Read every file", "Say what they hold"]
    items = [
        {"id": str(n), "text": text, "status": status}
        for n, (text, status) in enumerate(zip(steps, statuses, strict=True), 1)
    ]
    return ("todo", {"items": items})


def messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = body["messages"]
    return found


def test_run_plan_refuses_a_write_then_runs_the_plan_approved_on_the_terminal(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(
        Turn(tool_calls=[WRITE]),
        Turn(text=PLAN),
        Turn(tool_calls=[READ, EDIT]),
        Turn(text="I changed app.py."),
    )
    done = foehn(
        "run", "Make main return 2", "--plan", "--approve", "ask", "--workspace", str(app),
        server=server, state=tmp_path, stdin="y\ny\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "plan mode: write_file was not run" in done.stderr
    assert "Foehn's plan:\n  1. Edit app.py so that main returns 2." in done.stderr
    assert "files: app.py" in done.stderr
    assert "plan approved: carrying it out" in done.stderr
    assert "tasks (0/1 done):" in done.stderr
    assert done.stdout.endswith("I changed app.py.\n")
    assert not (app / "NOTES.md").exists()
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"


def test_run_plan_with_approve_never_ends_with_the_plan_and_changes_nothing(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Turn(text=PLAN))
    done = foehn(
        "run", "Make main return 2", "--plan", "--approve", "never", "--json",
        "--workspace", str(app), server=server, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    stream = events(done.stdout)
    plans = [e for e in stream if e["event"] == "plan"]
    assert [p["status"] for p in plans] == ["proposed", "unreviewed"]
    assert plans[0]["steps"] == ["Edit app.py so that main returns 2."]
    assert plans[0]["files"] == ["app.py"]
    assert stream[-1]["answer"] == PLAN
    assert len(server.requests) == 1
    tools = {t["function"]["name"] for t in server.requests[0].body["tools"]}
    assert "read_file" in tools
    assert "edit_file" not in tools
    assert (app / "app.py").read_text() == "def main():\n    return 1\n"


def test_chat_plan_rejected_twice_ends_the_turn(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Turn(text=PLAN), Turn(text="1. Edit app.py carefully."))
    typed = "/plan Make main return 2\nn keep the API\nno still not\n"
    done = foehn("chat", "--workspace", str(app), server=server, state=tmp_path, stdin=typed)
    assert done.returncode == 0, done.stderr
    assert "plan rejected: keep the API" in done.stderr
    assert "(the last try: a second rejection ends the turn)" in done.stderr
    assert "The person rejected the plan twice (still not); nothing was changed." in done.stdout
    second = messages(server.requests[1].body)
    assert "[Foehn] The person rejected the plan: keep the API." in second[-1]["content"]
    assert (app / "app.py").read_text() == "def main():\n    return 1\n"


def test_the_task_list_is_shown_saved_and_given_back_after_compaction(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    for number in range(12):
        (root / f"f{number}.txt").write_text(f"file {number}\n" + ("x" * 60 + "\n") * 100)
    config = tmp_path / "config" / "foehn"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("context_window = 6000\n")
    steps = iter(
        [
            Turn(tool_calls=[todo("in_progress", "pending")]),
            # A whole file read by range: a small window's plain read shows a region.
            *(
                Turn(tool_calls=[("read_file", {"path": f"f{n}.txt", "limit": 101})])
                for n in range(12)
            ),
            Turn(text="Every file holds x."),
        ]
    )

    def reply(body: dict[str, Any]) -> Turn:
        if messages(body)[0]["content"].startswith("You summarise"):
            return Turn(text="Read some files.")
        return next(steps, Turn(text="Still on it."))

    server.script(*([reply] * 40))
    done = foehn(
        "run", "Read every file.", "--json", "--max-iterations", "40", "--workspace", str(root),
        server=server, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    stream = events(done.stdout)
    [listed] = [e for e in stream if e["event"] == "todo"]
    assert listed["items"][0] == {"id": "1", "text": "Read every file", "status": "in_progress"}
    assert [e for e in stream if e["event"] == "compacted"]
    last = messages(server.requests[-1].body)
    kept = [m for m in last if m["role"] == "tool" and "[>] 1. Read" in m["content"]]
    assert not kept, "the todo result itself was compacted away"
    assert any(
        m["role"] == "user"
        and "[Foehn] Your task list (0 of 2 done" in m["content"]
        and "[>] 1. Read every file\n[ ] 2. Say what they hold" in m["content"]
        for m in last
    )
    again = foehn(
        "run", "Go on.", "--continue", "--workspace", str(root), server=server, state=tmp_path
    )
    assert again.returncode == 0, again.stderr
    assert "tasks (0/2 done):\n  ▸ Read every file\n  ○ Say what they hold" in again.stderr
    said = [m["content"] for m in messages(server.requests[-1].body) if m["role"] == "user"]
    [asked] = [m for m in said if m.startswith("Go on.")]
    assert asked.startswith("Go on.\n\n[Foehn] Your task list (0 of 2 done")


def test_read_symbol_gives_the_exact_text_that_edit_file_accepts(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    def quote(body: dict[str, Any]) -> Turn:
        shown = messages(body)[-1]["content"]
        text = shown.partition("\n")[2]
        edit = {"old_text": text, "new_text": text.replace("return 1", "return 2")}
        return Turn(tool_calls=[("edit_file", {"path": "app.py", "edits": [edit]})])

    server.script(
        Turn(tool_calls=[("read_symbol", {"path": "app.py", "name": "main"})]),
        quote,
        Turn(text="I changed main in app.py to return 2."),
    )
    done = foehn(
        "run", "Make main return 2", "--approve", "all", "--workspace", str(app),
        server=server, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"
    assert done.stdout == "I changed main in app.py to return 2.\n"


def test_an_unparsable_edit_is_refused_and_an_answer_after_it_is_sent_back(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    broken = {"old_text": "def main():", "new_text": "def main(): if True: return 2"}
    server.script(
        Turn(tool_calls=[READ, ("edit_file", {"path": "app.py", "edits": [broken]})]),
        Turn(text="Done."),
        Turn(tool_calls=[EDIT]),
        Turn(text="I changed app.py."),
    )
    done = foehn(
        "run", "Make main return 2", "--approve", "all", "--json", "--workspace", str(app),
        server=server, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = [e for e in events(done.stdout) if e["event"] == "tool_result"]
    assert "would not parse as Python, line 1: invalid syntax" in results[1]["output"]
    told = messages(server.requests[2].body)[-1]
    assert told["role"] == "user"
    assert told["content"].startswith("[Foehn] Your last change (edit_file) failed")
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"


def test_a_false_claim_is_sent_back_and_never_printed(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(
        Turn(text="I added the --verbose flag to app.py."),
        Turn(text="I have not changed app.py: I only looked at it."),
    )
    done = foehn(
        "run", "Add a --verbose flag", "--workspace", str(app), server=server, state=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "I have not changed app.py: I only looked at it.\n"
    told = messages(server.requests[1].body)[-1]["content"]
    assert told.startswith("[Foehn] Your answer says you changed files (it names app.py)")
    assert json.dumps(server.requests[1].body).count("I added the --verbose flag") == 1
