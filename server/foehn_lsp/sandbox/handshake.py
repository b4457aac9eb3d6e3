"""Setting a sandboxed call's limits from outside, before its program starts: no launcher
process inside the sandbox, and no shell to join the call's pids cgroup (each was a whole
``exec`` per call, the larger part of what the sandbox added to a short call).

bubblewrap writes the pid of its sandboxed child on ``--info-fd`` as soon as that child exists
(in the call's new user namespace), and the child waits on ``--block-fd`` once it has built the
view, before it starts anything. In between, Foehn sets the limits on that child with
``prlimit(2)`` and, where a pids cgroup carries the process limit, moves it into the call's
cgroup; then it lets the child go. The program and everything it starts inherit both, from the
first process on. Set there, ``RLIMIT_NPROC`` counts per user in the call's own namespace, as it
did when a launcher set it inside; bubblewrap's own set-up runs before any limit, so none can
break it.

bubblewrap reads ``--block-fd`` without looking at what it read: the descriptor closed unwritten
lets the child go too. So the write end is closed only by ``close``, which the runner calls
once the process group is gone, and which kills the child first (``kill``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from pathlib import Path

from foehn_lsp.sandbox.limits import Limits

INFO_BYTES = 65536


class LimitsNotSetError(OSError):
    """The sandboxed child could not be limited (its pid unknown, its cgroup or its limits
    refused): it was never let go, so its program did not run."""


class Handshake:
    """The two pipes of one call and what to set on its sandboxed child."""

    def __init__(self, limits: Limits, *, group: Path | None, processes: bool) -> None:
        """``group``: the call's pids cgroup, if it has one; ``processes``: whether
        ``RLIMIT_NPROC`` carries the process limit."""
        self.limits, self.group, self.processes = limits, group, processes
        self._info_read, self._info_write = os.pipe()
        self._block_read, self._block_write = os.pipe()
        self._open = {self._info_read, self._info_write, self._block_read, self._block_write}
        self._child: int | None = None
        """A pidfd of the sandboxed child once its pid is known, killed by ``close``."""

    @property
    def child_fds(self) -> tuple[int, int]:
        """The descriptors bubblewrap gets: ``--info-fd`` and ``--block-fd``."""
        return self._info_write, self._block_read

    def arguments(self) -> list[str]:
        info, block = self.child_fds
        return ["--info-fd", str(info), "--block-fd", str(block)]

    async def release(self, pid: int) -> None:
        """Once bubblewrap (``pid``) is started: limit its sandboxed child and let it go. A
        bubblewrap that ended before it made a child (bad arguments), or whose child ended
        (a path it could not bind), is left to say why. Raises ``LimitsNotSetError`` when
        the child cannot be limited (the caller kills the process group)."""
        for fd in self.child_fds:
            self._close(fd)
        try:
            info = await self._read_info()
        except OSError as exc:
            raise LimitsNotSetError(f"bubblewrap's info pipe could not be read: {exc}") from exc
        if not info:
            return
        child = _child_pid(info)
        if child is None:
            raise LimitsNotSetError(
                f"bubblewrap said something unexpected on its info pipe: {info[:200]!r}"
            )
        try:
            self._child = os.pidfd_open(child)
        except ProcessLookupError:
            return  # it could not build the view and is gone: bubblewrap says why
        except OSError:
            pass  # no pidfds (Linux before 5.3): the child dies with bubblewrap alone
        try:
            if self.group is not None:
                (self.group / "cgroup.procs").write_text(f"{child}\n")
            self.limits.apply(child, processes=self.processes)
        except ProcessLookupError:
            return  # it could not build the view and is gone: bubblewrap says why
        except OSError as exc:
            raise LimitsNotSetError(str(exc)) from exc
        try:
            os.write(self._block_write, b"\n")
        except BrokenPipeError:
            return  # the child ended after it was limited (a path it could not bind): as above

    def kill(self) -> None:
        """Kill the sandboxed child, the first process of the call's pid namespace, and with
        it all it started. It is in a session of its own, out of reach of its process group's
        signals, and does not always die with bubblewrap: killed before it asked to, it
        would be left waiting on ``--block-fd`` (and run once that closes), and while it
        lives its program keeps the call's output open."""
        if self._child is not None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._child, signal.SIGKILL)

    def close(self) -> None:
        """Kill the child and close what is still open (after the process group is gone)."""
        self.kill()
        if self._child is not None:
            os.close(self._child)
            self._child = None
        for fd in list(self._open):
            self._close(fd)

    def _close(self, fd: int) -> None:
        if fd in self._open:
            self._open.discard(fd)
            os.close(fd)

    async def _read_info(self) -> bytes:
        """All bubblewrap writes on the info pipe: it closes it after the child's pid (and
        the child closes its copy), so end of file comes right after."""
        fd = self._info_read
        os.set_blocking(fd, False)
        loop = asyncio.get_running_loop()
        got = bytearray()
        while len(got) < INFO_BYTES:
            try:
                chunk = os.read(fd, INFO_BYTES)
            except BlockingIOError:
                ready = loop.create_future()
                loop.add_reader(fd, ready.set_result, None)
                try:
                    await ready
                finally:
                    loop.remove_reader(fd)
                continue
            if not chunk:
                break
            got += chunk
        self._close(fd)
        return bytes(got)


def _child_pid(info: bytes) -> int | None:
    try:
        pid = json.loads(info)["child-pid"]
    except (ValueError, KeyError, TypeError):
        return None
    return pid if isinstance(pid, int) and pid > 0 else None
