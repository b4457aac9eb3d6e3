"""A fix written as code: what a failing run's result gives the prompt, how the code the model
writes back becomes an edit, and the step as the provider takes it (over a stand-in worker)."""

from __future__ import annotations

import json
from pathlib import Path

from foehn_lsp.providers.local import repair
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.tools import ToolRegistry
from providers.local.local_fakes import MakeProvider, requests

TEST = "tests/test_stats.py::test_mean"
RUN = f"""\
$ python -m pytest -- {TEST}
(in .; exit 1; 0.4 s)
1 failed in 0.10s
1 failing:
  {TEST} - assert 2.0 == 2.5
The first failure, {TEST}, from the test to where it failed:
  tests/test_stats.py:4 in test_mean: assert mean([1, 2, 3, 4]) == 2.5
  E assert 2.0 == 2.5
test_mean, the failing test:
tests/test_stats.py: lines 3-4 of 4
     3\tdef test_mean():
     4\t    assert mean([1, 2, 3, 4]) == 2.5
mean, which the test calls:
stats/core.py: lines 10-17 of 40
    10\tdef mean(values):
    11\t    \"\"\"The mean.
        (lines 12-14: the docstring)
    15\t    \"\"\"
    16\t    total = sum(values)
    17\t    return total / (len(values) + 1)
count, which the test calls:
stats/core.py: lines 20-21 of 40
    20\tdef count(values):
    21\t    return len(values)
Fix the code above with edit_file, then run_tests with paths ["{TEST}"] first."""

SHOWN = """\
def mean(values):
    \"\"\"The mean.
    # (lines 12-14: the docstring, not shown)
    \"\"\"
    total = sum(values)
    return total / (len(values) + 1)
# (lines 18-19, not shown)
def count(values):
    return len(values)"""


def _turn(result: str = RUN, *, edits: int = 0) -> list[Message]:
    messages: list[Message] = [UserMessage(content=f"Fix the bug behind {TEST}")]
    for i in range(edits):
        call = ToolCall(id=f"e{i}", name="edit_file", arguments="{}")
        messages += [
            AssistantMessage(tool_calls=(call,)),
            ToolResultMessage(call_id=f"e{i}", name="edit_file", content="edit stats/core.py"),
        ]
    call = ToolCall(id="r", name="run_tests", arguments=json.dumps({"paths": [TEST]}))
    return [
        *messages,
        AssistantMessage(tool_calls=(call,)),
        ToolResultMessage(call_id="r", name="run_tests", content=result, is_error=True),
    ]


def _reply(code: str) -> str:
    return f"Here is the fix:\n```python\n{code}\n```\nThe mean divides by the count."


def test_a_failing_run_gives_the_code_under_test_of_one_file_with_what_is_left_out_named() -> None:
    fix = repair.focus(_turn())
    assert fix is not None
    assert (fix.node, fix.name, fix.path) == (TEST, "mean, count", "stats/core.py")
    assert "\n".join(text for _, text in fix.lines) == SHOWN
    assert fix.story.startswith("The first failure")
    assert fix.story.endswith("     4\t    assert mean([1, 2, 3, 4]) == 2.5")
    [system, user] = repair.request(fix)
    assert system["content"] == repair.SYSTEM
    assert f"```python\n{SHOWN}\n```\n{repair.ASK}" in user["content"]


def test_no_fix_is_asked_for_without_code_under_test_or_after_two_edits() -> None:
    assert repair.focus(_turn(edits=1)) is not None
    assert repair.focus(_turn(edits=2)) is None
    test_only = RUN[: RUN.index("mean, which")] + RUN[RUN.index("Fix the code") :]
    assert repair.focus(_turn(test_only)) is None
    passing = [*_turn()[:-1], ToolResultMessage(call_id="r", name="run_tests", content=RUN)]
    assert repair.focus(passing) is None


def test_the_changed_lines_become_an_edit_found_once_in_what_was_shown() -> None:
    fix = repair.focus(_turn())
    assert fix is not None
    fixed = SHOWN.replace("(len(values) + 1)", "len(values)")
    assert repair.edit(fix, _reply(fixed)) == {
        "path": "stats/core.py",
        "edits": [
            {
                "old_text": "    total = sum(values)\n    return total / (len(values) + 1)",
                "new_text": "    total = sum(values)\n    return total / len(values)",
            }
        ],
    }


def test_a_line_shown_twice_takes_the_lines_around_it() -> None:
    fix = repair.focus(_turn())
    assert fix is not None
    fixed = SHOWN.replace("    return len(values)", "    return len(list(values))")
    [edit] = repair.edit(fix, _reply(fixed))["edits"]  # type: ignore[index]
    assert edit == {
        "old_text": "def count(values):\n    return len(values)",
        "new_text": "def count(values):\n    return len(list(values))",
    }


