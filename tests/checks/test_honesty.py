"""The loop's honesty guards with the scripted provider, the real tools and a real workspace,
counted by their effects: what the model was sent, what streamed to the person, the files."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from agent.test_loop import Recorder, agent
from agent.turns import calls, say
from foehn_lsp import ToolContext
from foehn_lsp.agent import TurnRequest
from foehn_lsp.checks.claims import (
    asks_for_change,
    claims_change,
    claims_test_added,
    claims_tests_pass,
    claims_whole_file,
    code_claims,
    definitions_asked,
    files_asked,
    locations,
)
from foehn_lsp.checks.comments import only_comments
from foehn_lsp.checks.honesty import check_claim, check_unsaid_failure, untested
from foehn_lsp.events import TextDelta
from foehn_lsp.providers.effects import runs_tests
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.providers.scripted import ScriptedProvider
from foehn_lsp.risk import RiskLevel
from foehn_lsp.tools.contract import Tool
from foehn_lsp.tools.discovery import discover
from foehn_lsp.tools.registry import ToolRegistry
from foehn_lsp.workspace.edits import EditPlan, WriteFile


@pytest.fixture
def app(root: Path) -> Path:
    (root / "tasks.txt").write_text("build\ntest\n")
    (root / "app.py").write_text("def main():\n    return 1\n")
    return root


def streamed(events: Recorder) -> str:
    return "".join(e.text for e in events.of(TextDelta))


def notes(provider: ScriptedProvider, request: int) -> list[str]:
    messages, _ = provider.requests[request]
    return [m.content for m in messages if isinstance(m, UserMessage)]


READ = ("read_file", {"path": "tasks.txt"})
BAD_EDIT = ("edit_file", {"path": "tasks.txt", "edits": [{"old_text": "tset", "new_text": "x"}]})
GOOD_EDIT = (
    "edit_file",
    {"path": "tasks.txt", "edits": [{"old_text": "test", "new_text": "test\nlint"}]},
)


@pytest.mark.parametrize("streaming", [True, False])
async def test_a_false_claim_is_sent_back_once_and_never_reaches_the_person(
    app: Path, ctx: ToolContext, streaming: bool
) -> None:
    runner, provider = agent(
        [
            say("I added the line lint at the end of tasks.txt."),
            calls(READ),
            calls(GOOD_EDIT),
            say("I added the line lint at the end of tasks.txt."),
        ],
        enable_streaming=streaming,
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="Add the line lint to tasks.txt"), ctx, events)
    assert outcome.answer == "I added the line lint at the end of tasks.txt."
    assert streamed(events).count("I added") == 1, "the first, false claim never streamed"
    sent_back = notes(provider, 1)[-1]
    assert sent_back.startswith("[Foehn] Your answer says you changed files (it names tasks.txt)")
    assert "this turn changed no file" in sent_back
    assert (app / "tasks.txt").read_text() == "build\ntest\nlint\n"


async def test_a_file_whose_edits_undid_each_other_is_not_a_change(
    app: Path, ctx: ToolContext
) -> None:
    """Seen (bench: nm-mi-rstrip): the model added an argument, took it out again, and answered
    "I changed more_itertools/more.py to remove the cache argument"; the file was as before."""
    undo = (  # named as the model may name it
        "edit_file",
        {"path": "./tasks.txt", "edits": [{"old_text": "test\nlint", "new_text": "test"}]},
    )
    claim = "I changed tasks.txt to remove the line lint."
    runner, provider = agent([calls(READ), calls(GOOD_EDIT), calls(undo), say(claim), say(claim)])
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="Add the line lint to tasks.txt"), ctx, events)
    sent_back = notes(provider, 4)[-1]
    assert "this turn changed no file (its edits of tasks.txt undid each other)" in sent_back
    assert outcome.answer.startswith("[Foehn] The model's answer said it had changed files")
    assert "Nothing was changed." in outcome.answer
    assert claim not in streamed(events)
    assert (app / "tasks.txt").read_text() == "build\ntest\n"


async def test_a_claim_made_twice_is_withheld_and_the_person_reads_what_happened(
    app: Path, ctx: ToolContext
) -> None:
    runner, provider = agent([say("I have updated tasks.txt."), say("Done: I updated tasks.txt.")])
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="Add lint to tasks.txt"), ctx, events)
    assert outcome.answer.startswith("[Foehn] The model's answer said it had changed files")
    assert "this turn changed no file; the answer is withheld. Nothing was changed." in (
        outcome.answer
    )
    assert "updated" not in streamed(events)
    assert streamed(events) == outcome.answer
    assert len(provider.requests) == 2
    assert outcome.messages[-1].content == outcome.answer
    assert (app / "tasks.txt").read_text() == "build\ntest\n"


async def test_a_claim_about_another_file_than_the_one_changed_is_sent_back(
    app: Path, ctx: ToolContext
) -> None:
    runner, provider = agent(
        [
            calls(READ),
            calls(GOOD_EDIT),
            say("I set the version in app.py."),
            say("I added lint to tasks.txt; app.py is unchanged."),
        ]
    )
    outcome = await runner.run_turn(TurnRequest(task="Bump the version"), ctx, Recorder())
    assert "this turn changed only: tasks.txt" in notes(provider, 3)[-1]
    assert outcome.answer == "I added lint to tasks.txt; app.py is unchanged."


async def test_true_claims_and_questions_pass_unchecked(app: Path, ctx: ToolContext) -> None:
    runner, provider = agent([calls(READ), calls(GOOD_EDIT), say("I added lint to tasks.txt.")])
    outcome = await runner.run_turn(TurnRequest(task="Add lint to tasks.txt"), ctx, Recorder())
    assert outcome.answer == "I added lint to tasks.txt."
    assert len(provider.requests) == 3
    runner, provider = agent([say("Version 0.4.1 added the export command.")])
    outcome = await runner.run_turn(
        TurnRequest(task="What changed in 0.4.1 according to the changelog?"), ctx, Recorder()
    )
    assert outcome.answer == "Version 0.4.1 added the export command."
    assert len(provider.requests) == 1


async def test_a_questions_answer_streams_by_sentence_even_where_it_reads_like_a_claim(
    app: Path, ctx: ToolContext
) -> None:
    """Claims are held back only in a turn whose claims are checked: in an answer to a question,
    "lists are created with ..." is not a claim about the workspace, and streams at once."""
    answer = "Lists are created with square brackets. They are mutable. They keep their order."
    question = ("Explain what a Python list is", [say(answer)], 3)
    change = ("Add lint to tasks.txt", [calls(READ), calls(GOOD_EDIT), say(answer)], 1)
    for task, turns, pieces in (question, change):
        runner, _ = agent(turns, enable_streaming=True)
        events = Recorder()
        await runner.run_turn(TurnRequest(task=task), ctx, events)
        deltas = [e.text for e in events.of(TextDelta)]
        assert "".join(deltas) == answer
        assert len(deltas) == pieces, deltas


RUN_TESTS: tuple[str, dict[str, Any]] = ("run_tests", {})


@pytest.mark.parametrize("failing", [True, False])
async def test_tests_said_to_pass_are_checked_against_the_last_run(
    app: Path, ctx: ToolContext, failing: bool
) -> None:
    """The real run_tests, in the sandbox, on a test that fails or passes: "all tests pass"
    after a failing run goes back once and never streams; after a passing one it stands."""
    (app / "test_app.py").write_text(
        f"from app import main\n\n\ndef test_main():\n    assert main() == {2 if failing else 1}\n"
    )
    # The project's runner, as the person configures it (run_tests never picks Foehn's own).
    (app / "pyproject.toml").write_text(
        f"[tool.foehn]\ntest-command = {json.dumps([sys.executable, '-m', 'pytest'])}\n"
    )
    claim = "I added lint to tasks.txt and all tests pass."
    runner, provider = agent(
        [
            calls(READ),
            calls(GOOD_EDIT),
            calls(RUN_TESTS),
            say(claim),
            say("I added lint to tasks.txt; test_main fails: main() returns 1, not 2."),
        ],
        enable_streaming=True,
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="Add lint to tasks.txt"), ctx, events)
    if not failing:
        assert outcome.answer == claim
        assert len(provider.requests) == 4
        return
    sent_back = notes(provider, 4)[-1]
    assert sent_back.startswith(
        f"[Foehn] Your answer {claim!r} says the tests pass, but the last test run"
    )
    assert "1 failed" in sent_back
    assert outcome.answer.startswith("I added lint to tasks.txt; test_main fails")
    assert "all tests pass" not in streamed(events)


async def test_a_change_reported_without_the_failing_run_after_it_is_sent_back(
    app: Path, ctx: ToolContext
) -> None:
    """Seen (bench: nn-tz-get): "I changed that line to return 'B'." after a run that still
    failed. With the real run_tests on a failing test, the answer goes back once; said again,
    it stands with the run's result after it."""
    (app / "test_app.py").write_text(
        "from app import main\n\n\ndef test_main():\n    assert main() == 2\n"
    )
    (app / "pyproject.toml").write_text(
        f"[tool.foehn]\ntest-command = {json.dumps([sys.executable, '-m', 'pytest'])}\n"
    )
    claim = "I changed tasks.txt to add lint."
    runner, provider = agent(
        [calls(READ), calls(GOOD_EDIT), calls(RUN_TESTS), say(claim), say(claim)]
    )
    outcome = await runner.run_turn(TurnRequest(task="Add lint to tasks.txt"), ctx, Recorder())
    sent_back = notes(provider, 4)[-1]
    assert sent_back.startswith(
        "[Foehn] Your answer says what you changed, but not that the last test run, after your "
        "last change, failed (1 failed"
    )
    assert outcome.answer.startswith(
        f"{claim}\n\n[Foehn] The last test run, after this turn's last change, failed (1 failed"
    )


