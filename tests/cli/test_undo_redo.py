"""``foehn undo`` and ``foehn undo --redo`` as people use them after a few turns: each undo
goes one turn further back, a redo takes the last undo back, each says which it did, and the
session undone is the one that made the latest changes, whichever was used last. Real
processes, the model server on 127.0.0.1, a real workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.harness import foehn
from foehn_lsp.testing import ModelServer, Turn

pytestmark = pytest.mark.process


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def write(path: str, content: str) -> Turn:
    return Turn(tool_calls=[("write_file", {"path": path, "content": content})])


def turn(server: ModelServer, root: Path, state: Path, *args: str) -> None:
    done = foehn(
        "run", "go on", "--approve", "all", "--workspace", str(root), *args,
        server=server, state=state,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def undo(root: Path, state: Path, *args: str) -> str:
    done = foehn("undo", "--workspace", str(root), *args, state=state)
    return done.stderr


def test_undo_goes_further_back_and_redo_comes_forward(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    change = {"path": "a.txt", "edits": [{"old_text": "one", "new_text": "two"}]}
    server.script(write("a.txt", "one\n"), Turn(text="Wrote a."))
    server.script(Turn(tool_calls=[("edit_file", change)]), Turn(text="Changed a."))
    turn(server, root, tmp_path)
    turn(server, root, tmp_path, "--continue")
    a = root / "a.txt"
    assert a.read_text() == "two\n"

    said = undo(root, tmp_path)
    assert "undid turn 2: a.txt" in said
    assert "undo again to go one turn further back" in said
    assert a.read_text() == "one\n"
    said = undo(root, tmp_path)
    assert "undid turn 1: a.txt" in said
    assert not a.exists()
    said = undo(root, tmp_path)
    assert "nothing to undo" in said
    assert "foehn undo --redo takes the last undo back" in said
    assert not a.exists()

    said = undo(root, tmp_path, "--redo")
    assert "redid turn 1: a.txt" in said
    assert a.read_text() == "one\n"
    said = undo(root, tmp_path, "--redo")
    assert "redid turn 2: a.txt" in said
    assert a.read_text() == "two\n"
    said = undo(root, tmp_path, "--redo")
    assert "nothing to redo" in said
    assert a.read_text() == "two\n"


def test_a_new_change_ends_what_can_be_redone(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    server.script(write("a.txt", "one\n"), Turn(text="Wrote a."))
    server.script(write("b.txt", "b\n"), Turn(text="Wrote b."))
    turn(server, root, tmp_path)
    assert "undid turn 1" in undo(root, tmp_path)
    turn(server, root, tmp_path, "--continue")
    assert "nothing to redo" in undo(root, tmp_path, "--redo")
    assert not (root / "a.txt").exists()
    assert (root / "b.txt").read_text() == "b\n"


def test_undo_picks_the_session_that_made_the_latest_changes(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    server.script(write("a.txt", "from the first session\n"), Turn(text="Wrote a."))
    turn(server, root, tmp_path)
    server.script(Turn(text="Just an answer, no change."))
    turn(server, root, tmp_path)  # a newer session, which changed nothing
    said = undo(root, tmp_path)
    assert "undid turn 1: a.txt" in said
    assert not (root / "a.txt").exists()
