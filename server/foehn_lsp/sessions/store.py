"""Saved sessions: one JSONL file per session, per workspace, under the user's state directory.

    <state>/sessions/<workspace name>-<hash>/<id>.jsonl    the session (a transcript)
    <state>/sessions/<workspace name>-<hash>/<id>.lock     held while a turn runs
    <state>/sessions/<workspace name>-<hash>/blobs/ab/cd…  file contents kept by checkpoints

A session file is append-only: a ``session`` header, then each turn's records, closed by a
``turn`` record carrying the messages the turn added. Loading replays the ``turn`` records, so a
crash in the middle of a turn loses that turn and nothing before it. A file whose header cannot
be read is reported and skipped; a damaged line inside a file is reported and skipped.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from foehn_lsp.config.folders import state_dir
from foehn_lsp.errors import FoehnError
from foehn_lsp.events import StopReason
from foehn_lsp.providers.messages import Message
from foehn_lsp.tools.tasks import TaskItem

MESSAGES: TypeAdapter[list[Message]] = TypeAdapter(list[Message])
TASKS: TypeAdapter[list[TaskItem]] = TypeAdapter(list[TaskItem])
FORMAT = 1
_NOT_NEEDED = ('{"kind": "event"', '{"kind": "response"', '{"kind": "run"')
"""How the records a load skips begin (``kind`` is always written first)."""


class SessionNotFound(FoehnError):
    """No saved session with that id in this workspace."""


class SessionBusy(FoehnError):
    """A turn is already running in the session (here or in another front end)."""


def workspace_folder(root: Path, base: Path | None = None) -> Path:
    """Where ``root``'s sessions live: named after the folder, keyed by its full path."""
    digest = hashlib.sha256(os.fsencode(root)).hexdigest()[:16]
    return (base or state_dir()) / "sessions" / f"{root.name}-{digest}"


@dataclass(frozen=True, kw_only=True)
class FileState:
    """One file in a turn's checkpoint: what it was before the turn and after it."""

    path: str
    """Relative to the workspace root, with "/"."""
    before: str | None
    """Digest of the content before the turn (in the blob store); ``None``: it did not exist."""
    after: str | None
    """Digest at the end of the turn; ``None``: it does not exist then."""
    lost: bool = False
    """The previous content is unknown (a program changed a file the session never held)."""
    source: str | None = None
    """The file was moved here from ``source`` (shown only; ``source`` has its own entry)."""
    folder: bool = False
    """A folder the turn created (undo removes it if nothing else is in it by then)."""

    def json(self) -> dict[str, Any]:
        """As the checkpoint record stores it."""
        data: dict[str, Any] = {"path": self.path, "before": self.before, "after": self.after}
        if self.lost:
            data["lost"] = True
        if self.folder:
            data["folder"] = True
        if self.source is not None:
            data["source"] = self.source
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileState:
        """From a checkpoint record (``KeyError``/``TypeError`` for a damaged one)."""
        return cls(
            path=str(data["path"]),
            before=data.get("before"),
            after=data.get("after"),
            lost=bool(data.get("lost", False)),
            source=data.get("source"),
            folder=bool(data.get("folder", False)),
        )

    @property
    def change(self) -> str:
        """created, modified, deleted or moved (a file moved here is created from another)."""
        if self.folder:
            return "created"
        if self.before is None and not self.lost:
            return "moved" if self.source else "created"
        return "deleted" if self.after is None else "modified"


