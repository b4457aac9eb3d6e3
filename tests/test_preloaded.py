"""``foehn`` forked from the preloaded interpreter (``preloaded.py``) behaves to whoever
started it as ``python -m foehn_lsp`` does: its output, its exit status, and its end when its
launcher is killed. Signals passed on: ``tests/cli/test_cli.py``'s Ctrl-C test; variables only
a new interpreter reads: ``tests/tools/test_discovery.py``'s plugin on ``PYTHONPATH``."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys

import pytest

from preloaded import FOEHN_ARGV, foehn_argv

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        os.environ.get("FOEHN_TEST_EXEC") == "1", reason="every foehn is started anew"
    ),
]


def test_it_is_forked_not_started_anew() -> None:
    assert foehn_argv("serve")[:2] == [sys.executable, "-I"]
    assert foehn_argv("serve")[-1] == "serve"


@pytest.mark.parametrize("args", [["--version"], ["run"], ["sesions", "list"]])
def test_output_and_exit_status_are_those_of_a_new_interpreter(args: list[str]) -> None:
    forked = subprocess.run(foehn_argv(*args), capture_output=True, text=True, timeout=120)
    anew = subprocess.run([*FOEHN_ARGV, *args], capture_output=True, text=True, timeout=120)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        anew.returncode,
        anew.stdout,
        anew.stderr,
    )


def test_killing_the_launcher_kills_the_process() -> None:
    server = subprocess.Popen(
        foehn_argv("serve"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert server.stdin is not None
    assert server.stdout is not None
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    server.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body.encode()))
    server.stdin.flush()
    assert select.select([server.stdout], [], [], 120)[0], "the server did not answer"
    assert server.stdout.readline().startswith(b"Content-Length")  # the server is running
    server.kill()
    assert server.wait(timeout=120) == -signal.SIGKILL
    # Only the forked server holds the write end of stdout now: the stream ends with it. A
    # server left running (its input is still open) would keep it open for good.
    fd = server.stdout.fileno()
    while True:  # the rest of its answer (if any was left unread), then the end
        assert select.select([fd], [], [], 120)[0], "the forked server is still running"
        if not os.read(fd, 65536):
            break
