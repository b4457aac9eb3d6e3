"""The bridge inside the sandbox: what listens on the proxy's address there, and the variables
that point programs at it.

The sandbox has a network namespace of its own, with nothing but its own loopback. A call with
a grant starts, before its program, Foehn's own Python (bound read-only in every view) running
``SOURCE``: it listens on ``127.0.0.1:PROXY_PORT`` inside, connects to the call's proxy socket
(bound into the view at the same path), leaves a child behind that hands each accepted
connection's descriptor to the proxy (``SCM_RIGHTS``), and becomes the program (``exec``), which
so keeps its place, its pid and its exit status. The proxy then reads and writes the program's
connection itself: no byte is copied inside, and the bridge holds no right of its own (a
program that talks to the socket directly, or kills the bridge, gets the same grant, or none).

Why Foehn's own Python: it is the one interpreter every view shows (``view``), it needs
nothing installed (no ``socat``, no compiled helper to ship per architecture), and ``-I -S``
starts it without reading the workspace or the environment. It imports only the interpreter's
built-in modules (``_socket``, ``_signal``, ``posix``), the least an interpreter can start with.
The signals Python ignores (``SIGPIPE``, ``SIGXFSZ``) are put back before the program starts,
so the program sees what it would see started directly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

PROXY_PORT = 3128
"""Where programs find the proxy inside the sandbox (the sandbox's own loopback)."""
PROXY_URL = f"http://127.0.0.1:{PROXY_PORT}"
NOT_PROXIED = "localhost,127.0.0.1,::1"
"""The sandbox's own loopback: a program's own test servers, reached directly."""
FAILED = "foehn network bridge: "
"""How the bridge's own message starts when it could not start (exit ``FAILED_EXIT``)."""
FAILED_EXIT = 125

SOURCE = f"""\
import _signal, _socket, posix, sys
path, port, argv = sys.argv[1], int(sys.argv[2]), sys.argv[4:]
try:
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)
    link = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    link.connect(path)
except OSError as exc:
    sys.stderr.write({FAILED!r} + "it could not start: %s\\n" % exc)
    posix._exit({FAILED_EXIT})
middle = posix.fork()
if middle == 0:
    if posix.fork() == 0:
        null = posix.open("/dev/null", posix.O_RDWR)
        for fd in (0, 1, 2):
            posix.dup2(null, fd)
        rights = (_socket.SOL_SOCKET, _socket.SCM_RIGHTS)
        while True:
            fd, _ = listener._accept()
            try:
                link.sendmsg([b"c"], [(*rights, fd.to_bytes(4, sys.byteorder))])
            except OSError:
                posix._exit(0)
            posix.close(fd)
    posix._exit(0)
posix.waitpid(middle, 0)
listener.close()
link.close()
_signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
_signal.signal(_signal.SIGXFSZ, _signal.SIG_DFL)
program = argv[0]
if "/" not in program:
    for folder in posix.environ.get(b"PATH", b"/usr/bin:/bin").decode().split(":"):
        if folder and posix.access(folder + "/" + program, posix.X_OK):
            program = folder + "/" + program
            break
try:
    posix.execv(program, argv)
except OSError as exc:
    sys.stderr.write({FAILED!r} + "%s could not be started: %s\\n" % (argv[0], exc))
    posix._exit({FAILED_EXIT})
"""


def interpreter() -> Path:
    """The Python that runs the bridge: Foehn's own, as a real path."""
    return Path(os.path.realpath(sys.executable))


def command(socket_path: Path, argv: Sequence[str]) -> list[str]:
    """``argv`` started behind the bridge to the proxy at ``socket_path``."""
    return [
        str(interpreter()),
        "-I",
        "-S",
        "-B",
        "-c",
        SOURCE,
        str(socket_path),
        str(PROXY_PORT),
        "--",
        *argv,
    ]


def environment() -> dict[str, str]:
    """What points programs at the proxy inside: the standard variables (both cases) and the
    settings of npm, yarn, pip, cargo and git where they read their own."""
    url = PROXY_URL
    variables = {
        "HTTP_PROXY": url,
        "HTTPS_PROXY": url,
        "ALL_PROXY": url,
        "NO_PROXY": NOT_PROXIED,
    }
    lower = {key.lower(): value for key, value in variables.items()}
    return {
        **variables,
        **lower,
        "npm_config_proxy": url,
        "npm_config_https_proxy": url,
        "npm_config_noproxy": NOT_PROXIED,
        "YARN_HTTP_PROXY": url,
        "YARN_HTTPS_PROXY": url,
        "PIP_PROXY": url,
        "CARGO_HTTP_PROXY": url,
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.proxy",
        "GIT_CONFIG_VALUE_0": url,
    }


def setup_problem(exit_code: int | None, output: str) -> str | None:
    """The bridge's own line, when it could not start or could not start the program (which
    then did not run)."""
    if exit_code != FAILED_EXIT or not output.startswith(FAILED):
        return None
    return output.splitlines()[0]