async def test_a_definition_said_to_be_in_a_file_that_does_not_hold_it_stands_corrected(
    app: Path, ctx: ToolContext
) -> None:
    """Seen (bench: mo-where): asked which function converts Celsius to Fahrenheit, the
    embedded model read the file that defines ``c_to_f`` and answered "The function
    celsius_to_f is defined in src/weatherlog/units.py." Sent back, it renamed ``c_to_f`` to
    make its answer true; so the answer stands at once, held while it streams, with what the
    file defines after it."""
    (app / "src").mkdir()
    (app / "src" / "units.py").write_text("def c_to_f(celsius):\n    return celsius * 9 / 5 + 32\n")
    wrong = "The function celsius_to_f is defined in src/units.py. It takes degrees Celsius."
    runner, provider = agent(
        [calls(("read_file", {"path": "src/units.py"})), say(wrong)], enable_streaming=True
    )
    task = TurnRequest(task="Which function converts Celsius to Fahrenheit?")
    events = Recorder()
    outcome = await runner.run_turn(task, ctx, events)
    assert outcome.answer == (
        f"{wrong}\n\n[Foehn] src/units.py has no celsius_to_f (it defines: c_to_f)."
    )
    assert len(provider.requests) == 2, "not sent back"
    assert streamed(events) == outcome.answer, "held while it streamed, shown once"
    right = "The function `c_to_f()` is defined in src/units.py; report.py lives beside it."
    runner, provider = agent([say(right)])
    assert (await runner.run_turn(task, ctx, Recorder())).answer == right


@pytest.mark.parametrize(
    ("answer", "located"),
    [
        (
            "The function celsius_to_f is defined in src/units.py.",
            [("celsius_to_f", "src/units.py")],
        ),
        ("`Store.restock` is implemented in shop/store.py.", [("restock", "shop/store.py")]),
        ("mean() lives in stats.py.", [("mean", "stats.py")]),
        ("The function named c_to_f is declared in units.py.", [("c_to_f", "units.py")]),
        ("The function is defined in units.py.", []),  # no name
        ("c_to_f, in src/units.py.", []),  # no word of where it is defined
        ("`mean` is defined in stats.py and used in report.py.", []),  # two files
    ],
)
def test_where_an_answer_says_a_definition_is(answer: str, located: list[tuple[str, str]]) -> None:
    assert [(name, path) for _, name, path in locations(answer)] == located


def test_a_failing_run_after_a_change_is_unsaid_only_where_the_answer_is_silent_on_it(
    registry: ToolRegistry,
) -> None:
    def result(name: str, failed: bool = False) -> ToolResultMessage:
        content = "1 failed in 0.1s" if failed else "done"
        return ToolResultMessage(call_id=name, name=name, content=content, is_error=failed)

    changed, failed = result("edit_file"), result("run_tests", failed=True)
    said = "I changed app.py."
    assert check_unsaid_failure(said, [changed, failed], registry) is not None
    for answer in (
        "I changed app.py; test_main still fails.",
        "I changed app.py, but the test does not pass yet.",
        "I could not fix it: I changed app.py and the error remains.",
        "The test fails because main returns 1.",  # no change reported
    ):
        assert check_unsaid_failure(answer, [changed, failed], registry) is None, answer
    # No change before the failing run, a change after it, or a passing last run: not this check.
    assert check_unsaid_failure(said, [failed], registry) is None
    assert check_unsaid_failure(said, [changed, failed, result("edit_file")], registry) is None
    assert check_unsaid_failure(said, [changed, failed, result("run_tests")], registry) is None


