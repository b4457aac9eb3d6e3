"""The test-driven path for every model, through the real loop with the model server on
127.0.0.1, the real run_tests in the sandbox and a real project: what a failing run shows, what
an edit may then change, and what a turn that is to fix the code does to the tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.served import served_turn
from foehn_lsp.agent.reads import replay_reads
from foehn_lsp.events import ToolResultEvent
from foehn_lsp.providers.local import repair
from foehn_lsp.providers.messages import (
    AssistantMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.testing import ModelServer, Turn
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.workspace import Workspace
from foehn_lsp.workspace.testfiles import fixes_a_bug, fixes_code
from foehn_plugins._failures import output_from, parsed, sources, statement
from foehn_plugins._tracing import Call, expected_of, parse, shows_difference
from pytest_venv import pytest_venv

TEST = "tests/test_listing.py::test_last_two"


@pytest.fixture
def project(root: Path) -> Path:
    """A package whose test fails for an off-by-one two calls down from the test."""
    (root / "src" / "shop").mkdir(parents=True)
    (root / "src" / "shop" / "__init__.py").write_text("")
    (root / "src" / "shop" / "listing.py").write_text(
        '"""Listings."""\n\n\ndef tail(items, count):\n    return items[-count - 1 :]\n\n\n'
        'def last_n(items, n):\n    """The last n items."""\n    return tail(items, n)\n\n\n'
        + "".join(f"def unrelated_{i}(x):\n    return x + {i}\n\n\n" for i in range(60))
    )
    (root / "tests").mkdir()
    (root / "tests" / "test_listing.py").write_text(
        "from shop.listing import last_n\n\n\ndef test_last_two():\n"
        "    assert last_n([1, 2, 3, 4], 2) == [3, 4]\n\n\ndef test_empty():\n"
        "    assert last_n([], 2) == []\n"
    )
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    pytest_venv(root / ".venv")
    return root


FIX = (
    "edit_file",
    {
        "path": "src/shop/listing.py",
        "edits": [{"old_text": "items[-count - 1 :]", "new_text": "items[-count:]"}],
    },
)
EDIT_TEST = (
    "edit_file",
    {
        "path": "tests/test_listing.py",
        "edits": [{"old_text": "== [3, 4]", "new_text": "== [2, 3, 4]"}],
    },
)


@pytest.mark.parametrize("window", [16_384, None])
async def test_a_failing_run_shows_the_test_the_traceback_and_the_code_it_runs(
    model: ModelServer, project: Path, window: int | None
) -> None:
    """Seen: the embedded model read whole 430-line test files until its time ran out. The
    run's result now holds what a developer looks at, and the code it shows may be edited
    without reading the file first."""
    served = await served_turn(
        model,
        project,
        f"Fix the bug behind {TEST}",
        [
            Turn(tool_calls=[("run_tests", {"paths": [TEST]})]),
            Turn(tool_calls=[FIX]),
            Turn(tool_calls=[("run_tests", {"paths": [TEST]})]),
            Turn(text="tail in src/shop/listing.py took one item too many; the test passes."),
        ],
        window=window,
    )
    first, edit, second = served.results
    assert not first.ok
    shown = first.output
    assert f"The first failure, {TEST}, from the test to where it failed:" in shown
    assert "tests/test_listing.py:5 in test_last_two: assert last_n([1, 2, 3, 4], 2) == [3, 4]" in (
        shown
    )
    assert "E assert [2, 3, 4] == [3, 4]" in shown
    assert "last_n, which the test calls:\nsrc/shop/listing.py: lines 8-10 of" in shown
    assert "tail, which last_n calls:\nsrc/shop/listing.py: lines 4-5 of" in shown
    assert "     5\t    return items[-count - 1 :]" in shown
    assert "unrelated_" not in shown, "only the functions the failure runs"
    assert (
        "What line 5 of the test ran (the test run once more, traced):\n"
        "last_n(items=[1, 2, 3, 4], n=2) (src/shop/listing.py) ran these lines and returned "
        "[2, 3, 4] at line 10; the test "
        "expects [3, 4]:\n"
        "    10\t    return tail(items, n)   <- returned [2, 3, 4]\n"
    ) in shown
    assert (
        f'Fix the code above with edit_file, then run_tests with paths ["{TEST}"] first.' in shown
    )
    assert ("pytest's own report is left out" in shown) is (window is not None)
    assert edit.ok, edit.output
    assert second.ok
    assert served.outcome.answer.startswith("tail in src/shop/listing.py")


async def test_a_turn_that_is_to_fix_the_code_does_not_change_the_test(
    model: ModelServer, project: Path
) -> None:
    before = (project / "tests" / "test_listing.py").read_text()
    served = await served_turn(
        model,
        project,
        f"Fix the bug behind {TEST}; fix the code, not the test.",
        [
            Turn(tool_calls=[("read_file", {"path": "tests/test_listing.py"})]),
            Turn(tool_calls=[EDIT_TEST]),
            Turn(tool_calls=[("run_tests", {})]),
            Turn(text="The test expects the last two items, and tail returns three; I left it."),
        ],
    )
    refused = served.results[1]
    assert not refused.ok
    assert refused.output == (
        "tests/test_listing.py was not changed: it is a test, and the task asks to fix the code "
        "so that the test passes. Change the code the failing test calls (run_tests shows it, "
        "with the traceback); if the test itself is wrong and cannot pass, leave it as it is and "
        "say why in your answer: the person decides."
    )
    assert (project / "tests" / "test_listing.py").read_text() == before
    assert served.notes() == [], "a refusal is no failed change to act on"


ADD_TEST = (
    "edit_file",
    {
        "path": "tests/test_listing.py",
        "edits": [
            {
                "old_text": "    assert last_n([], 2) == []\n",
                "new_text": "    assert last_n([], 2) == []\n\n\ndef test_one():\n"
                "    assert last_n([1], 1) == [1]\n",
            }
        ],
    },
)


async def test_a_bug_told_without_tests_is_fixed_in_the_code_and_a_test_may_be_added(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: ta-rounding): asked to fix a wrong value, the embedded model changed the
    test's expected line to the wrong value and answered that the test passed."""
    test_file = project / "tests" / "test_listing.py"
    before = test_file.read_text()
    served = await served_turn(
        model,
        project,
        "last_n([1, 2, 3, 4], 2) gives [2, 3, 4] but should give [3, 4]. Can you fix that?",
        [
            Turn(tool_calls=[("read_file", {"path": "tests/test_listing.py"})]),
            Turn(tool_calls=[EDIT_TEST]),
            Turn(tool_calls=[ADD_TEST]),
            Turn(text="I added a test."),
        ],
    )
    refused, added = served.results[1], served.results[2]
    assert not refused.ok
    assert refused.output.startswith(
        "tests/test_listing.py was not changed: it is a test, this change takes away or "
        "rewrites lines it has, and the task asks to fix a bug in the code"
    )
    assert added.ok, added.output
    assert test_file.read_text().startswith(before)
    assert "def test_one():" in test_file.read_text()


