"""ACP: how fast ``foehn acp`` answers ``session/cancel``, and what a turn costs on top of the
protocol itself.

Cancel: the official SDK's client cancels a turn while the model is thinking (a scripted model
server that takes 30 s to answer) and while a sandboxed program runs (``sleep 30``); the
figure is the time from sending ``session/cancel`` to the ``cancelled`` response (target:
under 0.5 s, as for the language server's cancel).

Turn: one ``session/prompt`` whose model answers at once, through ``foehn acp`` (the request to
the model server, the session file, audit, checkpoint, the update stream) against the same
prompt through a bare agent on the same SDK that streams one chunk and ends the turn without
asking any model (the protocol and process floor): same client, same machine, same run.
"""

from __future__ import annotations

import asyncio
import functools
import os
import statistics
import sys
import tempfile
import textwrap
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, cast

from acp import schema, spawn_agent_process, text_block
from acp.core import ClientSideConnection
from acp.interfaces import Client

from foehn_lsp.testing import Fault, ModelServer, Turn

ROUNDS = 7

BARE_AGENT = textwrap.dedent(
    """
    import asyncio
    from acp import run_agent, schema
    from acp.helpers import update_agent_message_text

    class Bare:
        def on_connect(self, conn):
            self.conn = conn

        async def initialize(self, protocol_version, **kwargs):
            return schema.InitializeResponse(protocol_version=1)

        async def new_session(self, cwd, **kwargs):
            return schema.NewSessionResponse(session_id="s")

        async def prompt(self, session_id, prompt, **kwargs):
            await self.conn.session_update(session_id, update_agent_message_text("Done."))
            return schema.PromptResponse(stop_reason="end_turn")

    asyncio.run(run_agent(Bare()))
    """
)


class Listener:
    """The client side: counts updates, allows every call."""

    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.running = asyncio.Event()

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        if getattr(update, "status", None) == "in_progress":
            self.running.set()

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id="allow_once")
        )


def environment(state: Path, model: ModelServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    env.update(
        {
            "FOEHN_PROVIDER": "openai",
            "FOEHN_BASE_URL": model.openai_url,
            "OPENAI_API_KEY": "sk-bench-0123456789abcdefgh",
            "XDG_STATE_HOME": str(state / "state"),
            "XDG_CONFIG_HOME": str(state / "config"),
        }
    )
    return env


async def with_agent(
    command: list[str],
    env: dict[str, str],
    root: Path,
    action: Callable[[ClientSideConnection, Listener, str], Awaitable[list[float]]],
) -> list[float]:
    listener = Listener()
    async with spawn_agent_process(
        cast(Client, listener),
        *command,
        env=env,
        cwd=root,
        transport_kwargs={"stderr": asyncio.subprocess.DEVNULL, "shutdown_timeout": 20.0},
    ) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(root), mcp_servers=[])
        return await action(conn, listener, session.session_id)


async def cancel_times(
    conn: ClientSideConnection,
    listener: Listener,
    session_id: str,
    model: ModelServer,
    reply: Turn | Fault,
) -> list[float]:
    """Seconds from session/cancel to the response, once per round."""
    program = isinstance(reply, Turn)
    times = []
    for _ in range(ROUNDS):
        model.script(reply)
        listener.running.clear()
        asked = len(model.requests)
        turn = asyncio.create_task(conn.prompt(session_id=session_id, prompt=[text_block("go")]))
        if program:
            await asyncio.wait_for(listener.running.wait(), 60)
            await asyncio.sleep(0.3)  # past the sandbox's start
        else:
            await asyncio.to_thread(model.wait_for_requests, asked + 1)
        started = time.perf_counter()
        await conn.cancel(session_id=session_id)
        answer = await asyncio.wait_for(turn, 60)
        times.append(time.perf_counter() - started)
        assert answer.stop_reason == "cancelled", answer
    return times


async def turn_times(
    conn: ClientSideConnection, listener: Listener, session_id: str, model: ModelServer
) -> list[float]:
    """Seconds per prompt whose model answers at once."""
    times = []
    for _ in range(ROUNDS):
        model.script(Turn(text="Done."))
        started = time.perf_counter()
        answer = await conn.prompt(session_id=session_id, prompt=[text_block("Say done")])
        times.append(time.perf_counter() - started)
        assert answer.stop_reason == "end_turn", answer
    return times


def cancel_figures(root: Path, state: Path) -> Iterator[str]:
    foehn = [sys.executable, "-m", "foehn_lsp", "acp"]
    sleeper = Turn(tool_calls=[("run_command", {"command": ["sleep", "30"]})])
    for label, reply in (
        ("while the model thinks", Fault(delay=30, then=Turn(text="late"))),
        ("while a program runs", sleeper),
    ):
        with ModelServer() as model:
            times = asyncio.run(
                with_agent(
                    foehn,
                    environment(state, model),
                    root,
                    functools.partial(cancel_times, model=model, reply=reply),
                )
            )
        yield (
            f"  cancel {label}: median {statistics.median(times) * 1000:.0f} ms, "
            f"max {max(times) * 1000:.0f} ms ({ROUNDS} rounds; target < 500 ms)"
        )


def turn_figures(root: Path, state: Path) -> Iterator[str]:
    bare = state / "bare_agent.py"
    bare.write_text(BARE_AGENT)
    figures = {}
    with ModelServer() as model:
        env = environment(state, model)
        for name, command in (
            ("foehn acp", [sys.executable, "-m", "foehn_lsp", "acp"]),
            ("bare SDK agent", [sys.executable, str(bare)]),
        ):
            action = functools.partial(turn_times, model=model)
            figures[name] = statistics.median(asyncio.run(with_agent(command, env, root, action)))
    ratio = figures["foehn acp"] / figures["bare SDK agent"]
    yield (
        f"  one turn: foehn acp {figures['foehn acp'] * 1000:.1f} ms, bare SDK agent "
        f"{figures['bare SDK agent'] * 1000:.1f} ms (x{ratio:.1f}; medians of {ROUNDS})"
    )


def main() -> Iterator[str]:
    yield "acp: foehn acp driven by the official Python SDK's client"
    with tempfile.TemporaryDirectory() as temporary:
        state = Path(temporary)
        root = state / "ws"
        root.mkdir()
        (root / "app.py").write_text("x = 1\n")
        yield from cancel_figures(root, state)
        yield from turn_figures(root, state)


if __name__ == "__main__":
    for line in main():
        print(line)
