"""Starting one process and collecting what it prints: an argument list and never a shell,
stdin closed (or given bytes, then closed), its own process group (killed whole on timeout,
cancellation, or when the call ends), output captured in order (stdout and stderr
interleaved) and capped.

This layer knows nothing of sandboxes: ``foehn_lsp.sandbox.runner`` builds the argument list
(bubblewrap's, with the program after it) and the environment, then hands them here."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from foehn_lsp.sandbox.network import Connection

KEEP_HEAD = 8_000
KEEP_TAIL = 24_000
MAX_OUTPUT_BYTES = 64 * 1024 * 1024
KILL_GRACE = 2.0
DRAIN_SECONDS = 0.5
EXIT_POLL = 0.02
FIRST_POLL = 0.0005
CLOSE_SECONDS = 1.0

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Finished:
    argv: tuple[str, ...]
    exit_code: int | None
    """``None`` when the process was killed by Foehn (timeout or too much output)."""
    seconds: float
    output: str
    dropped: int
    """Bytes of output not kept."""
    stopped: str | None = None
    """Why Foehn stopped the process, if it did."""
    sandbox: str | None = None
    """The sandbox policy it ran under (``full`` when it had the person's own rights)."""
    limit: str | None = None
    """The sandbox's limit that stopped it, in words, when one did."""
    network: tuple[Connection, ...] = ()
    """Every connection it attempted through its network proxy (a call with a grant)."""

    def summary(self, cwd: str) -> str:
        line = " ".join(_quote(a) for a in self.argv)
        status = f"stopped: {self.stopped}" if self.stopped else f"exit {self.exit_code}"
        if self.limit:
            status += f": {self.limit}"
        where = f"; sandbox {self.sandbox}" if self.sandbox else ""
        return f"$ {line}\n(in {cwd}; {status}; {self.seconds:.1f} s{where})"


def _quote(argument: str) -> str:
    return argument if re.fullmatch(r"[\w@%+=:,./-]+", argument) else repr(argument)


class _Capture:
    """Keeps the head and the tail of a stream, counting what falls between."""

    def __init__(self, keep_head: int, keep_tail: int) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.keep_head, self.keep_tail = keep_head, keep_tail
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep_head - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.keep_tail:
                del self.tail[: len(self.tail) - self.keep_tail]

    def text(self) -> tuple[str, int]:
        dropped = self.total - len(self.head) - len(self.tail)
        head, tail = bytes(self.head), bytes(self.tail)
        if b"\x00" in head[:4096] + tail[:4096]:
            return f"(binary output, {self.total:,} bytes, not shown)", self.total
        decoded = head.decode("utf-8", "replace")
        if dropped > 0:
            decoded += f"\n... ({dropped:,} bytes of output not shown) ...\n"
        return decoded + tail.decode("utf-8", "replace"), max(dropped, 0)


async def run_program(
    argv: Sequence[str],
    *,
    cwd: Path,
    seconds: float,
    keep_head: int = KEEP_HEAD,
    keep_tail: int = KEEP_TAIL,
    env: Mapping[str, str],
    stdin: bytes | None = None,
    pass_fds: Sequence[int] = (),
    on_start: Callable[[int], Awaitable[None]] | None = None,
    on_kill: Callable[[], None] | None = None,
) -> Finished:
    """Run ``argv`` to the end (or the timeout) with exactly ``env``, ``stdin`` as its input
    (else none); the whole process group is gone afterwards. ``pass_fds`` stay open in the
    process; ``on_start`` is awaited with its pid once it runs (within the timeout; if it
    raises, the group is killed and the error goes on); ``on_kill`` is called whenever the
    group is killed, to kill what its leader started outside it (the sandboxed child)."""
    started = time.monotonic()
    process, cut = await _whole(
        asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            env=dict(env),
            pass_fds=tuple(pass_fds),
        )
    )
    capture = _Capture(keep_head, keep_tail)
    stopped: str | None = None
    reader = asyncio.create_task(_read(process, capture))
    waiter = asyncio.create_task(_exited(process))
    feeder = asyncio.create_task(_feed(process, stdin)) if stdin is not None else None
    try:
        async with asyncio.timeout(seconds):
            if on_start is not None:
                _, cut_then = await _whole(on_start(process.pid))
                cut = cut or cut_then
            if cut:
                raise asyncio.CancelledError
            await asyncio.wait({reader, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if waiter.done():
                # Children left in the background may hold the pipe open: drain briefly.
                await asyncio.wait({reader}, timeout=DRAIN_SECONDS)
            elif (stopped := reader.result()) is None:
                await waiter
    except TimeoutError:
        stopped = f"it did not finish within {seconds:g} s"
    except (asyncio.CancelledError, OSError):
        await _kill_group(process, grace=0.0, also=on_kill)
        raise
    finally:
        await _kill_group(process, grace=KILL_GRACE, also=on_kill)
        tasks = [reader, waiter] + ([feeder] if feeder is not None else [])
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await _close(process)
    if stopped is None and reader.done() and not reader.cancelled() and not reader.exception():
        stopped = reader.result()
    output, dropped = capture.text()
    return Finished(
        argv=tuple(argv),
        exit_code=None if stopped else process.returncode,
        seconds=time.monotonic() - started,
        output=output,
        dropped=dropped,
        stopped=stopped,
    )


async def _whole(launching: Awaitable[T]) -> tuple[T, bool]:
    """``launching`` awaited to its end even when this call is cancelled meanwhile, and
    whether it was: the caller kills what was launched, then raises the cancellation. Cut
    short, a launch leaves a process nobody knows of: ``create_subprocess_exec`` kills only
    bubblewrap, whose sandboxed child may not yet have asked to die with it, and a handshake
    cut before it read the child's pid cannot kill that child."""
    task = asyncio.ensure_future(launching)
    cut = False
    while True:
        try:
            return await asyncio.shield(task), cut
        except asyncio.CancelledError:
            if task.cancelled():
                raise
            cut = True


async def _read(process: asyncio.subprocess.Process, capture: _Capture) -> str | None:
    """Read what the program prints into ``capture`` until it ends; why it was stopped, if it
    printed too much."""
    assert process.stdout is not None
    while chunk := await process.stdout.read(65536):
        capture.add(chunk)
        if capture.total > MAX_OUTPUT_BYTES:
            return f"it printed more than {MAX_OUTPUT_BYTES // 2**20} MB"
    return None


async def _feed(process: asyncio.subprocess.Process, data: bytes) -> None:
    assert process.stdin is not None
    with contextlib.suppress(ConnectionError):  # a program that does not read its input
        process.stdin.write(data)
        await process.stdin.drain()
    process.stdin.close()


async def _kill_group(
    process: asyncio.subprocess.Process, grace: float, also: Callable[[], None] | None
) -> None:
    """SIGTERM to the whole group, SIGKILL after ``grace`` seconds (and ``also``), and reap
    the leader."""
    group = process.pid
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGTERM if grace else signal.SIGKILL)
    try:
        if grace:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(_exited(process)), grace)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
        if also is not None:
            also()
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await asyncio.shield(_exited(process))