@pytest.mark.parametrize(
    ("task", "keeps"),
    [
        ("last_n gives three items, not two. Can you fix that?", True),
        ("The total is wrong for an empty cart; fix it.", True),
        ("Fix the test so it passes.", False),
        ("Fix the bug and update the tests.", False),
        ("Make the report show Fahrenheit.", False),
    ],
)
def test_which_tasks_keep_what_existing_tests_expect(task: str, keeps: bool) -> None:
    assert fixes_a_bug(task) is keeps


async def _delete(model: ModelServer, project: Path, task: str, path: str) -> ToolResultEvent:
    """What ``delete_path`` of ``path`` returned in a turn for ``task``."""
    served = await served_turn(
        model,
        project,
        task,
        [Turn(tool_calls=[("delete_path", {"path": path})]), Turn(text="Done.")],
    )
    [result] = served.results
    return result


async def test_a_turn_that_is_to_fix_the_code_deletes_no_file(
    model: ModelServer, project: Path
) -> None:
    """Seen twice on the bench (nz-bo-backoff, nf-tz-tail): after a wrong edit the embedded
    model deleted the module under test, and then its package's ``__init__.py``. Outside such
    a turn, or in one that also asks to delete, a deletion is the person's to approve, as
    before."""
    listing = project / "src" / "shop" / "listing.py"
    before = listing.read_text()
    refused = await _delete(model, project, f"Fix the bug behind {TEST}", "src/shop/listing.py")
    assert not refused.ok
    assert refused.output == (
        "src/shop/listing.py was not deleted: the task asks to fix the code so that the test "
        "passes, and a fix changes the lines the failing test runs (run_tests shows them); it "
        "does not delete files. Edit those lines instead; if a file must go, say so in your "
        "answer: the person decides."
    )
    assert listing.read_text() == before
    task = "Delete src/shop/listing.py, it is no longer used."
    assert (await _delete(model, project, task, "src/shop/listing.py")).ok
    assert not listing.exists()
    old = project / "src" / "shop" / "old.py"
    old.write_text("def unused():\n    return 1\n")
    task = "Delete the dead module src/shop/old.py; the tests must still pass."
    asked = await _delete(model, project, task, "src/shop/old.py")
    assert asked.ok, asked.output
    assert not old.exists()


async def test_a_task_that_asks_for_a_test_may_change_the_tests(
    model: ModelServer, project: Path
) -> None:
    served = await served_turn(
        model,
        project,
        "Change the expected value in tests/test_listing.py::test_last_two to [2, 3, 4]",
        [
            Turn(tool_calls=[("read_file", {"path": "tests/test_listing.py"})]),
            Turn(tool_calls=[EDIT_TEST]),
            Turn(text="I changed the expected value in tests/test_listing.py."),
        ],
    )
    assert served.results[1].ok
    assert "[2, 3, 4]" in (project / "tests" / "test_listing.py").read_text()


@pytest.mark.parametrize(
    ("task", "fixes"),
    [
        (f"Fix the bug behind {TEST}", True),
        ("The test in tests/test_listing.py fails. Fix the bug in the code so it passes.", True),
        ("Fix the typo in src/shop/greet.py so that tests/test_greet.py passes.", True),
        ("Make the tests pass; fix the code, not the test.", True),
        (
            "Add a function is_even(n) to pricing.py and a test for it in tests/test_pricing.py.",
            False,
        ),
        ("Add a keyword argument strict to parse, with its test.", False),
        ("Fix the test so it passes.", False),
        ("Rename calc_total to compute_total in every file.", False),
        (
            "Rename the function spread to value_range, in the package and in its tests. The "
            "tests must pass afterwards.",
            False,
        ),
        (
            "Rename the function line in src/weatherlog/report.py to format_line, everywhere "
            "it is used. The tests must pass afterwards.",
            False,
        ),
        ("Make tests/test_greet.py pass.", True),
        ("Make the failing test pass.", True),
        (  # bench: th-format; "my last change the test suite" is no request to change a test
            "Since my last change the test suite of this project fails. Please fix the code so "
            "that all the tests pass again; leave the tests as they are.",
            True,
        ),
        ("The build is red. Fix it, and keep the tests unchanged.", True),
        ("Update the test suite config and fix the failing test.", False),
    ],
)
def test_which_tasks_are_to_fix_the_code(task: str, fixes: bool) -> None:
    assert fixes_code(task) is fixes


async def test_a_test_file_named_by_a_wrong_folder_is_found_by_its_name(
    model: ModelServer, project: Path
) -> None:
    """Seen: asked about test_inflection.py::test_ordinal, the embedded model ran
    tests/test_inflection.py::test_ordinal, and pytest's "file or directory not found" left it
    nowhere to go. The one test file of that name runs; a name no test file has runs nothing
    and names the test files like it."""
    served = await served_turn(
        model,
        project,
        f"Fix the bug behind {TEST}",
        [
            Turn(tool_calls=[("run_tests", {"paths": ["test_listing.py::test_last_two"]})]),
            Turn(tool_calls=[("run_tests", {"paths": ["test_lists.py"]})]),
            Turn(text="ok"),
        ],
    )
    found, missing = served.results
    assert f"-- {TEST}" in found.output.splitlines()[0]
    assert f"The first failure, {TEST}" in found.output
    assert missing.output == (
        "'test_lists.py' is not there, so no test was run; names like it: tests/test_listing.py"
    )


