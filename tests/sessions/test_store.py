"""The saved-session shapes every front end shows (`foehn sessions --json`, `foehn.session.*`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from foehn_lsp.sessions import store as store_module
from foehn_lsp.sessions.store import (
    ID_ATTEMPTS,
    FileState,
    SessionStore,
    SessionSummary,
    TurnRecord,
)


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


def test_a_new_session_never_takes_an_id_a_session_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen (tests/lsp/test_load.py): two of 2,000 new ids were the same, and the second
    session failed with "File exists". Random ids cannot be made to collide for real, so the
    ids are given here."""
    given = iter(["20261206-000000-aaaaaa", "20261206-000000-aaaaaa", "20261206-000000-bbbbbb"])
    monkeypatch.setattr(store_module, "new_id", lambda: next(given))
    store = SessionStore(tmp_path / "ws", base=tmp_path / "state")
    first = store.create(title="first")
    second = store.create(title="second")
    assert (first.id, second.id) == ("20261206-000000-aaaaaa", "20261206-000000-bbbbbb")
    assert store.load(first.id).title == "first", "the first session's file is as it was"

    monkeypatch.setattr(store_module, "new_id", lambda: "20261206-000000-aaaaaa")
    with pytest.raises(OSError, match=f"no free session id in .* after {ID_ATTEMPTS} attempts"):
        store.create()
    assert sorted(s.id for s in store.list()) == [first.id, second.id]
