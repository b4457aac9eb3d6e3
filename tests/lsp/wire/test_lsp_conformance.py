"""The LSP 3.17 lifecycle and the transport under sloppy and hostile clients: a raw client over
stdio sends exact bytes and checks the exact reply, or that none comes (within a short wait)."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.testing import ModelServer
from lsp.wire.raw import (
    frame,
    initialize_params,
    initialized,
    is_method,
    is_reply,
    raw_server,
    server_env,
)
from preloaded import foehn_argv

pytestmark = pytest.mark.process

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
SHUTDOWN = {"jsonrpc": "2.0", "id": 90, "method": "shutdown"}


def error_of(reply: dict[str, Any]) -> tuple[int, str]:
    assert "result" not in reply, reply
    assert set(reply["error"]) <= {"code", "message"}, "no data (no traceback) in errors"
    return reply["error"]["code"], reply["error"]["message"]


def body(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


async def test_the_header_may_be_lower_case_and_lines_may_end_in_lf(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        params = body({**INITIALIZE, "params": initialize_params(root)})
        client.send_bytes(b"content-length: %d\n\n" % len(params) + params)
        reply = await client.reply(1)
        assert "executeCommandProvider" in reply["result"]["capabilities"]
        tools = body({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        client.send_bytes(b"CONTENT-LENGTH:%d\r\nContent-Type: x\r\n\r\n" % len(tools) + tools)
        assert (await client.reply(2))["result"] is None


async def test_stray_bytes_between_frames_are_skipped(root: Path, model: ModelServer) -> None:
    async with raw_server(root, model) as client:
        client.send_bytes(b"abc")
        client.send({**INITIALIZE, "params": initialize_params(root)})
        assert "result" in await client.reply(1)
        client.send_bytes(b"\x00\xff garbage\r\n\r\n")
        assert (await client.call("shutdown"))["result"] is None


async def test_a_too_short_length_is_a_parse_error_and_the_next_frame_is_read(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        broken = body({"jsonrpc": "2.0", "id": 5, "method": "shutdown"})
        client.send_bytes(b"Content-Length: 10\r\n\r\n" + broken)
        [parse_error] = await client.wait_for(lambda m: m.get("id") is None and "error" in m)
        assert parse_error["error"]["code"] == -32700
        assert (await client.call("shutdown"))["result"] is None


async def test_a_too_long_length_is_answered_once_the_next_frame_arrives(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        broken = body({"jsonrpc": "2.0", "id": 5, "method": "shutdown"})
        client.send_bytes(b"Content-Length: 500\r\n\r\n" + broken)
        client.send({"jsonrpc": "2.0", "id": 6, "method": "shutdown"})
        code, message = error_of(await client.reply(5))
        assert code == -32600
        assert message == (
            f"Invalid Request: bad frame (Content-Length says 500 bytes but the frame has "
            f"{len(broken)})"
        )
        assert (await client.reply(6))["result"] is None


async def test_a_too_long_length_with_nothing_after_it_is_answered_after_a_pause(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        broken = body({"jsonrpc": "2.0", "id": 5, "method": "shutdown"})
        client.send_bytes(b"Content-Length: 500\r\n\r\n" + broken)
        code, _ = error_of(await client.reply(5, within=20))
        assert code == -32600
        assert (await client.call("shutdown"))["result"] is None


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (b"{not json", -32700),
        (b"\xff\xfe", -32700),
        (b"[]", -32600),
        (b"[1, 2]", -32600),
        (b"42", -32600),
    ],
)
async def test_frames_that_are_not_messages_get_an_error_without_an_id(
    root: Path, model: ModelServer, payload: bytes, code: int
) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        client.send_bytes(b"Content-Length: %d\r\n\r\n" % len(payload) + payload)
        [reply] = await client.wait_for(lambda m: "error" in m)
        assert reply["id"] is None
        assert error_of(reply)[0] == code
        assert (await client.call("shutdown"))["result"] is None


async def test_a_message_that_is_not_json_rpc_2_is_an_invalid_request(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        client.send({"jsonrpc": "1.0", "id": 7, "method": "shutdown"})
        assert error_of(await client.reply(7)) == (-32600, 'jsonrpc must be "2.0"')
        client.send({"jsonrpc": "2.0", "id": 8, "method": 12})
        assert error_of(await client.reply(8)) == (-32600, "method must be a string")
        client.send({"jsonrpc": "2.0", "id": 9, "method": "shutdown", "params": "x"})
        assert error_of(await client.reply(9))[0] == -32600
        client.send({"jsonrpc": "2.0", "id": [1], "method": "shutdown"})
        [bad_id] = await client.wait_for(lambda m: m.get("id") is None and "error" in m)
        assert error_of(bad_id)[0] == -32600


async def test_garbage_without_any_header_ends_the_server_with_status_1(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        client.send_bytes(b"x" * (1024 * 1024 + 4096))
        assert await client.exit_code() == 1


async def test_an_impossible_length_ends_the_server_with_status_1(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        client.send_bytes(b"Content-Length: 99999999999\r\n\r\n{}")
        assert await client.exit_code() == 1


async def test_requests_before_initialize_are_refused_and_notifications_dropped(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        client.notify("workspace/didChangeConfiguration", {"settings": None})
        assert error_of(await client.call("shutdown")) == (
            -32002,
            "the server has not been initialized",
        )
        assert error_of(
            await client.call(
                "workspace/executeCommand", {"command": "foehn.tools", "arguments": []}
            )
        )[0] == (-32002)
        answer = await initialized(client, root)
        assert answer["result"]["serverInfo"]["name"] == "foehn"


async def test_initialize_is_accepted_once(root: Path, model: ModelServer) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        again = await client.call("initialize", initialize_params(root))
        assert error_of(again) == (-32600, "initialize may be sent only once")


async def test_bad_initialize_params_are_invalid_params_and_initialize_can_be_retried(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        code, message = error_of(await client.call("initialize", {"processId": "x"}))
        assert code == -32602
        assert message.startswith("Invalid params: ")
        assert "result" in await client.call("initialize", initialize_params(root))


async def test_after_shutdown_requests_are_invalid_and_exit_is_status_0(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        assert (await client.call("shutdown"))["result"] is None
        code, message = error_of(
            await client.call(
                "workspace/executeCommand", {"command": "foehn.tools", "arguments": []}
            )
        )
        assert (code, message) == (-32600, "the server is shutting down")
        client.notify("exit")
        assert await client.exit_code() == 0


async def test_exit_without_shutdown_is_status_1(root: Path, model: ModelServer) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        client.notify("exit")
        assert await client.exit_code() == 1


async def test_the_end_of_input_without_exit_is_status_1(root: Path, model: ModelServer) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        assert client.process.stdin is not None
        client.process.stdin.close()
        assert await client.exit_code() == 1


async def test_an_unknown_request_without_params_is_method_not_found(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        client.send({"jsonrpc": "2.0", "id": 3, "method": "foehn/nothing"})
        assert error_of(await client.reply(3)) == (-32601, "Method Not Found: foehn/nothing")
        client.notify("foehn/nothingEither")
        assert await client.absent(lambda m: "error" in m and m.get("id") is None)


def _code_action(line: int) -> dict[str, Any]:
    position = {"line": line, "character": 0}
    return {
        "textDocument": {"uri": "file:///x.py"},
        "range": {"start": position, "end": position},
        "context": {"diagnostics": []},
    }


async def test_code_actions_with_bad_params_are_invalid_params(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        client.send(
            {"jsonrpc": "2.0", "id": 4, "method": "textDocument/codeAction", "params": None}
        )
        code, message = error_of(await client.reply(4))
        assert code == -32602
        assert message.startswith("Invalid params: ")
        negative = await client.call("textDocument/codeAction", _code_action(-1))
        code, message = error_of(negative)
        assert code == -32602
        assert "line" in message
        assert (await client.call("textDocument/codeAction", _code_action(0)))["result"] == []


async def test_a_run_with_a_string_diagnostic_is_invalid_params_and_shows_no_progress(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, root)
        reply = await client.call(
            "workspace/executeCommand",
            {"command": "foehn.run", "arguments": [{"task": "fix", "diagnostic": "oops"}]},
        )
        assert error_of(reply) == (
            -32602,
            "diagnostic must be an object with a message: {message, source?}",
        )
        assert await client.absent(is_method("window/workDoneProgress/create"), wait=0.3)
        assert await client.absent(is_method("$/progress"), wait=0.1)
        assert model.requests == []


async def test_a_run_without_a_workspace_folder_is_a_clear_error(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        await initialized(client, None)
        reply = await client.call(
            "workspace/executeCommand", {"command": "foehn.run", "arguments": ["hello"]}
        )
        assert error_of(reply) == (-32803, "Foehn needs a workspace folder: open a folder first")


async def test_every_request_is_answered_exactly_once(root: Path, model: ModelServer) -> None:
    async with raw_server(root, model) as client:
        first = await initialized(client, root)
        sent = [
            first["id"],
            client.request("textDocument/codeAction", _code_action(0)),
            client.request("textDocument/codeAction", _code_action(-3)),
            client.request("textDocument/codeAction", None),
            client.request("foehn/unknown"),
            client.request("workspace/executeCommand", {"command": "nope", "arguments": []}),
            client.request("workspace/executeCommand", {"command": "foehn.cancel"}),
            client.request(
                "workspace/executeCommand", {"command": "foehn.cancel", "arguments": [1]}
            ),
            client.request("workspace/executeCommand", {"command": "foehn.tools", "arguments": []}),
            client.request("workspace/executeCommand", {"command": "foehn.run", "arguments": []}),
            client.request("initialize", initialize_params(root)),
        ]
        cancelled = client.request("textDocument/codeAction", _code_action(1))
        client.notify("$/cancelRequest", {"id": cancelled})
        client.notify("$/cancelRequest", {"id": "never-sent"})
        sent.append(cancelled)
        sent.append(client.request("shutdown"))
        for msg_id in sent:
            await client.reply(msg_id)
        await asyncio.sleep(0.5)
        replies = [m["id"] for m in client.received if "method" not in m]
        assert sorted(replies, key=str) == sorted(sent, key=str)


async def test_a_framed_message_sent_in_pieces_is_read_whole(
    root: Path, model: ModelServer
) -> None:
    async with raw_server(root, model) as client:
        data = frame({**INITIALIZE, "params": initialize_params(root)})
        for start in range(0, len(data), 7):
            client.send_bytes(data[start : start + 7])
            await asyncio.sleep(0.001)
        assert "result" in await client.reply(1)
        assert is_reply(1)(client.received[0])


async def test_tcp_goes_through_the_same_transport(root: Path, model: ModelServer) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = await asyncio.create_subprocess_exec(
        *foehn_argv("serve", "--tcp"),
        f"127.0.0.1:{port}",
        env=server_env(root, model),
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        for _ in range(200):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError("the server did not listen")
        params = body({**INITIALIZE, "params": initialize_params(root)})
        writer.write(b"content-length: %d\n\n" % len(params) + params)
        writer.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        writer.write(frame({"jsonrpc": "2.0", "method": "exit"}))
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 60)
        assert b'"id": 1' in data
        assert b'{"id": 2, "jsonrpc": "2.0", "result": null}' in data
        assert await asyncio.wait_for(process.wait(), 30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