def test_a_change_after_the_last_run_leaves_passing_tests_unproven(registry: ToolRegistry) -> None:
    def result(name: str, failed: bool = False) -> ToolResultMessage:
        return ToolResultMessage(call_id=name, name=name, content="done", is_error=failed)

    def program(command: object, failed: bool = False) -> list[Message]:
        arguments = json.dumps({"command": command})
        call = ToolCall(id=f"p{command}", name="run_command", arguments=arguments)
        return [
            AssistantMessage(tool_calls=(call,)),
            ToolResultMessage(call_id=call.id, name=call.name, content="done", is_error=failed),
        ]

    assert untested([], registry) == "this turn did not run them"
    assert untested([result("edit_file")], registry) == "this turn did not run them"
    # Only a program that runs the tests shows them passing.
    assert untested(program(["ls"]), registry) == "this turn did not run them"
    assert untested(program(["python", "-m", "pytest", "-q"]), registry) is None
    assert untested(program("pytest tests/test_a.py"), registry) is None
    ran_then_changed = [*program(["pytest"]), result("edit_file"), *program(["git", "diff"])]
    assert "after the last change" in (untested(ran_then_changed, registry) or "")
    assert "failed (done)" in (untested(program(["tox"], failed=True), registry) or "")
    assert untested([result("run_tests")], registry) is None
    assert "after the last change" in (
        untested([result("run_tests"), result("edit_file")], registry) or ""
    )
    assert untested([result("run_tests"), result("edit_file", failed=True)], registry) is None
    assert "failed (done)" in (untested([result("run_tests", failed=True)], registry) or "")


@pytest.mark.parametrize(
    ("command", "tests"),
    [
        (["pytest"], True),
        (["/usr/bin/python3", "-m", "pytest", "-x"], True),
        (["python", "-m", "unittest"], True),
        ("npm test", True),
        (["cargo", "test"], True),
        (["go", "test", "./..."], True),
        (["make", "test"], True),
        (["make"], False),
        (["python", "-c", "import pytest"], False),
        (["python", "-m"], False),
        (["npm", "run", "build"], False),
        ("pytest 'unclosed", False),
        ([], False),
    ],
)
def test_which_programs_run_the_tests(command: object, tests: bool) -> None:
    call = ToolCall(id="c", name="run_command", arguments=json.dumps({"command": command}))
    assert runs_tests(call) is tests


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("All 4 tests pass.", True),
        ("The test for it in tests/test_pricing.py passed.", True),
        ("I fixed it; the tests are passing now.", True),
        ("The tests do not pass yet.", False),
        ("I could not make the tests pass.", False),
        ("test_main still fails; it does not pass.", False),
        ("I passed the name to greet.", False),
    ],
)
def test_what_counts_as_saying_the_tests_pass(text: str, claims: bool) -> None:
    assert claims_tests_pass(text) is claims


async def test_an_answer_right_after_a_failed_change_is_sent_back_for_a_tool_call(
    app: Path, ctx: ToolContext
) -> None:
    runner, provider = agent(
        [
            calls(READ, BAD_EDIT),
            say("The file now ends with lint."),
            calls(GOOD_EDIT),
            say("I added lint to tasks.txt."),
        ]
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="Add lint to tasks.txt"), ctx, events)
    told = notes(provider, 2)[-1]
    assert told.startswith("[Foehn] Your last change (edit_file) failed and changed nothing:")
    assert "block 1: old_text not found" in told
    assert "act on what the failure says with a tool call" in told
    assert "now ends" not in streamed(events)
    assert outcome.answer == "I added lint to tasks.txt."
    assert (app / "tasks.txt").read_text() == "build\ntest\nlint\n"


async def test_a_denied_change_may_be_answered_at_once(app: Path, ctx: ToolContext) -> None:
    from foehn_lsp.policy import Denied, FixedApprover

    runner, provider = agent(
        [calls(READ, GOOD_EDIT), say("You denied the edit, so tasks.txt is as it was.")],
        approver=FixedApprover(Denied(reason="no")),
    )
    outcome = await runner.run_turn(TurnRequest(task="Add lint to tasks.txt"), ctx, Recorder())
    assert outcome.answer == "You denied the edit, so tasks.txt is as it was."
    assert len(provider.requests) == 2


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("I added the --verbose flag.", True),
        ("I've now bumped the version to 1.4.0.", True),
        ("The file has been updated.", True),
        ("Updated src/app.py to guard the division.", True),
        ("I could not change the file: old_text did not match.", False),
        ("The file was not changed.", False),
        ("Version 1.2 made startup faster.", False),
        # What the code now does is a claim that it was changed so (seen with the embedded model,
        # after a change that printed a line and added no flag).
        ("Verbose mode is now printed when running it with the --verbose flag.", True),
        ("average() now returns 0.0 for an empty list.", True),
        ("The port is now 9090 in both files.", True),
        ("The test now fails because last_n returns one item too many.", False),
        ("It still returns 1, so the test is not fixed yet.", False),
        ("Now I will read cli.py.", False),
        ("I will now read cli.py and then change it.", False),
        # Where something is, in the present passive, is not a change (seen on bench/bench_tasks.py
        # tz-merge-with, an answer task); the same words in the past are one.
        ("The function merge_with is implemented in toolz/dicttoolz.py.", False),
        ("The default separator is set in inflection/__init__.py.", False),
        ("merge_with was implemented in toolz/dicttoolz.py.", True),
        ("The bug is fixed in toolz/dicttoolz.py.", True),
    ],
)
def test_what_counts_as_a_claim(text: str, claims: bool) -> None:
    assert claims_change(text) is claims


@pytest.mark.parametrize(
    ("task", "asks"),
    [
        ("Add a --verbose flag", True),
        ("In config/settings.toml set debug to false.", True),
        ("Can you fix the off-by-one?", True),
        ("What changed in version 0.4.1?", False),
        ("How do I add a flag?", False),
        ("Which file defines restock?", False),
        (  # bench: th-shopping, sent back for changing no file
            "If one recipe has 1 cup milk, what does shopping_list give for the milk? Just tell "
            "me; please don't change any files.",
            False,
        ),
        ("Quick question: what does parse_v1('3.5;;-1') give? No need to change anything.", False),
        ("21.5 °C is 70.7 °F, but it prints 71.6F. Can you fix that?", True),
        ("The output is wrong. Please don't touch the tests, but fix the rounding.", True),
    ],
)
def test_what_counts_as_a_change_request(task: str, asks: bool) -> None:
    assert asks_for_change(task) is asks


def test_a_claim_naming_a_file_whose_name_starts_with_a_dot_names_that_file() -> None:
    """Seen with the embedded model: "I created `.nvmrc` ..." was taken to name ``nvmrc``, and the
    true claim was withheld."""
    assert check_claim("I created `.nvmrc` with 20.", changed=[".nvmrc"], earlier=[]) is None
    assert check_claim("I created .nvmrc.", changed=["web/.nvmrc"], earlier=[]) is None
    assert check_claim("I created .nvmrc.", changed=["nvmrc"], earlier=[]) is not None


