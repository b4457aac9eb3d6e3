"""The language server against an empty pygls server, in the same run: time to answer
``initialize`` (from spawning the process), idle RSS, and code-action latency while five
scripted runs are active (Foehn) or idle (the empty server). Then how long each way of
cancelling takes to stop a run."""

from __future__ import annotations

import asyncio
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

from foehn_lsp.testing import Fault, ModelServer, Turn

HERE = Path(__file__).parent
ROUNDS = 5
REQUESTS = 50


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


async def _latency(client: LanguageClient, root: Path) -> float:
    timings = []
    for _ in range(REQUESTS):
        started = time.perf_counter()
        await client.text_document_code_action_async(_code_action(root))
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


async def _measure(
    command: list[str], root: Path, env: dict[str, str], model: ModelServer | None
) -> dict[str, float]:
    starts = []
    for _ in range(ROUNDS):
        client, elapsed = await _start(command, root, env)
        starts.append(elapsed)
        await _stop(client)
    client, _ = await _start(command, root, env)
    await asyncio.sleep(1.0)
    assert client._server is not None
    rss = _rss_kib(client._server.pid)
    runs = []
    if model is not None:
        model.script(*[Fault(delay=30, then=Turn(text="late"))] * 5)
        runs = [
            asyncio.ensure_future(
                client.workspace_execute_command_async(
                    types.ExecuteCommandParams(command="foehn.run", arguments=[f"task {n}"])
                )
            )
            for n in range(5)
        ]
        await asyncio.to_thread(model.wait_for_requests, 5)
    latency = await _latency(client, root)
    if runs:
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="foehn.cancel", arguments=[])
        )
        await asyncio.gather(*runs)
    await _stop(client)
    return {"initialize": statistics.median(starts), "rss": rss, "latency": latency}


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
    (root / "a.py").write_text("x = 1\n")
    return root


def _row(label: str, foehn: float, empty: float, unit: str, scale: float, note: str = "") -> str:
    return (
        f"  {label:<21} foehn {foehn * scale:8.2f} {unit}{note}   empty {empty * scale:8.2f} "
        f"{unit}   ratio {foehn / empty:.2f}x"
    )


async def _main() -> list[str]:
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
        foehn = await _measure([sys.executable, "-m", "foehn_lsp", "serve"], root, env, model)
        empty = await _measure([sys.executable, str(HERE / "empty_server.py")], root, env, None)
        cancel = {
            how: await _cancel_once(how, root, env, model)
            for how in ("progress", "request", "command")
        }
    return [
        "language server (peer: an empty pygls server; medians)",
        _row("initialize answered", foehn["initialize"], empty["initialize"], "ms", 1000),
        _row("idle RSS", foehn["rss"], empty["rss"], "MB", 1 / 1024),
        _row(
            "code action latency",
            foehn["latency"],
            empty["latency"],
            "ms",
            1000,
            " (5 runs active)",
        ),
        "  cancel to done event  "
        + "   ".join(f"{how} {seconds * 1000:.1f} ms" for how, seconds in cancel.items()),
    ]


def main() -> list[str]:
    logging.getLogger("pygls").setLevel(logging.ERROR)  # the bench client ignores notifications
    return asyncio.run(_main())


if __name__ == "__main__":
    print("\n".join(main()))
