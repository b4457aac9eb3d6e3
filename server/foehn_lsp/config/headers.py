"""The headers a person lets carry a key, as written: ``[sandbox.network_headers]`` in their
``config.toml``, a table of granted domain -> header names (``"registry.example" =
["Authorization"]``: a request to that domain may carry one of their keys or tokens in its
``Authorization`` header, and nowhere else).

A domain is written as in ``[sandbox] network`` (``config.network``) and must be within an entry
of it: an allowance never grants a domain by itself. A header name is an HTTP token (RFC 9110),
compared without case. Anything else (not a table, a malformed or ungranted domain, a value that
is not a list of names, an empty or non-token name) is named with its file, line and key and
left out, so a mistake only ever allows less than the person wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from foehn_lsp.config.network import DEFAULT_PORTS, Domain, LineFinder, parse_domain

KEY = "network_headers"
SHOWN = f"sandbox.{KEY}"
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


@dataclass(frozen=True, kw_only=True)
class HeaderAllowance:
    """One domain's headers that may carry a key."""

    domain: Domain
    """Where the requests go (its ``source``: ``FILE:LINE`` of the entry)."""
    headers: tuple[str, ...]
    """The header names, as written (compared in lower case)."""

    def allows(self, host: str, port: int, header: str) -> bool:
        """Whether a request to ``host`` on ``port`` may carry a key in ``header``."""
        return self.domain.covers(host, port) and header.lower() in self.lowered()

    def lowered(self) -> frozenset[str]:
        return frozenset(name.lower() for name in self.headers)

    def shown(self) -> str:
        """``Authorization, X-Token for registry.example``."""
        return f"{', '.join(self.headers)} for {self.domain.shown()}"


def within(inner: Domain, outer: Domain) -> bool:
    """Whether every name and port ``inner`` covers is covered by ``outer``."""
    if not _ports(inner) <= _ports(outer):
        return False
    if not inner.wildcard:
        return outer.names(inner.name)
    return outer.wildcard and (inner.name == outer.name or outer.names(inner.name))


def _ports(domain: Domain) -> set[int]:
    return set(DEFAULT_PORTS) if domain.port is None else {domain.port}


def parse_headers(
    value: object, *, granted: tuple[Domain, ...], file: str, text: str = ""
) -> tuple[tuple[HeaderAllowance, ...], list[str]]:
    """The allowances of ``value`` (``[sandbox] network_headers`` as ``tomllib`` read it from
    ``text``, the file ``file``) whose domains ``granted`` covers, and a problem per entry or
    name left out, each naming the file, the line and the key."""
    table = LineFinder(text, SHOWN)
    outer = LineFinder(text, "sandbox")

    def line(domain: str, name: object = None) -> str:
        if table.start == 0:  # no [sandbox.network_headers] header: an inline table
            return f"{file}:{outer.key(KEY)}"
        return f"{file}:{table.key(domain) if name is None else table.entry(domain, name)}"

    if not isinstance(value, dict):
        where = f"{file}:{outer.key(KEY)}"
        return (), [f"{where}: {SHOWN}: a table of domain = [header names]; nothing is allowed"]
    found: list[HeaderAllowance] = []
    problems: list[str] = []
    for written, names in value.items():
        where = line(written)
        key = f"{SHOWN}.{written!r}"
        domain = parse_domain(written, where)
        if isinstance(domain, str):
            problems.append(f"{where}: {key}: {domain}; no header is allowed")
            continue
        if not isinstance(names, list):
            hint = " (quote a domain with dots)" if isinstance(names, dict) else ""
            problems.append(f"{where}: {key}: a list of header names{hint}; none is allowed")
            continue
        if not any(within(domain, grant) for grant in granted):
            problems.append(
                f"{where}: {key}: {domain.shown()} is not granted in sandbox.network "
                "(network_headers grants nothing by itself); no header is allowed"
            )
            continue
        good = []
        for name in names:
            if isinstance(name, str) and _TOKEN.match(name):
                good.append(name)
            else:
                problems.append(
                    f"{line(written, name)}: {key}: {name!r} is not a header name; "
                    "it is not allowed"
                )
        if not names:
            problems.append(f"{where}: {key}: lists no header name; none is allowed")
        if good:
            found.append(HeaderAllowance(domain=domain, headers=tuple(dict.fromkeys(good))))
    return tuple(found), problems