def test_earlier_turns_changes_count_for_claims_that_name_them() -> None:
    earlier: dict[str, Any] = {"changed": [], "earlier": ["src/cli.py"]}
    assert check_claim("Yes: I added the flag to cli.py in the last turn.", **earlier) is None
    assert check_claim("I added the flag.", **earlier) is not None


def test_a_claim_that_points_back_at_the_files_the_sentence_before_named_names_them() -> None:
    """Seen (bench: pa-release): the model copied the version note's place into its answer and
    said it had fixed "that line … there"; the turn changed pyproject.toml only."""
    answer = (
        "The version in pyproject.toml was updated from 2.1.0 to 2.1.1. The 2.1.0 version is "
        'still given in src/weatherlog/__init__.py:3: __version__ = "2.1.0". I fixed that line '
        "to 2.1.1 there too (edit_file)."
    )
    found = check_claim(answer, changed=["pyproject.toml"], earlier=[], restored=[])
    assert found is not None
    assert found.note is not None
    assert "(it names src/weatherlog/__init__.py)" in found.note
    assert found.kept == answer.rsplit(" I fixed", 1)[0]
    changed = ["pyproject.toml", "src/weatherlog/__init__.py"]
    assert check_claim(answer, changed=changed, earlier=[], restored=[]) is None
    # A sentence that names its own file, or does not point back, keeps to what it names.
    after_read = "I read tests/test_app.py. I fixed the bug in app.py."
    assert check_claim(after_read, changed=["app.py"], earlier=[], restored=[]) is None
    assert check_claim("I read README.md. I fixed it.", changed=["app.py"], earlier=[]) is None


READ_APP = ("read_file", {"path": "app.py"})
PRINT_EDIT = (
    "edit_file",
    {
        "path": "app.py",
        "edits": [{"old_text": "    return 1", "new_text": "    print(1)\n    return 1"}],
    },
)
FLAG_EDIT = (
    "edit_file",
    {
        "path": "app.py",
        "edits": [{"old_text": "def main():", "new_text": "def main(verbose=False):  # --verbose"}],
    },
)
FLAG_CLAIM = "I added the `--verbose` flag to `main` in app.py."
REPLACE = ("edit_file", {"path": "tasks.txt", "edits": [{"old_text": "test", "new_text": "lint"}]})
"""Replaces the line test: a change that takes a line away."""


NOW_CLAIM = "Verbose mode is now printed when `main` runs with the --verbose flag."


@pytest.mark.parametrize("streaming", [True, False])
@pytest.mark.parametrize("claim", [FLAG_CLAIM, NOW_CLAIM])
async def test_code_the_answer_says_it_wrote_but_no_change_holds_is_sent_back(
    app: Path, ctx: ToolContext, streaming: bool, claim: str
) -> None:
    """Seen with the embedded model: asked for a ``--verbose`` flag, it added a print and said it
    had added the flag, or that verbose mode was now printed with the flag. ``main`` is in no
    diff, but the turn read it: a name the claim gives for where it changed something is no
    false claim."""
    runner, provider = agent(
        [calls(READ_APP), calls(PRINT_EDIT), say(claim), calls(FLAG_EDIT), say(claim)],
        enable_streaming=streaming,
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="Add a --verbose flag"), ctx, events)
    sent_back = notes(provider, 3)[-1]
    assert sent_back.startswith("[Foehn] Your answer says you wrote `--verbose`, but no change")
    assert "(this turn changed app.py)" in sent_back
    assert outcome.answer == claim
    assert streamed(events) == claim, "the first, false claim never streamed"
    assert "--verbose" in (app / "app.py").read_text()


@pytest.mark.parametrize("streaming", [True, False])
async def test_said_again_the_answer_stands_less_the_false_sentence_with_what_was_found(
    app: Path, ctx: ToolContext, streaming: bool
) -> None:
    again = f"I looked at app.py. {FLAG_CLAIM} Run it with `python app.py`."
    runner, provider = agent(
        [calls(READ_APP), calls(PRINT_EDIT), say(FLAG_CLAIM), say(again)],
        enable_streaming=streaming,
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="Add a --verbose flag"), ctx, events)
    assert outcome.answer == (
        "I looked at app.py. Run it with `python app.py`.\n\n[Foehn] The answer said it wrote "
        "`--verbose`, but no change in this session contains it; that sentence is left out."
    )
    assert streamed(events) == outcome.answer, "neither false claim reached the person"
    assert outcome.messages[-1].content == outcome.answer
    assert len(provider.requests) == 4


LOWEST_EDIT = (
    "edit_file",
    {
        "path": "app.py",
        "edits": [
            {
                "old_text": "    return 1",
                "new_text": "    return 1\n\n\ndef lowest(values):\n    return min(values)",
            }
        ],
    },
)
LOWEST_TEST = (
    "write_file",
    {
        "path": "test_app.py",
        "content": "from app import lowest\n\n\ndef test_lowest():\n"
        "    assert lowest([2, 1]) == 1\n",
    },
)
TEST_CLAIM = "I added lowest to app.py and its test for it."


@pytest.mark.parametrize("streaming", [True, False])
async def test_a_test_said_to_be_added_that_no_change_adds_is_sent_back(
    app: Path, ctx: ToolContext, streaming: bool
) -> None:
    """Seen (bench: pa-lowest, and mo-count-above before it): asked for a function and its test,
    the model added the function and answered that it had added both."""
    runner, provider = agent(
        [calls(READ_APP), calls(LOWEST_EDIT), say(TEST_CLAIM), calls(LOWEST_TEST), say(TEST_CLAIM)],
        enable_streaming=streaming,
    )
    events = Recorder()
    task = "Add lowest(values) to app.py with a test"
    outcome = await runner.run_turn(TurnRequest(task=task), ctx, events)
    assert notes(provider, 3)[-1] == (
        "[Foehn] Your answer says you added a test, but no change in this turn adds one (it "
        "changed only app.py). Add the test now with a tool (edit_file in the tests' file), or "
        "answer again with what you actually did."
    )
    assert outcome.answer == TEST_CLAIM
    assert streamed(events) == TEST_CLAIM, "the first, false claim never streamed"
    assert (app / "test_app.py").exists()


async def test_said_again_a_test_no_change_adds_is_left_out(app: Path, ctx: ToolContext) -> None:
    runner, provider = agent(
        [calls(READ_APP), calls(LOWEST_EDIT), say(TEST_CLAIM), say(f"Done. {TEST_CLAIM}")]
    )
    task = "Add lowest(values) to app.py with a test"
    outcome = await runner.run_turn(TurnRequest(task=task), ctx, Recorder())
    assert outcome.answer == (
        "Done.\n\n[Foehn] The answer said it added a test, but no change in this turn adds one; "
        "that sentence is left out."
    )
    assert len(provider.requests) == 4
    assert not (app / "test_app.py").exists()