async def _close(process: asyncio.subprocess.Process) -> None:
    """Discard what is left in the pipe so the transport sees it close, now that the group is
    gone (a paused, unread pipe would keep it open)."""
    assert process.stdout is not None
    with contextlib.suppress(TimeoutError, ConnectionError):
        async with asyncio.timeout(CLOSE_SECONDS):
            while await process.stdout.read(65536):
                pass
            await process.wait()


async def _exited(process: asyncio.subprocess.Process) -> int:
    """The exit code, as soon as the process has exited. (``Process.wait`` also waits for
    every holder of its pipes, which a background child can keep open.) On Linux a pidfd says
    the moment the process exits; elsewhere, or if it is already gone, poll: often at first,
    then every ``EXIT_POLL``, since most commands end within milliseconds."""
    if process.returncode is None:
        with contextlib.suppress(AttributeError, OSError):  # no pidfd here, or already reaped
            pidfd = os.pidfd_open(process.pid)
            try:
                if process.returncode is None:  # else the pid may already name another process
                    await _readable(pidfd)
            finally:
                os.close(pidfd)
    delay = FIRST_POLL
    while process.returncode is None:  # the child watcher reaps it and sets the code
        await asyncio.sleep(delay)
        delay = min(delay * 2, EXIT_POLL)
    return process.returncode


async def _readable(fd: int) -> None:
    loop = asyncio.get_running_loop()
    ready = asyncio.Event()
    loop.add_reader(fd, ready.set)
    try:
        await ready.wait()
    finally:
        loop.remove_reader(fd)
