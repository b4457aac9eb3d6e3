"""The listener the browser comes back to after the person signs in: ``Loopback``, on
127.0.0.1, which takes exactly one answer to exactly one sign-in.

It answers only ``GET /callback`` carrying the ``state`` of the sign-in it waits for; anything
else (another path, another state, a request that is not HTTP) gets an error page and is not
taken as the answer, so a page that guesses the port cannot end the sign-in. The answer is the
authorization code, or the authorization server's error (the person declined). It listens only
while a sign-in waits, and gives up after the consent timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import urllib.parse

from mcp.shared.auth import AuthorizationCodeResult

from foehn_lsp.mcp.consent import HOST, PATH, ConsentError, redirect_uri

MAX_REQUEST_BYTES = 16 * 1024


class Loopback:
    """The listener of one sign-in: ``open`` before the page is shown, ``answer`` to wait."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._server: asyncio.Server | None = None
        self._state: str | None = None
        self._answer: asyncio.Future[AuthorizationCodeResult] | None = None

    async def open(self, state: str) -> None:
        """Listen for the answer to the sign-in with ``state``."""
        self._state = state
        self._answer = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._serve, HOST, self.port)
        except OSError as exc:
            raise ConsentError(
                f"cannot listen on {redirect_uri(self.port)} for the browser's answer "
                f"({exc.strerror or exc}); free the port or choose another "
                "(oauth.redirect_port)"
            ) from None

    async def answer(self, within: float) -> AuthorizationCodeResult:
        """The authorization code, once the browser brings it; ``ConsentError`` when the
        person declined or did not sign in within ``within`` seconds."""
        assert self._answer is not None, "open() first"
        try:
            async with asyncio.timeout(within):
                return await self._answer
        except TimeoutError:
            raise ConsentError(f"nobody signed in within {within:g} s") from None
        finally:
            await self.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(10):
                head = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            writer.close()
            return
        status, page = self._take(head[:MAX_REQUEST_BYTES])
        body = _page(page).encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n"
            "Cache-Control: no-store\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(OSError):
            await writer.drain()
        writer.close()

    def _take(self, head: bytes) -> tuple[str, str]:
        """The status and page for one request, settling the answer when it is the one."""
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        method, _, rest = line.partition(" ")
        target = rest.rsplit(" ", 1)[0]
        parts = urllib.parse.urlsplit(target)
        if method != "GET" or parts.path != PATH:
            return "404 Not Found", "Nothing here."
        query = urllib.parse.parse_qs(parts.query)

        def one(name: str) -> str | None:
            values = query.get(name)
            return values[0] if values else None

        if self._answer is None or self._answer.done() or one("state") != self._state:
            return "400 Bad Request", "This is not the answer Foehn is waiting for."
        if (error := one("error")) is not None:
            why = one("error_description")
            self._answer.set_exception(
                ConsentError(f"the sign-in was refused ({error}{f': {why}' if why else ''})")
            )
            return "200 OK", "Foehn was told the sign-in was refused. You can close this tab."
        code = one("code")
        if not code:
            return "400 Bad Request", "The answer carries no authorization code."
        self._answer.set_result(
            AuthorizationCodeResult(code=code, state=one("state"), iss=one("iss"))
        )
        return "200 OK", "Signed in. You can close this tab and go back to Foehn."


def _page(text: str) -> str:
    return (
        "<!doctype html><meta charset=utf-8><title>Foehn</title>"
        f"<p style='font-family:sans-serif'>{html.escape(text)}</p>"
    )
