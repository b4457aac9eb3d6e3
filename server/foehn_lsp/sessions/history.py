"""Which turns' changes are in effect, and what ``undo`` and ``redo`` take next.

An undo is itself a turn (``TurnRecord.undo_of``): an *undo* puts back what person-asked turns
changed, a *redo* undoes an undo. A turn's changes are in effect unless a later turn whose own
changes are in effect undid it whole; an undo of some of its files only (``TurnRecord.paths``,
the editor's per-file undo) leaves it in effect. From that:

- ``undo`` takes the latest asked turn that changed files and is in effect, so each undo goes
  one turn further back (it never undoes the undo before it);
- ``redo`` takes the latest undo in effect, so redos come back in the reverse order of the
  undos; an asked turn that changed files since ends what can be redone, as in any editor.
"""

from __future__ import annotations

from collections.abc import Sequence

from foehn_lsp.sessions.store import SessionStore, TurnRecord


def in_effect(turns: Sequence[TurnRecord]) -> dict[int, bool]:
    """For each turn's index: whether its changes are in effect now."""
    effective: dict[int, bool] = {}
    for turn in reversed(turns):
        effective[turn.index] = not any(
            effective.get(later.index, False)
            for later in turns
            if later.index > turn.index and turn.index in later.undo_of and not later.paths
        )
    return effective


def is_redo(turn: TurnRecord, turns: Sequence[TurnRecord]) -> bool:
    """A turn that undid only undo turns."""
    undos = {t.index for t in turns if t.undo_of}
    return bool(turn.undo_of) and set(turn.undo_of) <= undos


def undo_target(turns: Sequence[TurnRecord]) -> TurnRecord | None:
    """The turn ``undo`` puts back: the latest asked turn that changed files, in effect."""
    effective = in_effect(turns)
    return next(
        (t for t in reversed(turns) if t.files and not t.undo_of and effective[t.index]), None
    )


def redo_target(turns: Sequence[TurnRecord]) -> TurnRecord | None:
    """The undo ``redo`` takes back: the latest undo in effect after the last asked turn that
    changed files."""
    effective = in_effect(turns)
    for turn in reversed(turns):
        if turn.files and not turn.undo_of:
            return None
        if turn.files and effective[turn.index] and not is_redo(turn, turns):
            return turn
    return None


def redone(undo: TurnRecord, turns: Sequence[TurnRecord]) -> tuple[int, ...]:
    """The asked turns whose changes come back when ``undo`` is undone."""
    return tuple(i for i in undo.undo_of if not any(t.index == i and t.undo_of for t in turns))


def session_to_undo(store: SessionStore, *, redo: bool = False) -> str | None:
    """The session in the workspace whose next undo (or redo) is the most recent change: the
    one that made the latest edits still in effect, whichever session was used last."""
    best: tuple[float, str] | None = None
    for summary in store.list():
        turns = store.load(summary.id, messages=False).turns
        target = redo_target(turns) if redo else undo_target(turns)
        if target is not None and (best is None or target.time > best[0]):
            best = (target.time, summary.id)
    return best[1] if best else None