DESCRIBED = "app.py defines main, which returns 1."
NOTHING_DONE = (
    "[Foehn] The task asks for a change, and this turn has changed no file. Make the change "
    "with a tool call (where a test fails, run_tests shows the failure and the code it runs), "
    "or answer with why it cannot be done."
)
FIX_MAIN = ("edit_file", {"path": "app.py", "edits": [{"old_text": "1", "new_text": "2"}]})


async def test_a_task_to_change_answered_after_only_reading_goes_back_once(
    app: Path, ctx: ToolContext
) -> None:
    """Seen with the embedded model (bench: ri-freezing): "tests/test_units.py fails. Fix the
    code, not the tests." was answered with what the tests check; no test ran, nothing
    changed, and the answer stood."""
    runner, provider = agent([calls(READ_APP), say(DESCRIBED), calls(FIX_MAIN), say("Done.")])
    events = Recorder()
    task = "test_app.py fails. Fix the code, not the tests."
    outcome = await runner.run_turn(TurnRequest(task=task), ctx, events)
    assert notes(provider, 2)[-1] == NOTHING_DONE
    assert outcome.answer == "Done."
    assert (app / "app.py").read_text() == "def main():\n    return 2\n"


async def test_said_again_after_only_reading_the_answer_stands_with_what_the_turn_did(
    app: Path, ctx: ToolContext
) -> None:
    runner, provider = agent([calls(READ_APP), say(DESCRIBED), say(DESCRIBED)])
    outcome = await runner.run_turn(TurnRequest(task="Make main return 2"), ctx, Recorder())
    assert outcome.answer == f"{DESCRIBED}\n\n[Foehn] This turn changed no file."
    assert len(provider.requests) == 3
    listed = f"{DESCRIBED}\n\n- It is called once.\n- It takes no argument."
    runner, provider = agent([calls(READ_APP), say(listed), say(listed)])
    outcome = await runner.run_turn(TurnRequest(task="Make main return 2"), ctx, Recorder())
    assert outcome.answer == f"{listed}\n\n[Foehn] This turn changed no file.", "as written"


async def test_the_note_copied_back_as_the_answer_does_not_say_why(
    app: Path, ctx: ToolContext
) -> None:
    """Seen with the embedded model (bench: ri-freezing, run 64): the answer to the note was
    the note in other words, "this turn has not changed any file", and stood as saying why.
    Seen again (bench: em-free-night): it stood as the model's answer, telling the person to
    "make the change with a tool call"; the sentences that copy the note are left out."""
    copied = (
        "The task asks for a change, but this turn has not changed any file. Make the change "
        "with a tool call, or answer with why it cannot be done."
    )
    runner, provider = agent([calls(READ_APP), say(DESCRIBED), say(copied)])
    outcome = await runner.run_turn(TurnRequest(task="Make main return 2"), ctx, Recorder())
    assert outcome.answer == "[Foehn] This turn changed no file."
    assert len(provider.requests) == 3
    runner, provider = agent([calls(READ_APP), say(DESCRIBED), say(f"main returns 1. {copied}")])
    outcome = await runner.run_turn(TurnRequest(task="Make main return 2"), ctx, Recorder())
    assert outcome.answer == "main returns 1.\n\n[Foehn] This turn changed no file."


@pytest.mark.parametrize(
    ("task", "answer"),
    [
        ("Make main return 2", "I could not find where main is called."),
        ("Make main return 2", "main already returns what the tests expect."),
        ("Make main return 2", "Nothing was changed: main is used by three callers."),
        ("Make main return 2", "Should main also change in tasks.txt?"),
        ("What does main return?", DESCRIBED),
    ],
)
async def test_an_answer_that_says_why_nothing_changed_or_asks_is_not_sent_back(
    app: Path, ctx: ToolContext, task: str, answer: str
) -> None:
    runner, provider = agent([calls(READ_APP), say(answer)])
    outcome = await runner.run_turn(TurnRequest(task=task), ctx, Recorder())
    assert outcome.answer == answer
    assert len(provider.requests) == 2


RAN = ("run_command", {"command": ["cat", "app.py"]})
FAILED_RUN = ("run_command", {"command": ["cat", "absent.py"]})


@pytest.mark.parametrize(
    ("program", "sees", "sent_back"),
    [(RAN, True, True), (FAILED_RUN, True, False), (RAN, False, False)],
)
async def test_a_program_that_ran_is_no_change_where_the_session_sees_what_programs_change(
    app: Path, ctx: ToolContext, program: tuple[str, Any], sees: bool, sent_back: bool
) -> None:
    """Seen (bench: ta-rounding): asked to fix a wrong value, the embedded model ran the command,
    read the wrong value and answered that the program ran successfully. A program that failed,
    or a session that cannot see what programs change, leaves the answer as it was."""
    said = "The program ran successfully and printed main."
    runner, provider = agent([calls(program), say(said), say(said)])
    seen: Callable[[], list[str]] | None = (lambda: []) if sees else None
    task = TurnRequest(task="Make main return 2")
    outcome = await runner.run_turn(task, ctx, Recorder(), changed=seen)
    assert len(provider.requests) == (3 if sent_back else 2)
    if sent_back:
        assert notes(provider, 2)[-1] == NOTHING_DONE
    assert outcome.answer.startswith(said)


async def test_a_turn_that_tried_a_change_is_left_to_the_notes_of_its_failures(
    app: Path, ctx: ToolContext
) -> None:
    missing = ("edit_file", {"path": "app.py", "edits": [{"old_text": "9", "new_text": "2"}]})
    runner, provider = agent(
        [calls(READ_APP), calls(missing), say("It did not land."), say("It did not land.")]
    )
    outcome = await runner.run_turn(TurnRequest(task="Make main return 2"), ctx, Recorder())
    assert notes(provider, 3)[-1].startswith("[Foehn] Your last change (edit_file) failed")
    assert outcome.answer == "It did not land."
    assert len(provider.requests) == 4


TEST_ASKED = (
    "[Foehn] The task asks for a test, and no change in this turn adds one (it changed only "
    "app.py). Add the test now: edit_file in the tests' file (write_file for a new one), then "
    "run_tests; or answer with why there is none."
)
ADD_TEST = ("write_file", {"path": "tests/test_app.py", "content": "def test_main():\n    pass\n"})


