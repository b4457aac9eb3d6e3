"""The language server against an empty pygls server, in the same run: time to answer
``initialize`` (from spawning the process), idle RSS, and code-action latency (p50, p95, max)
while 20 runs are busy with an instant model that calls a tool ten times per run (Foehn) or
while idle (the empty server). Then how long each way of cancelling takes to stop a run."""

from __future__ import annotations

import asyncio
import compileall
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

import foehn_lsp
from foehn_lsp.testing import Fault, ModelServer, Turn

HERE = Path(__file__).parent
ROUNDS = 7
RUNS = 20
STEPS = 10
"""Tool calls per run before the instant model answers."""


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def _start(
    command: list[str], root: Path, env: dict[str, str]
) -> tuple[LanguageClient, float]:
    client = LanguageClient("bench", "0")
    started = time.perf_counter()
    await client.start_io(*command, env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                window=types.WindowClientCapabilities(work_done_progress=True)
            ),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        )
    )
    elapsed = time.perf_counter() - started
    client.initialized(types.InitializedParams())
    return client, elapsed


async def _stop(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def _code_action(root: Path) -> types.CodeActionParams:
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=(root / "a.py").as_uri()),
        range=types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=0, character=5)
        ),
        context=types.CodeActionContext(diagnostics=[]),
    )


async def _latency(client: LanguageClient, root: Path, until: asyncio.Future[Any]) -> list[float]:
    """Code-action round trips, one every 10 ms, until ``until`` is done (at least 50)."""
    timings: list[float] = []
    while len(timings) < 50 or not until.done():
        started = time.perf_counter()
        await client.text_document_code_action_async(_code_action(root))
        timings.append(time.perf_counter() - started)
        await asyncio.sleep(0.01)
    return timings


def _busy(body: dict[str, Any]) -> Turn:
    """An instant model: read a file STEPS times (from another line each time), then answer."""
    calls = sum(1 for m in body["messages"] if m["role"] == "tool")
    if calls < STEPS:
        return Turn(tool_calls=[("read_file", {"path": "a.py", "offset": calls + 1})])
    return Turn(text="done")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def _measure(
    command: list[str], root: Path, env: dict[str, str], model: ModelServer | None
) -> dict[str, float]:
    client, _ = await _start(command, root, env)
    await asyncio.sleep(1.0)
    assert client._server is not None
    rss = _rss_kib(client._server.pid)
    busy: asyncio.Future[Any]
    if model is not None:
        model.script(*[_busy] * (RUNS * (STEPS + 1)))
        busy = asyncio.gather(
            *(
                client.workspace_execute_command_async(
                    types.ExecuteCommandParams(command="foehn.run", arguments=[f"task {n}"])
                )
                for n in range(RUNS)
            )
        )
        await asyncio.to_thread(model.wait_for_requests, RUNS)
    else:
        busy = asyncio.ensure_future(asyncio.sleep(0))
    timings = await _latency(client, root, busy)
    results = await busy
    assert model is None or all(r["stopReason"] == "answer" for r in results), results
    await _stop(client)
    return {
        "rss": rss,
        "p50": statistics.median(timings),
        "p95": _percentile(timings, 0.95),
        "max": max(timings),
    }


async def _cancel_once(how: str, root: Path, env: dict[str, str], model: ModelServer) -> float:
    client, _ = await _start([sys.executable, "-m", "foehn_lsp", "serve"], root, env)
    done = asyncio.Event()
    tokens: list[Any] = []

    @client.feature("foehn/runEvent")
    def on_event(params: Any) -> None:
        if params.event == "done":
            done.set()

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def on_create(params: types.WorkDoneProgressCreateParams) -> None:
        tokens.append(params.token)

    model.script(Fault(delay=30, then=Turn(text="late")))
    before = len(model.requests)
    pending = asyncio.ensure_future(
        client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command="foehn.run", arguments=["wait"]),
            msg_id="r1",
        )
    )
    await asyncio.to_thread(model.wait_for_requests, before + 1)
    started = time.perf_counter()
    if how == "progress":
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=tokens[0]))
    elif how == "request":
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="r1"))
    else:
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="foehn.cancel", arguments=[])
        )
    await done.wait()
    elapsed = time.perf_counter() - started
    await asyncio.gather(pending, return_exceptions=True)
    await _stop(client)
    return elapsed


def _workspace(folder: str) -> Path:
    root = Path(folder, "ws")
    root.mkdir()
    (root / "a.py").write_text("".join(f"x{n} = {n}  # a line of code\n" for n in range(400)))
    return root


def _row(label: str, foehn: float, empty: float, unit: str, scale: float, note: str = "") -> str:
    return (
        f"  {label:<21} foehn {foehn * scale:8.2f} {unit}{note}   empty {empty * scale:8.2f} "
        f"{unit}   ratio {foehn / empty:.2f}x"
    )


def _compile_foehn() -> None:
    """Write Foehn's bytecode before the servers start. Here Foehn runs from its source tree
    (an editable install), and where ``PYTHONDONTWRITEBYTECODE`` is set nothing ever writes
    that bytecode: every start would compile the modules an installed copy loads compiled,
    as the empty server loads pygls's, and the start-up ratio would time the compiler."""
    compileall.compile_dir(Path(foehn_lsp.__file__).parent, quiet=1)


async def _main() -> list[str]:
    _compile_foehn()
    with tempfile.TemporaryDirectory() as folder, ModelServer() as model:
        root = _workspace(folder)
        env = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
        env.update(
            {
                "FOEHN_PROVIDER": "openai",
                "FOEHN_BASE_URL": model.openai_url,
                "OPENAI_API_KEY": "unused-key-0123456789",
                "XDG_STATE_HOME": folder,
            }
        )
        commands = {
            "foehn": [sys.executable, "-m", "foehn_lsp", "serve"],
            "empty": [sys.executable, str(HERE / "empty_server.py")],
        }
        starts: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(ROUNDS):  # alternating, so that both see the same machine
            for name, command in commands.items():
                client, elapsed = await _start(command, root, env)
                starts[name].append(elapsed)
                await _stop(client)
        foehn = await _measure(commands["foehn"], root, env, model)
        empty = await _measure(commands["empty"], root, env, None)
        foehn["initialize"] = statistics.median(starts["foehn"])
        empty["initialize"] = statistics.median(starts["empty"])
        cancel = {
            how: await _cancel_once(how, root, env, model)
            for how in ("progress", "request", "command")
        }
    return [
        "language server (peer: an empty pygls server; medians)",
        _row("initialize answered", foehn["initialize"], empty["initialize"], "ms", 1000),
        _row("idle RSS", foehn["rss"], empty["rss"], "MB", 1 / 1024),
        *(
            _row(f"code action {name}", foehn[name], empty[name], "ms", 1000)
            for name in ("p50", "p95", "max")
        ),
        f"  (Foehn: {RUNS} runs of {STEPS} tool calls each with an instant model; empty: idle)",
        "  cancel to done event  "
        + "   ".join(f"{how} {seconds * 1000:.1f} ms" for how, seconds in cancel.items()),
    ]


def main() -> list[str]:
    logging.getLogger("pygls").setLevel(logging.ERROR)  # the bench client ignores notifications
    return asyncio.run(_main())


if __name__ == "__main__":
    print("\n".join(main()))
