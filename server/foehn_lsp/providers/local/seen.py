"""What the conversation has shown of each file, kept current through the changes it made.

Shown means: the numbered lines under a ``path: lines A-B of N`` line (``read_file``, and the
code a failing ``run_tests`` shows), and the exact text ``read_symbol`` shows.

A small model rarely copies ``old_text`` exactly (quotes change, indentation goes), and then
the edit fails. Once a file has been read in the conversation, the step's grammar lets
``edit_file`` name only that file's text as ``old_text`` (a whole definition of at most
``SHORT_DEFINITION`` lines, or one, two or three consecutive lines, that occurs once in what was
shown), so the edit finds its text. A whole definition is offered because the model's other
common miss is replacing a function's header line with a header and body on one line, or one
line of a body that spans three. What a later edit or write did is applied here too, so the
choices follow the file as it is now.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from foehn_lsp.providers.effects import arguments_of
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
)

MAX_CHOICES = 400
"""``old_text`` choices offered per file (single lines first, then pairs, then triples)."""

HEADER = re.compile(r"^(\S.*?)(?: \(unsaved editor buffer\))?: lines (\d+)-(\d+) of (\d+)$")
_SYMBOL = re.compile(r"^(\S.*?): \S+ \(\w+\), lines \d+-\d+ of \d+.*; its exact text:$")
TESTS_TOOL = "run_tests"
NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")
_DEFINITION = re.compile(r"^(\s*)(@|(async\s+)?def\s|class\s|(export\s+)?(async\s+)?function\s)")
_DECORATOR = re.compile(r"^\s*@")
CUT = re.compile(r" … \(\d+ more characters\)$")


def seen_files(
    messages: Sequence[Message], tools: Sequence[ToolDefinition]
) -> dict[str, list[str]]:
    """For each file the conversation read or wrote (by its workspace-relative name): the runs
    of consecutive lines it has shown (as text), with the later successful edits applied.
    Calls are told apart by what their tools do (``ToolDefinition.kind``) and the shape of
    their arguments and results: a read (or a failing test run) that shows numbered lines
    under ``PATH: lines …``, an edit that writes a whole ``content``, an edit that replaces
    ``edits``."""
    kinds = {tool.name: tool.kind for tool in tools}
    calls: dict[str, ToolCall] = {}
    seen: dict[str, list[str]] = {}
    for message in messages:
        if isinstance(message, AssistantMessage):
            calls.update((c.id, c) for c in message.tool_calls)
            continue
        if not isinstance(message, ToolResultMessage):
            continue
        call = calls.get(message.call_id)
        if call is None:
            continue
        if message.is_error and call.name != TESTS_TOOL:
            continue  # a failed call shows nothing, but a failing test run shows code
        kind = kinds.get(call.name)
        if kind == "read" or call.name == TESTS_TOOL:
            for shown, runs in _shown(message.content).items():
                seen[shown] = _joined(seen.get(shown, []), runs)
            continue
        arguments = arguments_of(call)
        path = arguments.get("path")
        if not isinstance(path, str):
            continue
        path = path.removeprefix("./")
        if kind == "edit" and isinstance(arguments.get("content"), str):
            seen[path] = [arguments["content"]]
        elif kind == "edit" and isinstance(arguments.get("edits"), list) and path in seen:
            seen[path] = [_edited(run, arguments.get("edits")) for run in seen[path]]
    return seen


SHORT_DEFINITION = 12
"""Lines of a definition offered whole as ``old_text``. A longer one is changed a few lines at
a time: offered a 30-line function (its docstring mostly), the model named its first two lines
and wrote them back unchanged."""


def old_text_choices(runs: Sequence[str]) -> list[str]:
    """Spans of ``runs`` that an edit can name, each found once: whole short definitions first
    (so a function is replaced as a whole, its new body indented under its header), then
    single non-blank lines, pairs and triples, but none that starts at the header of a
    definition offered whole: offered its header line alone, the model replaced
    ``def mean(values):`` with the header and the new body on one line, which does not parse
    (mean([]) was to return None; it made the same edit again until its time ran out)."""
    whole = "\n".join(runs)
    choices: list[str] = []
    headers: set[str] = set()
    for run in runs:
        for span in definitions(run):
            if span.count("\n") >= SHORT_DEFINITION:
                continue
            if whole.count(span) == 1 and span not in choices:
                choices.append(span)
                headers.update(line for line in span.split("\n") if _DEFINITION.match(line))
    for width in (1, 2, 3):
        for run in runs:
            lines = run.split("\n")
            for start in range(len(lines) - width + 1):
                if lines[start] in headers:
                    continue
                span = "\n".join(lines[start : start + width])
                if span.strip() and whole.count(span) == 1 and span not in choices:
                    choices.append(span)
                    if len(choices) == MAX_CHOICES:
                        return choices
    return choices


def definitions(run: str) -> list[str]:
    """The definitions in ``run`` (a function, method or class, with its decorators): from
    the header to the last line indented under it, and a closing bracket at the header's
    indentation."""
    lines = run.split("\n")
    found: list[str] = []
    for start, line in enumerate(lines):
        header = _DEFINITION.match(line)
        if header is None or (start and _DECORATOR.match(lines[start - 1])):
            continue  # not a definition, or one that its decorators start
        depth = len(header.group(1))
        body = start
        while body < len(lines) - 1 and _DECORATOR.match(lines[body]):
            body += 1  # the definition the decorators are for
        last = body
        for number in range(body + 1, len(lines)):
            text = lines[number]
            if not text.strip():
                continue
            indent = len(text) - len(text.lstrip())
            if indent > depth:
                last = number
                continue
            if indent == depth and text.lstrip()[:1] in ("}", ")", "]"):
                last = number
            break
        if last > body:
            found.append("\n".join(lines[start : last + 1]))
    return found


def _shown(output: str) -> dict[str, list[str]]:
    """The runs of whole lines a result shows, by file: numbered lines under each
    ``path: lines …`` line (cut lines end a run), or a definition's exact text."""
    lines = output.split("\n")
    if lines and (symbol := _SYMBOL.match(lines[0])) is not None:
        return {symbol[1]: ["\n".join(lines[1:]).rstrip("\n")]}
    runs: dict[str, list[str]] = {}
    path: str | None = None
    current: list[str] = []

    def close() -> None:
        if path is not None and current:
            runs.setdefault(path, []).append("\n".join(current))
        current.clear()

    for line in lines:
        header = HEADER.match(line)
        if header is not None:
            close()
            path = header[1]
            continue
        numbered = NUMBERED.match(line)
        if numbered is None or CUT.search(numbered.group(2)):
            close()
            continue
        current.append(numbered.group(2))
    close()
    return runs


def _joined(runs: Sequence[str], new: Sequence[str]) -> list[str]:
    """``runs`` and ``new``, each run kept once: a run another contains (whole lines) is the
    same lines shown again. Kept twice, every line they share counted as found twice, and none
    was offered as ``old_text``: after a failing run showed ``totient`` and a read showed the
    lines around it, the model could not name the line to fix and read on instead."""
    kept = list(runs)
    for run in new:
        if any(_within(run, other) for other in kept):
            continue
        kept = [other for other in kept if not _within(other, run)] + [run]
    return kept


def _within(run: str, other: str) -> bool:
    """Whether the lines of ``run`` are consecutive whole lines of ``other``."""
    return f"\n{run}\n" in f"\n{other}\n"


def _edited(run: str, edits: Any) -> str:
    for edit in edits if isinstance(edits, list) else []:
        if isinstance(edit, dict):
            old, new = edit.get("old_text"), edit.get("new_text")
            if isinstance(old, str) and isinstance(new, str) and old and old in run:
                run = run.replace(old, new, 1)
    return run
