"""An exclusive lock on a file shared by pytest-xdist's workers, waited for with a timeout."""

from __future__ import annotations

import contextlib
import fcntl
import time
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def locked(lock: Path, *, within: float) -> Iterator[None]:
    """Hold an exclusive lock on ``lock``, waiting up to ``within`` seconds for another worker."""
    with open(lock, "a") as handle:
        deadline = time.monotonic() + within
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                assert time.monotonic() < deadline, f"{lock} was held for {within:g} s"
                time.sleep(0.5)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