async def test_a_long_docstring_is_left_out_of_the_failure_and_the_code_can_still_be_edited(
    model: ModelServer, project: Path
) -> None:
    """On a CPU every line shown is read; a docstring says nothing a failure needs. The line
    that stands for it is Foehn's, not the file's: seen (bench: nc-tz-frequencies), the model
    wrote it into the file, as new_text after the docstring's first line."""
    listing = project / "src" / "shop" / "listing.py"
    docstring = '    """How many items from the end.\n\n' + "    More words.\n" * 6 + '    """\n'
    listing.write_text(
        listing.read_text().replace(
            "def tail(items, count):\n", f"def tail(items, count):\n{docstring}"
        )
    )
    before = listing.read_text()
    head = 'def tail(items, count):\n    """How many items from the end.'
    copied = {"old_text": head, "new_text": f"{head}\n        (lines 6-12: the docstring)"}
    appended = {"old_text": head, "new_text": f"{head} (lines 6-12: the docstring)"}
    served = await served_turn(
        model,
        project,
        f"Fix the bug behind {TEST}",
        [
            Turn(tool_calls=[("run_tests", {"paths": [TEST]})]),
            Turn(tool_calls=[("edit_file", {"path": "src/shop/listing.py", "edits": [copied]})]),
            Turn(tool_calls=[("edit_file", {"path": "src/shop/listing.py", "edits": [appended]})]),
            Turn(tool_calls=[FIX]),
            Turn(text="ok"),
        ],
        window=16_384,
    )
    shown, marker, at_the_end, edit = served.results[:4]
    assert '     4\tdef tail(items, count):\n     5\t    """How many items from the end.\n' in (
        shown.output
    )
    assert '        (lines 6-12: the docstring)\n    13\t    """\n' in shown.output
    assert "More words" not in shown.output
    assert not marker.ok
    assert marker.output == (
        "no change was made to src/shop/listing.py:\n- block 1: new_text has "
        "'(lines 6-12: the docstring)', which Foehn showed in place of lines it left out; the "
        "file does not have it. Leave those words out and give only the file's own lines."
    )
    assert at_the_end.output == marker.output, "seen (bench: nh-tz-partitionby): at a line's end"
    assert edit.ok, edit.output
    assert listing.read_text() == before.replace("items[-count - 1 :]", "items[-count:]")


async def test_a_long_test_is_shown_up_to_the_statement_it_failed_on(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: nu-tz-excepts): a 62-line test that failed at its 28th line was shown whole
    at every run, most of what the model read. The lines after the failing statement are
    named, not shown (the test is not read for an edit), and the line that names them, copied
    into an edit, is refused like a docstring's."""
    _failing_line_becomes(
        project,
        "    assert last_n(\n        [1, 2, 3, 4], 2\n    ) == [3, 4]\n"
        + "".join(f"    assert last_n([{i}], 1) == [{i}]\n" for i in range(8)),
    )
    marker = "    ) == [3, 4]\n        (lines 8-15: after the statement it failed on)"
    edits = [{"old_text": marker, "new_text": "    ) == [3, 4]"}]
    edit = ("edit_file", {"path": "tests/test_listing.py", "edits": edits})
    served = await served_turn(
        model,
        project,
        f"Fix the bug behind {TEST}",
        [
            Turn(tool_calls=[("run_tests", {"paths": [TEST]})]),
            Turn(tool_calls=[edit]),
            Turn(tool_calls=[("read_file", {"path": "tests/test_listing.py"})]),
            Turn(tool_calls=[edit]),
            Turn(text="ok"),
        ],
        window=16_384,
    )
    shown, unread, _, copied = (result.output for result in served.results[:4])
    assert (
        "test_last_two, the failing test:\ntests/test_listing.py: lines 4-15 of 19\n"
        "     4\tdef test_last_two():\n     5\t    assert last_n(\n"
        "     6\t        [1, 2, 3, 4], 2\n     7\t    ) == [3, 4]\n"
        "        (lines 8-15: after the statement it failed on)\n"
    ) in shown
    assert "last_n([0], 1)" not in shown
    assert "it has not been read in this session" in unread, "a test shown in part is not read"
    assert "(lines 8-15: after the statement it failed on)', which Foehn showed in place" in copied


async def test_code_the_test_calls_before_a_helper_of_its_own_fails_is_shown(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: na-bo-one-to-one): the failing line called a helper defined in the test
    (``ck(…)``, whose assertion failed) and the code under test was called on the lines before
    it; the digest said "The code the test runs is not shown" and the model tried read_symbol
    on the package's folder. The definitions the test's own lines call are shown instead."""
    _failing_line_becomes(
        project,
        "    def check(expected):\n        assert got == expected\n\n"
        "    got = last_n([1, 2, 3, 4], 2)\n    check([3, 4])\n",
    )
    shown = await _first_run(model, project)
    assert "last_n, which the test calls:\nsrc/shop/listing.py: lines 8-10 of" in shown
    assert "tail, which last_n calls:" in shown
    assert "Fix the code above with edit_file" in shown
    assert "The code the test runs is not shown" not in shown


async def _first_run(model: ModelServer, project: Path) -> str:
    """What the model is shown by one run of the failing test, in the embedded model's window."""
    served = await served_turn(
        model,
        project,
        f"Fix the bug behind {TEST}",
        [Turn(tool_calls=[("run_tests", {"paths": [TEST]})]), Turn(text="ok")],
        window=16_384,
    )
    return served.results[0].output


def _failing_line_becomes(project: Path, lines: str) -> None:
    """The test's one line (``assert last_n([1, 2, 3, 4], 2) == [3, 4]``) replaced by
    ``lines``."""
    tests = project / "tests" / "test_listing.py"
    tests.write_text(
        tests.read_text().replace("    assert last_n([1, 2, 3, 4], 2) == [3, 4]\n", lines)
    )


