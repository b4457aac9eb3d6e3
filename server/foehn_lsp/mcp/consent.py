"""How a front end lets the person sign in to MCP servers (``SignIn``): it shows the
authorization server's page (``ShowUrl``: the terminal prints it, the editor opens it, an ACP
client shows it), and keeps the tokens in its store; the browser then comes back to Foehn's
listener on 127.0.0.1 (``loopback``). Nothing here loads the MCP SDK, so a front end can say
how it signs in before any server is configured."""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from foehn_lsp.mcp.stores import SecretStore

HOST = "127.0.0.1"
PATH = "/callback"

ShowUrl = Callable[[str, str], Awaitable[None]]
"""Show the person the sign-in page ``url`` of the server named first; returns once it is shown
(the answer comes to the loopback listener). Raises ``ConsentError`` when it cannot be shown."""


@dataclass(frozen=True, kw_only=True)
class SignIn:
    """How a front end lets the person sign in to MCP servers, and where the tokens go."""

    store: SecretStore
    show: ShowUrl | None = None
    """``None``: nobody can be asked here; a server that needs a sign-in says how to give one."""
    hint: str = "sign in with `foehn mcp login {server}`"
    """How the person signs in to ``{server}`` in this front end, for the messages."""

    def how(self, server: str) -> str:
        return self.hint.format(server=server)


class ConsentError(Exception):
    """The person did not sign in: they declined, the time ran out, or the page could not be
    shown; the message says which, in one line."""


def free_port() -> int:
    """A port of 127.0.0.1 nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def redirect_uri(port: int) -> str:
    return f"http://{HOST}:{port}{PATH}"
