"""Writing to the client on a thread of its own."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class ThreadedWriter:
    """Encodes and writes messages on its own thread, in order: neither JSON encoding of a large
    result nor a client that reads slowly holds up the event loop (and with it every other
    request)."""

    def __init__(self, send: Callable[[bytes], object], close: Callable[[], object]) -> None:
        self._send = send
        self._close = close
        self._queue: queue.SimpleQueue[Callable[[], bytes] | bytes | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="foehn-writer", daemon=True)
        self._thread.start()

    def write(self, data: bytes | Callable[[], bytes]) -> None:
        """Queue ``data``, or a function that encodes it on the writer's thread."""
        self._queue.put(data)

    def close(self) -> None:
        """Send what is queued, then close the stream."""
        self._queue.put(None)
        self._thread.join(timeout=10)
        with contextlib.suppress(OSError):  # the client is gone already
            self._close()

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            try:
                data = item() if callable(item) else item
                self._send(data)
            except (BrokenPipeError, ValueError):
                log.error("the client closed its end of the connection")
                return
            except Exception:  # one message that cannot be encoded must not stop the rest
                log.exception("a message could not be sent")