async def test_the_traced_run_of_a_failing_line_shows_the_lines_that_ran_and_changes_nothing(
    model: ModelServer, project: Path
) -> None:
    """Seen: the embedded model edited the wrong line of a function whose return gave the
    wrong value. The failing line is run once more, traced, read-only: the lines that ran and
    the return that gave the value are shown, and what that run writes is thrown away (the
    test appends to a file: one line, from the run the person approved)."""
    listing = project / "src" / "shop" / "listing.py"
    listing.write_text(
        listing.read_text().replace(
            '    """The last n items."""\n',
            '    """The last n items."""\n    if not items:\n        return []\n'
            "    for _ in range(2):\n        n = n\n",
        )
    )
    tests = project / "tests" / "test_listing.py"
    tests.write_text(
        tests.read_text().replace(
            "def test_last_two():\n",
            "def test_last_two():\n    with open('runs.txt', 'a') as runs:\n"
            "        runs.write('ran\\n')\n",
        )
    )
    shown = await _first_run(model, project)
    assert (
        "What line 7 of the test ran (the test run once more, traced):\n"
        "last_n(items=[1, 2, 3, 4], n=2) (src/shop/listing.py) ran these lines and returned "
        "[2, 3, 4] at line 14; the test "
        "expects [3, 4]:\n"
        "    10\t    if not items:\n"
        "    12\t    for _ in range(2):\n"
        "    13\t        n = n\n"
        "    14\t    return tail(items, n)   <- returned [2, 3, 4]\n"
    ) in shown, shown
    assert (project / "runs.txt").read_text() == "ran\n"


