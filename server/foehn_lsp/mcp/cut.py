"""What Foehn puts in place of a message from an MCP server that is over its cap.

Both transports read what a server sends with a cap on each message (``MAX_MESSAGE_BYTES``) as
it arrives. Of a message over the cap, only its start (``KEPT_BYTES``) and, where the transport
reads on to its end, its end are kept: enough to show the model the beginning and to find the
request it answers. The session then receives, in its place, an answer to that request that
says truthfully what was cut (``CUT_META`` in the result's ``_meta``: how many bytes were sent,
when known, and how many were read).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import mcp_types as types
from mcp.shared.message import SessionMessage

MAX_MESSAGE_BYTES = 8 * 1024 * 1024
"""The most Foehn reads of one message from a server (a result, a tool list)."""
KEPT_BYTES = 64 * 1024
"""How much of the start of a cut message is kept (the beginning shown, the id found)."""
CUT_META = "foehn/cut"
"""``_meta`` key of an answer Foehn made for a cut message: ``{"sent", "read"}`` in bytes
(``sent`` is ``None`` when the transport stopped reading before the message ended; ``read`` is
0 for a message the server compressed, of which nothing is read)."""

_HEAD_ID = re.compile(rb'^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"[^"\\]*")')
_TAIL_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"[^"\\]*")\s*\}\s*$')
_TEXT = re.compile(rb'"text"\s*:\s*"')


@dataclass(frozen=True, kw_only=True)
class CutMessage:
    """A message longer than the cap: its beginning, its end, and its size (``None`` when it
    was not read to its end, so that neither is known)."""

    head: bytes
    tail: bytes = b""
    size: int | None = None


def answer_for_cut(
    cut: CutMessage, pending: list[types.RequestId], limit: int
) -> SessionMessage | ValueError:
    """In place of a cut message: an answer to the request it answers (found at its start or
    its end, or the one request waiting), saying what was cut; an error when that is unknown."""
    request = _request_id(cut, pending)
    sent = "more than that" if cut.size is None else f"{cut.size:,} bytes"
    if request is None:
        return ValueError(
            f"the server sent a message of {sent}, over Foehn's limit of {limit:,} bytes, "
            "that answers no request Foehn could find"
        )
    beginning = _text_beginning(cut.head)
    how_much = (
        "the server was sending more than Foehn reads from one MCP result"
        if cut.size is None
        else f"the server sent {cut.size:,} bytes in all, more than Foehn reads from one MCP result"
    )
    shown = (
        f" The start of its text follows.]\n{beginning}"
        if beginning
        else " Nothing of it is shown.]"
    )
    said = (
        f"[Foehn stopped reading this result at {limit:,} bytes: {how_much}, and the rest was "
        f"not read.{shown}"
    )
    return _answer(request, said, {"sent": cut.size, "read": limit})


def answer_for_compressed(pending: list[types.RequestId]) -> SessionMessage | ValueError:
    """In place of a message the server compressed though Foehn asked for none (over HTTP):
    an answer to the one request waiting, saying so; an error when it answers none."""
    if len(pending) != 1:
        return ValueError(
            "the server sent a compressed message, which Foehn does not read, that answers no "
            "request Foehn could find"
        )
    said = (
        "[Foehn did not read this result: the server compressed it, which Foehn does not read "
        "(it asks for uncompressed answers). Nothing of it is shown.]"
    )
    return _answer(pending[0], said, {"sent": None, "read": 0})


def _answer(request: types.RequestId, said: str, cut: dict[str, int | None]) -> SessionMessage:
    result = {
        "content": [{"type": "text", "text": said}],
        "isError": True,
        "_meta": {CUT_META: cut},
    }
    response = types.JSONRPCResponse(jsonrpc="2.0", id=request, result=result)
    return SessionMessage(response)


def _request_id(cut: CutMessage, pending: list[types.RequestId]) -> types.RequestId | None:
    for pattern, text in ((_HEAD_ID, cut.head), (_TAIL_ID, cut.tail)):
        if match := pattern.search(text):
            found: types.RequestId = json.loads(match[1])
            if found in pending:
                return found
    return pending[0] if len(pending) == 1 else None


def _text_beginning(head: bytes) -> str:
    """The start of the first text content in the kept bytes, decoded as far as it is whole."""
    match = _TEXT.search(head)
    if match is None:
        return ""
    raw = head[match.end() :].decode("utf-8", "ignore")
    closing = re.search(r'(?<!\\)(?:\\\\)*"', raw)
    if closing is not None:
        raw = raw[: closing.end() - 1]
    raw = re.sub(r"\\(u[0-9a-fA-F]{0,3})?$", "", raw)  # an escape cut in half
    try:
        text: str = json.loads(f'"{raw}"')
    except json.JSONDecodeError:
        return ""
    return text
