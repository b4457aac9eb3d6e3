"""The test-driven path's rule for a turn: when the task asks to fix the code behind a failing
test, the turn does not change the tests.

``testfiles.fixes_code`` reads it in the person's words ("fix the bug behind
tests/test_x.py::test_y", "fix the typo so that tests/test_greet.py passes", "make
tests/test_greet.py pass", "fix the code, not the test"); a task that asks for a test ("add a
keyword argument with its test", "fix the test"), or where passing tests are a condition on
other work ("rename … everywhere it is used; the tests must pass afterwards"), is not such a
task. In one,
``TestGuard`` (a step of the turn's chain before approval, like plan mode's) refuses a change
to a test file, and the deletion of any file unless the task asks to delete or remove one,
saying why and what to do instead: a model that finds the test itself wrong, or a file in the
way, says so in its answer, and the person decides in their next message.
"""

from __future__ import annotations

import re
from collections import Counter

from foehn_lsp.tools.contract import ToolResult
from foehn_lsp.tools.plans import PlannedEdit
from foehn_lsp.tools.registry import Handler, Invocation
from foehn_lsp.workspace.edits import DeletePath, FileChange, MovePath, WriteFile, changed_paths
from foehn_lsp.workspace.testfiles import fixes_a_bug, fixes_code, is_test_file

_ASKS_TO_DELETE = re.compile(
    r"\b(?:delete|remove|drop|get rid of|clean up|prune)\b|\bdead (?:code|module|file)",
    re.IGNORECASE,
)


def refusal(path: str) -> str:
    return (
        f"{path} was not changed: it is a test, and the task asks to fix the code so that the "
        "test passes. Change the code the failing test calls (run_tests shows it, with the "
        "traceback); if the test itself is wrong and cannot pass, leave it as it is and say "
        "why in your answer: the person decides."
    )


def expectation_refusal(path: str) -> str:
    return (
        f"{path} was not changed: it is a test, this change takes away or rewrites lines it "
        "has, and the task asks to fix a bug in the code; what an existing test expects is how "
        "the bug shows, not the bug. Change the code instead (run_tests shows what it does); a "
        "new test may be added. If a test itself is wrong, say why in your answer: the person "
        "decides."
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
        self.keeps_tests = False

    def expect(self, task: str) -> None:
        """The turn's task: whether its changes to tests, and its deletions, are refused follows
        from it (a task that also asks to delete or remove something may delete); in a task to
        fix a bug it describes without tests (``fixes_a_bug``), a change that takes lines from
        a test file, or deletes one, is refused."""
        self.active = fixes_code(task)
        self.deletes = bool(_ASKS_TO_DELETE.search(task))
        self.keeps_tests = fixes_a_bug(task)

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        planned = invocation.plan
        if self.keeps_tests and isinstance(planned, PlannedEdit):
            # Seen (bench: ta-rounding): asked to fix a wrong value, the embedded model changed
            # the test's expected line to the wrong value, and answered that the test passed.
            workspace = invocation.ctx.workspace
            for change in planned.plan.changes:
                shown = workspace.display(
                    change.source if isinstance(change, MovePath) else change.path
                )
                if is_test_file(shown) and _takes_lines(change):
                    return ToolResult.failure(expectation_refusal(shown))
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


def _takes_lines(change: FileChange) -> bool:
    """Whether ``change`` takes away or rewrites a line a file had (a deletion or a move takes
    them all; a file written anew, none)."""
    if isinstance(change, (DeletePath, MovePath)):
        return True
    if not isinstance(change, WriteFile) or change.old_text is None:
        return False
    kept = Counter(change.text.splitlines())
    for line in change.old_text.splitlines():
        if not line.strip():
            continue
        if kept[line] <= 0:
            return True
        kept[line] -= 1
    return False
