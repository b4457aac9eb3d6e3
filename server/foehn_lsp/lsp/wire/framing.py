"""Splitting the client's byte stream into frames, and finding the next frame after a bad one.

pygls 2.1.1's reader (``pygls.io_.run_async``) accepts only ``Content-Length: N\\r\\n`` spelled
exactly and trusts N: a lower-case or LF-only header, a few stray bytes or a wrong length leave
the server alive but deaf for good (no upstream issue found as of 2.1.1). This framer accepts
the header in any case, with LF-only line ends, and resynchronises: a header line can never
occur inside a JSON text (a raw line break cannot appear in a JSON string), so the next
``Content-Length`` line is always the start of the next frame.

Pure and synchronous: bytes go in, ``Frame``s come out; the transport does the I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADER = re.compile(rb"content-length[ \t]*:[ \t]*(\d{1,15})[ \t]*\r?\n", re.IGNORECASE)
END_OF_HEADERS = re.compile(rb"\n\r?\n")
MAX_FRAME = 64 * 1024 * 1024
"""A declared length beyond this is not a frame we can hold: the stream cannot be recovered."""
MAX_GARBAGE = 1024 * 1024
"""This many bytes without any header means the peer does not speak LSP at all."""
MAX_HEADERS = 8 * 1024
"""A header block longer than this is not one; the bytes are skipped."""
TAIL = 64
"""Bytes kept while looking for a header, so that one split across two reads is still found."""


@dataclass(frozen=True, kw_only=True)
class Frame:
    body: bytes
    problem: str | None = None
    """Why the frame is bad (its length did not match), or None for a good frame."""


class Unrecoverable(Exception):
    """The stream cannot be split into frames any more; the server must exit."""


class Framer:
    def __init__(self) -> None:
        self._buffer = bytearray()
        self._length: int | None = None
        """The declared length of the frame whose body is being read."""
        self._scanned = 0
        """How much of the incomplete body is known to hold no header."""
        self._garbage = 0
        self.skipped = 0
        """Bytes that were neither headers nor bodies, in total (for the log)."""

    @property
    def in_body(self) -> bool:
        """True while the body of a frame is still incomplete."""
        return self._length is not None

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        frames = []
        while (frame := self._next()) is not None:
            frames.append(frame)
        return frames

    def stalled(self) -> list[Frame]:
        """The peer stopped sending in the middle of a body: its length was too large. What
        arrived is the frame (a bad one), and reading starts over."""
        if self._length is None:
            return []
        declared, body = self._length, bytes(self._buffer)
        self._buffer.clear()
        self._length = None
        return [Frame(body=body, problem=_mismatch(declared, len(body)))]

    def _next(self) -> Frame | None:
        if self._length is None and not self._read_headers():
            return None
        assert self._length is not None
        declared = self._length
        start = max(0, self._scanned - TAIL)
        following = HEADER.search(self._buffer, start, declared + TAIL)
        self._scanned = min(len(self._buffer), declared)
        if following is not None and following.start() < declared:
            # The next frame starts inside this one: the declared length was too large.
            body = bytes(self._buffer[: following.start()])
            del self._buffer[: following.start()]
            self._length = None
            return Frame(body=body, problem=_mismatch(declared, len(body)))
        if len(self._buffer) < declared:
            return None
        body = bytes(self._buffer[:declared])
        del self._buffer[:declared]
        self._length = None
        return Frame(body=body)

    def _read_headers(self) -> bool:
        """Find the next header block; True once a body's length is known."""
        while True:
            header = HEADER.search(self._buffer)
            if header is None:
                self._skip(max(0, len(self._buffer) - TAIL))
                return False
            if header.start() > 0:
                self._skip(header.start())
                continue
            end = END_OF_HEADERS.search(self._buffer, header.end() - 1)
            if end is None:
                if len(self._buffer) > MAX_HEADERS:
                    self._skip(header.end())  # not a header block after all
                    continue
                return False
            declared = int(header.group(1))
            if declared > MAX_FRAME:
                raise Unrecoverable(f"a frame declares {declared} bytes (the limit is {MAX_FRAME})")
            del self._buffer[: end.end()]
            self._length = declared
            self._scanned = 0
            self._garbage = 0
            return True

    def _skip(self, count: int) -> None:
        if count <= 0:
            return
        junk = bytes(self._buffer[:count])
        del self._buffer[:count]
        if junk.strip():
            self.skipped += len(junk)
            self._garbage += len(junk)
        if self._garbage > MAX_GARBAGE:
            raise Unrecoverable(f"{self._garbage} bytes arrived without a Content-Length header")


def _mismatch(declared: int, actual: int) -> str:
    return f"Content-Length says {declared} bytes but the frame has {actual}"
