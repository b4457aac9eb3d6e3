"""A trusted workspace's hooks, rules and custom commands counted by their effects through the
real ``foehn run`` and ``foehn chat``: a hook's runs (lines it appends to a file), the files a
denied call would have written, the prompt the model receives for ``/NAME``. Each is used only
while its content is the approved one: an unapproved hook never runs, an approved one runs, and
one changed (by the model's own tool call) waits again and never runs in its new form.

The real ``foehn`` process, the scripted model server on 127.0.0.1, hooks in the real sandbox;
the person's config and approvals live under the test's own folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli.harness import events, foehn
from foehn_lsp.testing import ModelServer, Turn
from foehn_lsp.workspace.trust import approve, review, waiting

pytestmark = [pytest.mark.process, pytest.mark.usefixtures("trusted")]

RULES = ".foehn/rules.toml"
HOOK = """\
[[hooks]]
event = "pre_tool"
sandbox = "workspace-write"
command = ["sh", "-c", "echo {word} >> hook-runs"]
"""
DENY_WRITES = """\
[[rules]]
tool = "write_file"
decision = "deny"
message = "{message}"
"""


def run(model: ModelServer, root: Path, state: Path, *turns: Turn) -> list[dict[str, Any]]:
    model.script(*turns)
    done = foehn(
        "run", "go", "--workspace", str(root), "--approve", "all", "--json",
        server=model, state=state,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return events(done.stdout)


def results(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for event in stream if event["event"] == "tool_result"]


def hook_runs(root: Path) -> list[str]:
    path = root / "hook-runs"
    return path.read_text().splitlines() if path.exists() else []


def approve_now(root: Path, relative: str) -> None:
    sha = review(root, relative).sha256
    assert sha is not None
    approve(root, relative, sha)


def read_app() -> Turn:
    return Turn(tool_calls=[("read_file", {"path": "app.py"})])


@pytest.mark.usefixtures("app")
def test_a_workspace_hook_runs_only_while_its_content_is_approved(
    root: Path, state: Path, model: ModelServer
) -> None:
    rules = root / RULES
    rules.parent.mkdir()
    rules.write_text(HOOK.format(word="approved"))

    run(model, root, state, read_app(), Turn(text="ok"))
    assert hook_runs(root) == []  # present at clone time: never run
    (item,) = waiting(root)
    assert (item.path, item.status) == (RULES, "new")

    approve_now(root, RULES)
    run(model, root, state, read_app(), Turn(text="ok"))
    assert hook_runs(root) == ["approved"]

    edit = {"path": RULES, "content": HOOK.format(word="changed")}
    stream = run(
        model, root, state, Turn(tool_calls=[("read_file", {"path": RULES})]),
        Turn(tool_calls=[("write_file", edit)]), read_app(), Turn(text="ok"),
    )  # fmt: skip
    assert all(result["ok"] for result in results(stream)), results(stream)
    # The approved hook ran before the read and the write; after the write the changed file
    # waits, in that same run too.
    assert hook_runs(root) == ["approved"] * 3
    run(model, root, state, read_app(), Turn(text="ok"))
    assert hook_runs(root) == ["approved"] * 3
    (item,) = waiting(root)
    assert (item.path, item.status) == (RULES, "changed")
    assert '-command = ["sh", "-c", "echo approved >> hook-runs"]\n' in item.diff()
    assert '+command = ["sh", "-c", "echo changed >> hook-runs"]\n' in item.diff()

    approve_now(root, RULES)
    run(model, root, state, read_app(), Turn(text="ok"))
    assert hook_runs(root) == ["approved"] * 3 + ["changed"]


def test_a_workspace_deny_rule_stops_calls_only_while_approved(
    root: Path, state: Path, model: ModelServer
) -> None:
    rules = root / RULES
    rules.parent.mkdir()
    rules.write_text(DENY_WRITES.format(message="Not in this repository."))
    note = root / "note.txt"
    write = Turn(tool_calls=[("write_file", {"path": "note.txt", "content": "hi\n"})])

    run(model, root, state, write, Turn(text="ok"))
    assert note.read_text() == "hi\n"  # an unapproved rule decides nothing
    note.unlink()

    approve_now(root, RULES)
    # A refused change is asked once more for a tool call; the model answers again.
    (result,) = results(run(model, root, state, write, Turn(text="ok"), Turn(text="ok")))
    assert not note.exists()
    assert not result["ok"]
    assert "Not in this repository." in json.dumps(result)

    rules.write_text(DENY_WRITES.format(message="Changed."))
    (result,) = results(run(model, root, state, write, Turn(text="ok")))
    assert note.read_text() == "hi\n"  # the changed rule waits: it decides nothing either
    assert "Changed." not in json.dumps(result)


def test_a_workspace_command_expands_only_while_approved(
    root: Path, state: Path, model: ModelServer
) -> None:
    command = root / ".foehn" / "commands" / "ship.md"
    command.parent.mkdir(parents=True)
    command.write_text("Ship $ARGUMENTS carefully.\n")

    def said(typed: str) -> str:
        model.script(Turn(text="ok"))
        before = len(model.requests)
        done = foehn("chat", "--workspace", str(root), server=model, state=state, stdin=typed)
        assert done.returncode == 0, done.stderr
        sent = [request.body["messages"][-1]["content"] for request in model.requests[before:]]
        return json.dumps(sent)

    assert "Ship" not in said("/ship the release\n")
    approve_now(root, ".foehn/commands/ship.md")
    assert "Ship the release carefully." in said("/ship the release\n")
    command.write_text("Ship $ARGUMENTS and push to production.\n")
    assert "production" not in said("/ship the release\n")
