"""What a turn did, in Foehn's words, when the embedded model's answers only copied."""

from __future__ import annotations

from foehn_lsp.checks.honesty import check_result_claim
from foehn_lsp.providers.local.account import turn_account
from foehn_lsp.providers.local.provider import NO_ANSWER, no_answer
from foehn_lsp.providers.messages import AssistantMessage, UserMessage
from foehn_lsp.tools import ToolRegistry
from providers.local.local_fakes import MakeProvider, answer_chunks, exchange

TASK = UserMessage(content="tests/test_it.py::test_nth fails. Fix it.")
FAILING = (
    "$ python -m pytest\n(in .; exit 1; 0.4 s)\n1 failed\n1 failing:\n"
    "  tests/test_it.py::test_nth - assert 'A' == 'B'\n"
    "nth, which the test calls:\nit.py: lines 1-3 of 3\n     1\tdef nth(n, seq):\n"
)
PASSING = "$ python -m pytest tests/test_it.py\n(in .; exit 0; 0.4 s)\n1 passed in 0.01s\n"
EDIT = {"path": "it.py", "edits": [{"old_text": "seq[n - 1]", "new_text": "seq[n]"}]}


def test_the_account_names_the_changed_files_and_what_the_last_run_showed(
    registry: ToolRegistry,
) -> None:
    """Every account is one the answer checks let stand: a pass is said only of a run after
    the last change."""
    tools = registry.definitions()
    fixed = [
        TASK,
        *exchange("r0", "run_tests", {}, FAILING, failed=True),
        *exchange("e1", "edit_file", EDIT, "edit it.py (1 block)"),
        *exchange("r1", "run_tests", {}, FAILING, failed=True),
    ]
    passed = [*fixed, *exchange("e2", "write_file", {"path": "b.py"}, "wrote b.py (1 line)")]
    passed += exchange("r2", "run_tests", {}, PASSING)
    edited = exchange("e3", "edit_file", EDIT, "edit it.py (1 block)")
    accounts = {
        "This turn changed it.py. The last test run, after the last change, failed: "
        "tests/test_it.py::test_nth - assert 'A' == 'B'.": fixed,
        "This turn changed it.py. The last test run, before the last change, failed: "
        "tests/test_it.py::test_nth - assert 'A' == 'B'.": [*fixed, *edited],
        "This turn changed it.py, b.py. The last test run, after the last change, passed.": passed,
        "This turn changed it.py, b.py. The tests have not run since the last change.": [
            *passed,
            *edited,
        ],
    }
    for account, history in accounts.items():
        assert turn_account(history, tools) == account
        assert check_result_claim(account, history, registry) is None, account


def test_only_this_turns_changes_and_runs_that_ran_are_told(registry: ToolRegistry) -> None:
    """A failed edit changed nothing and a denied run showed nothing; an earlier turn's
    change is not this turn's. A run with only pytest's own summary is read from it."""
    tools = registry.definitions()
    raw = (
        "$ python -m pytest\n(in .; exit 1; 0.4 s)\n"
        "FAILED tests/test_it.py::test_nth - AssertionError: assert 'A' == 'B'\n"
    )
    history = [
        TASK,
        *exchange("e1", "edit_file", EDIT, "edit it.py (1 block)"),
        AssistantMessage(content="I changed it.py."),
        UserMessage(content="It still fails."),
        *exchange("r1", "run_command", {"command": "python -m pytest"}, raw, failed=True),
        *exchange("e2", "edit_file", EDIT, "old_text was not found in it.py", failed=True),
        *exchange("r2", "run_tests", {}, "the person denied this call", failed=True),
    ]
    assert turn_account(history, tools) == (
        "The last test run, with nothing changed in this turn, failed: "
        "tests/test_it.py::test_nth - AssertionError: assert 'A' == 'B'."
    )
    assert turn_account([TASK, *exchange("s", "search", {"pattern": "nth"}, "1 hit")], tools) == ""


async def test_an_answer_copied_twice_ends_with_what_the_turn_did(
    fake_provider: MakeProvider, registry: ToolRegistry
) -> None:
    """Seen in ``vale`` (``nv-tz-getter``, ``nv-bo-ceil``): the turn had changed a file and
    run the tests after it, and ended saying only that no answer could be formed."""
    copy = "config/settings.toml: lines 1-3 of 3\n     1\t[server]"
    provider = fake_provider(
        {"chunks": answer_chunks(copy, size=2)}, {"chunks": answer_chunks(copy, size=2)}
    )
    history = [
        TASK,
        *exchange("e1", "edit_file", EDIT, "edit it.py (1 block)"),
        *exchange("r1", "run_tests", {}, PASSING),
    ]
    response = await provider.complete(history, registry.definitions())
    told = "This turn changed it.py. The last test run, after the last change, passed."
    assert (
        response.message.content
        == no_answer(told)
        == (
            f"The local model could not put what it found into words. {told} Ask again more "
            "specifically, or use a larger model (FOEHN_PROVIDER)."
        )
    )
    assert no_answer("") == NO_ANSWER