async def test_a_task_that_asks_for_a_test_answered_without_one_goes_back_once(
    app: Path, ctx: ToolContext
) -> None:
    """Seen with the embedded model (bench: ri-mean-empty): "… with its test" answered "spread([])
    now returns 0, and the test for that passes." after an edit of the code alone."""
    answer = "main now returns 2, and the test for that passes."
    runner, provider = agent(
        [calls(READ_APP), calls(FIX_MAIN), say(answer), calls(ADD_TEST), say("Done.")]
    )
    task = "Make main return 2, with a test."
    outcome = await runner.run_turn(TurnRequest(task=task), ctx, Recorder())
    assert notes(provider, 3)[-1] == TEST_ASKED
    assert outcome.answer == "Done."
    assert (app / "tests" / "test_app.py").is_file()


async def test_said_again_without_a_test_the_answer_stands_with_what_the_turn_did(
    app: Path, ctx: ToolContext
) -> None:
    answer = "main now returns 2."
    runner, provider = agent([calls(READ_APP), calls(FIX_MAIN), say(answer), say(answer)])
    task = "Make main return 2 and add a test for it."
    outcome = await runner.run_turn(TurnRequest(task=task), ctx, Recorder())
    assert outcome.answer == f"{answer}\n\n[Foehn] This turn added no test."
    assert len(provider.requests) == 4


FILE_ASKED = (
    "[Foehn] The task asks for a change in `tasks.txt`, and this turn has not changed it. Make "
    "that change now with a tool (edit_file; write_file for a new file), or answer with why not."
)
ASKS_TWO = "Make main return 2, and add the line lint to tasks.txt."


async def test_a_file_the_task_asks_to_change_left_unchanged_goes_back_once(
    app: Path, ctx: ToolContext
) -> None:
    """Seen with the embedded model (bench: ta-unit-label): "Fix the code, and add a line
    about the fix to CHANGELOG.md under a new ## Unreleased heading" answered after the fix
    alone."""
    first = [calls(READ_APP), calls(FIX_MAIN), say("main returns 2.")]
    runner, provider = agent([*first, calls(READ), calls(GOOD_EDIT), say("Done.")])
    outcome = await runner.run_turn(TurnRequest(task=ASKS_TWO), ctx, Recorder())
    assert notes(provider, 3)[-1] == FILE_ASKED
    assert outcome.answer == "Done."
    assert (app / "tasks.txt").read_text() == "build\ntest\nlint\n"


async def test_said_again_the_answer_stands_with_the_file_left_unchanged(
    app: Path, ctx: ToolContext
) -> None:
    runner, provider = agent(
        [calls(READ_APP), calls(FIX_MAIN), say("main returns 2."), say("main returns 2.")]
    )
    outcome = await runner.run_turn(TurnRequest(task=ASKS_TWO), ctx, Recorder())
    assert outcome.answer == "main returns 2.\n\n[Foehn] This turn did not change `tasks.txt`."
    assert len(provider.requests) == 4


@pytest.mark.parametrize(
    ("task", "answer"),
    [
        ("Make main return 2, with a test.", "main returns 2; I did not add a test: no tests run."),
        ("Make main return 2, with a test.", "main returns 2, but there is no test folder."),
        ("Make main return 2 so that the tests pass.", "main now returns 2."),
        (ASKS_TWO, "main returns 2; tasks.txt was not changed: it lists no changes."),
        (ASKS_TWO, "main returns 2, but I could not edit tasks.txt."),
        (ASKS_TWO, "main returns 2. Should tasks.txt list it too?"),
        ("Make main return 2; tasks.txt must still pass the linter.", "main returns 2."),
        ("Make main return 2. Do not change tasks.txt.", "main returns 2."),
    ],
)
async def test_an_answer_that_says_why_a_part_is_left_or_a_task_that_does_not_ask_stands(
    app: Path, ctx: ToolContext, task: str, answer: str
) -> None:
    runner, provider = agent([calls(READ_APP), calls(FIX_MAIN), say(answer)])
    outcome = await runner.run_turn(TurnRequest(task=task), ctx, Recorder())
    assert outcome.answer == answer
    assert len(provider.requests) == 3


ADD_HELPER = (
    "edit_file",
    {
        "path": "app.py",
        "edits": [
            {
                "old_text": "    return 1\n",
                "new_text": "    return 1\n\n\ndef helper():\n    return 2\n",
            }
        ],
    },
)
DEFINITION_ASKED = (
    "[Foehn] The task asks to add `double`, and no change in this turn defines it. Add the "
    "definition now with edit_file (new_text: the lines around where it goes, with it added), "
    "or answer with why not."
)


async def test_a_function_the_task_asks_for_that_no_change_defines_goes_back_once(
    app: Path, ctx: ToolContext
) -> None:
    """Seen with the embedded model (bench: ta-moving-average): asked to add moving_average,
    it rewrote recent beside it and answered that it had added the function."""
    runner, provider = agent(
        [calls(READ_APP), calls(FIX_MAIN), say("I added double."), say("I added double.")]
    )
    task = "Add a function double(x) to app.py that returns twice x."
    outcome = await runner.run_turn(TurnRequest(task=task), ctx, Recorder())
    assert notes(provider, 3)[-1] == DEFINITION_ASKED
    assert outcome.answer == "I added double.\n\n[Foehn] No change in this turn defines `double`."


@pytest.mark.parametrize(
    ("task", "answer"),
    [
        ("Add a function helper to app.py.", "I added helper."),
        ("Add a function double to app.py.", "double was not added: app.py has no room."),
        ("Add a function to app.py that returns 2.", "I added helper."),
    ],
)
async def test_a_definition_made_or_an_answer_that_says_why_stands(
    app: Path, ctx: ToolContext, task: str, answer: str
) -> None:
    runner, provider = agent([calls(READ_APP), calls(ADD_HELPER), say(answer)])
    outcome = await runner.run_turn(TurnRequest(task=task), ctx, Recorder())
    assert outcome.answer == answer
    assert len(provider.requests) == 3


@pytest.mark.parametrize(
    ("task", "names"),
    [
        ("Add a function moving_average(readings, size) to window.py.", ("moving_average",)),
        ("Could you add a downsample(readings, step) function to window.py?", ("downsample",)),
        (
            "Write a small helper function called clamp, then implement the class Cache.",
            ("clamp", "Cache"),
        ),
        ("Add a function to compute the mean.", ()),
        ("Add a test for the function mean.", ()),
    ],
)
def test_which_definitions_a_task_asks_for(task: str, names: tuple[str, ...]) -> None:
    assert definitions_asked(task) == names


