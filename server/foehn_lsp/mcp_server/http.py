"""``foehn mcp --http HOST:PORT``: the same server over streamable HTTP, at ``/mcp``.

It binds 127.0.0.1 unless told another address (``--http 8808`` is ``127.0.0.1:8808``; a
wider one is named as such on stderr). Every request needs ``Authorization: Bearer TOKEN``,
compared in constant time: the token is read from ``--token-file`` (its first line), or made
and printed once on stderr. A missing or wrong token gets 401 before anything is parsed. The
``Host`` of every request must be the address served (and ``Origin``, when a browser sends
one, its ``http://`` form), so a page that makes its own name resolve to 127.0.0.1 (DNS
rebinding) is refused with 4xx, as the SDK's transport security does it.

Each MCP session is a connection of its own (``server.Connection``: its own Foehn session,
approvals remembered, files shown), so clients share nothing; approvals are asked of the
client that made the call, through elicitation on that request's stream. A flood is bounded:
at most ``MAX_SESSIONS`` sessions (more get 503), ``MAX_CONNECTIONS`` requests at once (more
get 503 from the HTTP server), bodies of at most ``MAX_BODY_BYTES`` (more get 413), and an
idle session ends after ``IDLE_SECONDS``. ``stateless`` runs the SDK's stateless mode: no
sessions, every request on its own, all of them one connection; such a server cannot ask the
client anything, so calls that would be asked about are refused with the setting that allows
them.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import sys
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from foehn_lsp.config import Settings
from foehn_lsp.mcp_server.server import IDLE_SECONDS, FoehnMcpServer, create_server
from foehn_lsp.risk import RiskLevel

PATH = "/mcp"
MAX_SESSIONS = 32
MAX_CONNECTIONS = 64
MAX_BODY_BYTES = 1024 * 1024
MIN_TOKEN_CHARS = 16


class AddressError(ValueError):
    """``--http`` or ``--token-file`` will not do; the message says why."""


def parse_address(value: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` (host 127.0.0.1); IPv6 hosts in brackets."""
    host, colon, port = value.rpartition(":")
    if not colon:
        host, port = "", value
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise AddressError(f"--http takes HOST:PORT (e.g. 127.0.0.1:8808), got {value!r}")
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def read_token(path: str) -> str:
    """The bearer token in ``path``: its first line, at least ``MIN_TOKEN_CHARS`` long."""
    try:
        text = Path(path).expanduser().read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AddressError(f"--token-file {path!r} cannot be read ({exc})") from None
    lines = text.strip().splitlines()
    token = lines[0].strip() if lines else ""
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise AddressError(
            f"--token-file {path!r}: the token must be one word of at least "
            f"{MIN_TOKEN_CHARS} characters"
        )
    return token


def security(host: str, port: int) -> TransportSecuritySettings:
    """The ``Host`` and ``Origin`` values a request may carry: the address served."""
    if is_loopback(host):
        names = ["127.0.0.1", "localhost", "[::1]"]
    else:
        names = [f"[{host}]" if ":" in host else host]
    hosts = [f"{name}:{port}" for name in names]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts],
    )


def guarded(app: ASGIApp, token: str) -> ASGIApp:
    """``app`` behind the bearer token: a request without it gets 401, unread."""
    expected = f"Bearer {token}".encode()

    async def check(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"authorization", b"")
        if not hmac.compare_digest(given, expected):
            body = (
                b'{"error":"unauthorized","error_description":"this foehn mcp server needs '
                b'Authorization: Bearer with its token"}'
            )
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b'Bearer realm="foehn"'),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    return check


def app_for(foehn: FoehnMcpServer, host: str, port: int, token: str) -> Any:
    """The ASGI application serving ``foehn`` at ``PATH``."""
    server = create_server(foehn)
    routes = server.streamable_http_app(
        streamable_http_path=PATH,
        stateless_http=foehn.stateless,
        transport_security=security(host, port),
        host=host,
        max_sessions=None if foehn.stateless else MAX_SESSIONS,
        max_request_body_size=MAX_BODY_BYTES,
        session_idle_timeout=None if foehn.stateless else IDLE_SECONDS,
    )
    return guarded(routes, token)


def serve_http(
    settings: Settings,
    root: Path,
    *,
    allowed: RiskLevel,
    address: str,
    token_file: str | None,
    stateless: bool = False,
) -> int:
    """Serve until stopped (Ctrl-C, SIGTERM); 2 for an address or token file that will not do,
    1 when the address cannot be bound."""
    try:
        host, port = parse_address(address)
        token = read_token(token_file) if token_file else secrets.token_urlsafe(32)
    except AddressError as exc:
        print(f"foehn mcp: {exc}", file=sys.stderr)
        return 2
    foehn = FoehnMcpServer(settings, root, allowed=allowed, stateless=stateless)
    shown = f"[{host}]" if ":" in host else host
    print(f"foehn mcp: serving http://{shown}:{port}{PATH}", file=sys.stderr)
    if not is_loopback(host):
        print(
            f"foehn mcp: {host} is reachable from other computers; the token is all that "
            "guards this server, and the connection is not encrypted (put TLS in front)",
            file=sys.stderr,
        )
    if token_file is None:
        print(f"foehn mcp: clients must send  Authorization: Bearer {token}", file=sys.stderr)
    sys.stderr.flush()
    config = uvicorn.Config(
        app_for(foehn, host, port, token),
        host=host,
        port=port,
        log_level="warning",
        limit_concurrency=MAX_CONNECTIONS,
        timeout_graceful_shutdown=5,
        server_header=False,
    )
    server = uvicorn.Server(config)
    server.run()
    return 0 if server.started else 1
