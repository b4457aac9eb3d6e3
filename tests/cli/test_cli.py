"""``foehn run`` and ``foehn replay`` as people and scripts use them: a real process, a real
model server on 127.0.0.1, a real workspace."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.turns import EDIT, READ
from cli.harness import events, foehn, foehn_environment, spawn
from foehn_lsp.testing import Fault, ModelServer, Turn
from preloaded import foehn_argv
from setup_steps import ready

pytestmark = pytest.mark.process


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def script_fix(server: ModelServer) -> None:
    server.script(
        Turn(tool_calls=[("scan", {"pattern": "*.py"})]),
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(tool_calls=[EDIT]),
        Turn(text="Fixed the TODO."),
    )


def test_a_multi_step_task_with_approval_edits_the_file(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    script_fix(server)
    done = foehn(
        "run",
        "fix the TODO",
        "--workspace",
        str(app),
        "--approve",
        "all",
        server=server,
        state=tmp_path / "state",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Fixed the TODO.\n"
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"
    header = done.stderr.splitlines()[0]
    assert header.startswith("foehn · openai · ")
    assert header.endswith("--approve all: every call will run without asking")
    assert "▸ edit_file" in done.stderr
    assert "[write]" in done.stderr
    # --approve all: the person still sees every change, as a diff
    assert "-    return 1  # TODO\n+    return 2" in done.stderr
    summary = done.stderr.splitlines()[-1]
    assert summary == (
        "[answer, 3 tool iterations] files changed: app.py · 0 calls denied · tests run: none"
    )
    assert "Traceback" not in done.stderr


def test_approve_never_leaves_the_workspace_untouched(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    script_fix(server)
    server.script(Turn(text="The edit was denied, so app.py still has its TODO."))
    before = (app / "app.py").read_bytes()
    done = foehn(
        "run",
        "fix the TODO",
        "--workspace",
        str(app),
        "--approve",
        "never",
        "--json",
        server=server,
        state=tmp_path / "state",
    )
    assert done.returncode == 0
    assert (app / "app.py").read_bytes() == before
    stream = events(done.stdout)
    approvals = [e for e in stream if e["event"] == "approval"]
    assert approvals[-1] == {
        "event": "approval",
        "id": approvals[-1]["id"],
        "tool": "edit_file",
        "decision": "deny",
        "reason": "--approve never",
    }
    assert stream[-1] == {
        "event": "done",
        "reason": "answer",
        "answer": "The edit was denied, so app.py still has its TODO.",
        "iterations": 3,
    }
    sent_back = server.requests[-1].body["messages"][-1]["content"]
    assert sent_back.startswith("[Foehn] Your answer says you changed files")
    assert "Fixed the TODO." not in "".join(e.get("text", "") for e in stream)
    kinds = {e["event"] for e in stream}
    assert kinds >= {"text", "tool_call", "approval", "tool_result", "usage", "done"}
    call = next(e for e in stream if e["event"] == "tool_call")
    assert set(call) == {"event", "id", "tool", "arguments", "risk", "tool_kind"}
    assert (call["risk"], call["tool_kind"]) == ("read_only", "read")


def test_the_terminal_prompt_shows_the_call_and_the_diff(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Turn(tool_calls=[READ, EDIT]), Turn(text="ok"))
    done = foehn(
        "run",
        "fix",
        "--workspace",
        str(app),
        "--approve",
        "ask",
        stdin="y\n",
        server=server,
        state=tmp_path / "state",
    )
    assert done.returncode == 0
    assert "Foehn wants to run edit_file (write):" in done.stderr
    assert '"old_text": "return 1  # TODO"' in done.stderr
    assert "+    return 2" in done.stderr
    assert (
        "Allow? [y] once, [a] for this run (edit_file calls, at risk write), "
        "[s] always: save a rule, [?] why, [n WHY] deny and say why, [N] deny:" in done.stderr
    )
    assert (app / "app.py").read_text().endswith("return 2\n")


def test_limits_exit_with_3(server: ModelServer, app: Path, tmp_path: Path) -> None:
    server.script(
        *[Turn(tool_calls=[("read_file", {"path": "app.py", "limit": n})]) for n in range(1, 4)],
        Turn(text="summary"),
    )
    done = foehn(
        "run",
        "loop",
        "--workspace",
        str(app),
        "--max-iterations",
        "2",
        "--json",
        server=server,
        state=tmp_path / "state",
    )
    assert done.returncode == 3
    assert events(done.stdout)[-1]["reason"] == "max_iterations"


def test_provider_errors_exit_with_1_and_one_clear_line(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(Fault(status=401))
    done = foehn("run", "x", "--workspace", str(app), server=server, state=tmp_path / "state")
    assert done.returncode == 1
    assert done.stdout == ""  # out=$(foehn run …) never captures an error as the answer
    assert f"at {server.openai_url}/chat/completions rejected the API key (401)" in done.stderr
    assert "Traceback" not in done.stderr
    assert "sk-test-key" not in done.stdout + done.stderr


def test_a_retry_is_one_line_of_foehn_s_own_above_the_spinner(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    import pexpect

    server.script(Fault(status=503, retry_after="1"), Turn(text="Here."))
    child = spawn(["run", "hello", "--workspace", str(app)], server, tmp_path)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)
    assert "WARNING" not in plain
    assert "foehn_lsp.providers" not in plain
    [retry] = [line for line in plain.splitlines() if "retrying in 1.0 s" in line]
    assert retry.strip().startswith("foehn: ")
    assert "(503)" in retry
    assert "Here." in plain


def test_the_spinner_is_on_the_terminal_before_a_line_can_be_printed_above_it() -> None:
    """A line printed above the spinner moves it down from where it was drawn. Drawn first
    by rich's refresh thread, 80 ms on, a retry's line printed just then landed on the
    spinner's own line (seen once in the retry test above)."""
    from rich.console import Console

    from foehn_lsp.cli.terminal import HumanPrinter
    from foehn_lsp.events import Thinking

    screen = io.StringIO()
    printer = HumanPrinter(err=Console(file=screen, force_terminal=True, width=80))
    printer(Thinking(iteration=0))
    try:
        assert "thinking (step 1)" in screen.getvalue()
    finally:
        printer.stop_spinner()


