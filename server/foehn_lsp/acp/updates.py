"""One session's ``session/update`` notifications, sent in the order the events happened.

Run events arrive through a synchronous sink; the connection sends asynchronously. A queue
and one sender task keep the order, and ``flush`` lets the agent make sure every update has
gone out before it asks for permission about a call or answers ``session/prompt`` (the
protocol requires updates of a turn to precede its response).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from acp.interfaces import Client

from foehn_lsp.acp.convert import Update

log = logging.getLogger(__name__)

FLUSH_TIMEOUT = 10.0
"""Seconds to wait for a client that stopped reading before giving up on its updates."""


class UpdateStream:
    def __init__(self, client: Client, session_id: str) -> None:
        self.client = client
        self.session_id = session_id
        self._queue: asyncio.Queue[Update] = asyncio.Queue()
        self._sender = asyncio.create_task(self._send_all(), name=f"acp-updates-{session_id}")

    def put(self, update: Update) -> None:
        self._queue.put_nowait(update)

    async def flush(self) -> None:
        """Return once every update put so far has been sent (or could not be)."""
        try:
            async with asyncio.timeout(FLUSH_TIMEOUT):
                await self._queue.join()
        except TimeoutError:
            log.warning("session %s: the client is not reading its updates", self.session_id)

    async def close(self) -> None:
        await self.flush()
        self._sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._sender

    async def _send_all(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self.client.session_update(session_id=self.session_id, update=update)
            except ConnectionError:
                log.debug("session %s: update dropped, the client is gone", self.session_id)
            except Exception:  # one bad update must not silence the rest of the turn
                log.exception("session %s: an update could not be sent", self.session_id)
            finally:
                self._queue.task_done()
