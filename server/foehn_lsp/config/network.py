"""The network a person grants, as written: the entries of ``[sandbox] network`` and
``network_local`` in their ``config.toml`` and of a ``[[rules]]`` entry's ``network``.

An entry is a domain name, optionally after ``*.`` (any name under it, not the name itself) and
before ``:PORT`` (that port only; without one, 80 and 443). Nothing else is an entry: not an
address (a grant names what the person trusts, and an address says nothing of who answers
there), not a bare ``*`` or a wildcard over a whole top-level domain (``*.org``), not a URL. A
malformed entry is named with its file, line and key and left out, so a mistake only ever
grants less than the person wrote.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

DEFAULT_PORTS = (80, 443)
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


@dataclass(frozen=True, kw_only=True)
class Domain:
    """One granted domain."""

    name: str
    """The name in lower case, in its ASCII form, without ``*.``."""
    wildcard: bool = False
    """``*.name``: any name under ``name`` (``a.name``, ``a.b.name``), not ``name`` itself."""
    port: int | None = None
    """The one port granted; ``None``: 80 and 443."""
    written: str = ""
    """The entry as the person wrote it."""
    source: str = ""
    """``FILE:LINE`` where it is written."""

    def covers(self, host: str, port: int) -> bool:
        """Whether a connection to ``host`` (a name as ``host_name`` returns it) on ``port`` is
        within this entry."""
        return self.names(host) and (
            port in DEFAULT_PORTS if self.port is None else port == self.port
        )

    def names(self, host: str) -> bool:
        """Whether ``host`` is within this entry on some port."""
        return host.endswith("." + self.name) if self.wildcard else host == self.name

    def shown(self) -> str:
        """The entry in its normal form: ``*.example.org``, ``registry.example:8443``."""
        text = f"*.{self.name}" if self.wildcard else self.name
        return text if self.port is None else f"{text}:{self.port}"


def host_name(host: str) -> str | None:
    """``host`` as grants compare it (lower case, ASCII, no final dot), or ``None`` when it is
    not a domain name (an address, or not a name at all)."""
    host = host.strip().rstrip(".").lower()
    if not host or is_address(host):
        return None
    try:
        ascii_name = host if host.isascii() else host.encode("idna").decode("ascii")
    except UnicodeError:
        return None
    labels = ascii_name.split(".")
    if len(ascii_name) > 253 or not all(_LABEL.match(label) for label in labels):
        return None
    if labels[-1].isdigit() or re.fullmatch(r"0x[0-9a-f]+", labels[-1]):
        return None  # what inet_aton would read as an address: 10.1, 2130706433, 0x7f.1
    return ascii_name


def is_address(host: str) -> bool:
    """Whether ``host`` is an IP address (``[::1]`` too)."""
    try:
        ipaddress.ip_address(host.strip().strip("[]"))
    except ValueError:
        return False
    return True


def parse_domain(written: object, source: str = "") -> Domain | str:
    """The entry ``written`` as a ``Domain``, or why it is not one."""
    if not isinstance(written, str) or not written.strip():
        return "an entry is a domain name such as 'registry.example' or '*.example.org'"
    text = written.strip()
    if text.strip("*.") == "":
        return "'*' alone would grant every name: list the domains, or approve full access"
    if "://" in text or "/" in text:
        return "a domain name, not a URL (write 'registry.example', optionally ':PORT')"
    name, port = text, None
    if text.startswith("[") or text.count(":") > 1:
        return "an address, not a domain name: grant the name the program asks for"
    if ":" in text:
        name, _, number = text.partition(":")
        if not number.isdigit() or not 0 < int(number) < 65536:
            return f"the port must be a number from 1 to 65535, got {number!r}"
        port = int(number)
    wildcard = name.startswith("*.")
    bare = name[2:] if wildcard else name
    if "*" in bare:
        return "'*' is allowed only as the first label ('*.example.org')"
    if is_address(bare):
        return "an address, not a domain name: grant the name the program asks for"
    normal = host_name(bare)
    if normal is None:
        return "not a domain name"
    if wildcard and "." not in normal:
        return f"'*.{normal}' would grant a whole top-level domain; name the domain under it"
    return Domain(name=normal, wildcard=wildcard, port=port, written=text, source=source)


def parse_domains(
    values: object, *, key: str, shown: str, file: str, lines: LineFinder
) -> tuple[tuple[Domain, ...], list[str]]:
    """The entries of ``values`` (the value of ``key`` in the table ``lines`` reads) and a
    problem per malformed one, each naming the file, the line and the key (as ``shown``:
    ``sandbox.network``)."""
    if not isinstance(values, list):
        line = lines.key(key)
        return (), [f"{file}:{line}: {shown}: a list of domain names; nothing of it is granted"]
    found: list[Domain] = []
    problems: list[str] = []
    for value in values:
        line = lines.entry(key, value)
        parsed = parse_domain(value, f"{file}:{line}")
        if isinstance(parsed, str):
            problems.append(f"{file}:{line}: {shown}: {value!r}: {parsed}; it is not granted")
        else:
            found.append(parsed)
    return tuple(found), problems


class LineFinder:
    """Where a key of one table and the entries of its list are written in a TOML text
    (``tomllib`` keeps no positions): enough to name a line for a problem."""

    def __init__(self, text: str, table: str, *, array: int | None = None) -> None:
        """``table``: the table's name; ``array``: for ``[[table]]``, which one (0-based)."""
        self.lines = text.splitlines()
        self.start, self.end = _table_span(self.lines, table, array)

    def key(self, key: str) -> int:
        """The line of ``key = …`` in the table, else the table's header line."""
        name = re.escape(key)
        pattern = re.compile(rf"""^\s*(?:{name}|"{name}"|'{name}')\s*=""")
        for number in range(self.start, self.end):
            if pattern.match(self.lines[number]):
                return number + 1
        return max(self.start, 1)

    def entry(self, key: str, value: object) -> int:
        """The line of ``value`` (a string entry of ``key``'s list), else ``key``'s line."""
        first = self.key(key)
        if not isinstance(value, str):
            return first
        quoted = (f'"{value}"', f"'{value}'")
        for number in range(first - 1, self.end):
            line = self.lines[number]
            if any(q in line for q in quoted):
                return number + 1
            if number >= first and re.match(r"^\s*[A-Za-z0-9_\"'-]+\s*=", line):
                break
        return first


def _table_span(lines: list[str], table: str, array: int | None) -> tuple[int, int]:
    """The 0-based lines after ``[table]`` (or the ``array``-th ``[[table]]``) up to the next
    header; the whole text when there is no such header."""
    header = re.compile(r"^\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
    seen = -1
    start: int | None = None
    for number, line in enumerate(lines):
        match = header.match(line)
        if match is None:
            continue
        if start is not None:
            return start, number
        wanted = "[[" if array is not None else "["
        if match[1] == wanted and match[2] == table:
            seen += 1
            if array is None or seen == array:
                start = number + 1
    if start is not None:
        return start, len(lines)
    return 0, len(lines)
