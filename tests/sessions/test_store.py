"""The saved-session shapes every front end shows (`foehn sessions --json`, `foehn.session.*`)."""

from __future__ import annotations

from pathlib import Path

from foehn_lsp.sessions.store import FileState, SessionSummary, TurnRecord


def test_a_turn_shows_its_files_with_a_moves_source_and_without_folders() -> None:
    turn = TurnRecord(
        index=2,
        task="tidy up",
        reason="answer",
        answer="done",
        iterations=3,
        files=(
            FileState(path="new.py", before=None, after="b1", source="old.py"),
            FileState(path="old.py", before="a1", after=None),
            FileState(path="pkg", before=None, after=None, folder=True),
        ),
        undo_of=(1,),
    )
    assert turn.json() == {
        "index": 2,
        "task": "tidy up",
        "reason": "answer",
        "answer": "done",
        "iterations": 3,
        "files": [
            {"path": "new.py", "change": "moved", "source": "old.py"},
            {"path": "old.py", "change": "deleted"},
        ],
        "undoOf": [1],
    }


def test_a_listed_session_shows_what_to_choose_it_by_and_not_where_it_is() -> None:
    summary = SessionSummary(
        id="s1", title="t", created=1.0, updated=2.0, turns=4, path=Path("s1.jsonl")
    )
    assert summary.json() == {"id": "s1", "title": "t", "created": 1.0, "updated": 2.0, "turns": 4}