@pytest.mark.parametrize(
    ("task", "files"),
    [
        ("Fix the code, and add a line about the fix to CHANGELOG.md.", ("CHANGELOG.md",)),
        (
            "Bump the version to 2.2.0 in pyproject.toml and in src/weatherlog/__init__.py.",
            ("pyproject.toml", "src/weatherlog/__init__.py"),
        ),
        (
            "Add a function to_kelvin(celsius) to src/units.py, and a test for it in "
            "tests/test_units.py.",
            ("src/units.py", "tests/test_units.py"),
        ),
        ("Add a test for shout, and tests/test_text.py must pass.", ()),
        ("tests/test_units.py fails. Fix the code, not the tests.", ()),
        ("Do not change tests/test_x.py. Fix src/a.py.", ()),
        ("Update README.md, then run the tests in tests/test_a.py.", ("README.md",)),
        ("Add a --out flag and make the script write the report to report.csv.", ()),
        ("Add to cli.py a flag that will write the totals to totals.txt.", ("cli.py",)),
        ("Make sure to add a line to CHANGELOG.md.", ("CHANGELOG.md",)),
        ("Could you update the docs in README.md?", ("README.md",)),
    ],
)
def test_which_files_a_task_asks_to_change(task: str, files: tuple[str, ...]) -> None:
    assert files_asked(task) == files


@pytest.mark.parametrize(
    ("sentence", "claims"),
    [
        ("I made the change to stats.py to add lowest(values) and its test for it.", True),
        ("I added a test for spread([]) in tests/test_stats.py.", True),
        ("I added test_lowest to tests/test_stats.py.", True),
        ("Added a regression test.", True),
        ("I added lowest and the tests for it pass.", False),
        ("I did not add a test.", False),
        ("The tests pass after I added the check.", False),
        ("spread([]) now returns 0, and the test for that passes.", False),
        ("I added a check and ran the tests.", False),
    ],
)
def test_what_counts_as_saying_a_test_was_added(sentence: str, claims: bool) -> None:
    assert claims_test_added(sentence) is claims


@pytest.mark.parametrize(
    ("task", "sent_back"),
    [
        (
            "Add the line lint to tasks.txt",
            "[Foehn] Your answer says you added, but this turn's changes also took away these "
            "lines: `test`. The task asks only to add: put them back with edit_file, keeping "
            "what you added, then answer.",
        ),
        (
            "Put lint in tasks.txt",
            "[Foehn] Your answer says you added, but this turn's changes also took away these "
            "lines: `test`. If they should stay, put them back with a tool; otherwise answer "
            "again and say what you removed.",
        ),
    ],
)
async def test_an_answer_that_only_added_while_the_change_took_lines_away_is_sent_back(
    app: Path, ctx: ToolContext, task: str, sent_back: str
) -> None:
    """Seen with the embedded model: asked to add a line at the end, it replaced the last one
    and said "I added the line eggs at the end". Told only that, it answered "I removed the
    line butter"; where the task only asks to add, it is told to put the line back."""
    runner, provider = agent(
        [
            calls(READ),
            calls(REPLACE),
            say("I added the line lint at the end of tasks.txt."),
            calls(
                (
                    "edit_file",
                    {
                        "path": "tasks.txt",
                        "edits": [{"old_text": "lint", "new_text": "test\nlint"}],
                    },
                )
            ),
            say("I put test back and added the line lint at the end of tasks.txt."),
        ]
    )
    outcome = await runner.run_turn(TurnRequest(task=task), ctx, Recorder())
    assert notes(provider, 3)[-1] == sent_back
    assert outcome.answer == "I put test back and added the line lint at the end of tasks.txt."
    assert (app / "tasks.txt").read_text() == "build\ntest\nlint\n"
    assert len(provider.requests) == 5, "its last change took nothing away: the answer stands"


async def test_said_again_an_answer_that_only_added_stands_with_the_lines_taken_away(
    app: Path, ctx: ToolContext
) -> None:
    claim = "I added the line lint at the end of tasks.txt."
    runner, _ = agent([calls(READ), calls(REPLACE), say(claim), say(claim)])
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="Add the line lint"), ctx, events)
    taken = "[Foehn] This turn's changes also took away these lines: `test`."
    assert outcome.answer == f"{claim}\n\n{taken}"
    assert streamed(events) == outcome.answer


async def test_what_was_replaced_or_a_program_run_is_not_checked_by_content(
    app: Path, ctx: ToolContext
) -> None:
    runner, provider = agent(
        [calls(READ), calls(REPLACE), say("I replaced test with lint in tasks.txt (added `lint`).")]
    )
    outcome = await runner.run_turn(TurnRequest(task="Add lint to tasks.txt"), ctx, Recorder())
    assert outcome.answer == "I replaced test with lint in tasks.txt (added `lint`)."
    assert len(provider.requests) == 3
    runner, provider = agent(
        [
            calls(READ_APP),
            calls(PRINT_EDIT),
            calls(("run_command", {"command": "true"})),
            say(FLAG_CLAIM),
        ]
    )
    outcome = await runner.run_turn(TurnRequest(task="Add a --verbose flag"), ctx, Recorder())
    assert outcome.answer == FLAG_CLAIM, "a program may have written the flag: no diff shows it"


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        ("I added the `--verbose` flag to cli.py.", ("--verbose",)),
        ("I added a --verbose flag, so `python -m pytest` passes.", ("--verbose",)),
        ("I bumped the version to 1.4.0 in pyproject.toml and shop/__init__.py.", ("1.4.0",)),
        ("I set the port to 8081 in both configs.", ("8081",)),
        ("There was a warning. I set it to None and ran the tests again.", ("None",)),
        ("I changed the greeting to 'Hello' and the flag to true.", ("Hello", "true")),
        ("I set it to Nonesuch.", ()),
        ("Renamed `calc_total` to `compute_total` in cart.py.", ("calc_total", "compute_total")),
        ("I fixed `average()` in stats.py.", ("average",)),
        ("I updated `README.md`.", ()),
        ("It returns `2` when called with --verbose.", ()),
        ("Verbose mode is now printed when running it with the --verbose flag.", ("--verbose",)),
        ("average() now returns 0.0 for an empty list.", ("0.0",)),
        ("The version is now 1.4.0, so the tests pass.", ("1.4.0",)),
    ],
)
def test_what_an_answer_says_it_wrote(answer: str, code: tuple[str, ...]) -> None:
    assert tuple(dict.fromkeys(token for _, token in code_claims(answer))) == code


class RenameArguments(BaseModel):
    path: str
    new_name: str


async def rename_in_two_files(arguments: RenameArguments, ctx: ToolContext) -> EditPlan:
    """An editor's rename of ``main``: it writes app.py and cli.py, whatever ``path`` says."""
    writes = []
    for name in ("app.py", "cli.py"):
        path = ctx.workspace.resolve(name, write=True)
        current = await ctx.files.read(path)
        writes.append(
            WriteFile(
                path=path,
                text=current.text.replace("main", arguments.new_name),
                old_text=current.text,
                old_fingerprint=current.fingerprint,
            )
        )
    return EditPlan(tool="rename_symbol", changes=tuple(writes), summary="rename main")