@dataclass(frozen=True, kw_only=True)
class TurnRecord:
    """One finished turn."""

    index: int
    """1-based."""
    task: str
    reason: StopReason
    answer: str
    iterations: int
    input_tokens: int = 0
    output_tokens: int = 0
    files: tuple[FileState, ...] = ()
    """The turn's checkpoint: every file it changed."""
    undo_of: tuple[int, ...] = ()
    """For a turn that was an undo: the turns whose changes it put back."""
    paths: tuple[str, ...] = ()
    """For an undo of some files only: those files; their turns' other changes stay in
    effect."""
    note: str = ""
    """What the model is told at its next turn about this one (for undo turns)."""
    time: float = 0.0

    def saved(self) -> dict[str, Any]:
        """The fields of the ``turn`` record that closes the turn in the session file (read
        back by ``SessionStore.load``; the messages and the task list go beside them)."""
        return {
            "turn": self.index,
            "task": self.task,
            "reason": self.reason,
            "answer": self.answer,
            "iterations": self.iterations,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "undo_of": list(self.undo_of),
            **({"paths": list(self.paths)} if self.paths else {}),
            "note": self.note,
            "time": self.time,
        }

    def json(self) -> dict[str, Any]:
        """As every front end shows a saved turn (``foehn sessions show --json``,
        ``foehn.session.load``): the files it changed, folders left out."""
        return {
            "index": self.index,
            "task": self.task,
            "reason": self.reason,
            "answer": self.answer,
            "iterations": self.iterations,
            "files": [
                {"path": f.path, "change": f.change} | ({"source": f.source} if f.source else {})
                for f in self.files
                if not f.folder
            ],
            "undoOf": list(self.undo_of),
        } | ({"paths": list(self.paths)} if self.paths else {})


@dataclass(frozen=True, kw_only=True)
class FileBefore:
    """A file as it was before a turn changed it."""

    content: bytes | None
    """``None``: the file did not exist, or its content is lost."""
    lost: bool = False
    """The previous content is unknown (see ``FileState.lost``)."""


@dataclass(frozen=True, kw_only=True)
class SessionSummary:
    """A saved session as listed: enough to choose one."""

    id: str
    title: str
    created: float
    updated: float
    turns: int
    """The turns the person asked; undo and restore turns are not counted."""
    path: Path

    def json(self) -> dict[str, Any]:
        """As every front end lists it (``foehn sessions list --json``, ``foehn.session.list``)."""
        return {
            "id": self.id,
            "title": self.title,
            "created": self.created,
            "updated": self.updated,
            "turns": self.turns,
        }


