"""Claims checked file by file and results checked against runs, through the real loop with the
model server on 127.0.0.1: what the model was sent back, what the person read, the files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.served import served_turn
from foehn_lsp.checks.claims import claims_faster, claims_fixed, named_files
from foehn_lsp.checks.honesty import slower
from foehn_lsp.policy import Denied, FixedApprover
from foehn_lsp.providers.effects import program_asked
from foehn_lsp.providers.messages import ToolResultMessage
from foehn_lsp.testing import ModelServer, Turn
from foehn_lsp.tools import discover
from pytest_venv import pytest_venv


@pytest.fixture
def project(root: Path) -> Path:
    (root / "text_utils.py").write_text("def shout(text):\n    return text\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_text_utils.py").write_text(
        "from text_utils import shout\n\n\ndef test_shout():\n    assert shout('hi') == 'HI'\n"
    )
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    pytest_venv(root / ".venv")
    return root


READ = Turn(tool_calls=[("read_file", {"path": "text_utils.py"})])
FIX = Turn(
    tool_calls=[
        (
            "edit_file",
            {
                "path": "text_utils.py",
                "edits": [{"old_text": "    return text", "new_text": "    return text.upper()"}],
            },
        )
    ]
)
RUN = Turn(tool_calls=[("run_tests", {})])


async def test_a_file_the_answer_says_it_changed_must_be_among_the_changes(
    model: ModelServer, project: Path
) -> None:
    """Seen: "I made the change to text_utils.py and tests/test_text_utils.py" stood when the turn
    changed only text_utils.py (the test went into the source file)."""
    claim = "I made the change to text_utils.py and tests/test_text_utils.py."
    again = f"{claim} Both are done."
    served = await served_turn(
        model,
        project,
        "Make shout upper-case its text, with a test",
        [READ, FIX, Turn(text=claim), Turn(text=again)],
    )
    [note] = served.notes()
    assert note.startswith(
        "[Foehn] Your answer says you changed files (it names tests/test_text_utils.py), but "
        "this turn changed only: text_utils.py."
    )
    assert served.outcome.answer == (
        "Both are done.\n\n[Foehn] The answer said it had changed tests/test_text_utils.py, but "
        "this turn changed only: text_utils.py; that sentence is left out."
    )
    assert "test_text_utils.py" not in served.streamed.split("[Foehn]")[0]
    assert "upper" in (project / "text_utils.py").read_text()


async def test_a_file_named_as_what_should_pass_is_not_a_file_said_changed(
    model: ModelServer, project: Path
) -> None:
    claim = "I fixed shout in text_utils.py so that tests/test_text_utils.py passes."
    served = await served_turn(model, project, "Fix shout", [READ, FIX, RUN, Turn(text=claim)])
    assert served.outcome.answer == claim
    assert served.notes() == []


async def test_faster_without_a_run_that_shows_it_is_sent_back_then_left_out(
    model: ModelServer, project: Path
) -> None:
    """Seen: "The tests are now faster." stood after a change that made them no faster."""
    first = "I changed shout in text_utils.py. The tests are now faster."
    served = await served_turn(
        model,
        project,
        "The tests are slow; make them faster",
        [READ, FIX, RUN, Turn(text=first), Turn(text=first)],
    )
    [note] = served.notes()
    assert note.startswith(
        "[Foehn] Your answer 'The tests are now faster.' says it is faster, but no passing "
        "run_tests before and after your change compares their times."
    )
    assert served.outcome.answer == (
        "I changed shout in text_utils.py.\n\n[Foehn] No run in this turn shows 'The tests are "
        "now faster.'; that sentence is left out. Run the tests before relying on this turn's "
        "changes."
    )
    assert "faster" not in served.streamed.split("[Foehn]")[0]


async def test_a_fix_claimed_with_no_run_after_the_change_is_sent_back_and_stands_once_shown(
    model: ModelServer, project: Path
) -> None:
    claim = "I fixed the failing test: shout in text_utils.py now upper-cases its text."
    served = await served_turn(
        model,
        project,
        "Fix the bug behind tests/test_text_utils.py::test_shout",
        [RUN, READ, FIX, Turn(text=claim), RUN, Turn(text=claim)],
    )
    [note] = served.notes()
    assert note.startswith(f"[Foehn] Your answer {claim!r} says it is fixed, but nothing ran")
    assert served.outcome.answer == claim
    assert [r.ok for r in served.results if r.tool == "run_tests"] == [False, True]


async def test_tests_said_again_to_pass_are_left_out_not_the_whole_answer(
    model: ModelServer, project: Path
) -> None:
    """A "tests pass" sentence with no run after the last change goes back once; said again,
    the person reads the rest of the answer and what the check found."""
    claim = "I changed shout in text_utils.py. All tests pass."
    served = await served_turn(
        model, project, "Make shout upper-case", [READ, FIX, Turn(text=claim), Turn(text=claim)]
    )
    assert served.outcome.answer.startswith(
        "I changed shout in text_utils.py.\n\n[Foehn] No run in this turn shows 'All tests pass.'"
    )


async def test_an_honest_could_not_right_after_a_failed_change_is_never_sent_back(
    model: ModelServer, project: Path
) -> None:
    honest = "I could not change text_utils.py: its text did not match what I tried to replace."
    bad = Turn(
        tool_calls=[
            (
                "edit_file",
                {"path": "text_utils.py", "edits": [{"old_text": "retrun", "new_text": "x"}]},
            )
        ]
    )
    served = await served_turn(
        model, project, "Make shout upper-case", [READ, bad, Turn(text=honest)]
    )
    assert served.outcome.answer == honest
    assert served.notes() == []
    assert len(served.requests) == 3


@pytest.mark.parametrize(
    ("text", "files"),
    [
        ("I made the change to text_utils.py and tests/test_text_utils.py.", 2),
        ("I fixed last_n in src/listing.py so that tests/test_listing.py passes.", 1),
        ("I read src/a.py and changed src/b.py.", 1),
        ("I added lint to tasks.txt; app.py is unchanged.", 1),
        ("Both src/a.py and src/b.py were updated.", 2),
        ("I made no changes to src/a.py.", 0),
        ("I changed src/a.py but could not run tests/test_a.py.", 1),
    ],
)
def test_which_files_an_answer_says_it_changed(text: str, files: int) -> None:
    assert len(named_files(text)) == files


@pytest.mark.parametrize(
    ("text", "fixed", "faster"),
    [
        ("I fixed the failing test.", True, False),
        ("The ZeroDivisionError is now fixed.", True, False),
        ("The bug is not fixed yet.", False, False),
        ("I fixed the typo in README.md.", False, False),
        ("The tests are now faster.", False, True),
        ("It is not faster: the time goes to a sleep the test needs.", False, False),
        # What is still to be done is no claim (seen on bench/bench_tasks.py mt-report).
        ("The code in report.py needs to be fixed to match the test.", False, False),
        ("The failing test should be fixed in stats.py.", False, False),
    ],
)
def test_what_counts_as_saying_a_run_would_show_it(text: str, fixed: bool, faster: bool) -> None:
    assert (claims_fixed(text), claims_faster(text)) == (fixed, faster)


TOOLS = discover().registry


def test_a_speed_up_is_shown_by_a_shorter_passing_run_after_the_change() -> None:
    def run(seconds: float) -> ToolResultMessage:
        header = f"$ python -m pytest\n(in .; exit 0; {seconds} s)\n3 passed"
        return ToolResultMessage(call_id="t", name="run_tests", content=header)

    edit = ToolResultMessage(call_id="e", name="edit_file", content="edit a.py (1 block)")
    assert slower([run(4.0), edit, run(0.5)], TOOLS) is None
    assert slower([run(4.0), edit, run(4.2)], TOOLS) == (
        "run_tests took 4.2 s after your change and 4.0 s before"
    )
    assert slower([edit, run(0.5)], TOOLS) is not None


FAILED_RUN = Turn(
    tool_calls=[("run_command", {"command": ["python", "-c", "import text_util; print(1)"]})]
)
GOOD_RUN = Turn(
    tool_calls=[
        (
            "run_command",
            {"command": ["python", "-c", "import text_utils; print(text_utils.shout('hi'))"]},
        )
    ]
)
VALUE = "shout('Donald E. Knuth') returns 'DONALD E. KNUTH'."
"""One sentence, the point of its initial no end of it."""


@pytest.mark.parametrize("streaming", [True, False])
async def test_a_value_said_after_a_failed_run_is_sent_back_then_left_out(
    model: ModelServer, project: Path, streaming: bool
) -> None:
    """Seen: "parameterize('Donald E. Knuth') returns 'Donald_E._Knuth'." after its own
    ``python -c`` had failed (a question: no change was asked for)."""
    served = await served_turn(
        model,
        project,
        "What does text_utils.shout('hi') return?",
        [FAILED_RUN, Turn(text=VALUE), Turn(text=f"It is upper-case. {VALUE}")],
        enable_streaming=streaming,
    )
    [note] = served.notes()
    assert note.startswith(
        f"[Foehn] Your answer says what the code returns ({VALUE!r}), but your last run_command "
        "failed and showed no value:"
    )
    assert "No module named 'text_util'" in note
    assert served.outcome.answer == (
        f"It is upper-case.\n\n[Foehn] The run in this turn failed, so it does not show "
        f"{VALUE!r}; that sentence is left out."
    )
    assert served.streamed == served.outcome.answer, "the value never reached the person"


async def test_a_value_a_later_run_showed_or_a_failing_test_stands(
    model: ModelServer, project: Path
) -> None:
    served = await served_turn(
        model, project, "What does shout('hi') return?", [FAILED_RUN, GOOD_RUN, Turn(text=VALUE)]
    )
    assert (served.outcome.answer, served.notes()) == (VALUE, [])
    # A failing run_tests shows what the code returned in its assertion, even after a failed
    # run_command.
    said = "shout('hi') returns 'hi' where the test expects 'HI'."
    served = await served_turn(
        model, project, "What does shout('hi') return?", [FAILED_RUN, RUN, Turn(text=said)]
    )
    assert (served.outcome.answer, served.notes()) == (said, [])


async def test_a_denied_run_or_code_that_returns_is_no_failed_run_shown_nothing(
    model: ModelServer, project: Path
) -> None:
    """Seen in VS Code: a denied run_command, then an answer whose code block has
    ``return 2``, was sent back as a value after a failed run."""
    said = "shout('hi') returns 'HI':\n\n```python\ndef shout(text):\n    return text.upper()\n```"
    served = await served_turn(
        model,
        project,
        "Show me shout, then try the script",
        [FAILED_RUN, Turn(text=said)],
        approver=FixedApprover(Denied(reason="not now")),
    )
    assert (served.outcome.answer, served.notes()) == (said, [])
    assert "the person denied this call" in served.results[0].output


ASKED = "What exactly does `python -c \"import text_utils; print(text_utils.shout('hi'))\"` print?"


@pytest.mark.parametrize("streaming", [True, False])
async def test_what_a_command_prints_said_before_it_ran_is_sent_back_then_stands_with_a_note(
    model: ModelServer, project: Path, streaming: bool
) -> None:
    """Seen (bench: sl-hundred): "What exactly does python -m kitty.cli 100.00 ana ben cy
    print?" answered at once, with no call, "… prints 'Hello, ana ben cy!'"."""
    guess = "It prints Hello, hi!"
    served = await served_turn(
        model,
        project,
        ASKED,
        [Turn(text=guess), Turn(text=f"From the name, I think {guess}")],
        enable_streaming=streaming,
    )
    command = "python -c 'import text_utils; print(text_utils.shout('\"'\"'hi'\"'\"'))'"
    assert served.notes() == [
        f"[Foehn] The task asks what `{command}` prints, and this turn has not run it: run it "
        "with run_command, then answer with what it showed."
    ]
    assert served.outcome.answer == (
        f"From the name, I think {guess}\n\n[Foehn] This turn did not run `{command}`; what it "
        "prints was not seen."
    )
    assert guess not in served.streamed.split("From the name")[0], "the guess never showed"


async def test_what_a_command_prints_stands_after_it_ran_or_when_the_answer_says_it_could_not(
    model: ModelServer, project: Path
) -> None:
    said = "It prints HI."
    served = await served_turn(model, project, ASKED, [GOOD_RUN, Turn(text=said)])
    assert (served.outcome.answer, served.notes()) == (said, [])
    honest = "I could not run it here, so I cannot say what it prints."
    served = await served_turn(model, project, ASKED, [Turn(text=honest)])
    assert (served.outcome.answer, served.notes()) == (honest, [])


@pytest.mark.parametrize(
    ("task", "command"),
    [
        (
            "What exactly does python -m kitty.cli 100.00 ana ben cy print? Just tell me.",
            ["python", "-m", "kitty.cli", "100.00", "ana", "ben", "cy"],
        ),
        ("what will `make lint` output?", ["make", "lint"]),
        ("What does ./run.sh show when the folder is empty?", ["./run.sh"]),
        ("What does python print for 1/0?", None),
        ("What does the function print?", None),
    ],
)
def test_which_command_a_task_asks_the_output_of(task: str, command: list[str] | None) -> None:
    assert program_asked(task) == command
