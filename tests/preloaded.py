"""``foehn`` as a test starts it: a real process of its own, forked from an interpreter that has
imported Foehn once, instead of a new interpreter importing it again (about 0.6 s of CPU for
``foehn run``, 1.2 s for ``foehn serve`` and ``foehn acp``, in each of hundreds of tests).

    foehn_argv("serve")  ->  [python, -I, -S, preloaded_launch.py, SOCKET, "serve"]

The command is a small launcher (``preloaded_launch.py``, the standard library only) that hands
its standard input, output and error, its environment, working folder and arguments to this
module's server; the server forks a process that takes them as its own and runs ``foehn``'s
``main`` exactly as ``python -m foehn_lsp`` would. The launcher passes on the signals it gets
and exits as that process exits (its status, or the same signal), so whoever started it sees
what they would see of ``foehn``: the same pipes, exit codes, signals, files and children. The
process is killed when its launcher is killed.

What differs: the process's id is not the launcher's, and its parent is the server's, so a test
that reads the process by its id (memory, descendants) or needs a terminal starts ``foehn``
itself (``FOEHN_ARGV``); so does every test with ``FOEHN_TEST_EXEC=1`` set. The server imports
modules only: no function of Foehn runs before a fork, so nothing the environment decides is
decided early.

One server per test process (each xdist worker), started at the first use and ended with it.

    python tests/preloaded.py SOCKET      (started by ``foehn_argv``, never by hand)
"""

from __future__ import annotations

import atexit
import gc
import importlib
import io
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

FOEHN_ARGV = (sys.executable, "-m", "foehn_lsp")
"""``foehn`` started as a new interpreter, as a person starts it."""

LAUNCHER = Path(__file__).with_name("preloaded_launch.py")

STARTUP = (
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSAFEPATH",
    "PYTHONNOUSERSITE",
    "PYTHONUSERBASE",
    "PYTHONWARNINGS",
    "PYTHONDEVMODE",
    "PYTHONUTF8",
    "PYTHONOPTIMIZE",
)
"""Variables an interpreter reads only as it starts: a process asked for with other values
than the server's is started anew (``python -m foehn_lsp``), as the forked one could not
honour them."""

PRELOAD = (
    "foehn_lsp.cli.main",
    "foehn_lsp.cli.chat",
    "foehn_lsp.cli.replay",
    "foehn_lsp.cli.config_report",
    "foehn_lsp.cli.rules",
    "foehn_lsp.cli.trust",
    "foehn_lsp.lsp",
    "foehn_lsp.lsp.turns",
    "foehn_lsp.lsp.wire.transport",
    "foehn_lsp.acp.agent",
    "foehn_lsp.acp.stdio",
    "foehn_lsp.mcp_server.server",
    "foehn_lsp.mcp.client",
    "foehn_lsp.sessions.builder",
    "foehn_lsp.sessions.session",
    "foehn_lsp.agent.loop",
    "foehn_lsp.providers.openai_compat",
    "foehn_lsp.providers.anthropic",
    "foehn_lsp.workspace.trust.review",
    "foehn_plugins.fs",
    "foehn_plugins.shell",
    "foehn_plugins.reading",
    "foehn_plugins.search",
    "foehn_plugins.todo",
)
"""What the server imports before it forks: every front end and what a turn uses."""

_ENVIRONMENT = dict(os.environ)
"""The server's environment: this process's as the tests were collected, before any test
changed it."""

_server: subprocess.Popen[bytes] | None = None
_socket = ""


def foehn_argv(*args: str) -> list[str]:
    """The command line that starts ``foehn ARGS`` (see the module docstring)."""
    if os.environ.get("FOEHN_TEST_EXEC") == "1":
        return [*FOEHN_ARGV, *args]
    return [sys.executable, "-I", "-S", str(LAUNCHER), _started(), *args]


def _started() -> str:
    """The server's socket; the server is started (and waited for) at the first call."""
    global _server, _socket
    if _server is None or _server.poll() is not None:
        folder = tempfile.mkdtemp(prefix="foehn-preloaded-")
        _socket = os.path.join(folder, "socket")
        _server = subprocess.Popen(
            [sys.executable, __file__, _socket],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=_ENVIRONMENT,
        )
        atexit.register(_stop, _server, folder)
        assert _server.stdout is not None
        ready = _server.stdout.readline()  # the imports take seconds, on a busy machine more
        assert ready == b"ready\n", f"the preloaded server did not start: {ready!r}"
    return _socket


