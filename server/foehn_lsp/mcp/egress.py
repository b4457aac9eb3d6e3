"""Whether Foehn may send a request to a URL for an MCP server: the one decision every HTTP
request of the MCP client goes through (the server's own endpoint, and the metadata,
registration and token endpoints of its authorization server), made in
``http.CappedTransport`` before anything is sent.

Today it refuses what is never a server's endpoint: a scheme other than http or https, a URL
without a host, and a URL that carries a user name or password (credentials go in headers,
where they are kept out of logs). The network grant of the sandbox (``[sandbox] network``)
decides here too, once it covers MCP servers: this function is where it plugs in.
"""

from __future__ import annotations

import httpx2


class UnreachableError(httpx2.TransportError):
    """A request Foehn refused to send; the message says why, naming the URL."""


def refusal(url: httpx2.URL) -> str | None:
    """Why ``url`` may not be reached, or ``None`` when it may."""
    shown = url.copy_with(query=None, fragment=None, userinfo=b"")
    if url.scheme not in ("http", "https"):
        return f"{shown} is not an http or https URL"
    if not url.host:
        return f"{shown} names no host"
    if url.userinfo:
        return f"{shown} carries a user name or password in the URL; give credentials as headers"
    return None


def check(request: httpx2.Request) -> None:
    """Raise ``UnreachableError`` when ``request`` may not be sent."""
    why = refusal(request.url)
    if why is not None:
        raise UnreachableError(f"Foehn did not send the request: {why}", request=request)
