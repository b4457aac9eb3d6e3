"""The test-driven path's rule for a turn: when the task asks to fix the code behind a failing
test, the turn does not change the tests.

``fixes_code`` reads it in the person's words ("fix the bug behind tests/test_x.py::test_y",
"fix the typo so that tests/test_greet.py passes", "make tests/test_greet.py pass", "fix the
code, not the test"); a task that asks for a test ("add a keyword argument with its test", "fix
the test"), or where passing tests are a condition on other work ("rename … everywhere it is
used; the tests must pass afterwards"), is not such a task. In one,
``TestGuard`` (a step of the turn's chain before approval, like plan mode's) refuses a change
to a test file, and the deletion of any file unless the task asks to delete or remove one,
saying why and what to do instead: a model that finds the test itself wrong, or a file in the
way, says so in its answer, and the person decides in their next message.
"""

from __future__ import annotations

import re

from foehn_lsp.tools.contract import ToolResult
from foehn_lsp.tools.plans import PlannedEdit
from foehn_lsp.tools.registry import Handler, Invocation
from foehn_lsp.workspace.edits import DeletePath, changed_paths
from foehn_lsp.workspace.testfiles import is_test_file

_NOT_THE_TEST = re.compile(
    r"\b(?:not|never|don't|do not|without)\s+(?:\w+\s+){0,2}(?:the\s+)?tests?\b", re.IGNORECASE
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
    r"\b(?:add|write|create|update|change|edit|adjust|rename|extend|fix|delete|remove)\s+"
    r"(?:(?:a|an|the|its|their|one|new|failing|unit|that|this)\s+){0,3}tests?\b"
    r"|\b(?:with|and)\s+(?:a|an|its|their)\s+(?:\w+\s+)?tests?\b"
    r"|\bin\s+(?:its|their)\s+tests\b",
    re.IGNORECASE,
)


_ASKS_TO_DELETE = re.compile(
    r"\b(?:delete|remove|drop|get rid of|clean up|prune)\b|\bdead (?:code|module|file)",
    re.IGNORECASE,
)


def fixes_code(task: str) -> bool:
    """Whether ``task`` asks to fix the code behind a failing test (and not to change a test)."""
    if _NOT_THE_TEST.search(task):
        return True
    return (
        bool(_NAMES_A_TEST.search(task))
        and bool(_TO_PASS.search(task))
        and not _WRITES_A_TEST.search(task)
    )


def refusal(path: str) -> str:
    return (
        f"{path} was not changed: it is a test, and the task asks to fix the code so that the "
        "test passes. Change the code the failing test calls (run_tests shows it, with the "
        "traceback); if the test itself is wrong and cannot pass, leave it as it is and say "
        "why in your answer: the person decides."
    )


def deletion_refusal(path: str) -> str:
    return (
        f"{path} was not deleted: the task asks to fix the code so that the test passes, and a "
        "fix changes the lines the failing test runs (run_tests shows them); it does not delete "
        "files. Edit those lines instead; if a file must go, say so in your answer: the person "
        "decides."
    )


class TestGuard:
    """The chain's step that refuses, in a turn that is to fix the code behind a test, every
    change to a test file and every deletion (seen twice on the bench, nz-bo-backoff and
    nf-tz-tail: after a wrong edit the embedded model deleted the module under test, then its
    package's ``__init__.py``); the loop gives it each turn's task (``expect``)."""

    def __init__(self) -> None:
        self.active = False
        self.deletes = False

    def expect(self, task: str) -> None:
        """The turn's task: whether its changes to tests, and its deletions, are refused follows
        from it (a task that also asks to delete or remove something may delete)."""
        self.active = fixes_code(task)
        self.deletes = bool(_ASKS_TO_DELETE.search(task))

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        planned = invocation.plan
        if self.active and isinstance(planned, PlannedEdit):
            workspace = invocation.ctx.workspace
            for path in changed_paths(planned.plan):
                shown = workspace.display(path)
                if is_test_file(shown):
                    return ToolResult.failure(refusal(shown))
            for change in planned.plan.changes:
                if isinstance(change, DeletePath) and not self.deletes:
                    return ToolResult.failure(deletion_refusal(workspace.display(change.path)))
        return await next_step(invocation)
