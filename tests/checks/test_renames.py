"""A rename that leaves its old name behind, with the scripted provider, the real tools and a
real workspace: the edit's result says where the old name still appears, an answer goes back
once while it does, and then stands with the places after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.test_loop import Recorder, agent
from agent.turns import calls, say
from foehn_lsp import ToolContext
from foehn_lsp.agent import TurnRequest
from foehn_lsp.checks.claims import claims_every_use
from foehn_lsp.events import TextDelta, ToolResultEvent
from foehn_lsp.providers.messages import ToolResultMessage, UserMessage
from foehn_lsp.providers.scripted import ScriptedProvider

TASK = "Rename c_to_f to celsius_to_fahrenheit"
READ_UNITS = ("read_file", {"path": "units.py"})
READ_REPORT = ("read_file", {"path": "report.py"})
RENAME = (
    "edit_file",
    {
        "path": "units.py",
        "edits": [
            {"old_text": "def c_to_f(celsius):", "new_text": "def celsius_to_fahrenheit(celsius):"}
        ],
    },
)
USES = (
    "edit_file",
    {
        "path": "report.py",
        "edits": [
            {"old_text": "import c_to_f", "new_text": "import celsius_to_fahrenheit"},
            {"old_text": "return c_to_f(c)", "new_text": "return celsius_to_fahrenheit(c)"},
        ],
    },
)
ANSWER = "I renamed c_to_f to celsius_to_fahrenheit and updated every call to it."


@pytest.fixture
def app(root: Path) -> Path:
    (root / "units.py").write_text("def c_to_f(celsius):\n    return celsius * 9 / 5 + 32\n")
    (root / "report.py").write_text(
        "from units import c_to_f\n\n\ndef line(c):\n    return c_to_f(c)\n"
    )
    return root


def sent(provider: ScriptedProvider, request: int) -> list[str]:
    messages, _ = provider.requests[request]
    return [m.content for m in messages if isinstance(m, (UserMessage, ToolResultMessage))]


async def test_the_edit_says_where_the_old_name_still_appears(app: Path, ctx: ToolContext) -> None:
    runner, provider = agent(
        [calls(READ_UNITS), calls(RENAME), calls(READ_REPORT), calls(USES), say(ANSWER)]
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task=TASK), ctx, events)
    rename, uses = [e for e in events.of(ToolResultEvent) if e.tool == "edit_file"]
    assert "[Foehn] `c_to_f` was renamed to `celsius_to_fahrenheit` in units.py" in rename.output
    assert "report.py:1: from units import c_to_f" in rename.output
    assert "report.py:5: return c_to_f(c)" in rename.output
    assert rename.data is not None
    assert rename.data["renamed"] == [["units.py", "c_to_f", "celsius_to_fahrenheit"]]
    assert "[Foehn]" not in uses.output
    assert uses.data is not None
    assert uses.data["renamed"] == []
    assert sent(provider, 2)[-1] == rename.output, "the model read the note with the diff"
    # Every use changed: the answer stands as it was said, in one request.
    assert outcome.answer == ANSWER
    assert len(provider.requests) == 5
    assert "c_to_f" not in (app / "report.py").read_text()


async def test_an_answer_while_the_old_name_appears_goes_back_once(
    app: Path, ctx: ToolContext
) -> None:
    runner, provider = agent(
        [
            calls(READ_UNITS),
            calls(RENAME),
            say(ANSWER),
            calls(READ_REPORT),
            calls(USES),
            say(ANSWER),
        ]
    )
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task=TASK), ctx, events)
    note = sent(provider, 3)[-1]
    assert note.startswith("[Foehn] Do not answer yet. `c_to_f` was renamed")
    assert "report.py:5: return c_to_f(c)" in note
    streamed = "".join(e.text for e in events.of(TextDelta))
    assert streamed.count(ANSWER) == 1, "the answer sent back never reached the person"
    assert outcome.answer == ANSWER
    assert (app / "report.py").read_text() == (
        "from units import celsius_to_fahrenheit\n\n\ndef line(c):\n"
        "    return celsius_to_fahrenheit(c)\n"
    )


STATEMENT = (
    "[Foehn] `c_to_f` (renamed to `celsius_to_fahrenheit` in units.py) still appears in 2 "
    "places: report.py:1, report.py:5."
)


@pytest.mark.parametrize(
    ("said", "stands"),
    [
        # The claim that every call changed is left out; here it was the whole answer.
        (ANSWER, STATEMENT),
        (
            "I renamed c_to_f in units.py. report.py still calls c_to_f.",
            f"I renamed c_to_f in units.py. report.py still calls c_to_f.\n\n{STATEMENT}",
        ),
    ],
)
async def test_said_again_with_the_old_name_still_there_the_answer_stands_with_the_places(
    app: Path, ctx: ToolContext, said: str, stands: str
) -> None:
    runner, provider = agent([calls(READ_UNITS), calls(RENAME), say(said), say(said)])
    events = Recorder()
    outcome = await runner.run_turn(TurnRequest(task=TASK), ctx, events)
    assert len(provider.requests) == 4
    assert outcome.answer == stands
    assert "".join(e.text for e in events.of(TextDelta)) == outcome.answer
    assert outcome.messages[-1].content == outcome.answer
    assert (app / "report.py").read_text().count("c_to_f") == 2, "nothing changed it"


@pytest.mark.parametrize(
    ("sentence", "claims"),
    [
        (ANSWER, True),
        ("Updated all references to it.", True),
        ("I renamed it everywhere.", True),
        ("I renamed c_to_f in units.py.", False),
        ("I did not update every call to it.", False),
        ("Every call to it still uses the old name.", False),
    ],
)
def test_what_counts_as_saying_every_use_changed(sentence: str, claims: bool) -> None:
    assert claims_every_use(sentence) is claims


async def test_an_edit_that_puts_another_definition_in_a_used_ones_place_says_where_it_is_used(
    app: Path, ctx: ToolContext
) -> None:
    """Seen (bench: mt-median): asked to add median, the model replaced ``def mean`` and its
    body with the median's; called a rename, it was told to rename mean's uses."""
    (app / "units.py").write_text("def c_to_f(celsius):\n    return celsius * 9 / 5 + 32\n")
    replace = {
        "old_text": "def c_to_f(celsius):\n    return celsius * 9 / 5 + 32",
        "new_text": "def k_to_c(kelvin):\n    if kelvin < 0:\n        raise ValueError(kelvin)\n"
        "    return kelvin - 273.15",
    }
    runner, _ = agent(
        [
            calls(READ_UNITS),
            calls(("edit_file", {"path": "units.py", "edits": [replace]})),
            say("ok"),
        ]
    )
    events = Recorder()
    await runner.run_turn(TurnRequest(task="Add k_to_c to units.py"), ctx, events)
    (edit,) = [e for e in events.of(ToolResultEvent) if e.tool == "edit_file"]
    assert (
        "[Foehn] `c_to_f` is no longer defined in units.py (`k_to_c` took its place), but "
        "`c_to_f` still appears in 2 places:\n  report.py:1: from units import c_to_f\n"
        "  report.py:5: return c_to_f(c)\nThose uses fail now. Unless the task is to take "
        "`c_to_f` out, put it back (the diff above shows its lines) and add `k_to_c` beside it."
    ) in edit.output
    assert "was renamed" not in edit.output
    assert edit.data is not None
    assert edit.data["renamed"] == []