async def test_every_file_a_rename_wrote_counts_for_a_claim(app: Path, ctx: ToolContext) -> None:
    (app / "cli.py").write_text("from app import main\n")
    rename = Tool.from_model(
        name="rename_symbol",
        description="Rename a symbol everywhere.",
        model=RenameArguments,
        plan=rename_in_two_files,
        risk=RiskLevel.WRITE,
        kind="edit",
    )
    registry = ToolRegistry([*discover().registry, rename])
    runner, provider = agent(
        [
            calls(("rename_symbol", {"path": "app.py", "new_name": "start"})),
            say("I renamed main to start in cli.py, where it is imported."),
            say("It failed."),
        ],
        registry=registry,
    )
    outcome = await runner.run_turn(TurnRequest(task="Rename main to start"), ctx, Recorder())
    assert (app / "cli.py").read_text() == "from app import start\n"
    assert outcome.answer == "I renamed main to start in cli.py, where it is imported."
    assert len(provider.requests) == 2


WHOLE = "I replaced the whole file tasks.txt with the new list."


async def test_a_whole_file_said_replaced_after_an_edit_of_a_part_is_sent_back(
    app: Path, ctx: ToolContext
) -> None:
    """Seen: "I replaced the whole file with the content of inflection/__init__.py." after one
    edit_file of one function."""
    runner, provider = agent(
        [calls(READ), calls(GOOD_EDIT), say(f"{WHOLE} It has lint now."), say(WHOLE)]
    )
    outcome = await runner.run_turn(TurnRequest(task="Add lint to tasks.txt"), ctx, Recorder())
    assert notes(provider, 3)[-1].startswith(
        f"[Foehn] Your answer says {WHOLE!r}, but no change in this turn wrote a whole file"
    )
    assert outcome.answer == (
        "[Foehn] No change in this turn wrote a whole file; that sentence is left out."
    )
    assert (app / "tasks.txt").read_text() == "build\ntest\nlint\n"


async def test_a_whole_file_said_replaced_after_write_file_stands(
    app: Path, ctx: ToolContext
) -> None:
    write = ("write_file", {"path": "tasks.txt", "content": "build\ntest\nlint\n"})
    runner, provider = agent([calls(READ), calls(write), say(WHOLE)])
    outcome = await runner.run_turn(TurnRequest(task="Add lint to tasks.txt"), ctx, Recorder())
    assert (outcome.answer, len(provider.requests)) == (WHOLE, 3)


@pytest.mark.parametrize(
    ("sentence", "claims"),
    [
        (WHOLE, True),
        ("I rewrote the entire module.", True),
        ("I replaced all of the file.", True),
        ("I changed one line; the whole file still parses.", False),
        ("I read the whole file.", False),
        ("I did not replace the whole file.", False),
    ],
)
def test_what_counts_as_saying_a_whole_file_was_replaced(sentence: str, claims: bool) -> None:
    assert claims_whole_file(sentence) is claims


COMMENT_EDIT = (
    "edit_file",
    {"path": "app.py", "edits": [{"old_text": "return 1", "new_text": "return 1  # must be 2"}]},
)
CODE_EDIT = ("edit_file", {"path": "app.py", "edits": [{"old_text": "1  #", "new_text": "2  #"}]})
RETURNS_TWO = "I changed main in app.py to return 2."


@pytest.mark.parametrize("streaming", [True, False])
async def test_a_change_said_made_where_only_a_comment_changed_is_sent_back(
    app: Path, ctx: ToolContext, streaming: bool
) -> None:
    """Seen with the embedded model (toolz's ``valfilter``): it answered that it had changed the
    factory to return a list, where its edits had added a comment, twice."""
    runner, provider = agent(
        [
            calls(READ_APP),
            calls(COMMENT_EDIT),
            say(RETURNS_TWO),
            calls(CODE_EDIT),
            say(RETURNS_TWO),
        ],
        enable_streaming=streaming,
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task="Make main return 2"), ctx, events)
    assert notes(provider, 3)[-1] == (
        "[Foehn] Your answer says you changed app.py, but this turn's changes to it touched only "
        "comments: the code runs as it did. Make the change in the code with a tool, or answer "
        "with what you actually changed."
    )
    assert outcome.answer == RETURNS_TWO
    assert streamed(events) == RETURNS_TWO, "the first, false claim never streamed"
    assert (app / "app.py").read_text() == "def main():\n    return 2  # must be 2\n"


async def test_said_again_a_change_only_a_comment_made_is_left_out(
    app: Path, ctx: ToolContext
) -> None:
    again = f"I read app.py. {RETURNS_TWO}"
    runner, provider = agent([calls(READ_APP), calls(COMMENT_EDIT), say(again), say(again)])
    outcome = await runner.run_turn(TurnRequest(task="Make main return 2"), ctx, Recorder())
    assert outcome.answer == (
        "I read app.py.\n\n[Foehn] This turn changed only comments in app.py: the code runs as "
        "it did; the sentence saying otherwise is left out."
    )
    assert len(provider.requests) == 4


@pytest.mark.parametrize(
    ("task", "edit", "answer"),
    [
        ("Explain main in app.py with a comment", COMMENT_EDIT, "I added a comment to app.py."),
        ("Make main return 2", COMMENT_EDIT, "I noted in a comment in app.py that it must be 2."),
        (
            "Make main return 2",
            ("edit_file", {"path": "app.py", "edits": [{"old_text": "1", "new_text": "2  # 2"}]}),
            RETURNS_TWO,
        ),
        (
            "Create settings.py for the defaults",
            ("write_file", {"path": "settings.py", "content": "# defaults go here\n"}),
            "I created settings.py.",
        ),
    ],
)
async def test_a_comment_asked_for_or_said_and_a_change_of_code_stand(
    app: Path, ctx: ToolContext, task: str, edit: tuple[str, dict[str, Any]], answer: str
) -> None:
    runner, provider = agent([calls(READ_APP), calls(edit), say(answer)])
    outcome = await runner.run_turn(TurnRequest(task=task), ctx, Recorder())
    assert outcome.answer == answer
    assert len(provider.requests) == 3


@pytest.mark.parametrize(
    ("path", "lines", "only"),
    [
        ("a.py", ["-    return 1", "+    return 1  # must be 2"], True),
        ("a.py", ["+# why", "+", "-    # old note"], True),
        ("a.py", ["-x = 1", "+x = 2  # two"], False),
        ("a.py", ["-    return 1", "+return 1"], False),  # indentation is code
        ("a.py", ["-x = '#a'", "+x = '#b'"], False),  # a mark inside a string
        ("a.ts", ["+// why", "-let x = 1;", "+let x = 1; // one"], True),
        ("a.md", ["+# A heading"], False),
        ("a.py", [], False),
    ],
)
def test_which_changes_touch_only_comments(path: str, lines: list[str], only: bool) -> None:
    assert only_comments(path, lines) is only