async def test_the_traced_run_shows_what_each_line_set_the_first_time_it_ran(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: nh-inf-transliterate): the run showed ``parameterize`` return ``'malm'``
    for ``'Malmö'`` and the model changed its last lines; the value had gone wrong at its first
    line, ``string = transliterate(string)``. What a line set is shown beside it."""
    listing = project / "src" / "shop" / "listing.py"
    listing.write_text(
        listing.read_text().replace(
            "    return tail(items, n)\n",
            "    shown, _ = tail(items, n), len(items)\n    return list(shown)\n",
        )
    )
    shown = await _first_run(model, project)
    assert (
        "    10\t    shown, _ = tail(items, n), len(items)   <- shown = [2, 3, 4]\n"
        "    11\t    return list(shown)   <- returned [2, 3, 4]\n"
    ) in shown, shown


@pytest.mark.parametrize("window", [16_384, None])
async def test_a_run_with_no_failing_test_to_digest_shows_its_end_in_a_small_window(
    model: ModelServer, project: Path, window: int | None
) -> None:
    """Seen (bench: nh-tz-interleave): a run that ran out of memory showed pytest's whole
    INTERNALERROR traceback, and the embedded model was still reading it at its 300 s."""
    (project / "tests" / "conftest.py").write_text(
        "def pytest_sessionstart(session):\n    print('noise\\n' * 2000)\n\n\n"
        "def pytest_collection_finish(session):\n    raise RuntimeError('the end')\n"
    )
    served = await served_turn(
        model,
        project,
        f"Fix the bug behind {TEST}",
        [Turn(tool_calls=[("run_tests", {"paths": [TEST]})]), Turn(text="ok")],
        window=window,
    )
    output = served.results[0].output
    assert output.startswith("$ .venv/bin/python -m pytest -- tests/test_listing.py::test_last_two")
    assert "INTERNALERROR> RuntimeError: the end\n" in output
    note = "lines of the output are left out to fit the model's window; its end follows"
    if window is None:
        assert note not in output
        assert output.count("noise") == 2000
    else:
        assert output.split("\n")[1].startswith("(in .; exit 3")
        assert note in output
        assert len(output) <= 4_096


async def test_a_rerun_whose_call_returns_what_it_returned_before_says_where_the_value_comes_from(
    model: ModelServer, project: Path, registry: ToolRegistry
) -> None:
    """Seen (bench: nz-inf-parameterize, nz-tz-count): the model changed a line before the one
    the value came from, ran the test again, and took the same failure for a new one. A re-run
    whose traced call ends as before says so, and names the line; one whose value changed does
    not. How the calls ended is read back from the conversation for the next turn."""
    docstring = {
        "old_text": '"""The last n items."""',
        "new_text": '"""The last n items, in order."""',
    }
    wrong = {"old_text": "items[-count - 1 :]", "new_text": "items[-count - 2 :]"}
    served = await served_turn(
        model,
        project,
        f"Fix the bug behind {TEST}",
        [
            Turn(tool_calls=[("run_tests", {"paths": [TEST]})]),
            Turn(tool_calls=[("edit_file", {"path": "src/shop/listing.py", "edits": [docstring]})]),
            Turn(tool_calls=[("run_tests", {"paths": [TEST]})]),
            Turn(tool_calls=[("read_symbol", {"path": "src/shop/listing.py", "name": "tail"})]),
            Turn(tool_calls=[("edit_file", {"path": "src/shop/listing.py", "edits": [wrong]})]),
            Turn(tool_calls=[("run_tests", {"paths": [TEST]})]),
            Turn(text="ok"),
        ],
        window=16_384,
    )
    first, _, again, _, edited, changed = (r.output for r in served.results)
    assert "edit src/shop/listing.py" in edited
    same = (
        "last_n returned [2, 3, 4] in the run before too: what changed since did not change it. "
        "It comes from line 10: change that line, or what it uses."
    )
    assert "returned [2, 3, 4] at line 10" in again, again
    assert same in again
    assert "in the run before too" not in first
    assert "returned [1, 2, 3, 4] at line 10" in changed, changed
    assert "in the run before too" not in changed
    ledger = replay_reads(served.outcome.messages, Workspace([project]), registry)
    assert ledger.end_of("test_last_two", ("src/shop/listing.py", "last_n")) == (
        "returned",
        10,
        "[1, 2, 3, 4]",
    )
    assert "tail(items=[1, 2, 3, 4], count=2) (src/shop/listing.py), which last_n" in changed
    assert ledger.end_of("test_last_two", ("src/shop/listing.py", "tail")) == (
        "returned",
        5,
        "[1, 2, 3, 4]",
    )


async def test_a_parametrized_test_whose_id_has_a_space_is_read_like_any_other(
    model: ModelServer, project: Path, registry: ToolRegistry
) -> None:
    """Seen (bench: nc-inf-humanize): inflection's
    ``test_humanize[employee_salary-Employee salary]`` failed, and the result was pytest's
    report alone: the node id was read up to its space, so no failure was found. The run now
    shows the test, the code it runs and the traced line; the run to repeat names the whole id;
    and how the traced call ended is kept under it."""
    tests = project / "tests" / "test_listing.py"
    tests.write_text(
        "import pytest\n\nfrom shop.listing import last_n\n\n\n"
        '@pytest.mark.parametrize(("items", "want"), [([1, 2, 3, 4], [3, 4])],\n'
        '                         ids=["four items"])\n'
        "def test_last_two(items, want):\n    assert last_n(items, 2) == want\n"
    )
    node = "tests/test_listing.py::test_last_two[four items]"
    served = await served_turn(
        model,
        project,
        f"Fix the bug behind {node}",
        [
            Turn(tool_calls=[("run_tests", {"paths": [node]})]),
            Turn(tool_calls=[FIX]),
            Turn(tool_calls=[("run_tests", {"paths": [node]})]),
            Turn(text="ok"),
        ],
        window=16_384,
    )
    first, edit, second = served.results
    shown = first.output
    assert f"The first failure, {node}, from the test to where it failed:" in shown, shown
    assert "last_n, which the test calls:\nsrc/shop/listing.py: lines 8-10 of" in shown
    assert (
        "last_n(items=[1, 2, 3, 4], n=2) (src/shop/listing.py) ran these lines and returned "
        "[2, 3, 4] at line 10"
    ) in shown
    assert f'then run_tests with paths ["{node}"] first.' in shown
    assert edit.ok, edit.output
    assert second.ok, second.output
    ledger = replay_reads(served.outcome.messages, Workspace([project]), registry)
    assert ledger.end_of("test_last_two[four items]", ("src/shop/listing.py", "last_n")) == (
        "returned",
        10,
        "[2, 3, 4]",
    )


async def test_a_failure_inside_the_code_is_not_traced(model: ModelServer, project: Path) -> None:
    """An error raised in the code already shows its frames; only a failure on the test's own
    line (a failed assertion) is run again."""
    listing = project / "src" / "shop" / "listing.py"
    listing.write_text(listing.read_text().replace("items[-count - 1 :]", "items[count.x]"))
    shown = await _first_run(model, project)
    assert "AttributeError" in shown
    assert "src/shop/listing.py:5 in tail" in shown
    assert "traced" not in shown


def test_what_the_tracer_printed_is_read_and_anything_else_is_none() -> None:
    printed = (
        'noise\n@@foehn-trace@@[{"file": "a.py", "name": "f", "args": [["key", "1"]], '
        '"lines": [3, 4], "end": ["raised", 4, "KeyError: 1"]}]\n'
    )
    assert parse(printed) == [
        Call(
            file="a.py",
            name="f",
            arguments=(("key", "1"),),
            lines=(3, 4),
            end=("raised", 4, "KeyError: 1"),
        )
    ]
    for broken in ("", "@@foehn-trace@@", "@@foehn-trace@@{", '@@foehn-trace@@[{"file": 1}]'):
        assert parse(broken) == []


@pytest.mark.parametrize(
    ("errors", "value", "expected"),
    [
        (["AssertionError: assert 'Employee' == 'Employee id'"], "'Employee id'", "'Employee'"),
        (["assert {1: 2} == {2: 3}", "Left contains 1 more item:"], "{1: 2}", "{2: 3}"),
        (["AssertionError: 0 != 3"], "0", "3"),
        (["AssertionError: Lists differ: [0, 1] != [0, 1, 2]"], "[0, 1]", "[0, 1, 2]"),
        (["assert 1 == 1.0"], "2", None),
        (["assert 'a' == 'a '"], "'b'", None),
        (["assert x == y == z"], "x", None),
        (["AttributeError: 'int' object has no attribute 'x'"], "1", None),
        ([], "1", None),
    ],
)
def test_what_the_test_expects_is_said_only_when_the_value_is_one_side_of_it(
    errors: list[str], value: str, expected: str | None
) -> None:
    call = Call(file="a.py", name="f", arguments=(), lines=(1,), end=("returned", 1, value))
    assert expected_of(call, errors) == expected


@pytest.mark.parametrize(
    ("error", "value", "shows"),
    [
        ("AssertionError: assert 'total: 1:5:30' == 'total: 1:05:30'", "'1:5:30'", True),
        (
            "assert 'trailing-bad-characters' == 'trailing-bad-characters-'",
            "'trailing-bad-characters-'",
            True,
        ),
        ("assert [2, 3, 4] == [3, 4]", "[2, 3, 4]", True),
        ("assert 'total: 1:5:30' == 'total: 1:05:30'", "'total'", False),
        (
            "assert 'AB-123 08:15... total 7.50\\n' == 'AB-123 08:15...total 15.00\\n'",
            "'7.50'",
            False,
        ),
        ("assert 'a b c' == 'a b d'", "'a b'", False),
        ("assert None == 3", "None", False),
    ],
)
def test_a_value_is_said_to_be_the_failures_when_it_covers_where_the_sides_differ(
    error: str, value: str, shows: bool
) -> None:
    """Seen (bench: em-overnight): a correct '7.50', in a side pytest had cut short, was put
    first, and the code shown first was the wrong function."""
    call = Call(file="a.py", name="f", arguments=(), lines=(1,), end=("returned", 1, value))
    assert shows_difference([error], call) is shows


async def test_a_failing_statement_over_several_lines_is_read_and_traced_whole(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: nw-mi-ilen): pytest names a statement's first line, self.assertEqual(, and
    the call under test was on the next: the digest showed none of its code."""
    _failing_line_becomes(
        project, "    assert (\n        last_n([1, 2, 3, 4], 2)\n        == [3, 4]\n    )\n"
    )
    shown = await _first_run(model, project)
    assert (
        "tests/test_listing.py:5 in test_last_two: assert ( last_n([1, 2, 3, 4], 2) == [3, 4] )"
    ) in shown
    assert "What lines 5-8 of the test ran (the test run once more, traced):\n" in shown
    assert "    10\t    return tail(items, n)   <- returned [2, 3, 4]\n" in shown
    assert "last_n, which the test calls:" in shown


async def test_a_failing_assertion_on_a_value_set_before_shows_and_traces_the_call_that_set_it(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: nd-mi-take, nd-bo-research): the failing line was the assertion on a name
    an earlier line set from the call under test. The digest showed only the test, said "Fix
    the code above", and the model edited the test."""
    _failing_line_becomes(
        project, "    items = [1, 2, 3, 4]\n    got = last_n(items, 2)\n    assert got == [3, 4]\n"
    )
    shown = await _first_run(model, project)
    assert "tests/test_listing.py:7 in test_last_two: assert got == [3, 4]" in shown
    assert "last_n, which the test calls:\nsrc/shop/listing.py: lines 8-10 of" in shown
    assert "What lines 6-7 of the test ran (the test run once more, traced):\n" in shown
    assert "    10\t    return tail(items, n)   <- returned [2, 3, 4]\n" in shown
    assert "Fix the code above with edit_file" in shown


