"""Which files of a workspace are tests: the names pytest collects by default (``test_*.py``,
``*_test.py``, ``conftest.py``) and the files under a ``tests``/``test`` folder. The failure
digest of ``run_tests`` reads the code under test from the other files, and the test-driven
guard keeps a turn that is to fix the code from changing these. ``NODE_ID`` is how a test is
named in pytest's reports, and ``SHORT_SUMMARY`` a line of their short summary, for every
reader of them. What a task asks of the tests is read here too: ``fixes_code`` (the code behind
a failing test is to be fixed, not the test), ``fixes_a_bug`` (a bug described without
tests) and ``named_tests`` (the tests it names)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

TEST_FOLDERS = frozenset({"tests", "test"})
NODE_ID = r"[^\s\[]+(?:\[.*?\])?"
"""A pytest node id in a regular expression: its file and names hold no space, but a
parametrized test's parameters, in brackets after its name, may (``test_x.py::test_y[a b]``,
seen as inflection's ``test_humanize[employee_salary-Employee salary]``). The brackets end at
the first ``]`` the rest of the pattern can follow, so the pattern must say what comes next."""


SHORT_SUMMARY = re.compile(rf"^(FAILED|ERROR) ({NODE_ID})(?: - (.*))?$", re.MULTILINE)
"""A line of pytest's short summary: its outcome, the node id and what follows ``-``."""


def is_test_file(path: str) -> bool:
    """Whether the workspace-relative ``path`` is a test file."""
    pure = PurePosixPath(path.replace("\\", "/"))
    name = pure.name
    if name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py"):
        return True
    return any(part in TEST_FOLDERS for part in pure.parts[:-1])


def fixes_code(task: str) -> bool:
    """Whether ``task`` asks to fix the code behind a failing test (and not to change a test)."""
    if _NOT_THE_TEST.search(task):
        return True
    return (
        bool(_NAMES_A_TEST.search(task))
        and bool(_TO_PASS.search(task))
        and not _WRITES_A_TEST.search(task)
    )


def fixes_a_bug(task: str) -> bool:
    """Whether ``task`` asks to fix a bug it describes without a word of tests ("21.5 °C
    prints 71.6F, but it is 70.7 °F. Can you fix that?"): what an existing test expects is
    not for such a task to change."""
    return bool(_FIXES.search(task)) and not _NAMES_A_TEST.search(task)


_FIXES = re.compile(r"\b(?:fix\w*|bug\w*|broken|wrong|incorrect|repair\w*)\b", re.IGNORECASE)
_NOT_THE_TEST = re.compile(
    r"\b(?:not|never|don't|do not|without)\s+(?:\w+\s+){0,2}(?:the\s+)?tests?\b"
    r"|\b(?:leave|keep)\s+(?:the\s+|all\s+|its\s+)?tests?\s+(?:as\s+they\s+are|alone|as\s+is|"
    r"unchanged|untouched)\b",
    re.IGNORECASE,
)
_NAMES_A_TEST = re.compile(r"\btests?\b|::|test_\w+", re.IGNORECASE)
_TO_PASS = re.compile(
    r"\b(?:fix\w*|fail(?:s|ing|ed)?|bug|broken|repair)\b|\bmake\s+(?:\S+\s+){0,3}pass\b",
    re.IGNORECASE,
)
"""Words that make a failing test the task's goal: a test that "must pass afterwards" is a
condition on other work (seen, bench: mo-format-line, a rename whose edit of a test was
refused as if the task were to fix the code behind it)."""
_WRITES_A_TEST = re.compile(
    r"(?<!\bmy\s)(?<!\blast\s)(?<!\ba\s)(?<!\bthis\s)(?<!\bthat\s)(?<!\bour\s)"
    r"\b(?:add|write|create|update|change|edit|adjust|rename|extend|fix|delete|remove)\s+"
    r"(?:(?:a|an|the|its|their|one|new|failing|unit|that|this)\s+){0,3}tests?\b(?!\s+suite)"
    r"|\b(?:with|and)\s+(?:a|an|its|their)\s+(?:\w+\s+)?tests?\b"
    r"|\bin\s+(?:its|their)\s+tests\b",
    re.IGNORECASE,
)


def named_tests(task: str) -> list[str]:
    """The test files and node ids ``task`` names (``tests/test_units.py``,
    ``tests/test_x.py::test_y``), in its order, once each."""
    found: list[str] = []
    for word in task.split():
        name = word.strip("`'\"(){}<>,;:!?").removesuffix(".")
        file = name.partition("::")[0]
        if file.endswith(".py") and is_test_file(file) and name not in found:
            found.append(name)
    return found