def test_an_added_line_is_anchored_on_the_line_before_it() -> None:
    fix = repair.focus(_turn())
    assert fix is not None
    guard = "    if not values:\n        return 0\n"
    fixed = SHOWN.replace("    total = sum(values)\n", f"    total = sum(values)\n{guard}")
    [edit] = repair.edit(fix, _reply(fixed))["edits"]  # type: ignore[index]
    assert edit == {
        "old_text": '    """\n    total = sum(values)\n    return total / (len(values) + 1)',
        "new_text": (
            '    """\n    total = sum(values)\n    if not values:\n        return 0\n'
            "    return total / (len(values) + 1)"
        ),
    }


def test_comments_imports_above_and_dropped_placeholders_make_no_edit() -> None:
    fix = repair.focus(_turn())
    assert fix is not None
    noise = "import math\n\n" + SHOWN.replace(
        "    # (lines 12-14: the docstring, not shown)\n", ""
    ).replace("    total = sum(values)", "    # add them up\n    total = sum(values)  # the sum")
    assert repair.edit(fix, _reply(noise)) is None
    assert repair.edit(fix, _reply(SHOWN)) is None
    assert repair.edit(fix, "The bug is the + 1.") is None


def test_a_change_to_a_line_that_was_not_shown_makes_no_edit() -> None:
    fix = repair.focus(_turn())
    assert fix is not None
    changed = SHOWN.replace("# (lines 18-19, not shown)", "TOTAL = 0")
    assert repair.edit(fix, _reply(changed)) is None


