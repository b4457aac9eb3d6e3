"""``foehn acp`` on the wire, without an SDK in between: malformed and unknown requests get
JSON-RPC errors that say what is wrong, and stdout carries nothing but the protocol, even when
a plugin prints."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from acp_harness import agent_environment
from foehn_lsp.testing import ModelServer, Turn
from preloaded import foehn_argv

pytestmark = pytest.mark.process

NOISY_PLUGIN = '''
from foehn_lsp import RiskLevel, tool

print("noise when the plugin is imported")


@tool(risk=RiskLevel.READ_ONLY)
async def shout(text: str) -> str:
    """Return the text in upper case."""
    print("noise while the tool runs")
    return text.upper()


def tools():
    return [shout]
'''


class Wire:
    """Raw newline-delimited JSON-RPC with the agent process."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self.next_id = 100

    async def send(self, message: dict[str, Any] | str) -> None:
        assert self.process.stdin is not None
        line = message if isinstance(message, str) else json.dumps(message)
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def request(self, method: str, params: Any) -> dict[str, Any]:
        self.next_id += 1
        number = self.next_id
        await self.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        return await self.answer(number)

    async def answer(self, number: int) -> dict[str, Any]:
        assert self.process.stdout is not None
        async with asyncio.timeout(60):
            while True:
                line = (await self.process.stdout.readline()).decode()
                assert line, "the agent closed stdout"
                self.lines.append(line)
                message: dict[str, Any] = json.loads(line)
                if message.get("method") == "session/request_permission":
                    await self.send(
                        {
                            "jsonrpc": "2.0",
                            "id": message["id"],
                            "result": {"outcome": {"outcome": "cancelled"}},
                        }
                    )
                if message.get("id") == number and "method" not in message:
                    return message


@asynccontextmanager
async def wire(root: Path, model: ModelServer, **env: str) -> AsyncIterator[Wire]:
    process = await asyncio.create_subprocess_exec(
        *foehn_argv("acp"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=agent_environment(root, model, **env),
        cwd=root,
    )
    channel = Wire(process)
    try:
        initialized = await channel.request(
            "initialize", {"protocolVersion": 1, "clientCapabilities": {}}
        )
        assert initialized["result"]["protocolVersion"] == 1
        yield channel
    finally:
        assert process.stdin is not None
        process.stdin.close()
        async with asyncio.timeout(60):
            await process.wait()


async def test_unknown_methods_and_malformed_params_are_named(
    root: Path, model: ModelServer
) -> None:
    async with wire(root, model) as channel:
        unknown = await channel.request("session/teleport", {"sessionId": "x"})
        assert unknown["error"]["code"] == -32601
        assert unknown["error"]["data"] == {"method": "session/teleport"}
        await channel.send("this is not JSON")
        missing = await channel.request("session/new", {"mcpServers": []})
        assert missing["error"]["code"] == -32602
        assert [e["loc"] for e in missing["error"]["data"]["errors"]] == [["cwd"]]
        everything = await channel.request("session/new", {"cwd": "/", "mcpServers": []})
        assert everything["error"]["data"] == {"field": "cwd"}
        session = await channel.request("session/new", {"cwd": str(root), "mcpServers": []})
        session_id = session["result"]["sessionId"]
        wrong = await channel.request(
            "session/prompt", {"sessionId": session_id, "prompt": "not a list"}
        )
        assert wrong["error"]["code"] == -32602
        assert wrong["error"]["data"]["errors"][0]["loc"][0] == "prompt"
        empty = await channel.request("session/prompt", {"sessionId": session_id, "prompt": []})
        assert empty["error"]["code"] == -32602
        assert empty["error"]["data"] == {"field": "prompt"}


async def test_stdout_is_only_the_protocol_even_when_a_plugin_prints(
    root: Path, model: ModelServer
) -> None:
    plugins = root.parent / "plugins"
    plugins.mkdir()
    (plugins / "noisy.py").write_text(NOISY_PLUGIN)
    model.script(Turn(tool_calls=[("shout", {"text": "quiet"})]), Turn(text="QUIET it is."))
    async with wire(root, model, FOEHN_PLUGIN_PATHS=str(plugins)) as channel:
        session = await channel.request("session/new", {"cwd": str(root), "mcpServers": []})
        answer = await channel.request(
            "session/prompt",
            {
                "sessionId": session["result"]["sessionId"],
                "prompt": [{"type": "text", "text": "Shout"}],
            },
        )
    assert answer["result"] == {"stopReason": "end_turn"}
    results = [m for m in model.requests[1].body["messages"] if m["role"] == "tool"]
    assert results[0]["content"] == "QUIET"
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in channel.lines)
    assert not any("noise" in line for line in channel.lines)


async def test_the_diff_of_a_new_file_carries_old_text_null(root: Path, model: ModelServer) -> None:
    """The SDK drops None members; a client that draws a new file only for ``"oldText":
    null`` would show the person nothing of what they approve."""
    write = ("write_file", {"path": "new.py", "content": "print('new')\n"})
    model.script(Turn(tool_calls=[write]), Turn(text="Asked."))
    async with wire(root, model) as channel:
        session = await channel.request("session/new", {"cwd": str(root), "mcpServers": []})
        await channel.request(
            "session/prompt",
            {
                "sessionId": session["result"]["sessionId"],
                "prompt": [{"type": "text", "text": "Write new.py"}],
            },
        )
    [asked] = [
        message
        for line in channel.lines
        if (message := json.loads(line)).get("method") == "session/request_permission"
    ]
    [diff] = [c for c in asked["params"]["toolCall"]["content"] if c["type"] == "diff"]
    assert diff["path"] == str(root / "new.py")
    assert "oldText" in diff
    assert diff["oldText"] is None
    assert diff["newText"] == "print('new')\n"
    assert not (root / "new.py").exists()  # the client cancelled: nothing written
