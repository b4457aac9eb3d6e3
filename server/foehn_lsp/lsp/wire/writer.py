"""Writing to the client on a thread of its own."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import deque
from collections.abc import Callable

log = logging.getLogger(__name__)


class ThreadedWriter:
    """Encodes and writes messages on its own thread: neither JSON encoding of a large result
    nor a client that reads slowly holds up the event loop (and with it every other request).
    Messages go out in order, except that urgent ones (answers to cheap requests) go before
    whatever is still queued, so that a code action does not wait behind a burst of events."""

    def __init__(self, send: Callable[[bytes], object], close: Callable[[], object]) -> None:
        self._send = send
        self._close = close
        self._urgent: deque[Item] = deque()
        self._queued: deque[Item] = deque()
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="foehn-writer", daemon=True)
        self._thread.start()

    def write(self, data: bytes | Callable[[], bytes], urgent: bool = False) -> None:
        """Queue ``data``, or a function that encodes it on the writer's thread."""
        with self._ready:
            (self._urgent if urgent else self._queued).append(data)
            self._ready.notify()

    def close(self) -> None:
        """Send what is queued, then close the stream."""
        with self._ready:
            self._queued.append(None)
            self._ready.notify()
        self._thread.join(timeout=10)
        with contextlib.suppress(OSError):  # the client is gone already
            self._close()

    def _next(self) -> Item:
        with self._ready:
            self._ready.wait_for(lambda: self._urgent or self._queued)
            return self._urgent.popleft() if self._urgent else self._queued.popleft()

    def _run(self) -> None:
        while (item := self._next()) is not None:
            try:
                data = item() if callable(item) else item
                self._send(data)
            except (BrokenPipeError, ValueError):
                log.error("the client closed its end of the connection")
                return
            except Exception:  # one message that cannot be encoded must not stop the rest
                log.exception("a message could not be sent")


Item = Callable[[], bytes] | bytes | None
