"""What every kind of turn leaves behind, written in one place: the model's turns, tool calls
from outside (``foehn mcp``) and undos and redos alike.

    TurnRecorder(...)           the ``run`` record (the task, the provider) opens the turn
      .record(event)            each event: the session file (and a transcript the person
                                asked for), the audit log, the front end
      .close(record, ...)       the checkpoint (and its audit line), then the ``turn`` record
                                that closes the turn; the file is complete

A crash loses at most the turn that was running: every record is flushed as it is written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from foehn_lsp.events import EventSink, TurnEvent
from foehn_lsp.providers.messages import Message
from foehn_lsp.secrets import Scrubber
from foehn_lsp.sessions.audit import AuditLog
from foehn_lsp.sessions.store import MESSAGES, TurnRecord
from foehn_lsp.sessions.transcript import Transcript
from foehn_lsp.tools.tasks import TaskItem


class TurnRecorder:
    """One turn's records, from its ``run`` record to its closing ``turn`` record."""

    def __init__(
        self,
        *,
        transcript: Transcript,
        audit_path: Path,
        scrubber: Scrubber,
        turn_id: str,
        index: int,
        task: str,
        workspace: Path,
        provider: str,
        model: str,
        emit: EventSink,
    ) -> None:
        self.transcript = transcript
        self.audit = AuditLog(audit_path, scrubber, turn_id=turn_id)
        """The audit log, with the turn's id on each line."""
        self.index = index
        self.emit = emit
        transcript.start(
            task=task, workspace=str(workspace), provider=provider, model=model, turn=index
        )

    def record(self, event: TurnEvent) -> None:
        """``event`` in the session file, the audit log and to the front end."""
        self.transcript.event(event)
        self.audit(event)
        self.emit(event)

    def close(
        self,
        record: TurnRecord,
        *,
        base: int,
        messages: Sequence[Message],
        todo: tuple[TaskItem, ...] | None = None,
    ) -> None:
        """Write ``record``'s checkpoint and its closing ``turn`` record: the messages the turn
        added after the first ``base`` of the history, and the task list as the turn left it
        (``None``: unchanged)."""
        files = record.files
        if files:
            self.transcript.write("checkpoint", turn=record.index, files=[f.json() for f in files])
            self.audit.note(
                "undo" if record.undo_of else "checkpoint",
                turn=record.index,
                undo_of=list(record.undo_of),
                files=[{"path": f.path, "change": f.change} for f in files],
            )
        self.transcript.write(
            "turn",
            **record.saved(),
            base=base,
            messages=MESSAGES.dump_python(list(messages), mode="json"),
            **({"todo": [dataclasses.asdict(item) for item in todo]} if todo is not None else {}),
        )
        self.transcript.close()
