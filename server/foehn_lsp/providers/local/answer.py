"""The answer, streamed while the model writes it, and never a copy.

The model writes one JSON object per step. Once the text so far is ``{"answer": "…``, the
string's characters are decoded as they arrive and released to the person a whole sentence (or
line) at a time, once the copy check has seen all of it: what could still turn out to be a copy
of tool output or prompt text (which the provider sends back instead of showing) never goes
out. Generation stops as soon as a copy shows up; if whole sentences went out before, the
answer is those sentences, nothing more. So an answer is not cut inside a sentence: stopped
while copying a note ("I already called read_file with those arguments; its result is
above"), it went out as "I already called read_" when the release held back only its last
characters. Only a sentence longer than ``LONG_SENTENCE`` goes out by words, its last
``HOLD`` characters held back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Literal

_OPENING = re.compile(r'\s*\{\s*"(answer|tool)"\s*:\s*')
_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
LONG_SENTENCE = 240
"""Characters of a sentence after which it streams by words (a list with no full stop)."""
HOLD = 40
"""Characters such a sentence keeps back: the longest piece of prompt text checked for is
shorter."""

Kind = Literal["unknown", "answer", "tool"]


class AnswerStream:
    """Feed it the raw step text as generated; it calls ``release`` with the answer's text as
    it becomes safe to show (with no ``release``, nothing goes out: the text is only checked)."""

    def __init__(
        self, release: Callable[[str], None] | None, is_copy: Callable[[str], bool]
    ) -> None:
        self.release = release
        self.is_copy = is_copy
        self.raw = ""
        self.kind: Kind = "unknown"
        self.text = ""
        """The answer decoded so far."""
        self.released = ""
        """What went out."""
        self.copied = False
        """Whether the answer copies tool output or prompt text (generation was stopped)."""
        self._start = 0
        self._closed = False

    def feed(self, piece: str) -> bool:
        """Take the next generated ``piece``; whether generation should stop."""
        self.raw += piece
        if self.kind == "unknown":
            opening = _OPENING.match(self.raw)
            if opening is None:
                return False
            self.kind = "answer" if opening.group(1) == "answer" else "tool"
            if self.kind == "answer":
                if len(self.raw) <= opening.end() or self.raw[opening.end()] != '"':
                    self.kind = "unknown"
                    return False
                self._start = opening.end() + 1
        if self.kind != "answer" or self._closed:
            return False
        self._decode()
        if self.is_copy(self.text):
            self.copied = True
            return True
        if self.release is not None:
            self._release(final=self._closed)
        return False

    def finish(self) -> None:
        """The step is complete: release the rest of the answer (never a copy)."""
        if self.kind == "answer" and not self.copied and self.release is not None:
            self._release(final=True)

    def _decode(self) -> None:
        position, out = self._start, []
        raw = self.raw
        while position < len(raw):
            char = raw[position]
            if char == '"':
                self._closed = True
                position += 1
                break
            if char != "\\":
                out.append(char)
                position += 1
                continue
            escape = _ESCAPE.match(raw, position)
            if escape is None:
                break  # incomplete: wait for the rest of it
            end = escape.end()
            if escape.group(1).startswith("u") and 0xD800 <= int(escape.group(1)[1:], 16) < 0xDC00:
                low = _ESCAPE.match(raw, end)
                if low is None:
                    break  # the second half of a surrogate pair has not arrived
                end = low.end()
            out.append(json.loads(f'"{raw[position:end]}"'))
            position = end
        self.text += "".join(out)
        self._start = position

    def _release(self, *, final: bool) -> None:
        safe = len(self.text)
        if not final:
            start = len(self.released)
            # after a full stop, before a line's end: what goes out never ends in whitespace
            ends = [m.start() + (m[0] != "\n") for m in _SENTENCE_END.finditer(self.text, start)]
            safe = ends[-1] if ends else start
            if len(self.text) - safe > LONG_SENTENCE:
                # A sentence this long goes out a word at a time, the last words held back.
                safe = max(safe, self.text.rfind(" ", safe, len(self.text) - HOLD))
        if safe > len(self.released) and self.release is not None:
            piece = self.text[len(self.released) : safe]
            self.released += piece
            self.release(piece)
