"""Limits on every sandboxed program: data memory, processes, file size and CPU time.

They are set on bubblewrap's sandboxed child, after it made the new user namespace and before
it starts the program (``handshake``), so the process limit counts only the call's own
processes (``RLIMIT_NPROC`` counts per user *in the namespace where it is set*; set before,
it would count every process the person runs on the machine). A program started by someone
else (an MCP server, by its SDK) gets util-linux's ``prlimit`` as its launcher inside the
sandbox instead, to the same effect. Set in Foehn's own process, every start would copy the
server (``fork`` instead of ``vfork``: tens of milliseconds).

``RLIMIT_NPROC`` never counts root's processes. When Foehn runs as root, a ``pids`` cgroup per
call carries the process limit instead, where one can be made; where none can, the limit is
reported as not enforced (``foehn sandbox`` says so).

A program stopped by a limit gets a result that names it: the CPU and file size limits end it
with their own signals; running out of memory or processes shows as the program's own error,
recognised by its usual words.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import resource
import secrets
import shutil
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from foehn_lsp.config.sandbox import SandboxSettings

log = logging.getLogger(__name__)

MB = 1024 * 1024
SIGXCPU_EXIT = 128 + 24
SIGXFSZ_EXIT = 128 + 25
"""bubblewrap exits with 128 + the signal that ended the program."""
CGROUP_REMOVE_SECONDS = 2.0
OUT_OF_MEMORY = re.compile(
    r"MemoryError|Cannot allocate memory|out of memory|bad_alloc|heap out of memory|ENOMEM",
    re.IGNORECASE,
)
FILE_TOO_LARGE = re.compile(r"File too large|EFBIG|File size limit exceeded")
"""A program that ignores SIGXFSZ (Python does) sees EFBIG instead."""
OUT_OF_PROCESSES = re.compile(
    r"Resource temporarily unavailable|Cannot fork|can't start new thread|fork: retry|EAGAIN"
)


@dataclass(frozen=True, kw_only=True)
class Limits:
    memory_mb: int
    processes: int
    file_size_mb: int
    cpu_seconds: int

    @classmethod
    def of(cls, settings: SandboxSettings) -> Limits:
        return cls(
            memory_mb=settings.memory_mb,
            processes=settings.processes,
            file_size_mb=settings.file_size_mb,
            cpu_seconds=settings.cpu_seconds,
        )

    @property
    def scratch_bytes(self) -> int:
        """The size of each scratch folder (``/tmp``, the home folder, ``/dev/shm``): files
        there are memory too."""
        return self.memory_mb * MB

    def launcher(self, prlimit: str, *, processes: bool) -> list[str]:
        """``prlimit`` and its options, to put before the program (``processes``: whether
        ``RLIMIT_NPROC`` counts here)."""
        data, size = self.memory_mb * MB, self.file_size_mb * MB
        args = [prlimit, f"--data={data}:{data}", f"--fsize={size}:{size}"]
        # The soft CPU limit sends SIGXCPU (which names the limit); the hard one, a second
        # later, SIGKILL for a program that catches it.
        args.append(f"--cpu={self.cpu_seconds}:{self.cpu_seconds + 1}")
        if processes:
            args.append(f"--nproc={self.processes}:{self.processes}")
        return [*args, "--"]

    def apply(self, pid: int, *, processes: bool) -> None:
        """Set the same limits as ``launcher`` on the running process ``pid``; raises
        ``OSError`` when one cannot be set."""
        data, size = self.memory_mb * MB, self.file_size_mb * MB
        resource.prlimit(pid, resource.RLIMIT_DATA, (data, data))
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (size, size))
        resource.prlimit(pid, resource.RLIMIT_CPU, (self.cpu_seconds, self.cpu_seconds + 1))
        if processes:
            resource.prlimit(pid, resource.RLIMIT_NPROC, (self.processes, self.processes))

    def named(self, exit_code: int | None, output: str) -> str | None:
        """The limit that stopped a program, from how it ended, or ``None``."""
        if exit_code == SIGXCPU_EXIT:
            return f"the CPU time limit of {self.cpu_seconds} s (cpu_seconds) stopped it"
        if exit_code == SIGXFSZ_EXIT:
            return f"the file size limit of {self.file_size_mb} MB (file_size_mb) stopped it"
        if exit_code in (None, 0):
            return None
        tail = output[-4000:]
        if FILE_TOO_LARGE.search(tail):
            return f"the file size limit of {self.file_size_mb} MB (file_size_mb) stopped it"
        if OUT_OF_MEMORY.search(tail):
            return f"it ran out of memory: the limit is {self.memory_mb} MB (memory_mb)"
        if OUT_OF_PROCESSES.search(tail):
            return f"it could not start more processes: the limit is {self.processes} (processes)"
        return None


@cache
def prlimit() -> str | None:
    """util-linux's ``prlimit`` in the system folders, where it runs inside the sandbox."""
    return shutil.which("prlimit", path="/usr/bin:/bin:/usr/sbin:/sbin")


