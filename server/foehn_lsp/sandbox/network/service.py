"""Where the proxies run: one event loop on a thread of its own, started the first time a call
needs the network, so that a call's traffic never waits on the loop of the front end that
started it (the language server's, an MCP hub's) and a proxy can be opened from synchronous
code (``Sandbox.launch``) as well as from a coroutine (``Sandbox.run``).

``serving`` opens one call's proxy in a private folder (mode 0700) and closes it, with every
connection still open, when the block ends; the call's records are complete by then.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import threading
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from foehn_lsp.sandbox.network.proxy import Access, CallProxy, Connection, Limits

T = TypeVar("T")
START_SECONDS = 10.0
CLOSE_SECONDS = 15.0
MAX_SOCKET_PATH = 100
"""A unix socket's path must fit in ``sun_path`` (108 bytes on Linux)."""


class NetworkUnavailableError(RuntimeError):
    """The call's proxy could not be started: the call does not run (fail closed)."""


@dataclass(frozen=True, kw_only=True)
class Served:
    """A call's proxy while it is open."""

    socket: Path
    """Where it listens (bound into the sandbox at the same path)."""
    attempts: list[Connection]
    """Every attempt so far; complete once the block has ended."""


class _Thread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="foehn-network", daemon=True
        )
        self.thread.start()

    def run(self, work: Coroutine[Any, Any, T], seconds: float) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout=seconds)


@cache
def _thread() -> _Thread:
    return _Thread()


@contextlib.contextmanager
def serving(access: Access, limits: Limits | None = None) -> Iterator[Served]:
    """The proxy of the call ``access`` describes, open while the block runs. Raises
    ``NetworkUnavailableError`` (one line: why) when it cannot be started."""
    try:
        folder = Path(tempfile.mkdtemp(prefix="foehn-net-", dir=_socket_parent()))
    except OSError as exc:
        raise NetworkUnavailableError(f"the network proxy could not start: {exc}") from None
    proxy = CallProxy(access, folder / "proxy.sock", limits or Limits())
    try:
        try:
            _thread().run(proxy.start(), START_SECONDS)
        except (OSError, TimeoutError) as exc:
            raise NetworkUnavailableError(
                f"the network proxy could not start: {exc.strerror or exc}"
                if isinstance(exc, OSError)
                else f"the network proxy did not start within {START_SECONDS:g} s"
            ) from None
        try:
            yield Served(socket=proxy.path, attempts=proxy.attempts)
        finally:
            with contextlib.suppress(TimeoutError):
                _thread().run(proxy.close(), CLOSE_SECONDS)
    finally:
        _remove(folder, proxy.path)


def _remove(folder: Path, socket: Path) -> None:
    """The private folder and its socket, without opening a descriptor (a call may have
    failed for want of them)."""
    with contextlib.suppress(OSError):
        socket.unlink(missing_ok=True)
        folder.rmdir()


def _socket_parent() -> str:
    """The first of the person's runtime folder, the temporary folder and ``/tmp`` under which
    a socket's path fits."""
    for folder in (os.environ.get("XDG_RUNTIME_DIR"), tempfile.gettempdir()):
        if folder and os.path.isdir(folder) and len(folder) < MAX_SOCKET_PATH - 30:
            return folder
    return "/tmp"