async def test_the_fix_is_asked_for_as_code_and_the_next_step_restores_the_fixed_prompt(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    fixed = SHOWN.replace("(len(values) + 1)", "len(values)")
    written = _reply(fixed)
    provider = fake_provider(
        {"chunks": [written[i : i + 7] for i in range(0, len(written), 7)]},
        {"chunks": [json.dumps({"answer": "Fixed."})]},
    )
    tools = registry.definitions()
    await provider.prepare(tools)
    response = await provider.complete(_turn(), tools)
    [call] = response.message.tool_calls
    assert call.name == "edit_file"
    assert json.loads(call.arguments)["edits"] == [
        {
            "old_text": "    total = sum(values)\n    return total / (len(values) + 1)",
            "new_text": "    total = sum(values)\n    return total / len(values)",
        }
    ]
    # The step read the failing run, not the conversation: it does not measure the window,
    # which one provider serving several sessions (the language server) would have taken
    # from another session's last step.
    assert response.usage.context_tokens is None
    sent = requests(tmp_path / "states")
    fix_request = sent[-1]["body"]
    assert "response_format" not in fix_request
    assert fix_request["messages"] == repair.request(repair.focus(_turn()))  # type: ignore[arg-type]
    assert sent[-1]["path"] == "/v1/chat/completions"
    # The conversation in the slot was held (saved) before the fix took the slot over.
    assert sent[-2]["path"] == "/slots/0?action=save"
    held = sent[-2]["body"]["filename"]
    # With no code under test in the result, the step is asked as any other, and the
    # worker's slot gets the held conversation back first, not the bare fixed prompt, so
    # the conversation before the failing run is not read again.
    plain = RUN[: RUN.index("mean, which")] + RUN[RUN.index("Fix the code") :]
    answer = await provider.complete(_turn(plain), tools)
    assert answer.message.content == "Fixed."
    after = requests(tmp_path / "states")[len(sent) :]
    assert [r["path"] for r in after] == ["/slots/0?action=restore", "/v1/chat/completions"]
    assert after[0]["body"]["filename"] == held
    assert "response_format" in after[-1]["body"]
    assert not (tmp_path / "states" / held).exists(), "the held conversation is not kept"


async def test_a_held_conversation_that_cannot_be_restored_gives_way_to_the_fixed_prompt(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    written = _reply(SHOWN.replace("(len(values) + 1)", "len(values)"))
    provider = fake_provider({"chunks": [written]}, {"chunks": [json.dumps({"answer": "Fixed."})]})
    tools = registry.definitions()
    await provider.prepare(tools)
    await provider.complete(_turn(), tools)
    sent = requests(tmp_path / "states")
    (tmp_path / "states" / sent[-2]["body"]["filename"]).unlink()  # the held state is gone
    plain = RUN[: RUN.index("mean, which")] + RUN[RUN.index("Fix the code") :]
    answer = await provider.complete(_turn(plain), tools)
    assert answer.message.content == "Fixed."
    after = requests(tmp_path / "states")[len(sent) :]
    assert [r["path"] for r in after] == [
        "/slots/0?action=restore",
        "/slots/0?action=restore",
        "/v1/chat/completions",
    ]
    assert after[1]["body"]["filename"].endswith(".bin")
    assert after[1]["body"]["filename"] != after[0]["body"]["filename"]


async def test_without_edit_file_on_offer_the_step_is_asked_as_any_other(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Plan mode offers no edit: the fix is not asked for, the step is the usual JSON step."""
    provider = fake_provider({"chunks": [json.dumps({"answer": "The + 1 is the bug."})]})
    tools = [t for t in registry.definitions() if t.name not in {"edit_file", "write_file"}]
    answer = await provider.complete(_turn(), tools)
    assert answer.message.content == "The + 1 is the bug."
    [step] = [
        r["body"]
        for r in requests(tmp_path / "states")
        if r["path"] == "/v1/chat/completions" and r["body"].get("max_tokens") != 1
    ]
    assert "response_format" in step


def test_comments_the_model_adds_to_its_change_are_left_out_and_the_files_own_kept() -> None:
    fix = repair.focus(_turn())
    assert fix is not None
    fixed = SHOWN.replace(
        "    return total / (len(values) + 1)",
        "    # Fixed: divide by the count\n    return total / len(values)  # was len + 1",
    )
    [edit] = repair.edit(fix, _reply(fixed))["edits"]  # type: ignore[index]
    assert edit["new_text"] == "    total = sum(values)\n    return total / len(values)"
    commented = _turn(RUN.replace("+ 1)\n", "+ 1)  # the mean\n"))
    kept = repair.focus(commented)
    assert kept is not None
    fixed = "\n".join(text for _, text in kept.lines).replace("(len(values) + 1)", "len(values)")
    [edit] = repair.edit(kept, _reply(fixed))["edits"]  # type: ignore[index]
    assert edit["new_text"].endswith("    return total / len(values)  # the mean")


def test_a_called_definition_that_does_not_fit_is_left_out_and_the_first_kept() -> None:
    long = "".join(f"    {30 + i:>2}\t    step_{i}()\n" for i in range(repair.MAX_LINES))
    run = RUN.replace(
        "Fix the code above",
        f"helper, which mean calls:\nstats/core.py: lines 29-69 of 90\n    29\tdef helper():\n"
        f"{long}Fix the code above",
    )
    fix = repair.focus(_turn(run))
    assert fix is not None
    assert fix.name == "mean, count"
    assert "step_0" not in "\n".join(text for _, text in fix.lines)


def test_no_fix_is_asked_for_when_the_first_code_shown_does_not_fit() -> None:
    """The code under test comes first; a short definition it calls is not asked for alone."""
    long = "".join(f"    {11 + i:>2}\t    step_{i}()\n" for i in range(repair.MAX_LINES))
    run = RUN.replace(
        "stats/core.py: lines 10-17 of 40\n", "stats/core.py: lines 10-50 of 90\n"
    ).replace("    10\tdef mean(values):\n", f"    10\tdef mean(values):\n{long}")
    assert repair.focus(_turn(run)) is None


async def test_a_fix_set_aside_once_in_a_turn_is_not_asked_for_again(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """In the bench's traces, after a fix written as code was set aside (the code came back
    unchanged, or as an edit made before), the next failing run's ask gave no usable fix in 7
    of 9 turns, each costing 30-110 s of reading the failing run twice."""
    read = ToolCall(id="local0002", name="read_symbol", arguments='{"path": "stats/core.py"}')
    again = ToolCall(id="r2", name="run_tests", arguments=json.dumps({"paths": [TEST]}))
    set_aside = [
        *_turn(),
        AssistantMessage(tool_calls=(read,)),
        ToolResultMessage(call_id="local0002", name="read_symbol", content=SHOWN),
        AssistantMessage(tool_calls=(again,)),
        ToolResultMessage(call_id="r2", name="run_tests", content=RUN, is_error=True),
    ]
    assert repair.focus(set_aside) is not None
    assert repair.set_aside(set_aside)
    provider = fake_provider({"chunks": [json.dumps({"answer": "The mean is off by one."})]})
    response = await provider.complete(set_aside, registry.definitions())
    assert response.message.content == "The mean is off by one."
    [step] = requests(tmp_path / "states")[-1:]
    assert "response_format" in step["body"], "a step of the conversation, no fix asked for"
    made = ToolCall(id=f"{repair.FIX_ID}0001", name="edit_file", arguments="{}")
    fixed_before = [
        *_turn(),
        AssistantMessage(tool_calls=(made,)),
        ToolResultMessage(call_id=made.id, name="edit_file", content="edit stats/core.py"),
        *set_aside[-2:],
    ]
    assert not repair.set_aside(fixed_before), "a fix that was made is not one set aside"
