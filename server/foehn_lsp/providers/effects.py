"""What a call did to the workspace, read from the conversation: the one place the loop, the
answer checks and the embedded model's guards ask which calls may have changed files and where
in a conversation the workspace last changed (which files the calls changed is
``checks.honesty.changed_by_calls``: it needs the registry).

What each tool does comes from the tool contract: whether its calls change files
(``Tool.changes_files``, passed here as ``changes_files``, a name's answer). A call "may have
changed" the workspace when it changes files and succeeded, or when it is a program that ran
(``run_command``: what it wrote is seen only by the checkpoint's watch) in a sandbox that let it
write: one that ran ``read-only`` could not, whatever it did. A test run counts as reading,
whether ``run_tests`` or a ``run_command`` of a test runner (``runs_tests``): what a test run
writes (caches, reports) is not the project's code, and a test run repeated with nothing
changed in between shows the same failures (the embedded model ran ``python -m pytest`` after
each refused edit, and each run made the same refused edit new again until its 300 s ran out).

The command a person's task asks the output of is read here too (``program_asked``): the
answer checks hold an answer to it until it ran, and the embedded model's first step runs it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

ChangesFiles = Callable[[str], bool]
"""Whether calls of the tool of this name change the workspace's files (the contract's
``changes_files``: ``ToolRegistry.changes_files``, or read from the tool definitions)."""
PROGRAM_TOOL = "run_command"
TESTS_TOOL = "run_tests"

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


def ran(result: ToolResultMessage) -> bool:
    """Whether the call behind ``result`` started (it may have failed after starting)."""
    return not result.is_error or not any(piece in result.content for piece in NOT_RUN)


_TEST_RUNNERS = frozenset({"pytest", "py.test", "tox", "nox"})
_TEST_MODULES = frozenset({"pytest", "unittest", "tox", "nox"})
_TEST_SUBCOMMAND = frozenset({"npm", "pnpm", "yarn", "cargo", "go"})
"""Programs whose ``test`` subcommand runs the tests."""


def runs_tests(call: ToolCall) -> bool:
    """Whether ``call`` runs the project's tests: ``run_tests``, or a ``run_command`` of a test
    runner (pytest, ``python -m pytest``/``unittest``, tox, nox, ``npm``/``pnpm``/``yarn``/
    ``cargo``/``go test``, ``make test``)."""
    if call.name == TESTS_TOOL:
        return True
    if call.name != PROGRAM_TOOL:
        return False
    try:
        command = json.loads(call.arguments or "{}").get("command")
        argv = shlex.split(command) if isinstance(command, str) else list(command or [])
    except (ValueError, AttributeError, TypeError):
        return False
    if not argv or not all(isinstance(a, str) for a in argv):
        return False
    program = os.path.basename(argv[0])
    if program in _TEST_RUNNERS:
        return True
    if program.startswith("python") and argv[1:2] == ["-m"]:
        return len(argv) > 2 and argv[2] in _TEST_MODULES
    if program == "make":
        return "test" in argv[1:]
    return program in _TEST_SUBCOMMAND and argv[1:2] == ["test"]


_SUMMARY = re.compile(r"\(in .*\)")
"""A program's summary line (``Finished.summary``: the line after the command)."""
_READ_ONLY = "; sandbox read-only)"
_SECONDS = re.compile(r"; \d+(?:\.\d+)? s(?=[;)])")


def _summary(result: ToolResultMessage) -> tuple[list[str], bool]:
    """``result``'s first two lines and the rest, and whether the second is a program's
    summary line."""
    lines = result.content.split("\n", 2)
    ran_program = result.name in (PROGRAM_TOOL, TESTS_TOOL)
    return lines, ran_program and len(lines) > 1 and _SUMMARY.fullmatch(lines[1]) is not None


_PASSED = re.compile(r"; exit 0; (\d+(?:\.\d+)?) s[;)]")


def seconds_if_passed(result: ToolResultMessage) -> float | None:
    """How long the program behind ``result`` took, from its summary line, when it exited 0."""
    lines, summed = _summary(result)
    found = _PASSED.search(lines[1]) if summed else None
    return float(found[1]) if found is not None else None


def may_have_changed(
    result: ToolResultMessage, call: ToolCall | None, changes_files: ChangesFiles
) -> bool:
    """Whether ``call`` (``None``: not known), whose result is ``result``, may have changed the
    workspace's files."""
    if result.name == PROGRAM_TOOL:
        if call is not None and runs_tests(call):
            return False
        lines, summed = _summary(result)
        return ran(result) and not (summed and lines[1].endswith(_READ_ONLY))
    return changes_files(result.name) and not result.is_error


def output_of(result: ToolResultMessage) -> str:
    """What ``result`` showed, less how long its program took: that differs from one run to
    the next when nothing else does (a read-only ``ls`` run again, in 0.0 s and then 0.1 s)."""
    lines, summed = _summary(result)
    if summed:
        lines[1] = _SECONDS.sub("", lines[1])
    return "\n".join(lines)


def arguments_of(call: ToolCall | None) -> Mapping[str, Any]:
    """``call``'s arguments as an object; empty when there is no call or they are not one."""
    if call is None:
        return {}
    try:
        arguments = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return {}
    return arguments if isinstance(arguments, dict) else {}


def calls_in(messages: Sequence[Message]) -> list[ToolCall]:
    """Every tool call among ``messages``, in order."""
    return [c for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls]


def last_change(messages: Sequence[Message], changes_files: ChangesFiles) -> int:
    """The index just after the last message where the workspace may have changed: the last
    result of a call that may have changed it, or the person's last message (files may have
    changed between turns); 0 when there is neither."""
    calls = {call.id: call for call in calls_in(messages)}
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, ToolResultMessage) and may_have_changed(
            message, calls.get(message.call_id), changes_files
        ):
            return index + 1
        if isinstance(message, UserMessage) and not message.content.startswith("[Foehn]"):
            return index + 1
    return 0


def calls_since_change(messages: Sequence[Message], changes_files: ChangesFiles) -> list[ToolCall]:
    """The calls made since the workspace last changed: each would show what it showed."""
    return calls_in(messages[last_change(messages, changes_files) :])


def program_asked(task: str) -> list[str] | None:
    """The command the person's ``task`` asks what it prints ("What does python -m kitty.cli
    100 ana ben print?", "what will `make lint` output?"), split as a shell splits it, or
    ``None``. Unquoted, a command starts with ``python``, ``python3`` or ``./``."""
    found = _PROGRAM_ASKED.search(task)
    if found is None:
        return None
    try:
        command = shlex.split(found["quoted"] or found["bare"])
    except ValueError:
        return None
    return command or None


_PROGRAM_ASKED = re.compile(
    r"\bwhat\s+(?:exactly\s+)?(?:does|do|will|would)\s+(?:running\s+)?"
    r"(?:`(?P<quoted>[^`]+)`|(?P<bare>(?:python3?\s|\./)[^?`]*?))\s+"
    r"(?:print|output|show|display|say|write)\b",
    re.IGNORECASE,
)
