"""The launcher of ``preloaded.py``: ``python -I -S preloaded_launch.py SOCKET ARGS...``.

Hands this process's standard streams, environment, folder and ``ARGS`` to the preloaded
server, which forks ``foehn ARGS`` with them; passes on the signals this process gets; exits
as ``foehn`` exits. The standard library only, and no site: it starts in milliseconds."""

import json
import os
import signal
import socket
import struct
import sys

RELAYED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1)


def main(path: str, args: list[str]) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.connect(path)
    request = json.dumps({"args": args, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    socket.send_fds(server, [struct.pack("!I", len(request))], [0, 1, 2])
    server.sendall(request)
    replies = server.makefile("rb")
    pid = int(replies.readline())
    for number in RELAYED:
        signal.signal(number, lambda received, _: os.kill(pid, received))
    # Only the forked process holds the streams now: its reader sees their end when it ends.
    empty = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(empty, fd)
    line = replies.readline()
    if not line:  # the server was killed
        sys.exit(1)
    code = os.waitstatus_to_exitcode(int(line))
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
