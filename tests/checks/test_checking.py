"""Checking after edits through a real session: the workspace's check command runs in the real
sandbox before the answer; only the problems the edits added go back to the model, with file,
line and message; a checker that is missing, hangs or floods is skipped with one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.test_loop import Recorder
from agent.turns import calls, say
from foehn_lsp.checks.checkers import SandboxCheckers, find_checkers, parse_lines
from foehn_lsp.config import Settings
from foehn_lsp.events import Checked
from foehn_lsp.policy.approval import Approved, FixedApprover
from foehn_lsp.providers.messages import UserMessage
from foehn_lsp.providers.scripted import ScriptedProvider
from foehn_lsp.sandbox.runner import system_sandbox
from foehn_lsp.sessions.builder import FrontEnd, build_session
from foehn_lsp.workspace import Workspace

pytestmark = pytest.mark.skipif(not system_sandbox().available, reason="needs the sandbox")

# Prints each line of app.py that holds BROKEN as a problem at that line: a checker whose
# findings follow the file's content, as a real one's do.
LINES_WITH_BROKEN = "grep -n BROKEN app.py | sed 's/^\\([0-9]*\\):\\(.*\\)/app.py:\\1: \\2/'"
READ = ("read_file", {"path": "app.py"})


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def configure(root: Path, *command: str) -> None:
    (root / "pyproject.toml").write_text(
        f"[tool.foehn]\ncheck-command = {json.dumps(list(command))}\n"
    )


def edit(old: str, new: str) -> tuple[str, dict[str, object]]:
    return ("edit_file", {"path": "app.py", "edits": [{"old_text": old, "new_text": new}]})


async def run_turn(root: Path, *turns: object) -> tuple[ScriptedProvider, Recorder]:
    provider = ScriptedProvider(list(turns))  # type: ignore[arg-type]
    session = build_session(
        Settings(),
        root,
        FrontEnd(name="cli", approver=FixedApprover(Approved())),
        provider=provider,
    )
    events = Recorder()
    await session.prompt("Add a setting to app.py", emit=events)
    return provider, events


def notes(provider: ScriptedProvider, request: int) -> list[str]:
    return [m.content for m in provider.requests[request][0] if isinstance(m, UserMessage)]


async def test_only_the_problem_the_edit_added_reaches_the_model(root: Path) -> None:
    configure(root, "sh", "-c", LINES_WITH_BROKEN)
    (root / "app.py").write_text("old = BROKEN_BEFORE\n")
    provider, events = await run_turn(
        root,
        calls(READ),
        calls(
            edit("old = BROKEN_BEFORE\n", "first = 1\nold = BROKEN_BEFORE\nnew = 'BROKEN_NEW'\n")
        ),
        say("Added the setting."),
        calls(edit("new = 'BROKEN_NEW'\n", "new = 2\n"), prefix="f"),
        say("Added the setting."),
    )
    told = notes(provider, 3)[-1]
    assert "app.py:3: new = 'BROKEN_NEW' (sh)" in told
    assert "BROKEN_BEFORE" not in told
    checked = events.of(Checked)
    assert [(p.path, p.line, p.message) for p in checked[0].problems] == [
        ("app.py", 3, "new = 'BROKEN_NEW'")
    ]
    assert len(provider.requests) == 5  # the fix left no new problem: the answer ends the turn
    assert (root / "app.py").read_text() == "first = 1\nold = BROKEN_BEFORE\nnew = 2\n"


async def test_an_answer_without_new_problems_is_not_sent_back(root: Path) -> None:
    configure(root, "sh", "-c", LINES_WITH_BROKEN)
    (root / "app.py").write_text("x = 1\nold = BROKEN_BEFORE\n")
    provider, events = await run_turn(
        root, calls(READ), calls(edit("x = 1\n", "x = 1\ny = 2\n")), say("Added y.")
    )
    assert len(provider.requests) == 3
    assert events.of(Checked) == []


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["no-such-checker-for-foehn"], "is not installed where the sandbox can see it"),
        (["sh", "-c", "yes 'app.py:1: again' | head -c 1000000"], "it printed more than"),
        (["sh", "-c", "echo cannot start >&2; exit 2"], "exit 2: cannot start"),
    ],
)
async def test_a_checker_that_cannot_answer_is_skipped_with_one_line(
    root: Path, command: list[str], said: str
) -> None:
    configure(root, *command)
    (root / "app.py").write_text("x = 1\n")
    provider, events = await run_turn(root, calls(READ), calls(edit("1", "2")), say("Set x."))
    (checked,) = events.of(Checked)
    assert checked.problems == ()
    (line,) = checked.skipped
    assert said in line
    assert len(provider.requests) == 3
    assert (root / "app.py").read_text() == "x = 2\n"


async def test_a_hanging_checker_is_stopped_in_time(root: Path) -> None:
    configure(root, "sh", "-c", "sleep 60")
    (root / "app.py").write_text("x = 1\n")
    report = await SandboxCheckers(Workspace([root]), seconds=1).check(["app.py"])
    assert report.problems == ()
    assert report.skipped == ("sh skipped: it did not finish within 1 s",)


async def test_a_file_a_program_changed_is_named_not_checked(root: Path) -> None:
    configure(root, "sh", "-c", LINES_WITH_BROKEN)
    (root / "app.py").write_text("x = 1\n")
    (root / "gen.py").write_text("y = 1\n")
    program = ("run_command", {"command": ["sh", "-c", "echo 'y = BROKEN' > gen.py"]})
    provider = ScriptedProvider([calls(READ, ("read_file", {"path": "gen.py"})), calls(program),
                                 say("Regenerated gen.py.")])  # fmt: skip
    session = build_session(
        Settings(),
        root,
        FrontEnd(name="cli", approver=FixedApprover(Approved())),
        provider=provider,
    )
    events = Recorder()
    await session.prompt("Regenerate gen.py", emit=events)
    (checked,) = events.of(Checked)
    assert checked.problems == ()
    assert checked.skipped == (
        "not checked (changed by a program, so there was no check before): gen.py",
    )


def test_a_broken_check_command_is_one_line(root: Path) -> None:
    (root / "pyproject.toml").write_text('[tool.foehn]\ncheck-command = "mypy ."\n')
    assert find_checkers(root).problems == (
        "[tool.foehn] check-command must be a list of strings; no checks",
    )
    (root / "pyproject.toml").write_text("[tool.foehn\n")
    assert find_checkers(root).problems[0].startswith("pyproject.toml could not be read")


def test_detected_checkers_follow_the_workspace_configuration(root: Path) -> None:
    assert find_checkers(root).checkers == ()
    (root / "pyproject.toml").write_text("[tool.ruff]\n[tool.mypy]\n")
    (root / "tsconfig.json").write_text("{}")
    (root / "eslint.config.js").write_text("export default [];\n")
    assert [c.name for c in find_checkers(root).checkers] == ["ruff", "mypy", "tsc", "eslint"]


def test_checker_output_forms() -> None:
    output = "\n".join(
        [
            'app.py:2: error: Incompatible return value type (got "str", expected "int")',
            "app.py:2: note: See the docs",
            "app.py:1:8: F401 [*] `os` imported but unused",
            "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
            "  /w/m.py:4:5 - error: Cannot access attribute",
            "Found 2 errors.",
        ]
    )
    assert parse_lines(output) == [
        ("app.py", 2, 'error: Incompatible return value type (got "str", expected "int")'),
        ("app.py", 1, "F401 [*] `os` imported but unused"),
        ("src/a.ts", 3, "error TS2322: Type 'string' is not assignable to type 'number'."),
        ("/w/m.py", 4, "error: Cannot access attribute"),
    ]


async def test_a_moved_file_keeps_the_problems_it_had(root: Path) -> None:
    either = (
        "for f in app.py new.py; do [ -f $f ] && grep -n BROKEN $f | "
        'sed "s/^\\([0-9]*\\):\\(.*\\)/$f:\\1: \\2/"; done; true'
    )
    configure(root, "sh", "-c", either)
    (root / "app.py").write_text("old = BROKEN_BEFORE\n")
    move = ("move_path", {"source": "app.py", "destination": "new.py"})
    provider = ScriptedProvider([calls(READ), calls(move), say("Moved it.")])
    session = build_session(
        Settings(),
        root,
        FrontEnd(name="cli", approver=FixedApprover(Approved())),
        provider=provider,
    )
    events = Recorder()
    await session.prompt("Move app.py to new.py", emit=events)
    assert (root / "new.py").is_file()
    assert [c.problems for c in events.of(Checked)] == []
    assert len(provider.requests) == 3


@pytest.fixture
def elsewhere_venv(tmp_path: Path) -> Path:
    venv = tmp_path / "elsewhere" / "env"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    return venv


async def test_checkers_come_from_the_environment_run_tests_uses(
    root: Path, elsewhere_venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An activated environment outside the workspace holds the person's ruff: the checkers
    find it there, as run_tests finds its interpreter (``foehn_lsp.sandbox.project``)."""
    venv = elsewhere_venv
    ruff = venv / "bin" / "ruff"
    ruff.write_text("#!/bin/sh\necho 'app.py:1:1: X001 found by the activated ruff'\nexit 1\n")
    ruff.chmod(0o755)
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    (root / "pyproject.toml").write_text("[tool.ruff]\n")
    (root / "app.py").write_text("x = 1\n")
    report = await SandboxCheckers(Workspace([root])).check(["app.py"])
    assert [p.message for p in report.problems] == ["X001 found by the activated ruff"]
