"""``foehn`` in a pipeline: stdout into a reader that stops early (``| head``), and stdin as
what the task is about (``cat log | foehn run "explain"``) or as the task itself
(``foehn run -``). Real processes, real pipes, the model server on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.turns import EDIT, READ
from cli.harness import foehn, foehn_environment
from foehn_lsp.testing import ModelServer, Turn
from preloaded import foehn_argv

pytestmark = pytest.mark.process


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def into_gone_reader(
    args: list[str], server: ModelServer | None, state: Path
) -> subprocess.CompletedProcess[str]:
    """``foehn ARGS | head`` where head has already read enough: stdout is a pipe whose read
    end is closed, so every write fails as it would once head exits."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            foehn_argv(*args),
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=foehn_environment(server, state),
            timeout=120,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "args",
    [["tools"], ["tools", "--json"], ["sessions", "list"], ["sessions", "list", "--json"]],
)
def test_listings_into_a_reader_that_stopped_exit_quietly(
    args: list[str], server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Turn(text="A session to list."))
    saved = foehn("run", "hello", "--workspace", str(app), server=server, state=tmp_path)
    assert saved.returncode == 0, saved.stderr
    done = into_gone_reader([*args, "--workspace", str(app)], None, tmp_path)
    assert "Traceback" not in done.stderr
    assert "BrokenPipeError" not in done.stderr
    assert "Exception ignored" not in done.stderr
    assert done.returncode == 141


def test_run_json_into_a_reader_that_stopped_stops_the_turn(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Fixed."))
    done = into_gone_reader(
        ["run", "fix", "--json", "--approve", "all", "--workspace", str(app)], server, tmp_path
    )
    assert "Traceback" not in done.stderr
    assert "Exception ignored" not in done.stderr
    assert done.returncode == 141
    # Nobody reads the turn's events: it stops before it changes anything.
    assert (app / "app.py").read_text() == "def main():\n    return 1  # TODO\n"


def test_run_into_head_prints_what_head_takes(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Turn(text="one\n" * 50_000))
    shell = subprocess.run(
        f"{sys.executable} -m foehn_lsp run hello --workspace {app} | head -2",
        shell=True,
        capture_output=True,
        text=True,
        env=foehn_environment(server, tmp_path),
        timeout=120,
    )
    assert shell.stdout == "one\none\n"
    assert "cancelled" not in shell.stderr
    assert "Traceback" not in shell.stderr
    assert "Exception ignored" not in shell.stderr


def user_message(server: ModelServer) -> str:
    content: str = [m for m in server.requests[0].body["messages"] if m["role"] == "user"][-1][
        "content"
    ]
    return content


def test_piped_stdin_is_what_the_task_is_about(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Turn(text="The disk is full."))
    done = foehn(
        "run", "explain", "--workspace", str(app),
        stdin="ERROR: disk full\n", server=server, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The disk is full.\n"
    assert user_message(server) == (
        "explain\n\nThe input piped to Foehn on stdin (what the task above is about):\n"
        "<stdin>\nERROR: disk full\n</stdin>"
    )
    listed = foehn("sessions", "list", "--workspace", str(app), state=tmp_path)
    assert listed.stdout.rstrip().endswith("explain")


def test_a_dash_reads_the_task_from_stdin(server: ModelServer, app: Path, tmp_path: Path) -> None:
    server.script(Turn(text="app.py"))
    done = foehn(
        "run", "-", "--workspace", str(app), stdin="list the files\n", server=server, state=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert user_message(server) == "list the files"
    assert "<stdin>" not in user_message(server)


def test_stdin_is_read_up_to_a_bound_and_the_cut_is_said(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Turn(text="A long log."))
    log = "".join(f"line {n}: é\n" for n in range(60_000))  # about 800 KiB
    done = foehn(
        "run", "summarise", "--workspace", str(app), stdin=log, server=server, state=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "only the first 256 KiB of stdin were read; the rest was cut" in done.stderr
    told = user_message(server)
    assert told.endswith("</stdin>\n(only the first 256 KiB of stdin were read; the rest was cut)")
    assert 250_000 < len(told.encode()) < 270_000
    assert "line 0: é" in told
    assert "line 59999" not in told
    assert "\ufffd" not in told


@pytest.mark.parametrize(
    ("stdin", "args", "message"),
    [
        (None, ["-"], "foehn run - reads the task from stdin, but nothing was piped in"),
        ("  \n", ["-"], "foehn run - reads the task from stdin, but nothing was piped in"),
        ("fix it\n", ["-", "--approve", "ask"], "so no approval can be typed there"),
        ("a\x00b", ["explain"], "stdin holds binary data (a NUL byte)"),
    ],
)
def test_stdin_that_cannot_work_is_a_usage_error(
    server: ModelServer,
    app: Path,
    tmp_path: Path,
    stdin: str | None,
    args: list[str],
    message: str,
) -> None:
    done = subprocess.run(
        foehn_argv("run", *args, "--workspace", str(app)),
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        env=foehn_environment(server, tmp_path),
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert not server.requests


def test_with_approve_ask_a_piped_stdin_carries_the_answers(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Fixed."))
    done = foehn(
        "run", "fix", "--approve", "ask", "--workspace", str(app),
        stdin="y\n", server=server, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert user_message(server) == "fix"
    assert (app / "app.py").read_text().endswith("return 2\n")