def test_no_provider_and_no_local_model_is_one_message(app: Path, tmp_path: Path) -> None:
    done = foehn(
        "run",
        "x",
        "--workspace",
        str(app),
        state=tmp_path / "state",
        env={"FOEHN_PROVIDER": "mistral", "MISTRAL_API_KEY": ""},
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1].startswith(
        "foehn: Mistral needs an API key: set MISTRAL_API_KEY"
    )


def test_usage_errors_exit_with_2(app: Path, tmp_path: Path) -> None:
    assert foehn("run", state=tmp_path).returncode == 2
    assert foehn("run", "x", "--approve", "maybe", state=tmp_path).returncode == 2
    missing = foehn("run", "x", "--workspace", str(tmp_path / "nope"), state=tmp_path)
    assert missing.returncode == 2


@pytest.mark.parametrize(
    ("typed", "meant"),
    [(["rnu", "x"], "'run'"), (["sesions", "list"], "'sessions'"), (["sessions", "lst"], "'list'")],
)
def test_a_mistyped_command_gets_a_did_you_mean(
    tmp_path: Path, typed: list[str], meant: str
) -> None:
    done = foehn(*typed, state=tmp_path)
    assert done.returncode == 2
    assert f"did you mean {meant}?" in done.stderr


def test_a_word_close_to_no_command_gets_no_guess(tmp_path: Path) -> None:
    done = foehn("xyzzy", state=tmp_path)
    assert done.returncode == 2
    assert "invalid choice: 'xyzzy'" in done.stderr
    assert "did you mean" not in done.stderr


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["run", "x", "--max-iterations", "0"],
            "foehn run: argument --max-iterations: must be at least 1, got 0",
        ),
        (
            ["run", "x", "--transcript", "/nonexistent/dir/x.jsonl"],
            "foehn run: --transcript '/nonexistent/dir/x.jsonl': the folder '/nonexistent/dir' "
            "does not exist",
        ),
        (
            ["tools", "--workspace", "/nonexistent"],
            "foehn tools: --workspace '/nonexistent' does not exist",
        ),
        (["run", "  "], "foehn run: the task is empty"),
        (
            ["run", "x", "--base-url", "localhost:11434"],
            "foehn run: --base-url 'localhost:11434' needs http:// or https:// and a host, "
            "e.g. http://localhost:11434",
        ),
        (
            ["run", "x", "--base-url", "http://127.0.0.1:9/v1"],
            "foehn run: with a base URL of your own, name the server's model: --model NAME",
        ),
    ],
)
def test_usage_errors_name_what_to_fix_in_one_line_before_anything_runs(
    server: ModelServer, app: Path, tmp_path: Path, arguments: list[str], message: str
) -> None:
    no_model = {"FOEHN_MODEL": ""}
    done = foehn(*arguments, "--workspace", str(app), server=server, state=tmp_path, env=no_model)
    if arguments[0] == "tools":
        done = foehn(*arguments, server=server, state=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith(message), done.stderr
    assert done.stderr.count("\n") == 1
    assert server.requests == []


def test_version_help_and_exit_codes(tmp_path: Path) -> None:
    from foehn_lsp import __version__
    from foehn_lsp.cli.main import build_parser

    version = foehn("--version", state=tmp_path)
    assert (version.returncode, version.stdout) == (0, f"foehn {__version__}\n")
    helped = foehn("run", "--help", state=tmp_path)
    assert "130  cancelled (Ctrl-C)" in helped.stdout
    assert "2    usage error" in foehn("--help", state=tmp_path).stdout
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in ("run", "tools", "replay", "serve"):
        command = subparsers.choices[name]
        for action in command._actions:
            assert action.help, f"foehn {name} {action.option_strings or action.dest} has no help"


def test_a_limit_prints_the_summary_once_and_counts_iterations_in_words(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(tool_calls=[("read_file", {"path": "app.py", "limit": 1})]),
        Turn(text="I read app.py."),
    )
    done = foehn(
        "run", "x", "--workspace", str(app), "--max-iterations", "1", server=server, state=tmp_path
    )
    assert done.returncode == 3
    assert done.stdout == "I read app.py.\n"
    assert done.stderr.count("I read app.py.") == 0
    assert "foehn: Stopped: the run reached its limit of 1 tool iteration" in done.stderr
    assert "1 tool iterations" not in done.stdout + done.stderr
    assert done.stderr.splitlines()[-1].startswith("[max_iterations, 1 tool iteration]")


def test_a_broken_plugin_is_reported_once(server: ModelServer, app: Path, tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "broken_thing.py").write_text("raise RuntimeError('boom')\n")
    server.script(Turn(text="ok"))
    done = foehn(
        "run",
        "x",
        "--workspace",
        str(app),
        server=server,
        state=tmp_path,
        env={"FOEHN_PLUGIN_PATHS": str(plugins)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("broken_thing") == 1, done.stderr


def test_json_events_validate_against_the_published_schema(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    import jsonschema

    from foehn_lsp.cli.event_schema import SCHEMA_FILE

    schema = json.loads(SCHEMA_FILE.read_text())
    script_fix(server)
    done = foehn(
        "run",
        "fix",
        "--workspace",
        str(app),
        "--approve",
        "all",
        "--json",
        server=server,
        state=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    stream = events(done.stdout)
    assert {e["event"] for e in stream} >= {"thinking", "tool_call", "tool_result", "done"}
    for event in stream:
        jsonschema.validate(event, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"event": "done", "reason": "answer"}, schema)


def test_the_published_event_schema_is_the_generated_one() -> None:
    from foehn_lsp.cli.event_schema import SCHEMA_FILE, render

    assert SCHEMA_FILE.read_text() == render(), (
        "regenerate: python -m foehn_lsp.cli.event_schema --write"
    )


def test_ctrl_c_cancels_with_130(server: ModelServer, app: Path, tmp_path: Path) -> None:
    server.script(Fault(delay=60, then=Turn(text="late")))
    process = subprocess.Popen(
        foehn_argv("run", "x", "--workspace", str(app), "--json"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=foehn_environment(server, tmp_path),
    )
    assert server.wait_for_requests(1)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert events(stdout)[-1]["reason"] == "cancelled"


def test_transcript_replay_and_audit(server: ModelServer, app: Path, tmp_path: Path) -> None:
    script_fix(server)
    transcript = tmp_path / "run.jsonl"
    done = foehn(
        "run",
        "fix the TODO",
        "--workspace",
        str(app),
        "--approve",
        "all",
        "--transcript",
        str(transcript),
        server=server,
        state=tmp_path / "state",
    )
    assert done.returncode == 0
    text = transcript.read_text()
    assert "sk-test-key" not in text
    kinds = [json.loads(line)["kind"] for line in text.splitlines()]
    assert kinds[0] == "run"
    assert kinds.count("response") == 4
    audit = list((tmp_path / "state" / "foehn" / "audit").glob("*.jsonl"))
    [log] = audit
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    calls = [e for e in entries if "tool" in e]
    assert [(e["tool"], e["risk"], e["decision"], e["ok"]) for e in calls] == [
        ("scan", "read_only", "allow", True),
        ("read_file", "read_only", "allow", True),
        ("edit_file", "write", "allow", True),
    ]
    [checkpoint] = [e for e in entries if e.get("action") == "checkpoint"]
    assert checkpoint["files"] == [{"path": "app.py", "change": "modified"}]
    assert entries[2]["arguments"]["path"] == "app.py"

    (app / "app.py").write_text("def main():\n    return 1  # TODO\n")
    replayed = foehn("replay", str(transcript), state=tmp_path / "state")
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout == (
        "replayed 3 tool calls in a temporary copy of the workspace; every call and result "
        "matches\n"
    )
    assert (app / "app.py").read_text().endswith("return 1  # TODO\n")  # untouched

    in_place = foehn("replay", str(transcript), "--in-place", state=tmp_path / "state")
    assert in_place.returncode == 0, in_place.stderr
    assert (app / "app.py").read_text().endswith("return 2\n")

    (app / "app.py").unlink()
    changed = foehn("replay", str(transcript), state=tmp_path / "state")
    assert changed.returncode == 1
    assert changed.stderr.startswith("replay diverged: the result of tool call 1 (scan) differs")
    assert "recorded: scan" in changed.stderr
    assert "    app.py" in changed.stderr
    assert "replayed: scan" in changed.stderr
    assert "no entries under ." in changed.stderr
    (app / "app.py").write_text("def main():\n    return 1  # TODO\n")

    lines = text.splitlines()
    doctored = [
        line.replace('"path\\": \\"app.py\\"', '"path\\": \\"other.py\\"', 1)
        if '"kind": "response"' in line and "read_file" in line
        else line
        for line in lines
    ]
    assert doctored != lines
    transcript.write_text("\n".join(doctored) + "\n")
    diverged = foehn("replay", str(transcript), state=tmp_path / "state")
    assert diverged.returncode == 1
    assert diverged.stderr.startswith("replay diverged: tool call 2 differs")
    assert 'recorded: read_file {"path": "app.py"}' in diverged.stderr
    assert 'replayed: read_file {"path": "other.py"}' in diverged.stderr


@pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import xllamacpp"], capture_output=True).returncode != 0,
    reason="foehn-lsp[local] is not installed",
)
def test_the_demo_runs_offline_with_the_embedded_model(tmp_path: Path, model_home: Path) -> None:
    """``scripts/demo``'s run. ``scripts/test`` makes it once, beside its set-up steps (it reads
    the model's fixed prompt for every later test) and names its folder in
    ``FOEHN_TEST_DEMO_RUN`` (``events.jsonl``, ``stderr``, ``status``); without it the test
    makes the run itself."""
    made = os.environ.get("FOEHN_TEST_DEMO_RUN")
    if made:
        ready("model")
        run = Path(made)
        status = int((run / "status").read_text() or "-1")
        stdout, stderr = (run / "events.jsonl").read_text(), (run / "stderr").read_text()
    else:
        done = foehn(
            "run", "List the Python files and tell me which has a TODO",
            "--workspace", str(Path(__file__).parents[2] / "demo" / "workspace"),
            "--approve", "never", "--json",
            state=tmp_path, timeout=600, env={"XDG_CACHE_HOME": str(model_home)},
        )  # fmt: skip
        status, stdout, stderr = done.returncode, done.stdout, done.stderr
    assert status == 0, stderr
    stream = events(stdout)
    assert any(e["event"] == "tool_call" and e["tool"] == "scan" for e in stream)
    assert stream[-1]["reason"] == "answer"
    assert stream[-1]["answer"]


def test_ctrl_c_at_the_approval_prompt_exits_130_at_once(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    import pexpect

    server.script(Turn(tool_calls=[READ, EDIT]), Turn(text="never reached"))
    child = spawn(["run", "fix", "--workspace", str(app), "--approve", "ask"], server, tmp_path)
    child.expect_exact("[N] deny:")
    child.sendcontrol("c")
    child.expect(pexpect.EOF, timeout=30)  # before: a thread kept reading stdin until Enter
    child.close()
    assert child.exitstatus == 130
    assert (app / "app.py").read_text().endswith("return 1  # TODO\n")
    assert "never reached" not in child.before


@pytest.mark.parametrize("no_color", [False, True])
def test_approve_all_shows_each_change_as_a_coloured_diff_unless_no_color(
    server: ModelServer, app: Path, tmp_path: Path, no_color: bool
) -> None:
    import pexpect

    server.script(Turn(tool_calls=[READ, EDIT]), Turn(text="Fixed."))
    env = {"NO_COLOR": "1"} if no_color else {}
    child = spawn(
        ["run", "fix", "--workspace", str(app), "--approve", "all"], server, tmp_path, env
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    screen = child.before
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen)
    assert "-    return 1  # TODO" in plain
    assert "+    return 2" in plain
    if no_color:
        assert not re.search(r"\x1b\[[0-9;]*m", screen), screen  # no colour, bold nor dim
    else:
        assert re.search(r"\x1b\[[0-9;]*32m\+    return 2", screen), screen
        assert re.search(r"\x1b\[[0-9;]*31m-    return 1  # TODO", screen), screen


def test_each_prompt_reads_its_own_line_from_a_pipe(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    server.script(
        Turn(tool_calls=[READ, EDIT]),
        Turn(tool_calls=[("write_file", {"path": "new.txt", "content": "x\n"})]),
        Turn(text="done"),
    )
    done = foehn(
        "run",
        "fix",
        "--workspace",
        str(app),
        "--approve",
        "ask",
        stdin="y\nn\n",
        server=server,
        state=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (app / "app.py").read_text().endswith("return 2\n")
    assert not (app / "new.txt").exists()
    assert done.stderr.splitlines()[-1].endswith(
        "files changed: app.py · 1 call denied · tests run: none"
    )


def test_the_summary_leaves_out_files_git_ignores(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(app)], check=True, timeout=60)
    (app / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    server.script(
        Turn(
            tool_calls=[
                ("write_file", {"path": "notes.txt", "content": "kept\n"}),
                ("write_file", {"path": "__pycache__/app.cpython-311.pyc", "content": "x"}),
                ("write_file", {"path": ".pytest_cache/v/cache/lastfailed", "content": "{}"}),
            ]
        ),
        Turn(text="Done."),
    )
    done = foehn(
        "run", "write", "--workspace", str(app), "--approve", "all", server=server, state=tmp_path
    )
    assert done.returncode == 0, done.stderr
    [summary] = [line for line in done.stderr.splitlines() if "files changed:" in line]
    assert "files changed: notes.txt ·" in summary
    assert "__pycache__" not in summary
    assert (app / "__pycache__" / "app.cpython-311.pyc").read_text() == "x"
