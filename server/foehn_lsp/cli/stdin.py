"""What ``foehn run`` takes from a piped stdin, as simonw/llm does.

    cat error.log | foehn run "explain the failure"     stdin is what the task is about
    git diff | foehn run -                               stdin is the task itself

stdin is read only when it is a pipe or a file: a terminal is for approval prompts, and the
null device or a socket holds nothing to read. ``--approve ask`` on a piped stdin reads the
answers from it instead (``printf 'y\\nn\\n' | foehn run … --approve ask``), so there it is not
read here. At most ``MAX_BYTES`` are read; what was cut is said to the person and to the model.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from typing import BinaryIO

from foehn_lsp.cli.args import UsageError

MAX_BYTES = 256 * 1024
"""The most of stdin one task takes (the model's context is the real limit; this keeps a
runaway producer, ``yes | foehn run …``, from filling memory)."""


@dataclass(frozen=True, kw_only=True)
class Piped:
    """What was read from stdin."""

    text: str
    cut: bool
    """More followed the first ``MAX_BYTES``, and was not read."""

    def note(self) -> str:
        """For the person (stderr) and the model: what was left out."""
        return f"only the first {MAX_BYTES // 1024} KiB of stdin were read; the rest was cut"


def is_piped(stream: BinaryIO | None = None) -> bool:
    """Whether stdin is a pipe or a regular file (something a producer wrote for us)."""
    try:
        mode = os.fstat((stream or sys.stdin.buffer).fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def read_piped(stream: BinaryIO | None = None) -> Piped | None:
    """stdin's text when it is piped and holds something, else ``None``. Raises
    ``UsageError`` for input that is not text."""
    source = stream or sys.stdin.buffer
    if not is_piped(source):
        return None
    data = source.read(MAX_BYTES + 1)
    if not data.strip():
        return None
    cut = len(data) > MAX_BYTES
    data = data[:MAX_BYTES]
    if b"\x00" in data:
        raise UsageError("stdin holds binary data (a NUL byte); pipe text, or name a file")
    text = data.decode("utf-8", "replace")
    if cut:
        text = text.rstrip("\ufffd")  # a character the limit cut in two
    return Piped(text=text, cut=cut)


def context_block(piped: Piped) -> str:
    """stdin as the turn's context, labelled so that the model tells it from the task."""
    cut = f"\n({piped.note()})" if piped.cut else ""
    return (
        "The input piped to Foehn on stdin (what the task above is about):\n"
        f"<stdin>\n{piped.text.rstrip()}\n</stdin>{cut}"
    )
