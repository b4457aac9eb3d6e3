"""What the proxy reads of a client's request and writes in its place (RFC 9110, 9112): the
request line and headers of a ``CONNECT host:port`` or of a plain-HTTP request in absolute form
(``GET http://host/path``), the head forwarded in origin form, and the proxy's own answers.

A forwarded request goes out with ``Host`` set to the URL's authority (never the client's own),
without hop-by-hop and proxy headers, and with ``Connection: close``: one request per
connection, so whatever the client sends after it never reaches the server as a second request
nobody checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_HEAD = 32 * 1024
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
    }
)


class BadRequest(ValueError):
    """A request the proxy cannot read or will not forward; the message says why."""


@dataclass(frozen=True, kw_only=True)
class Request:
    method: str
    target: str
    headers: tuple[tuple[str, str], ...]

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)


def parse_head(head: bytes) -> Request:
    """The request line and headers of ``head`` (which ends with an empty line)."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest("not an HTTP/1.x request line")
    headers = []
    for line in lines[1:]:
        if not line:
            break
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise BadRequest("a malformed header line")
        headers.append((name, value.strip()))
    return Request(method=parts[0].upper(), target=parts[1], headers=tuple(headers))


def connect_target(target: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` too) of a CONNECT request."""
    host, colon, port = target.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BadRequest(f"CONNECT needs host:port, got {target[:100]!r}")
    return host.strip("[]"), int(port)


def absolute_target(target: str) -> tuple[str, int, str]:
    """The host, port and origin-form path of an ``http://`` URL."""
    if not target.lower().startswith("http://"):
        if target.lower().startswith("https://"):
            raise BadRequest("https goes through a CONNECT tunnel, not as a plain request")
        raise BadRequest("a proxy request names the whole URL (http://host/path)")
    try:
        url = urlsplit(target)
        port = url.port or 80
    except ValueError:
        raise BadRequest(f"not a URL: {target[:100]!r}") from None
    if not url.hostname or url.username is not None or url.password is not None:
        raise BadRequest("the URL names no host, or carries credentials")
    path = url.path or "/"
    return url.hostname, port, path + (f"?{url.query}" if url.query else "")


def forwarded_head(request: Request, host: str, port: int, path: str) -> bytes:
    """The head sent to the server: origin form, ``Host`` from the URL, no hop-by-hop or proxy
    headers (nor those the client's ``Connection`` names), ``Connection: close``."""
    listed = (request.header("connection") or "").split(",")
    named = {token.strip().lower() for token in listed if token.strip()}
    authority = host if port == 80 else f"{host}:{port}"
    lines = [f"{request.method} {path} HTTP/1.1", f"Host: {authority}"]
    lines += [
        f"{key}: {value}"
        for key, value in request.headers
        if key.lower() not in HOP_BY_HOP and key.lower() not in named
    ]
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def body_length(request: Request) -> int:
    """How many bytes of body follow the head; a chunked body is refused (every client this
    proxy serves sends a length, or no body)."""
    if request.header("transfer-encoding") is not None:
        raise BadRequest("a chunked request body; send it with a Content-Length")
    length = request.header("content-length")
    if length is None:
        return 0
    if not length.isdigit():
        raise BadRequest(f"Content-Length is not a number: {length[:40]!r}")
    return int(length)


def answer(status: int, reason: str, text: str) -> bytes:
    """The proxy's own response: ``reason`` on the status line (what most clients print) and
    ``text`` as the body."""
    body = (text + "\n").encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\nX-Proxy-Error: foehn\r\n\r\n"
    )
    return head.encode("latin-1", "replace") + body
