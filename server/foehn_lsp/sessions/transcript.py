"""Transcripts: a session's records as JSONL, scrubbed of secrets, and reading them back.

A transcript records a session: a ``session`` header, then per turn a ``run`` record (the task),
every model response, every event, with timings, the turn's checkpoint and a ``turn`` record
that closes it (the messages the turn added, so the session can be resumed). A session file in
the store is a transcript, and ``--transcript FILE`` writes the same records to FILE; either is
enough for ``foehn replay`` to re-run the turns offline and check that the same tool calls come
out.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from foehn_lsp.errors import TranscriptError
from foehn_lsp.events import (
    TurnEvent,
    event_json,
)
from foehn_lsp.providers.messages import ModelResponse
from foehn_lsp.secrets import Scrubber


class Transcript:
    """Appends records to one or more JSONL files as they happen; each line is flushed, so a
    crash loses at most the line being written."""

    def __init__(self, path: Path, scrubber: Scrubber, *, append: bool = False) -> None:
        self.path = path
        self.scrubber = scrubber
        self._handle: TextIO = open(path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115
        self._others: list[Transcript] = []
        self._started = time.monotonic()

    def tee(self, other: Transcript) -> None:
        """Write every later record to ``other`` too (``--transcript FILE``); closing this
        transcript leaves ``other`` open."""
        self._others.append(other)

    def write(self, kind: str, **data: Any) -> None:
        record = {
            "kind": kind,
            "t": round(time.monotonic() - self._started, 4),
            **self.scrubber.data(data),
        }
        line = json.dumps(record, ensure_ascii=False) + "\n"
        for handle in [self._handle, *(other._handle for other in self._others)]:
            handle.write(line)
            handle.flush()

    def start(self, *, task: str, workspace: str, provider: str, model: str, turn: int = 1) -> None:
        self.write("run", task=task, workspace=workspace, provider=provider, model=model, turn=turn)

    def response(self, response: ModelResponse, seconds: float) -> None:
        self.write("response", response=response.model_dump(mode="json"), seconds=round(seconds, 4))

    def event(self, event: TurnEvent) -> None:
        self.write("event", **event_json(event))

    def close(self) -> None:
        self._handle.close()


@dataclass
class RecordedRun:
    """What a transcript recorded. A session file's turns are concatenated: ``tasks`` lists each
    turn's task in order, and replaying them in one session with the recorded responses gives
    the same tool calls."""

    task: str
    """The first turn's task."""
    workspace: str
    responses: list[ModelResponse]
    tool_calls: list[tuple[str, Any]]
    decisions: list[str]
    """Approval decisions made by asking (not by policy), in order."""
    done: dict[str, Any] = field(default_factory=dict)
    """The last turn's ``done`` event."""
    tasks: list[str] = field(default_factory=list)
    """Every turn's task, in order (one for a single run)."""


SESSION_KINDS = frozenset({"session", "title", "checkpoint", "turn", "restore", "compaction"})
"""Records a session file adds around runs; replay does not need them."""


def read_transcript(path: Path) -> RecordedRun:
    """The runs a transcript or session file recorded; a line cut off by a crash at the end of
    the file is ignored, anything else that is not a record is an error."""
    try:
        lines = path.read_text("utf-8").splitlines()
    except OSError as exc:
        raise TranscriptError(f"cannot read transcript {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise TranscriptError(f"{path} is not a transcript (not UTF-8 text)") from None
    if lines and not _is_json(lines[-1]):
        lines.pop()
    run: RecordedRun | None = None
    for number, line in enumerate(lines, 1):
        try:
            record = json.loads(line)
            kind = record["kind"]
            if kind in SESSION_KINDS:
                continue
            if kind == "run" and run is not None:
                run.tasks.append(record["task"])
            elif kind == "run":
                run = RecordedRun(
                    task=record["task"],
                    workspace=record["workspace"],
                    responses=[],
                    tool_calls=[],
                    decisions=[],
                    tasks=[record["task"]],
                )
            elif run is None:
                raise TranscriptError(f"{path}:{number}: the first record must be the run")
            elif kind == "response":
                run.responses.append(ModelResponse.model_validate(record["response"]))
            elif kind == "event" and record["event"] == "tool_call":
                run.tool_calls.append((record["tool"], record["arguments"]))
            elif (
                kind == "event"
                and record["event"] == "approval"
                and record["reason"] not in ("policy", "allowed for this run")
            ):
                run.decisions.append(record["decision"])
            elif kind == "event" and record["event"] == "done":
                run.done = record
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise TranscriptError(f"{path}:{number}: not a transcript record ({exc})") from None
    if run is None:
        raise TranscriptError(f"{path} is empty")
    return run


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except json.JSONDecodeError:
        return False
    return True
