"""The network of MCP servers Foehn starts or connects to: the same grant as every program's.

A stdio server set to run ``workspace-write`` in the sandbox reaches the domains of ``[sandbox]
network`` through its own proxy (``Sandbox.launch`` with ``stdio_access``), and nothing else; one
run ``read-only`` has no network at all, and one not sandboxed runs with the person's own
rights, as its config says.

An HTTP server is reached through ``GrantedTransport``. A request to the server's own URL, as
the person wrote it in their config, goes there with the headers they configured for it (that
URL is their grant). A request anywhere else (a redirect, an endpoint the server names), and
every request to a server that a workspace's ``mcp.json`` lists, goes without those headers and
only to a granted domain: it is checked as the proxy checks a connection
(``sandbox.network.grant``: the name, the port, the addresses it resolves to) and sent to the
address checked, with the name kept for TLS. Each request is a ``Connection``
record (``call`` is ``mcp:NAME``) for the audit log.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from urllib.parse import urlsplit

import httpx2

from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.config.sandbox import user_sandbox_settings
from foehn_lsp.errors import ConfigError
from foehn_lsp.sandbox.network import Access, Connection, Grant, Refused, Report, destination
from foehn_lsp.secrets import Scrubber

DEFAULT_PORTS = {"http": 80, "https": 443}


class NotGranted(httpx2.ConnectError):
    """A request the grant does not allow; the message is the refusal ("refused: …")."""


def user_grant() -> Grant:
    """``[sandbox] network``, ``network_local`` and ``network_headers`` as the person's config
    has them; none when it cannot be read (a server then reaches nothing it was not configured
    with)."""
    try:
        settings = user_sandbox_settings()
    except ConfigError:
        return Grant()
    return Grant(
        domains=settings.network, local=settings.network_local, headers=settings.network_headers
    )


def stdio_access(name: str, config: McpServerConfig, report: Report) -> Access | None:
    """What the stdio server ``name`` may reach from its sandbox: ``[sandbox] network`` when
    it runs ``workspace-write``; ``None`` otherwise (no network, or not sandboxed)."""
    grant = user_grant()
    if config.sandbox != "workspace-write" or grant.empty:
        return None
    return Access(
        grant=grant, call=f"mcp:{name}", report=report, secrets=Scrubber.from_environment()
    )


def origin(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of ``url``."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or DEFAULT_PORTS.get(scheme, 0)


class GrantedTransport(httpx2.AsyncBaseTransport):
    """An HTTP transport that sends a request only where the grant (or the person's own
    configured URL, ``own``) allows, to the address it checked."""

    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport,
        *,
        server: str,
        own: tuple[str, str, int] | None,
        grant: Grant,
        report: Report,
        private: Collection[str] = (),
    ) -> None:
        """``private``: the headers the person configured for the server (its
        ``Authorization`` and the like), which go to ``own`` and nowhere else."""
        self.inner = inner
        self.server = server
        self.own = own
        self.grant = grant
        self.report = report
        self.private = frozenset(name.lower() for name in private)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        url = request.url
        scheme = url.scheme
        port = url.port or DEFAULT_PORTS.get(scheme, 0)
        host = url.host
        try:
            sent = len(request.content)
        except httpx2.RequestNotRead:
            sent = 0  # a streamed body: not counted
        if (scheme, host.lower(), port) == self.own:
            response = await self.inner.handle_async_request(request)
            why = "the server's own URL in your config"
            return self._counted(request, response, host, port, why, sent)
        for name in [key for key in request.headers if key.lower() in self.private]:
            del request.headers[name]  # configured for the server's own URL only
        found = await destination(host, port, self.grant)
        if isinstance(found, Refused):
            self._record(host, port, allowed=False, reason=found.reason)
            raise NotGranted(f"refused: {found.reason}", request=request)
        request.url = url.copy_with(host=found.addresses[0])
        request.extensions = {**request.extensions, "sni_hostname": found.host}
        response = await self.inner.handle_async_request(request)
        why = f"granted: {found.domain.shown()} ({found.domain.source or 'a rule'})"
        return self._counted(request, response, found.host, port, why, sent)

    def _counted(
        self,
        request: httpx2.Request,
        response: httpx2.Response,
        host: str,
        port: int,
        why: str,
        sent: int,
    ) -> httpx2.Response:
        """``response`` whose body, once read or closed, is recorded with its size."""
        record = self._record

        class Counted(httpx2.AsyncByteStream):
            def __init__(self) -> None:
                self.received = 0
                self.done = False

            async def __aiter__(self) -> AsyncIterator[bytes]:
                async for chunk in response.aiter_raw():
                    self.received += len(chunk)
                    yield chunk

            async def aclose(self) -> None:
                await response.aclose()
                if not self.done:
                    self.done = True
                    record(host, port, allowed=True, reason=why, out=sent, got=self.received)

        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=Counted(),
            extensions=response.extensions,
            request=request,
        )

    def _record(
        self, host: str, port: int, *, allowed: bool, reason: str, out: int = 0, got: int = 0
    ) -> None:
        self.report(
            Connection(
                call=f"mcp:{self.server}",
                host=host,
                port=port,
                allowed=allowed,
                reason=reason,
                bytes_out=out,
                bytes_in=got,
            )
        )

    async def aclose(self) -> None:
        await self.inner.aclose()