@dataclass(kw_only=True)
class SessionData:
    """A session as loaded from its file."""

    id: str
    title: str
    workspace: str
    created: float
    messages: list[Message] = field(default_factory=list)
    turns: list[TurnRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Damaged lines that were skipped."""
    input_tokens: int = 0
    output_tokens: int = 0
    todo: list[TaskItem] = field(default_factory=list)
    """The task list as the last turn that saved one left it."""


def new_id() -> str:
    """Sortable by creation time; ``SessionStore.create`` makes it unique in its folder."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


ID_ATTEMPTS = 8
"""New ids tried for a session before giving up: each is taken only if no file has it."""


class SessionStore:
    """The saved sessions of one workspace."""

    def __init__(self, root: Path, *, base: Path | None = None) -> None:
        self.root = root
        self.folder = workspace_folder(root, base)
        self.blobs = BlobStore(self.folder / "blobs")
        self.problems: list[str] = []
        """Files ``list`` could not read, each with why."""

    def path(self, session_id: str) -> Path:
        """The session's file; ``SessionNotFound`` for an id that cannot be a file name."""
        if not session_id or "/" in session_id or session_id.startswith("."):
            raise SessionNotFound(f"no session {session_id!r}")
        return self.folder / f"{session_id}.jsonl"

    def create(self, *, title: str = "") -> SessionData:
        """Start a new, empty session file (its header), under an id no other session of the
        workspace has. Seen (tests/lsp/test_load.py, 2,000 sessions made 25 at a time): two
        new ids were the same, and the second run failed with "File exists"."""
        self.folder.mkdir(parents=True, exist_ok=True)
        for _ in range(ID_ATTEMPTS):
            session_id = new_id()
            created = time.time()
            header = {
                "kind": "session",
                "format": FORMAT,
                "id": session_id,
                "title": title,
                "workspace": str(self.root),
                "created": created,
            }
            try:
                with open(self.path(session_id), "x", encoding="utf-8") as handle:
                    handle.write(json.dumps(header, ensure_ascii=False) + "\n")
            except FileExistsError:
                continue
            return SessionData(
                id=session_id, title=title, workspace=str(self.root), created=created
            )
        raise OSError(f"no free session id in {self.folder} after {ID_ATTEMPTS} attempts")

    def list(self) -> list[SessionSummary]:
        """Every readable session, the most recently used first; unreadable files are left out
        and named in ``problems``."""
        self.problems = []
        found = []
        for path in sorted(self.folder.glob("*.jsonl")) if self.folder.is_dir() else []:
            try:
                data = self._read(path, messages=False)
            except FoehnError as exc:
                self.problems.append(str(exc))
                continue
            found.append(
                SessionSummary(
                    id=data.id,
                    title=data.title,
                    created=data.created,
                    updated=path.stat().st_mtime,
                    turns=sum(1 for t in data.turns if not t.undo_of),
                    path=path,
                )
            )
        return sorted(found, key=lambda s: s.updated, reverse=True)

    def latest(self) -> str | None:
        """The most recently used session's id, if there is one."""
        sessions = self.list()
        return sessions[0].id if sessions else None

    def load(self, session_id: str, *, messages: bool = True) -> SessionData:
        """The session with its turns and (unless ``messages`` is false) its messages;
        ``SessionNotFound`` if there is none."""
        path = self.path(session_id)
        if not path.is_file():
            raise SessionNotFound(f"no session {session_id!r} in {self.root}")
        return self._read(path, messages=messages)

    def before(self, session_id: str, turn: int, path: str) -> FileBefore | None:
        """``path`` (relative, with "/") as it was before turn ``turn`` of the session changed
        it; ``None`` when that turn did not change it. Raises ``SessionNotFound``, and
        ``FoehnError`` for a kept content that cannot be read."""
        record = next((t for t in self.load(session_id).turns if t.index == turn), None)
        state = next((f for f in record.files if f.path == path), None) if record else None
        if state is None:
            return None
        if state.lost or state.before is None:
            return FileBefore(content=None, lost=state.lost)
        return FileBefore(content=self.blobs.get(state.before))

    def rename(self, session_id: str, title: str) -> None:
        """Append a new title (the last one counts)."""
        self.load(session_id)
        self.append(session_id, {"kind": "title", "title": title.strip()})

    def delete(self, session_id: str) -> None:
        """Remove the session's file (waiting for no turn: ``SessionBusy`` if one runs), and
        the stored contents no other session refers to."""
        path = self.path(session_id)
        if not path.is_file():
            raise SessionNotFound(f"no session {session_id!r} in {self.root}")
        with self.lock(session_id):
            path.unlink()
        with contextlib.suppress(FileNotFoundError):
            self.path(session_id).with_suffix(".lock").unlink()
        self.blobs.collect(self._referenced())

    def append(self, session_id: str, record: dict[str, Any]) -> None:
        """Add one record (already scrubbed) to the session's file."""
        with open(self.path(session_id), "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")

    @contextlib.contextmanager
    def lock(self, session_id: str) -> Iterator[None]:
        """Hold the session for one turn; ``SessionBusy`` if another holder has it (another
        front end, or another turn in this process)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path(session_id).with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise SessionBusy(
                    f"session {session_id} is busy: a turn is running in it (here or in "
                    "another window); wait for it to finish or cancel it"
                ) from None
            yield
        finally:
            os.close(fd)

    def _referenced(self) -> set[str]:
        digests: set[str] = set()
        for path in self.folder.glob("*.jsonl"):
            with contextlib.suppress(FoehnError):
                for turn in self._read(path, messages=False).turns:
                    for state in turn.files:
                        digests.update(d for d in (state.before, state.after) if d)
        return digests

    def _read(self, path: Path, *, messages: bool) -> SessionData:
        try:
            lines = path.read_text("utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise FoehnError(f"session file {path.name} cannot be read ({exc})") from None
        try:
            header = json.loads(lines[0]) if lines else None
            if not isinstance(header, dict) or header.get("kind") != "session":
                raise ValueError("no session header")
            data = SessionData(
                id=str(header["id"]),
                title=str(header.get("title") or ""),
                workspace=str(header.get("workspace") or ""),
                created=float(header.get("created") or 0.0),
            )
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise FoehnError(
                f"session file {path.name} is damaged and was skipped ({exc})"
            ) from None
        checkpoints: dict[int, tuple[FileState, ...]] = {}
        for number, line in enumerate(lines[1:], 2):
            if line.startswith(_NOT_NEEDED):
                continue  # events and responses: for replay, not for loading
            try:
                record = json.loads(line)
                kind = record.get("kind")
                if kind == "title":
                    data.title = str(record["title"])
                elif kind == "checkpoint":
                    checkpoints[int(record["turn"])] = tuple(
                        FileState.from_json(f) for f in record["files"]
                    )
                elif kind == "turn":
                    self._turn(data, record, checkpoints, messages=messages)
                elif kind == "compaction" and messages:
                    data.messages = MESSAGES.validate_python(record["messages"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError, ValidationError) as exc:
                if number == len(lines):
                    continue  # the last line, cut off by a crash while it was written
                data.problems.append(f"{path.name}:{number}: skipped a damaged record ({exc})")
        if not data.title and data.turns:
            data.title = title_of(data.turns[0].task)
        return data

    @staticmethod
    def _turn(
        data: SessionData,
        record: dict[str, Any],
        checkpoints: dict[int, tuple[FileState, ...]],
        *,
        messages: bool,
    ) -> None:
        index = int(record["turn"])
        if "todo" in record:
            try:
                data.todo = TASKS.validate_python(record["todo"])
            except ValidationError:
                data.problems.append(f"turn {index}: its task list is damaged and was left out")
        if messages:
            added = MESSAGES.validate_python(record.get("messages") or [])
            base = int(record.get("base", len(data.messages)))
            data.messages = [*data.messages[:base], *added]
        data.input_tokens += int(record.get("input_tokens") or 0)
        data.output_tokens += int(record.get("output_tokens") or 0)
        data.turns.append(
            TurnRecord(
                index=index,
                task=str(record["task"]),
                reason=record["reason"],
                answer=str(record.get("answer") or ""),
                iterations=int(record.get("iterations") or 0),
                input_tokens=int(record.get("input_tokens") or 0),
                output_tokens=int(record.get("output_tokens") or 0),
                files=checkpoints.get(index, ()),
                undo_of=tuple(int(t) for t in record.get("undo_of") or ()),
                paths=tuple(str(p) for p in record.get("paths") or ()),
                note=str(record.get("note") or ""),
                time=float(record.get("time") or 0.0),
            )
        )


def title_of(task: str) -> str:
    """A session's default title: the first line of its first task, cut to 60 characters."""
    line = task.strip().splitlines()[0] if task.strip() else "untitled"
    return line if len(line) <= 60 else line[:59] + "…"


class BlobStore:
    """File contents by SHA-256, each stored once."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def put(self, data: bytes) -> str:
        """Store ``data`` (once) and return its digest."""
        digest = hashlib.sha256(data).hexdigest()
        path = self._path(digest)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{digest}.{secrets.token_hex(4)}")
            temporary.write_bytes(data)
            os.replace(temporary, path)
        return digest

    def get(self, digest: str) -> bytes:
        """The content stored under ``digest``; ``FoehnError`` if it is missing."""
        try:
            return self._path(digest).read_bytes()
        except OSError as exc:
            raise FoehnError(f"a checkpointed file's content is missing ({digest[:12]})") from exc

    def has(self, digest: str) -> bool:
        """Whether content with this digest is stored."""
        return self._path(digest).is_file()

    def collect(self, keep: Sequence[str] | set[str]) -> int:
        """Delete blobs no session refers to; how many were deleted."""
        wanted = set(keep)
        removed = 0
        for path in self.folder.glob("*/*") if self.folder.is_dir() else []:
            if path.name not in wanted and not path.name.startswith("."):
                path.unlink(missing_ok=True)
                removed += 1
        return removed

    def _path(self, digest: str) -> Path:
        return self.folder / digest[:2] / digest
