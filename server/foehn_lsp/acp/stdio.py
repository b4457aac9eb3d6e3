"""Running the agent on stdio: newline-delimited JSON-RPC on stdin and stdout, logs on stderr.

The protocol owns file descriptors 0 and 1. Before anything else runs, both are moved to
private descriptors and 0 and 1 are pointed at /dev/null and stderr, so a plugin that prints or
a child process that reads its standard input cannot corrupt the conversation.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from typing import cast

from acp import run_agent, stdio_streams
from acp.interfaces import Agent

from foehn_lsp.acp.agent import FoehnAgent

STDIO_LIMIT = 50 * 1024 * 1024
"""Longest line accepted from the client (a prompt with large embedded files)."""


async def serve(agent: FoehnAgent) -> None:
    """Talk to the client on stdio until it closes stdin (or sends SIGTERM); then end running
    turns (they are saved as cancelled) and return."""
    protocol_in = os.fdopen(os.dup(0), "rb", buffering=0)
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    stdin = sys.stdin
    sys.stdin, sys.stdout = protocol_in, protocol_out
    try:
        reader, writer = await stdio_streams(limit=STDIO_LIMIT)
    finally:
        sys.stdin, sys.stdout = stdin, sys.stderr
    main = asyncio.current_task()
    assert main is not None
    # An editor that stops its agent with SIGTERM gets the same ending as one that closes stdin.
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main.cancel)
    try:
        # The SDK routes a method to the agent only if it has it (the rest are MethodNotFound),
        # so Foehn implements what it offers, not the whole protocol class.
        await run_agent(cast(Agent, agent), input_stream=writer, output_stream=reader)
    finally:
        await agent.shutdown()


def main(*, permission_timeout: float) -> int:
    """``foehn acp``."""
    with contextlib.suppress(asyncio.CancelledError):
        asyncio.run(serve(FoehnAgent(permission_timeout=permission_timeout)))
    return 0
