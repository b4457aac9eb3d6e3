"""What a turn did, in Foehn's words, for when the embedded model could not put it into its own:
the files the turn's calls changed and what its last test run showed.

In ``vale`` three fix tasks of eight ended with only "could not put what it found into words"
(the model's answers copied what it had been shown, twice), though each turn had changed a file
and run the tests after it. The person was left to read the events for what was done and
whether the tests passed. Everything said here is read from the turn's own results.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from foehn_lsp.providers.effects import arguments_of
from foehn_lsp.providers.local.guards import runs_and_changes
from foehn_lsp.providers.messages import Message, ToolDefinition, ToolResultMessage
from foehn_lsp.workspace.testfiles import SHORT_SUMMARY

_FIRST_FAILING = re.compile(r"^\d+ failing:\n  (.+)$", re.MULTILINE)
"""The first test a failing ``run_tests`` result's digest lists, with what it failed with."""
LONGEST = 160
"""Characters of the failing test's line kept."""


def turn_account(messages: Sequence[Message], tools: Sequence[ToolDefinition]) -> str:
    """What the turn that ``messages`` end with changed and what its last test run showed, in
    one or two sentences; empty when it did neither."""
    changed: list[str] = []
    last_run: ToolResultMessage | None = None
    any_change = changed_since_run = False
    for result, call, is_run in runs_and_changes(messages, tools):
        if is_run:
            last_run, changed_since_run = result, False
            continue
        any_change = changed_since_run = True
        path = arguments_of(call).get("path")
        if isinstance(path, str) and path and path not in changed:
            changed.append(path)
    said = []
    if changed:
        said.append(f"This turn changed {', '.join(changed)}.")
    if last_run is not None and changed_since_run and not last_run.is_error:
        # Not "passed": a pass before the last change shows nothing of the code as it is.
        said.append("The tests have not run since the last change.")
    elif last_run is not None:
        when = (
            "before the last change"
            if changed_since_run
            else "after the last change"
            if any_change
            else "with nothing changed in this turn"
        )
        said.append(f"The last test run, {when}, {_outcome(last_run)}")
    return " ".join(said)


def _outcome(run: ToolResultMessage) -> str:
    """What test run ``run`` showed, as the end of a sentence."""
    if not run.is_error:
        return "passed."
    found = _FIRST_FAILING.search(run.content)
    line = found[1] if found is not None else None
    if line is None and (summary := SHORT_SUMMARY.search(run.content)) is not None:
        line = summary[2] + (f" - {summary[3]}" if summary[3] else "")
    if line is None:
        return "failed."
    cut = line if len(line) <= LONGEST else line[: LONGEST - 1] + "…"
    return f"failed: {cut}" + ("" if cut.endswith((".", "…")) else ".")
