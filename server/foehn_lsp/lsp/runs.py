"""Active runs: one per ``foehn.run``, each with its id, stop event and progress token. All three
ways of cancelling (progress cancel, ``$/cancelRequest``, ``foehn.cancel``) set the same stop
event, and the run ends with ``cancelled``."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from foehn_lsp.sessions.store import SessionBusy


@dataclass
class ActiveRun:
    id: str
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    token: str | None = None
    """The progress token, once the client has agreed to show it."""
    progress: asyncio.Future[None] | None = None
    session: str | None = None
    """The session the run is a turn of, and the turn's index, once it started."""
    turn: int | None = None


class RunManager:
    """The runs in flight, by id, and the client requests that started them
    (``lsp/turns.py`` runs each one)."""

    def __init__(self) -> None:
        self.active: dict[str, ActiveRun] = {}
        self.requests: dict[Any, str] = {}
        """Client request id -> run id, while the run is active."""

    def cancel(self, run_id: str | None = None) -> list[str]:
        """Stop one run, or all; returns the ids that were asked to stop."""
        chosen = [run_id] if run_id is not None else list(self.active)
        stopped = []
        for identifier in chosen:
            run = self.active.get(identifier)
            if run is not None and not run.stop.is_set():
                run.stop.set()
                stopped.append(identifier)
        return stopped

    def cancel_request(self, request_id: Any) -> None:
        """``$/cancelRequest`` for a ``foehn.run`` request stops its run."""
        run_id = self.requests.pop(request_id, None)
        if run_id is not None:
            self.cancel(run_id)

    def begin(self, run_id: str, request_id: Any) -> ActiveRun:
        """A new active run; ``SessionBusy`` if one with that id is running."""
        if run_id in self.active:
            raise SessionBusy(f"a run with id {run_id!r} is already running")
        run = self.active[run_id] = ActiveRun(id=run_id)
        if request_id is not None:
            self.requests[request_id] = run_id
        return run

    def end(self, run: ActiveRun, request_id: Any) -> None:
        """``run`` is over: it can no longer be cancelled."""
        self.active.pop(run.id, None)
        self.requests.pop(request_id, None)
