"""The server name a TLS client asks for, read from its ClientHello (RFC 8446 4.1.2, RFC 6066
3) before a byte of it is passed on: a tunnel to a granted name carries a handshake for that
name, or nothing.

Only what reaching the ``server_name`` extension needs is parsed, every length checked against
what is left; anything else (not a handshake record, not a ClientHello, a hello larger than
``MAX_HELLO``, lengths that do not add up) is ``NotTls``.
"""

from __future__ import annotations

import asyncio

HANDSHAKE = 0x16
CLIENT_HELLO = 1
SERVER_NAME = 0
HOST_NAME = 0
MAX_RECORD = 2**14 + 2048
MAX_HELLO = 64 * 1024


class NotTls(ValueError):
    """What was read is not the start of a TLS handshake this proxy can read."""


async def client_hello(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """The bytes read (to pass on unchanged) and the ClientHello's body, reading records until
    the whole message is in."""
    raw = bytearray()
    message = bytearray()
    while True:
        header = await reader.readexactly(5)
        raw += header
        length = int.from_bytes(header[3:5], "big")
        if header[0] != HANDSHAKE or header[1] != 3 or not 0 < length <= MAX_RECORD:
            raise NotTls("the tunnel's first bytes are not a TLS handshake")
        message += await reader.readexactly(length)
        raw += message[-length:]
        if len(message) < 4:
            continue
        if message[0] != CLIENT_HELLO:
            raise NotTls("the tunnel's handshake does not start with a ClientHello")
        needed = 4 + int.from_bytes(message[1:4], "big")
        if needed > MAX_HELLO:
            raise NotTls(f"the ClientHello is larger than {MAX_HELLO:,} bytes")
        if len(message) >= needed:
            return bytes(raw), bytes(message[4:needed])


def server_name(hello: bytes) -> str | None:
    """The host name in the ``server_name`` extension of a ClientHello body, lower case;
    ``None`` when it names none."""
    reader = _Reader(hello)
    reader.skip(2 + 32)  # legacy_version, random
    reader.skip(reader.number(1))  # legacy_session_id
    reader.skip(reader.number(2))  # cipher_suites
    reader.skip(reader.number(1))  # legacy_compression_methods
    if reader.left() == 0:
        return None  # no extensions at all
    extensions = _Reader(reader.take(reader.number(2)))
    while extensions.left():
        kind = extensions.number(2)
        data = extensions.take(extensions.number(2))
        if kind != SERVER_NAME:
            continue
        names = _Reader(data)
        listed = _Reader(names.take(names.number(2)))
        while listed.left():
            name_type = listed.number(1)
            name = listed.take(listed.number(2))
            if name_type == HOST_NAME:
                try:
                    return name.decode("ascii").lower().rstrip(".")
                except UnicodeDecodeError:
                    raise NotTls("the server name is not ASCII") from None
        return None
    return None


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def left(self) -> int:
        return len(self.data) - self.at

    def take(self, count: int) -> bytes:
        if count > self.left():
            raise NotTls("the ClientHello's lengths do not add up")
        taken = self.data[self.at : self.at + count]
        self.at += count
        return taken

    def skip(self, count: int) -> None:
        self.take(count)

    def number(self, size: int) -> int:
        return int.from_bytes(self.take(size), "big")
