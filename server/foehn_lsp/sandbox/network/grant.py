"""What one call may reach, and the check every connection passes before a byte leaves.

A connection is asked for by name and port. It is allowed when a granted ``Domain`` covers
both; an address instead of a name is refused, whatever it is. The name is then resolved here,
outside the sandbox, and every address it resolves to is checked: one on this machine (its
loopback, or any address of its own interfaces) or on a private, link-local or otherwise
non-public network refuses the whole name, unless the person listed the name in ``[sandbox]
network_local``; an unspecified or multicast address refuses it always. Whoever connects then
connects to exactly the addresses checked (``Destination.addresses``), never to the name again,
so an answer that changes between the check and the connection (DNS rebinding) changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from foehn_lsp.config.headers import HeaderAllowance
from foehn_lsp.config.network import Domain, host_name, is_address

DNS_SECONDS = 10.0

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""The addresses of a name (``getaddrinfo``'s, in its order)."""


@dataclass(frozen=True, kw_only=True)
class Grant:
    """The domains one call may reach."""

    domains: tuple[Domain, ...] = ()
    local: tuple[Domain, ...] = ()
    """``[sandbox] network_local``: names that may resolve to local or private addresses."""
    headers: tuple[HeaderAllowance, ...] = ()
    """``[sandbox.network_headers]``: the headers a plain request to a domain may carry one of
    the person's keys in (it must be granted as well)."""

    @property
    def empty(self) -> bool:
        return not self.domains

    def covering(self, host: str, port: int) -> Domain | None:
        """The first entry that grants ``host`` (a normal name) on ``port``."""
        return next((d for d in self.domains if d.covers(host, port)), None)

    def may_be_local(self, host: str, port: int) -> bool:
        return any(d.names(host) and d.port in (None, port) for d in self.local)

    def allowing(self, host: str, port: int) -> tuple[HeaderAllowance, ...]:
        """The header allowances for ``host`` (a normal name) on ``port``."""
        return tuple(a for a in self.headers if a.domain.covers(host, port))

    def shown(self) -> tuple[str, ...]:
        """Each granted entry once, in its normal form."""
        return tuple(dict.fromkeys(d.shown() for d in self.domains))


@dataclass(frozen=True, kw_only=True)
class Refused:
    """A connection that must not be made, and why (what the call's result and the audit log
    say)."""

    reason: str


@dataclass(frozen=True, kw_only=True)
class Destination:
    """A connection that may be made: to these addresses only."""

    host: str
    """The name asked for, in its normal form."""
    port: int
    addresses: tuple[str, ...]
    """Checked, in the order to try."""
    domain: Domain
    """The entry that grants it."""


def permitted(host: str, port: int, grant: Grant) -> Domain | Refused:
    """Whether the grant covers ``host`` on ``port``, before anything is resolved."""
    if is_address(host):
        return Refused(reason=f"{host.strip('[]')} is an address, not a granted name")
    name = host_name(host)
    if name is None:
        return Refused(reason=f"{host[:100]!r} is not a domain name")
    domain = grant.covering(name, port)
    if domain is not None:
        return domain
    if any(d.names(name) for d in grant.domains):
        return Refused(reason=f"port {port} of {name} is not granted")
    return Refused(reason=f"{name} is not granted")


async def destination(
    host: str, port: int, grant: Grant, resolve: Resolver | None = None
) -> Destination | Refused:
    """Where a connection to ``host`` on ``port`` may go, or why it may not."""
    domain = permitted(host, port, grant)
    if isinstance(domain, Refused):
        return domain
    name = host_name(host)
    assert name is not None
    try:
        async with asyncio.timeout(DNS_SECONDS):
            found = await (resolve or system_resolve)(name, port)
    except TimeoutError:
        return Refused(reason=f"{name} did not resolve within {DNS_SECONDS:g} s")
    except OSError as exc:
        return Refused(reason=f"{name} does not resolve ({exc.strerror or exc})")
    addresses = tuple(dict.fromkeys(found))
    if not addresses:
        return Refused(reason=f"{name} does not resolve")
    local = grant.may_be_local(name, port)
    for address in addresses:
        kind = address_kind(address)
        if kind == "unusable":
            return Refused(reason=f"{name} resolves to {address}, which is no one's address")
        if kind is not None and not local:
            return Refused(
                reason=f"{name} resolves to {address}, {kind}; only a name in [sandbox] "
                "network_local may"
            )
    return Destination(host=name, port=port, addresses=addresses, domain=domain)


async def system_resolve(name: str, port: int) -> list[str]:
    """The system resolver's addresses for ``name``."""
    infos = await asyncio.get_running_loop().getaddrinfo(
        name, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    return [str(info[4][0]) for info in infos]


def address_kind(address: str) -> str | None:
    """``None`` for a public address of another machine; else what it is, in words, or
    ``unusable`` for one that names no single machine (unspecified, multicast)."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_unspecified or ip.is_multicast:
        return "unusable"
    if ip.is_loopback:
        return "a loopback address"
    if not ip.is_global:
        return "a private address"
    if _own(ip):
        return "an address of this machine"
    return None


def _own(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether ``ip`` belongs to one of this machine's interfaces: only then can a socket be
    bound to it."""
    family = socket.AF_INET if ip.version == 4 else socket.AF_INET6
    with socket.socket(family, socket.SOCK_STREAM) as probe, contextlib.suppress(OSError):
        probe.bind((str(ip), 0))
        return True
    return False