async def test_a_failure_whose_code_cannot_be_found_does_not_point_at_the_test(
    model: ModelServer, project: Path
) -> None:
    _failing_line_becomes(project, "    assert sorted([2, 1]) == [2, 1]\n")
    shown = await _first_run(model, project)
    assert "Fix the code above" not in shown
    assert "The code the test runs is not shown: read_symbol the function the test calls" in shown


async def test_a_called_name_is_shown_as_the_module_function_before_a_method_of_that_name(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: nd-mi-prepend): the test called ``mi.prepend`` and the digest showed the
    method ``peekable.prepend`` of another module."""
    (project / "src" / "shop" / "basket.py").write_text(
        "class Basket:\n    def last_n(self, n):\n        return []\n"
    )
    tests = project / "tests" / "test_listing.py"
    tests.write_text("from shop import basket\n" + tests.read_text())
    shown = await _first_run(model, project)
    assert "last_n, which the test calls:\nsrc/shop/listing.py: lines 8-10 of" in shown
    assert "Basket" not in shown


async def test_a_list_method_the_test_calls_is_not_shown_as_a_classs_method_of_that_name(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: ni-bo-backoff-repeat): the test appended to a list (``fives.append``) and
    the digest showed ``BarrelList.append``, a method of another module."""
    (project / "src" / "shop" / "basket.py").write_text(
        "class Basket:\n    def append(self, item):\n        return None\n"
    )
    _failing_line_becomes(project, "    seen = []\n    seen.append(1)\n    assert seen == [2]\n")
    shown = await _first_run(model, project)
    assert "seen.append(1)" in shown
    assert "append, which the test calls" not in shown
    assert "Basket" not in shown


async def test_what_the_code_under_test_calls_is_shown_by_how_it_is_called(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: nn-mi-sliced): ``sliced`` called ``count(1, n)``, itertools' ``count``,
    and the digest showed ``numeric_range.count``, a method of that name in the same file. A
    bare name is a module's function; ``self.name`` is a method of the caller's own class."""
    listing = project / "src" / "shop" / "listing.py"
    listing.write_text(
        "from itertools import islice\n\n"
        + listing.read_text().replace(
            "return tail(items, n)", "return tail(list(islice(items, None)), n)"
        )
        + "class Window:\n    def islice(self, start):\n        return start\n\n"
        "    def grow(self):\n        size = self.step(self.islice(0))\n"
        "        assert size == 2\n        return size\n\n"
        "    def step(self, size):\n        return size + 1\n\n\n"
        "class Other:\n    def step(self, size):\n        return size\n"
    )
    shown = await _first_run(model, project)
    assert "tail, which last_n calls:" in shown
    assert "Window" not in shown

    _failing_line_becomes(
        project, "    from shop.listing import Window\n    assert Window().grow() == 2\n"
    )
    shown = await _first_run(model, project)
    assert "Window.step, which Window.grow calls:" in shown
    assert "Other" not in shown


async def test_a_call_inside_another_is_shown_first_and_a_method_called_by_its_class_is_shown(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: np-mi-run-length): the test's ``mi.take(4, mi.run_length.encode(it))``
    showed only ``take``, which passed on what the wrong ``encode`` gave it (``encode``, a
    name str has, was never a class's method), and the model changed ``take``."""
    listing = project / "src" / "shop" / "listing.py"
    listing.write_text(
        listing.read_text() + "class Codec:\n    @staticmethod\n    def encode(items):\n"
        "        return [(1, item) for item in items]\n\n\n"
        "def first(n, items):\n    return list(items)[:n]\n"
    )
    _failing_line_becomes(
        project,
        "    from shop import listing\n"
        "    assert listing.first(1, listing.Codec.encode([5])) == [(5, 1)]\n",
    )
    shown = await _first_run(model, project)
    encode = shown.index("Codec.encode, which the test calls:")
    assert encode < shown.index("first, which the test calls:")


async def test_a_failing_line_in_a_loop_is_traced_in_the_pass_that_failed(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: np-tz-compose): the test's loop called ``compose`` three times; the traced
    run showed the first two passes, which passed, and not the third, which failed."""
    listing = project / "src" / "shop" / "listing.py"
    listing.write_text(
        listing.read_text()
        + "def scale(x):\n    if x > 1:\n        return x * 3\n    return x * 2\n"
    )
    _failing_line_becomes(
        project,
        "    from shop.listing import scale\n"
        "    for x, want in [(0, 0), (1, 2), (2, 4)]:\n"
        "        assert scale(x) == want\n",
    )
    shown = await _first_run(model, project)
    assert "scale(x=2) (src/shop/listing.py) ran these lines and returned 6" in shown
    assert "scale(x=0)" not in shown
    assert "scale(x=1)" not in shown


async def test_a_constructor_that_returned_none_again_is_not_said_to_be_where_the_value_comes_from(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: ns-bo-multi-replace): "__init__ returned None in the run before too … It
    comes from line 1209" pointed at a constructor's last line; the method that returned the
    wrong value is the one to name."""
    listing = project / "src" / "shop" / "listing.py"
    listing.write_text(
        listing.read_text()
        + "class Window:\n    def __init__(self, count):\n        self.count = count\n\n"
        "    def last(self, items):\n        return items[-self.count - 1 :]\n"
    )
    _failing_line_becomes(
        project,
        "    from shop.listing import Window\n    assert Window(2).last([1, 2, 3, 4]) == [3, 4]\n",
    )
    docstring = {"old_text": '"""Listings."""', "new_text": '"""Listings, in order."""'}
    served = await served_turn(
        model,
        project,
        f"Fix the bug behind {TEST}",
        [
            Turn(tool_calls=[("run_tests", {"paths": [TEST]})]),
            Turn(tool_calls=[("edit_file", {"path": "src/shop/listing.py", "edits": [docstring]})]),
            Turn(tool_calls=[("run_tests", {"paths": [TEST]})]),
            Turn(text="ok"),
        ],
        window=16_384,
    )
    first, _, again = (r.output for r in served.results)
    assert "__init__(count=2) (src/shop/listing.py) ran these lines and returned None" in first
    assert "last returned [2, 3, 4] in the run before too" in again, again
    assert "__init__ returned None in the run before too" not in again


