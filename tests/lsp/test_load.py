"""Under load: many runs at once stay correct while code actions keep coming, and finished runs
leave nothing behind (the server's memory after 2,000 runs is what it was after 1,100)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.testing import ModelServer, Turn
from lsp.wire.raw import RawClient, initialized, raw_server

pytestmark = pytest.mark.process

MAX_GROWTH_KIB = 1024
"""Growth allowed over the last 900 of 2,000 runs. Measured on 2 idle cores: 2.0-2.2 MB over
runs 200 to 1,100 (the allocator still settling), 0.3-0.6 MB over runs 1,100 to 2,000. With
pygls keeping its finished futures (``FoehnProtocol.forget`` made to do nothing) the server
grew 2.2 MB over runs 1,100 to 2,000, against 0.3 MB in the same run of the code as it is."""


def rss_kib(client: RawClient) -> int:
    status = Path(f"/proc/{client.process.pid}/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(line.split()[1])


def echo(body: dict[str, Any]) -> Turn:
    """An instant model that answers with the task it was given."""
    task = body["messages"][-1]["content"]
    return Turn(text=f"done: {task}")


def slow_echo(body: dict[str, Any]) -> Turn:
    time.sleep(0.5)  # in the model server's thread: every run is still active at once
    return echo(body)


async def runs(client: RawClient, tasks: list[str]) -> list[dict[str, Any]]:
    ids = [
        client.request("workspace/executeCommand", {"command": "foehn.run", "arguments": [task]})
        for task in tasks
    ]
    return [(await client.reply(i, within=120))["result"] for i in ids]


async def test_twenty_runs_at_once_stay_correct_while_code_actions_arrive(
    root: Path, model: ModelServer
) -> None:
    model.script(*[slow_echo] * 20)
    async with raw_server(root, model) as client:
        await initialized(client, root)
        tasks = [f"task {n}" for n in range(20)]
        pending = asyncio.ensure_future(runs(client, tasks))
        answered = 0
        position = {"line": 0, "character": 0}
        while not pending.done():
            reply = await client.call(
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": (root / "a.py").as_uri()},
                    "range": {"start": position, "end": {"line": 0, "character": 3}},
                    "context": {"diagnostics": []},
                },
            )
            assert reply["result"][0]["title"] == "Foehn: Explain selection"
            answered += 1
            await asyncio.sleep(0.05)
        results = await pending
    assert answered > 0
    assert sorted(r["answer"] for r in results) == sorted(f"done: {t}" for t in tasks)
    assert {r["stopReason"] for r in results} == {"answer"}
    assert len({r["runId"] for r in results}) == 20


async def test_finished_runs_leave_nothing_behind(root: Path, model: ModelServer) -> None:
    model.script(*[echo] * 2000)
    async with raw_server(root, model, own_process=True) as client:
        await initialized(client, root)

        async def batch(first: int, count: int) -> None:
            for start in range(first, first + count, 25):
                done = await runs(client, [f"t{n}" for n in range(start, start + 25)])
                assert all(r["stopReason"] == "answer" for r in done)
                client.received.clear()
                client.replies.clear()

        await batch(0, 1100)
        settled = rss_kib(client)
        await batch(1100, 900)
        after_2000 = rss_kib(client)
    assert after_2000 - settled < MAX_GROWTH_KIB, (settled, after_2000)


HOG = '''
import time

from foehn_lsp import RiskLevel, tool


@tool(risk=RiskLevel.READ_ONLY)
async def hog(seconds: float) -> str:
    """Hold the event loop (a badly written tool)."""
    time.sleep(seconds)
    return "done"


def tools():
    return [hog]
'''


async def test_code_actions_are_answered_while_the_event_loop_is_held(
    root: Path, model: ModelServer, tmp_path: Path
) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "hog.py").write_text(HOG)
    model.script(Turn(tool_calls=[("hog", {"seconds": 10})]), Turn(text="held"))
    async with raw_server(root, model, FOEHN_PLUGIN_PATHS=str(plugins)) as client:
        await initialized(client, root)
        run = client.request(
            "workspace/executeCommand", {"command": "foehn.run", "arguments": ["hold it"]}
        )
        await client.wait_for(
            lambda m: m.get("method") == "foehn/runEvent" and m["params"]["event"] == "tool_call"
        )
        position = {"line": 0, "character": 0}
        action = client.request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": (root / "a.py").as_uri()},
                "range": {"start": position, "end": {"line": 0, "character": 3}},
                "context": {"diagnostics": []},
            },
        )
        reply = await client.reply(action, within=5)  # the tool holds the loop for 10 s
        assert reply["result"][0]["title"] == "Foehn: Explain selection"
        assert (await client.reply(run, within=60))["result"]["answer"] == "held"
