"""What a call did to the workspace, read from the conversation: the one place the loop, the
answer checks and the embedded model's guards ask which calls changed files, which files a call
changed or named, and where in a conversation the workspace last changed.

It reads tool names today (``risk.CHANGE_TOOLS``, the tools known to read only, the program
runner); when the tool contract says what a call does (whether it changes files, which paths it
names), this module reads that instead, and nothing that asks it changes.

A call "may have changed" the workspace when it is a file tool that succeeded, a program that
ran (``run_command``: its writes are seen only by the checkpoint's watch), or a tool Foehn does
not know to read only (a plugin's, an MCP server's) that succeeded. ``run_tests`` counts as
reading: what a test run writes (caches, reports) is not the project's code, and a test run
repeated with nothing changed in between shows the same failures.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.risk import CHANGE_TOOLS
from foehn_lsp.workspace.edits import EditPlan, MovePath

READING_TOOLS = frozenset(
    {
        "scan",
        "read_file",
        "search",
        "outline",
        "read_symbol",
        "git",
        "todo",
        "investigate",
        "run_tests",
        "definition",
        "references",
        "workspace_symbols",
    }
)
"""Tools whose calls never change the workspace's files."""
PROGRAM_TOOL = "run_command"
TESTS_TOOL = "run_tests"
PATH_KEYS = ("path", "source", "destination")
"""The arguments of the file tools that name a file."""

NOT_RUN = (
    "nothing was run",
    "was not run",
    "not run:",
    "the person denied this call",
    "plan mode:",
    "unknown tool",
)
"""Pieces of a failed result that say the call never started (refused, invalid, denied)."""


REFUSED = (
    "the person denied this call",
    "was not run: policy denies",
    "plan mode:",
    "investigate is read-only:",
    "was not changed: it is a test",
)
"""Pieces of failed results that are no fault of the model's to act on: the person's denial, a
rule's, plan mode's or the test-driven rule's refusal."""


def refused(result: ToolResultMessage) -> bool:
    """Whether ``result`` is a refusal (by the person, a rule, a mode), not a failure."""
    return result.is_error and any(piece in result.content for piece in REFUSED)


def changes_files(name: str) -> bool:
    """Whether a successful call of the tool ``name`` is a change to the workspace's files."""
    return name in CHANGE_TOOLS


def ran(result: ToolResultMessage) -> bool:
    """Whether the call behind ``result`` started (it may have failed after starting)."""
    return not result.is_error or not any(piece in result.content for piece in NOT_RUN)


def may_have_changed(result: ToolResultMessage) -> bool:
    """Whether the call behind ``result`` may have changed the workspace's files."""
    if result.name in READING_TOOLS:
        return False
    if result.name == PROGRAM_TOOL:
        return ran(result)
    return not result.is_error


def arguments_of(call: ToolCall) -> Mapping[str, Any]:
    """The call's arguments as an object (empty when they are not a JSON object)."""
    try:
        arguments = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return {}
    return arguments if isinstance(arguments, dict) else {}


def paths_named(call: ToolCall) -> list[str]:
    """The files a call of a file tool names (its path, or source and destination)."""
    arguments = arguments_of(call)
    return [v for key in PATH_KEYS if isinstance(v := arguments.get(key), str)]


def changed_by_calls(messages: Sequence[Message], written: Sequence[str] = ()) -> list[str]:
    """The files the successful file tools among ``messages`` changed: ``written`` (what the
    executor recorded from the results: all the files a ``rename_symbol`` wrote), then the
    files the calls name; what a turn changed, for a loop run without a checkpoint or with one
    that has not seen the editor's buffers yet."""
    ok = {m.call_id for m in messages if isinstance(m, ToolResultMessage) and not m.is_error}
    named: list[str] = list(dict.fromkeys(written))
    for call in calls_in(messages):
        # A rename's path is where the symbol is written, which its result's files name if the
        # rename changed it.
        if not changes_files(call.name) or call.name == "rename_symbol" or call.id not in ok:
            continue
        named += [path for path in paths_named(call) if path not in named]
    return named


def calls_in(messages: Sequence[Message]) -> list[ToolCall]:
    """Every tool call among ``messages``, in order."""
    return [c for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls]


def last_change(messages: Sequence[Message]) -> int:
    """The index just after the last message where the workspace may have changed: the last
    result of a call that may have changed it, or the person's last message (files may have
    changed between turns); 0 when there is neither."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, ToolResultMessage) and may_have_changed(message):
            return index + 1
        if isinstance(message, UserMessage) and not message.content.startswith("[Foehn]"):
            return index + 1
    return 0


def calls_since_change(messages: Sequence[Message]) -> list[ToolCall]:
    """The calls made since the workspace last changed: each would show what it showed."""
    return calls_in(messages[last_change(messages) :])


def planned_paths(plan: EditPlan) -> list[Path]:
    """The files (and folders) a planned call would change, in order."""
    paths: list[Path] = []
    for change in plan.changes:
        if isinstance(change, MovePath):
            paths += [change.source, change.destination]
        else:
            paths.append(change.path)
    return paths