async def test_the_failing_statements_calls_and_what_they_call_are_shown_before_the_setters(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: na-tz-curry-eq): ``assert f1 != g1`` failed after four lines that built
    curried functions; the traced run showed three ``__init__`` calls (two of them alike) and
    not ``__ne__``, nor the ``__eq__`` it calls, where the bug was. The failing statement's
    calls come first, each with the calls into the workspace it made itself, and a call
    shown once is not shown again."""
    listing = project / "src" / "shop" / "listing.py"
    listing.write_text(
        listing.read_text()
        + "class Pair:\n    def __init__(self, a, b):\n        self.a = a\n        self.b = b\n\n"
        "    def __eq__(self, other):\n        return self.a == other.a\n\n"
        "    def __ne__(self, other):\n        return not self.__eq__(other)\n"
    )
    _failing_line_becomes(
        project,
        "    from shop.listing import Pair\n    p = Pair(1, 2)\n    q = Pair(1, 2)\n"
        "    r = Pair(1, 3)\n    assert p == q\n    assert p != r\n",
    )
    shown = await _first_run(model, project)
    ne = shown.index("__ne__(other=<shop.listing.Pair object>) (src/shop/listing.py) ran these")
    eq = shown.index(
        "__eq__(other=<shop.listing.Pair object>) (src/shop/listing.py), which __ne__ called, "
        "ran these lines and returned True"
    )
    assert ne < eq < shown.index("__init__(a=1, b=2)"), shown
    assert shown.count("__init__(a=1, b=2)") == 1, shown


async def test_many_calls_of_the_lines_before_do_not_crowd_out_the_failing_statements(
    model: ModelServer, project: Path
) -> None:
    """The traced run keeps the first 20 calls of the lines before the failing statement, and
    the failing statement's calls after them."""
    calls = ", ".join(f"unrelated_1({x})" for x in range(25))
    _failing_line_becomes(
        project,
        f"    from shop.listing import unrelated_1\n    items = [{calls}]\n"
        "    assert last_n(items, 2) == items[-2:]\n",
    )
    shown = await _first_run(model, project)
    assert (
        "last_n(items=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 1..., n=2)" in shown
    )
    assert "unrelated_1(x=0)" in shown, shown


async def test_a_failing_assertion_on_printed_output_traces_the_lines_that_printed_it(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: dr-hour-total): ``main([str(playlist)])``, then an assertion on
    ``capsys.readouterr()``; the digest showed ``main`` and nothing of the function that made
    the wrong text in another module. The lines since the capture was last read are traced,
    the calls they made followed, and the call that returned the text the assertion shows
    comes first, and its code is the first shown after the test's (a fix written as code
    takes the first)."""
    (project / "src" / "shop" / "show.py").write_text(
        "from shop.listing import last_n\n\n\ndef words(items, n):\n"
        '    return " ".join(str(item) for item in last_n(items, n))\n\n\n'
        "def show(items, n):\n    print(words(items, n))\n"
    )
    (project / "tests" / "test_listing.py").write_text(
        "from shop.show import show\n\n\ndef test_last_two(capsys):\n"
        "    print('before')\n    capsys.readouterr()\n    show([1, 2, 3, 4], 2)\n"
        '    assert capsys.readouterr().out == "3 4\\n"\n'
    )
    shown = await _first_run(model, project)
    assert "What lines 7-8 of the test ran (the test run once more, traced):\n" in shown, shown
    words = shown.index(
        "words(items=[1, 2, 3, 4], n=2) (src/shop/show.py), which show called, ran these lines "
        "and returned '2 3 4' at line 5:"
    )
    assert words < shown.index("show(items=[1, 2, 3, 4], n=2) (src/shop/show.py) ran these")
    code = shown.index(
        "words, whose value the failed assertion shows:\nsrc/shop/show.py: lines 4-5"
    )
    assert shown.index("test_last_two, the failing test:") < code < shown.index("show, which")


async def test_a_traced_call_that_returned_an_iterator_shows_what_it_yields_and_the_test_still_runs(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: nc-mi-tail, nd-mi-prepend): the call returned ``<itertools.islice object at
    0x…>``, which said nothing of the wrong items. They are read from a copy."""
    listing = project / "src" / "shop" / "listing.py"
    listing.write_text(
        listing.read_text().replace(
            "return items[-count - 1 :]", "return iter(items[-count - 1 :])"
        )
    )
    _failing_line_becomes(
        project, "    got = last_n([1, 2, 3, 4], 2)\n    assert list(got) == [3, 4]\n"
    )
    shown = await _first_run(model, project)
    assert "returned <list_iterator yielding [2, 3, 4]> at line 10" in shown
    assert "E assert [2, 3, 4] == [3, 4]" in shown, "the test used it whole"


