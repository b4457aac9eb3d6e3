"""Whether a request head may leave carrying one of the person's keys or tokens.

A head that carries none goes on. One that carries some is refused, before its name is even
resolved, unless it is a plain-HTTP request and every key is in a header that the person's
``[sandbox.network_headers]`` names for the request's domain and port (``config.headers``): a
key in the URL, in the name asked for or in any other header is refused as before, and so is a
``CONNECT`` head with a key (what goes through a tunnel is TLS and not read here). The body is
not read. Whether the domain is granted is still checked afterwards (``grant``): an allowance
lets a key through only to where the call may go anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from foehn_lsp.config.headers import HeaderAllowance
from foehn_lsp.config.network import host_name
from foehn_lsp.sandbox.network.grant import Grant
from foehn_lsp.secrets import Scrubber

REFUSED = "the request carries one of the person's keys or tokens"


@dataclass(frozen=True, kw_only=True)
class Carried:
    """What a request head carries, as the proxy decides on it."""

    refused: str = ""
    """Why it must not leave; empty when it may."""
    allowed: str = ""
    """For one that carries keys where the person allowed them: which headers and by which
    entry (for the connection's record); empty otherwise."""


def carried(
    head: bytes, host: str, port: int, *, secrets: Scrubber | None, grant: Grant, tunnel: bool
) -> Carried:
    """Whether ``head`` (a request to ``host`` on ``port``; ``tunnel``: a ``CONNECT``) may
    leave, as ``secrets`` knows the person's keys and ``grant`` their header allowances."""
    text = head.decode("latin-1")
    if secrets is None or secrets.text(text) == text:
        return Carried()
    name = host_name(host)
    allowances = grant.allowing(name, port) if name is not None and not tunnel else ()
    names = {header for allowance in allowances for header in allowance.lowered()}
    lines = text.split("\r\n")
    rest = [lines[0]]
    keyed: list[str] = []
    for line in lines[1:]:
        header, colon, value = line.partition(":")
        if colon and header.lower() in names:
            rest.append(header)
            if secrets.text(value) != value:
                keyed.append(header)
        else:
            rest.append(line)
    left = "\r\n".join(rest)
    if secrets.text(left) != left:
        only = "; ".join(f"only {a.shown()} may carry one ({a.domain.source})" for a in allowances)
        return Carried(refused=f"{REFUSED}; {only}" if only else REFUSED)
    return Carried(allowed=", ".join(_allowed(header, allowances) for header in keyed))


def _allowed(header: str, allowances: tuple[HeaderAllowance, ...]) -> str:
    """``a key in Authorization, allowed for registry.example by FILE:LINE``."""
    allowance = next(a for a in allowances if header.lower() in a.lowered())
    return f"a key in {header}, allowed for {allowance.domain.shown()} by {allowance.domain.source}"