@dataclass(frozen=True, kw_only=True)
class ProcessLimit:
    """How the process limit is enforced on this machine."""

    by: str
    """``namespace`` (``RLIMIT_NPROC`` in the call's user namespace), ``cgroup`` (a pids
    cgroup per call, for root) or ``none``."""
    cgroups: Path | None = None
    """Where the per-call cgroups are made (``cgroup``)."""
    note: str


@cache
def process_limit() -> ProcessLimit:
    if os.geteuid() != 0:
        return ProcessLimit(by="namespace", note="per call, in its own user namespace")
    base = _pids_cgroup()
    if base is not None:
        return ProcessLimit(by="cgroup", cgroups=base, note=f"per call, by a pids cgroup in {base}")
    return ProcessLimit(
        by="none",
        note="not enforced: Foehn runs as root, whose processes RLIMIT_NPROC does not count, "
        "and no pids cgroup can be made here",
    )


@contextlib.contextmanager
def call_cgroup(limits: Limits) -> Iterator[Path | None]:
    """A pids cgroup for one call (removed afterwards), where that is how processes are
    limited; ``None`` otherwise."""
    chosen = process_limit()
    if chosen.cgroups is None:
        yield None
        return
    group = chosen.cgroups / f"foehn-{os.getpid()}-{secrets.token_hex(6)}"
    try:
        group.mkdir()
        (group / "pids.max").write_text(f"{limits.processes}\n")
    except OSError as exc:
        raise OSError(f"cannot make the pids cgroup {group}: {exc}") from None
    try:
        yield group
    finally:
        _remove(group)


def joining(group: Path, argv: list[str]) -> list[str]:
    """``argv`` started inside ``group``: a shell writes its own pid there, then runs it, so
    that every process the call starts is counted from the first."""
    script = 'echo 0 > "$0/cgroup.procs" && exec "$@"'
    return ["/bin/sh", "-c", script, str(group), *argv]


def _remove(group: Path) -> None:
    """Kill whatever is left in ``group`` (a sandbox's init that outlived its parent), then
    remove it."""
    deadline = time.monotonic() + CGROUP_REMOVE_SECONDS
    while True:
        with contextlib.suppress(OSError, ValueError):
            for pid in (group / "cgroup.procs").read_text().split():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGKILL)
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                log.warning("the pids cgroup %s still has processes; left in place", group)
                return
            time.sleep(0.01)


def _pids_cgroup() -> Path | None:
    """A folder where this (root) process may make pids cgroups: its own cgroup in the ``pids``
    hierarchy (cgroup v1), or the root of a v2 hierarchy it is at the root of."""
    try:
        own = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in own:
        number, controllers, path = line.split(":", 2)
        if "pids" in controllers.split(","):
            for mount in mounts:
                fields = mount.split(" - ")
                if (
                    len(fields) == 2
                    and fields[1].startswith("cgroup ")
                    and "pids" in (fields[1].split()[-1].split(","))
                ):
                    base = Path(fields[0].split()[4]) / path.lstrip("/")
                    if (base / "cgroup.procs").exists() and os.access(base, os.W_OK):
                        return base
        if number == "0" and path == "/":
            base = Path("/sys/fs/cgroup")
            enabled = base / "cgroup.subtree_control"
            try:
                if "pids" not in enabled.read_text().split():
                    enabled.write_text("+pids\n")
            except OSError:
                continue
            return base
    return None
