"""Command arguments as clients send them, checked and turned into Foehn's requests."""

from __future__ import annotations

from typing import Any

import pytest

from foehn_lsp.lsp.arguments import BadArguments, RunArguments, run_arguments


def selection(first: int, first_char: int, last: int, last_char: int) -> dict[str, Any]:
    return {
        "start": {"line": first, "character": first_char},
        "end": {"line": last, "character": last_char},
    }


def test_a_task_alone_or_with_its_context() -> None:
    assert run_arguments(["fix it"]) == RunArguments(task="fix it")
    parsed = run_arguments(
        [
            {
                "task": "fix it",
                "uri": "file:///w/app.py",
                "range": selection(2, 4, 5, 0),
                "diagnostic": {"message": "unused", "source": "ruff"},
                "session": "s1",
                "runId": "r1",
                "context": "@notes.md",
            }
        ]
    )
    assert parsed.lines == (2, 4)
    assert (parsed.session, parsed.run_id, parsed.context) == ("s1", "r1", "@notes.md")
    assert run_arguments([{"task": "x", "range": selection(3, 0, 3, 0)}]).lines == (3, 3)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "one argument"),
        ([{"task": 3}], "needs a task"),
        (["  "], "non-empty task"),
        ([{"task": "x", "range": {"start": {}}}], "range must be"),
        ([{"task": "x", "range": selection(5, 0, 2, 0)}], "end after it starts"),
        ([{"task": "x", "uri": 7}], "uri must be a string"),
        ([{"task": "x", "diagnostic": "oops"}], "diagnostic must be an object"),
        ([{"task": "x", "session": ""}], "session must be a non-empty string"),
    ],
)
def test_bad_shapes_say_what_was_expected(args: list[Any], message: str) -> None:
    with pytest.raises(BadArguments, match=message):
        run_arguments(args)