def _stop(server: subprocess.Popen[bytes], folder: str) -> None:
    if server.stdin is not None:
        server.stdin.close()  # the server leaves at the end of its input
    server.wait(timeout=30)
    shutil.rmtree(folder, ignore_errors=True)


def _serve(path: str) -> bool:
    """Accept launchers until standard input ends; ``True`` in a forked ``foehn`` process."""
    for name in PRELOAD:
        importlib.import_module(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the supervisors are reaped by the kernel
    gc.freeze()  # the imported objects stay shared with every fork
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        readable, _, _ = select.select([listener, sys.stdin], [], [])
        if sys.stdin in readable:
            return False
        connection, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            return _supervise(connection)
        connection.close()


def _supervise(connection: socket.socket) -> bool:
    """In the fork for one launcher: fork ``foehn`` with the launcher's standard streams,
    environment, folder and arguments; tell the launcher its process id, then its status;
    kill it if the launcher goes away first. ``True`` in the ``foehn`` process."""
    size, fds = _receive_header(connection)
    request = json.loads(_receive_exactly(connection, size))
    pid = os.fork()
    if pid == 0:
        connection.close()
        _become(request, fds)
        return True
    for fd in fds:
        os.close(fd)
    connection.sendall(b"%d\n" % pid)
    process = os.pidfd_open(pid)
    while True:
        readable, _, _ = select.select([connection.fileno(), process], [], [])
        if process in readable:
            _, status = os.waitpid(pid, 0)
            connection.sendall(b"%d\n" % status)
            os._exit(0)
        if not connection.recv(1):  # the launcher is gone: so is what it launched
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os._exit(0)


def _receive_header(connection: socket.socket) -> tuple[int, list[int]]:
    data, fds, _, _ = socket.recv_fds(connection, 4, 3)
    assert len(data) == 4, "a launcher sends the request's length first"
    assert len(fds) == 3, "and its three standard streams with it"
    return struct.unpack("!I", data)[0], fds


def _receive_exactly(connection: socket.socket, size: int) -> bytes:
    chunks = []
    while size:
        chunk = connection.recv(size)
        assert chunk, "the launcher went away mid-request"
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _become(request: dict[str, object], fds: list[int]) -> None:
    """Take the launcher's streams, folder, environment and arguments as this process's own."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    env = request["env"]
    assert isinstance(env, dict)
    args = request["args"]
    assert isinstance(args, list)
    os.chdir(str(request["cwd"]))
    if any(env.get(name) != os.environ.get(name) for name in STARTUP):
        os.execve(sys.executable, [*FOEHN_ARGV, *args], env)
    os.environ.clear()
    os.environ.update(env)
    sys.path[0] = os.getcwd()  # as ``python -m`` puts it, where this script's folder was
    sys.argv = [str(Path(sys.modules["foehn_lsp"].__file__ or "").with_name("__main__.py"))]
    sys.argv += args
    sys.stdin, sys.stdout, sys.stderr = _standard_streams(env)


def _standard_streams(env: dict[str, str]) -> tuple[io.TextIOWrapper, ...]:
    """New ``sys.stdin``, ``stdout`` and ``stderr`` on descriptors 0-2, made as the interpreter
    makes them at start-up for this environment (buffering, encoding, line buffering)."""
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    encoding, _, errors = (env.get("PYTHONIOENCODING") or "").partition(":")
    chosen = encoding or sys.getfilesystemencoding()

    def stream(fd: int, mode: str, **options: object) -> io.TextIOWrapper:
        raw = io.FileIO(fd, mode, closefd=False)
        buffered: io.RawIOBase | io.BufferedIOBase = raw
        if not (unbuffered and mode == "w"):
            buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
        return io.TextIOWrapper(buffered, encoding=chosen, **options)  # type: ignore[arg-type]

    tty = os.isatty(1)
    return (
        stream(0, "r", errors=errors or "strict"),
        stream(1, "w", errors=errors or "strict", line_buffering=tty, write_through=unbuffered),
        stream(2, "w", errors="backslashreplace", line_buffering=True),
    )


if __name__ == "__main__":
    if _serve(sys.argv[1]):
        from foehn_lsp.cli.main import run

        raise SystemExit(run())
