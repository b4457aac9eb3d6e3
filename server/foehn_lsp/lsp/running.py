"""The turns running now: one per ``foehn.run`` (or ``foehn.session.prompt``), each with its id,
stop event and progress token. All three ways of cancelling (progress cancel,
``$/cancelRequest``, ``foehn.cancel``) set the same stop event, and the turn ends with
``cancelled``.

"Turn" is the domain word; ``foehn.run``, ``foehn/runEvent`` and ``runId`` are the protocol's
names for the same thing, kept for the clients that speak them (DESIGN.md).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RunningTurn:
    id: str
    """The id the client knows the turn by (``runId`` on the wire)."""
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    token: str | None = None
    """The progress token, once the client has agreed to show it."""
    progress: asyncio.Future[None] | None = None
    session: str | None = None
    """The session the turn belongs to, and the turn's index in it, once it started."""
    index: int | None = None


class RunningTurns:
    """The turns in flight, by id, and the client requests that started them
    (``lsp/turns.py`` runs each one)."""

    def __init__(self) -> None:
        self.active: dict[str, RunningTurn] = {}
        self.requests: dict[Any, str] = {}
        """Client request id -> turn id, while the turn runs."""

    def cancel(self, turn_id: str | None = None) -> list[str]:
        """Stop one turn, or all; returns the ids that were asked to stop."""
        chosen = [turn_id] if turn_id is not None else list(self.active)
        stopped = []
        for identifier in chosen:
            turn = self.active.get(identifier)
            if turn is not None and not turn.stop.is_set():
                turn.stop.set()
                stopped.append(identifier)
        return stopped

    def cancel_request(self, request_id: Any) -> None:
        """``$/cancelRequest`` for a ``foehn.run`` request stops its turn."""
        turn_id = self.requests.pop(request_id, None)
        if turn_id is not None:
            self.cancel(turn_id)

    def begin(self, turn_id: str, request_id: Any) -> RunningTurn:
        """A new running turn; ``SessionBusy`` if one with that id is running."""
        from foehn_lsp.sessions.store import SessionBusy

        if turn_id in self.active:
            raise SessionBusy(f"a run with id {turn_id!r} is already running")
        turn = self.active[turn_id] = RunningTurn(id=turn_id)
        if request_id is not None:
            self.requests[request_id] = turn_id
        return turn

    def end(self, turn: RunningTurn, request_id: Any) -> None:
        """``turn`` is over: it can no longer be cancelled."""
        self.active.pop(turn.id, None)
        self.requests.pop(request_id, None)