async def test_a_traced_tuple_shows_each_item_and_no_address(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: ns-tz-peek): ``peek`` returned ``('Alice', <list_iterator object at
    0x…>)``, which hid the missing item, and the address changed from run to run, so the
    same failure after an edit read as a new one."""
    listing = project / "src" / "shop" / "listing.py"
    listing.write_text(
        listing.read_text().replace(
            "return items[-count - 1 :]",
            "return items[0], iter(items[-count - 1 :]), (x for x in items)",
        )
    )
    _failing_line_becomes(
        project,
        "    first, got, rest = last_n([1, 2, 3, 4], 2)\n    assert list(got) == [3, 4]\n",
    )
    shown = await _first_run(model, project)
    assert (
        "returned (1, <list_iterator yielding [2, 3, 4]>, <generator object "
        "tail.<locals>.<genexpr>>) at line 10"
    ) in shown
    assert " at 0x" not in shown


def test_the_lines_a_failing_statement_reads_from_are_found_in_its_own_function() -> None:
    text = [
        "got = 0",
        "def test_x():",
        "    items = [1, 2]",
        "    got = last_n(",
        "        items, 1)",
        "    other = 3",
        "    assert got == [2]",
        "def test_y():",
        "    assert got == 0",
    ]
    tree = parsed(text)
    assert sources(tree, (7, 7)) == (4, 7), "from the last line that set got, not items"
    assert sources(tree, (9, 9)) == (9, 9), "a name set outside the function"
    assert sources(tree, (1, 1)) == (1, 1), "outside any function"
    assert sources(None, (3, 4)) == (3, 4)


def test_the_lines_that_wrote_what_a_failing_statement_reads_from_a_capture_are_found() -> None:
    text = [
        "def test_x(capsys, caplog):",
        "    main(['a'])",
        "    assert capsys.readouterr().out == 'a'",
        "    setup()",
        "    with open('f') as f:",
        "        main([f.name])",
        "    assert 'b' in capsys.readouterr().out",
        "    assert caplog.text == ''",
        "    assert main([]) == 0",
    ]
    tree = parsed(text)
    assert output_from(tree, 3) == 2
    assert output_from(tree, 7) == 4, "since the capture was last read"
    assert output_from(tree, 8) == 2, "another capture"
    assert output_from(tree, 9) is None, "no capture read"
    assert output_from(None, 3) is None


def test_a_statement_is_found_from_its_first_line() -> None:
    text = ["def f():", "    x = g(", "        1,", "    )", "    return x", "def h(:"]
    assert statement(parsed(text[:5]), 2) == (2, 4)
    assert statement(parsed(text[:5]), 5) == (5, 5)
    assert statement(parsed(text[:5]), 3) == (3, 3), "no statement starts inside another's lines"
    assert statement(parsed(text), 2) == (2, 2), "source that does not parse"


async def test_a_read_after_a_traced_failure_opens_where_the_call_returned(
    model: ModelServer, project: Path
) -> None:
    """Seen (bench: nw-tz-keyfilter): after the failing run the model read the module without
    a range and was shown its first lines, not the function the failure ran."""
    listing = project / "src" / "shop" / "listing.py"
    text = listing.read_text()
    unrelated = "".join(
        f"def other_{i}(x):\n"
        + "".join(f"    x = x + {j}  # step {j}\n" for j in range(8))
        + "    return x\n\n\n"
        for i in range(30)
    )
    listing.write_text(unrelated + text[: text.index("def unrelated_0")])
    served = await served_turn(
        model,
        project,
        f"Fix the bug behind {TEST}",
        [
            Turn(tool_calls=[("run_tests", {"paths": [TEST]})]),
            Turn(tool_calls=[("read_file", {"path": "src/shop/listing.py"})]),
            Turn(text="ok"),
        ],
        window=16_384,
    )
    ran, shown = (r.output for r in served.results)
    returned = next(line for line in ran.splitlines() if line.endswith("<- returned [2, 3, 4]"))
    number = returned.split("\t")[0].strip()
    assert int(number) > 200
    assert not shown.startswith("src/shop/listing.py: lines 1-"), shown[:200]
    assert f"{number:>6}\t    return tail(items, n)" in shown


async def test_the_embedded_models_fix_as_code_reads_a_real_run_and_its_edit_fits_the_file(
    model: ModelServer, project: Path
) -> None:
    """``providers/local/repair`` reads the run's result as this digest writes it: the code
    under test of one file in the order of its lines, and an edit whose old_text the file has
    once."""
    output = await _first_run(model, project)
    call = ToolCall(id="r", name="run_tests", arguments=json.dumps({"paths": [TEST]}))
    fix = repair.focus(
        [
            UserMessage(content=f"Fix the bug behind {TEST}"),
            AssistantMessage(tool_calls=(call,)),
            ToolResultMessage(call_id="r", name="run_tests", content=output, is_error=True),
        ]
    )
    assert fix is not None
    assert (fix.path, fix.name) == ("src/shop/listing.py", "tail, last_n")
    shown = "\n".join(text for _, text in fix.lines)
    assert shown.startswith("def tail(items, count):\n    return items[-count - 1 :]\n# (lines")
    fixed = shown.replace("items[-count - 1 :]", "items[-count:]")
    arguments = repair.edit(fix, f"```python\n{fixed}\n```")
    assert arguments is not None
    listing = (project / "src" / "shop" / "listing.py").read_text()
    [edit] = arguments["edits"]
    assert listing.count(edit["old_text"]) == 1
    assert listing.replace(edit["old_text"], edit["new_text"]) == listing.replace(
        "items[-count - 1 :]", "items[-count:]"
    )


async def test_an_edit_of_a_line_two_functions_share_changes_the_one_the_failing_run_shows(
    model: ModelServer, root: Path
) -> None:
    """Seen (bench: ny-bo-floor, ny-bo-parse-int-list, ng-tz-valfilter): the first edit after
    the failing run named a line the function it showed shares with another, and was refused
    as matching twice. The run pointed into the function it showed: that one is changed."""
    (root / "numbers_.py").write_text(CEIL_AND_FLOOR)
    (root / "tests").mkdir()
    (root / "tests" / "test_numbers.py").write_text(
        "from numbers_ import floor\n\n\ndef test_floor_unsorted():\n"
        "    assert floor(5, [9, 4, 1]) == 4\n"
    )
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    pytest_venv(root / ".venv")
    node = "tests/test_numbers.py::test_floor_unsorted"
    edit = {"old_text": "    if options is None:", "new_text": "    if not options:"}
    served = await served_turn(
        model,
        root,
        f"Fix the bug behind {node}",
        [
            Turn(tool_calls=[("run_tests", {"paths": [node]})]),
            Turn(tool_calls=[("edit_file", {"path": "numbers_.py", "edits": [edit]})]),
            Turn(text="done"),
        ],
    )
    ran, edited = served.results
    assert "floor, which the test calls:" in ran.output
    assert edited.ok, edited.output
    assert "the one changed is in floor (line 11), where a tool last pointed" in edited.output
    assert (root / "numbers_.py").read_text() == CEIL_AND_FLOOR.replace(
        "def floor(x, options=None):\n    if options is None:",
        "def floor(x, options=None):\n    if not options:",
    )


CEIL_AND_FLOOR = (
    "import bisect\n\n\ndef ceil(x, options=None):\n    if options is None:\n"
    "        return round(x)\n    return min(o for o in options if o >= x)\n\n\n"
    "def floor(x, options=None):\n    if options is None:\n        return int(x)\n"
    "    options = list(options)\n    i = bisect.bisect_right(options, x)\n"
    "    return options[i - 1]\n"
)
