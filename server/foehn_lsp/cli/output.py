"""stdout when its reader may go away: ``foehn tools | head`` or ``foehn run --json | head -3``.

A Unix tool whose reader has read enough stops quietly; Python raises ``BrokenPipeError``
instead (it ignores SIGPIPE). ``Stdout`` takes the answers and events of a turn: once the
reader is gone it drops further writes and calls ``on_gone`` once (the turn stops: nobody reads
its output). ``main`` catches the error for the commands that print with ``print``, and after
either it calls ``silence_stdout`` and exits with ``EXIT_PIPE``, so that nothing, not even the
interpreter's last flush, prints a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TextIO

EXIT_PIPE = 141
"""128 + SIGPIPE: what a shell reports for a Unix tool stopped by its reader going away."""


def silence_stdout() -> None:
    """Point file descriptor 1 at the null device: what is still buffered, and anything
    written later, goes nowhere instead of failing again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


class Stdout:
    """A text stream for a turn's output that outlives its reader (see the module docstring)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.gone = False
        """The reader went away; nothing more is written."""
        self.on_gone: Callable[[], None] = lambda: None
        """Called once, when the reader is found gone."""

    def write(self, text: str) -> None:
        if not self.gone:
            self._guard(lambda: self.stream.write(text))

    def flush(self) -> None:
        if not self.gone:
            self._guard(self.stream.flush)

    def isatty(self) -> bool:
        return not self.gone and self.stream.isatty()

    def _guard(self, action: Callable[[], object]) -> None:
        try:
            action()
        except BrokenPipeError:
            self.gone = True
            self.on_gone()
