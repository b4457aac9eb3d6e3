"""The transport's parts on their own: the framer on exact bytes, the strict reading of client
answers, and the protocol's handling of an internal error (in process, with a real server)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from foehn_lsp.lsp import create_server
from foehn_lsp.lsp.wire import answers
from foehn_lsp.lsp.wire.framing import Frame, Framer, Unrecoverable
from foehn_lsp.policy.approval import Approved, Denied

BODY = b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}'


def framed(body: bytes = BODY, header: bytes = b"Content-Length: %d\r\n\r\n") -> bytes:
    return header % len(body) + body


@pytest.mark.parametrize(
    "header",
    [
        b"Content-Length: %d\r\n\r\n",
        b"content-length: %d\r\n\r\n",
        b"CONTENT-LENGTH:%d\n\n",
        b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
        b"Content-Length: %d\n\r\n",
    ],
)
def test_headers_in_any_case_and_with_lf_only_line_ends(header: bytes) -> None:
    assert Framer().feed(framed(header=header)) == [Frame(body=BODY)]


def test_frames_split_anywhere_are_joined() -> None:
    data = framed() * 3
    framer = Framer()
    frames = [frame for byte in range(len(data)) for frame in framer.feed(data[byte : byte + 1])]
    assert frames == [Frame(body=BODY)] * 3


def test_stray_bytes_are_skipped_and_counted() -> None:
    framer = Framer()
    assert framer.feed(b"abc" + framed() + b"\r\n\x00\xffjunk" + framed()) == [
        Frame(body=BODY),
        Frame(body=BODY),
    ]
    assert framer.skipped == 3 + len(b"\r\n\x00\xffjunk")


def test_a_length_too_large_ends_where_the_next_header_starts() -> None:
    framer = Framer()
    frames = framer.feed(b"Content-Length: 500\r\n\r\n" + BODY + framed())
    assert frames == [
        Frame(body=BODY, problem=f"Content-Length says 500 bytes but the frame has {len(BODY)}"),
        Frame(body=BODY),
    ]


def test_a_length_too_large_with_nothing_after_it_is_a_bad_frame_once_the_peer_stalls() -> None:
    framer = Framer()
    assert framer.feed(b"Content-Length: 500\r\n\r\n" + BODY) == []
    assert framer.in_body
    assert framer.stalled() == [
        Frame(body=BODY, problem=f"Content-Length says 500 bytes but the frame has {len(BODY)}")
    ]
    assert framer.feed(framed()) == [Frame(body=BODY)]


def test_a_length_too_small_cuts_the_body_and_the_rest_is_skipped() -> None:
    framer = Framer()
    frames = framer.feed(b"Content-Length: 10\r\n\r\n" + BODY + framed())
    assert frames == [Frame(body=BODY[:10]), Frame(body=BODY)]


def test_a_json_string_with_a_header_inside_is_not_a_header() -> None:
    body = json.dumps({"text": "Content-Length: 5\r\n\r\nx"}).encode()
    assert Framer().feed(framed(body)) == [Frame(body=body)]


def test_a_stream_without_headers_or_with_an_impossible_length_cannot_be_recovered() -> None:
    with pytest.raises(Unrecoverable, match="without a Content-Length header"):
        Framer().feed(b"x" * (1024 * 1024 + 100))
    with pytest.raises(Unrecoverable, match="declares 99999999999 bytes"):
        Framer().feed(b"Content-Length: 99999999999\r\n\r\n")


@pytest.mark.parametrize(
    ("answer", "decision"),
    [
        ({"decision": "allow"}, Approved(scope="once")),
        ({"decision": "allowRun"}, Approved(scope="run")),
        ({"decision": "deny", "reason": "no"}, Denied(reason="no")),
        ({"decision": "deny"}, Denied(reason="denied in the editor")),
        (None, Denied(reason="dismissed")),
        (
            {"decision": "ALLOW"},
            Denied(reason='the editor\'s answer was not understood: {"decision": "ALLOW"}'),
        ),
        ("allow", Denied(reason='the editor\'s answer was not understood: "allow"')),
        (
            [{"decision": "allow"}],
            Denied(reason='the editor\'s answer was not understood: [{"decision": "allow"}]'),
        ),
    ],
)
def test_confirmations_are_read_exactly(answer: Any, decision: Any) -> None:
    assert answers.confirm_decision(answer) == decision


@pytest.mark.parametrize(
    ("answer", "applied"),
    [
        ({"applied": True}, True),
        ({"applied": True, "failedChange": 0}, True),
        ({"applied": False}, False),
        ({"applied": "false"}, False),
        ({"applied": "true"}, False),
        ({"applied": 1}, False),
        ({"applied": True, "failureReason": 3}, False),
        ([], False),
        (None, False),
    ],
)
def test_only_applied_true_is_an_applied_edit(answer: Any, applied: bool) -> None:
    outcome = answers.apply_outcome(answer)
    assert outcome.applied is applied
    assert bool(outcome.reason) is not applied


def test_the_editor_reason_for_a_refused_edit_is_kept() -> None:
    outcome = answers.apply_outcome({"applied": False, "failureReason": "read-only file"})
    assert outcome.reason == (
        "the editor did not apply the edit: read-only file (nobody refused it; read the file "
        "again before retrying)"
    )


@pytest.mark.parametrize(
    ("answer", "read"),
    [
        ([{"model": "m"}], [{"model": "m"}]),
        ([None], [None]),
        ([], "expected a list of 1 setting object(s), got []"),
        ({"model": "m"}, 'expected a list of 1 setting object(s), got {"model": "m"}'),
        (["m"], 'expected setting objects or null, got ["m"]'),
    ],
)
def test_configuration_answers_are_read_exactly(answer: Any, read: Any) -> None:
    assert answers.configuration(answer, 1) == read


class Captured:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))

    def close(self) -> None:
        return None


async def test_an_internal_error_is_logged_and_answered_without_its_traceback() -> None:
    server = create_server()

    @server.feature("foehn/boom")
    def boom(ls: Any, params: Any) -> None:
        raise ZeroDivisionError("division by zero")

    captured = Captured()
    server.protocol.set_writer(captured)
    server.protocol.receive(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    )
    server.protocol.receive({"jsonrpc": "2.0", "id": 2, "method": "foehn/boom", "params": {}})
    [reply] = [m for m in captured.messages if m.get("id") == 2]
    message = "Foehn failed: ZeroDivisionError: division by zero (details in the server log)"
    assert reply["error"] == {"code": -32603, "message": message}
    logged = [m["params"] for m in captured.messages if m.get("method") == "window/logMessage"]
    assert {"type": 1, "message": message} in logged
