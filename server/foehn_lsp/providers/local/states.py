"""Evaluated fixed prompts, kept in the user cache so that a new process starts from them.

Reading the fixed prompt (rules, tool catalogue, examples) is most of a new process's first
step on a CPU. After a process has computed it once, llama.cpp saves the slot's state (the
tokens and their KV cache) to a file here; the next process restores it in milliseconds.

A state is only valid for the exact model, runtime, prompt and settings it was computed with,
and llama.cpp cannot tell: restoring a state of another prompt or model would silently give
wrong answers. So every state has a record of what it was computed with (``StateKey``) and of
its own size and sha256, and is used only when all of them match; anything else is refused,
and a damaged state is deleted. Files are published atomically (written under a partial name,
then renamed) and the folder is bounded: the least recently used states go first.

    <cache>/prompt-states/<digest>.bin    the slot state (llama.cpp's format)
    <cache>/prompt-states/<digest>.json   its record: the key, size, sha256, tokens
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

MAX_STATES = 4
"""States kept (one per distinct fixed prompt: catalogues differ between front ends)."""
MAX_BYTES = 1 << 30
"""Total size kept; about 30 KB per token for the 1.5B model."""
PARTIAL_AGE = 3600.0
"""Seconds after which a partial file is taken for a leftover of a process that died."""


@dataclass(frozen=True, kw_only=True)
class StateKey:
    """What a saved state was computed with; a state is used only if every field matches."""

    model_sha256: str
    runtime: str
    """The llama.cpp binding's version: its state format and numerics."""
    prompt_sha256: str
    """The fixed prompt's messages, as sent."""
    window: int
    batch: int

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:32]


@dataclass(frozen=True, kw_only=True)
class StateRecord:
    key: StateKey
    size: int
    sha256: str
    tokens: int
    """Tokens in the state (reported by llama.cpp when saving)."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class PromptStates:
    """The folder of saved states. Names it hands out are plain file names inside it, which
    is what llama.cpp's slot save and restore accept."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find(self, key: StateKey) -> str | None:
        """The file name of a state computed exactly with ``key``, or ``None``. A record that
        does not match ``key``, or a state whose size or sha256 differs from its record, is
        refused (and the damaged pair deleted)."""
        record_path = self.folder / f"{key.digest}.json"
        state_path = self.folder / f"{key.digest}.bin"
        try:
            data = json.loads(record_path.read_text("utf-8"))
            record = StateRecord(
                key=StateKey(**data["key"]),
                size=int(data["size"]),
                sha256=str(data["sha256"]),
                tokens=int(data["tokens"]),
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError, KeyError):
            self.discard(key)
            return None
        if record.key != key:
            return None
        try:
            intact = state_path.stat().st_size == record.size and _sha256(state_path) == (
                record.sha256
            )
        except OSError:
            intact = False
        if not intact:
            self.discard(key)
            return None
        now = time.time()
        with contextlib.suppress(OSError):
            os.utime(record_path, (now, now))
        return state_path.name

    def partial_name(self, key: StateKey) -> str:
        """A name for llama.cpp to save a new state under before it is published."""
        self.folder.mkdir(parents=True, exist_ok=True)
        return f"partial-{os.getpid()}-{key.digest}.bin"

    def publish(self, key: StateKey, partial: str, tokens: int) -> None:
        """Make the state saved under ``partial`` the one for ``key`` (atomically: a reader
        sees the old pair, no pair, or the new pair), then bound the folder."""
        source = self.folder / partial
        state_path = self.folder / f"{key.digest}.bin"
        record_path = self.folder / f"{key.digest}.json"
        try:
            record = StateRecord(
                key=key, size=source.stat().st_size, sha256=_sha256(source), tokens=tokens
            )
            record_path.unlink(missing_ok=True)
            os.replace(source, state_path)
            temporary = self.folder / f"partial-{os.getpid()}-{key.digest}.json"
            temporary.write_text(json.dumps(asdict(record), sort_keys=True), "utf-8")
            os.replace(temporary, record_path)
        finally:
            source.unlink(missing_ok=True)
        self._bound()

    def discard(self, key: StateKey) -> None:
        for suffix in (".json", ".bin"):
            (self.folder / f"{key.digest}{suffix}").unlink(missing_ok=True)

    def _bound(self) -> None:
        now = time.time()
        records: list[tuple[float, Path]] = []
        for path in self.folder.iterdir():
            try:
                stat = path.stat()
            except OSError:
                continue
            if path.name.startswith("partial-"):
                if now - stat.st_mtime > PARTIAL_AGE:
                    path.unlink(missing_ok=True)
            elif path.suffix == ".json":
                records.append((stat.st_mtime, path))
            elif not path.with_suffix(".json").exists() and now - stat.st_mtime > PARTIAL_AGE:
                path.unlink(missing_ok=True)  # a state whose record was never written
        records.sort(reverse=True)
        total = 0
        for index, (_, record_path) in enumerate(records):
            state_path = record_path.with_suffix(".bin")
            try:
                total += state_path.stat().st_size
            except OSError:
                record_path.unlink(missing_ok=True)
                continue
            if index >= MAX_STATES or total > MAX_BYTES:
                record_path.unlink(missing_ok=True)
                state_path.unlink(missing_ok=True)
