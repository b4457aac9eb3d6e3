"""A fix written as code. Right after a failing test run whose result shows the code the test
calls, the embedded model is asked, in a short prompt of its own, for that code corrected in a
Python block; the lines it changed become the ``edit_file`` call of the step.

Asked for the same fix as an ``edit_file`` call, the model writes code inside a JSON string,
after the whole catalogue and its examples, and rarely gets it right: the whole turn was right
in 0 of 8 ``brink`` and 1 of 8 ``coda`` tasks (bench/bench_tasks.py), with edits such as
``rv[1] = 2`` appended where ``func`` was not applied, or read_file's line numbers inside
``new_text``. Given the same failing runs in a prompt of this kind (the first function shown),
it wrote the right change at once in 7 of the 15 that showed code under test (``valmap``:
``map(func, d.values())``), a wrong one in 1, and the code unchanged in 7.

The prompt is the run's own account (the failure, what the failing line ran, the test) and the
code under test it shows from one file (the first such block's), without line numbers. The
reply's lines are compared with the code shown, and every run of changed lines becomes one
edit whose ``old_text`` is those lines with a line on each side, or more, until it is found
once in what was shown. Lines the run left out (a long docstring, the lines between two
definitions) stand as a comment and cannot be changed; a change that only adds comments, or
adds lines above the code (imports), is left out. With no block, no change, or a change to a
line that was left out, the step is asked as any other. Comments the reply adds to the lines
it changes are left out of the edit. A fix set aside so is not asked for again in the turn
(``set_aside``): asked again after the next failing run, the model gave no usable fix in 7 of
9 turns of the bench's traces, each ask costing 30-110 s of reading the run twice.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from foehn_lsp.providers.effects import TESTS_TOOL
from foehn_lsp.providers.local.guards import EDIT_TOOL, failing_tests, last_result, turn_start
from foehn_lsp.providers.local.prompt import ChatMessage
from foehn_lsp.providers.local.seen import CUT, HEADER, NUMBERED
from foehn_lsp.providers.messages import AssistantMessage, Message, ToolResultMessage
from foehn_lsp.workspace.testfiles import is_test_file

FIXES_PER_TURN = 2
"""Edits a turn may have made before a failing run is no longer answered with a fix written
here: after two, the model's own steps (reading more, another approach) take over."""
FIX_ID = "fix"
"""How the ids of the calls a fix written here made begin (the others' begin ``local``): the
conversation shows which edits were this module's."""
MAX_LINES = 40
"""Lines of code under test asked for at most: the first block a run shows, if it fits, and
the others of its file that fit after it (the reply would run past ``TOKENS``)."""
TOKENS = 640
"""Tokens the reply may take: the code shown again, changed."""
CONTEXT = 3
"""Lines on each side of a change an edit's ``old_text`` may take to be found once."""

SYSTEM = "You are a careful Python developer fixing a bug."
ASK = (
    "Find the bug in this code and fix it. Reply with the corrected code in one ```python "
    "block: the same lines, with only the lines that must change changed."
)

_STORY = "The first failure"
_TITLE = re.compile(r"^(\S+), (.+):$")
_LEFT_OUT = re.compile(r"^\s+\((lines \d+-\d+: .+)\)$")
_BLOCK = re.compile(r"```[\w+-]*\n(.*?)```", re.DOTALL)
_COMMENT = re.compile(r"^\s*(#.*)?$")
_TRAILING = re.compile(r"\s+#[^'\"]*$")
"""A comment after code (one with no quote in it, so not a ``#`` inside a string)."""


_Shown = tuple[str, str, list[tuple[int | None, str]]]
"""A block of code a run shows: the definition's name, its file, its lines."""


@dataclass(frozen=True, kw_only=True)
class Focus:
    """What a failing run showed, for a fix written as code."""

    node: str
    """The failing test's node id."""
    story: str
    """The run's account before the code under test: the failure, what its line ran, the test."""
    name: str
    """The names of the definitions shown ("valmap", "last_n, tail")."""
    path: str
    lines: tuple[tuple[int | None, str], ...]
    """The code under test as shown: each line's number in the file and its text; a line the
    run left out (``None``) holds a comment saying which lines it stands for."""


def focus(messages: Sequence[Message]) -> Focus | None:
    """The code to fix when the last result is this turn's failing test run showing code under
    test, and the turn has made fewer than ``FIXES_PER_TURN`` edits; else ``None``."""
    last = last_result(messages)
    if not (isinstance(last, ToolResultMessage) and last.name == TESTS_TOOL and last.is_error):
        return None
    turn = messages[turn_start(messages) :]
    edits = sum(
        call.name == EDIT_TOOL
        for m in turn
        if isinstance(m, AssistantMessage)
        for call in m.tool_calls
    )
    named = failing_tests(last.content)
    if edits >= FIXES_PER_TURN or not named:
        return None
    return _shown(named[0], last.content.split("\n"))


def set_aside(messages: Sequence[Message]) -> bool:
    """Whether a fix written as code was asked for earlier in this turn and not made: after a
    failing run that showed code to fix (``focus`` of the conversation up to it), the next
    call was not one a fix made (its id does not begin with ``FIX_ID``)."""
    start = turn_start(messages)
    for at in range(start, len(messages) - 1):
        if not isinstance(messages[at], ToolResultMessage) or focus(messages[: at + 1]) is None:
            continue
        after = next((m for m in messages[at + 1 :] if isinstance(m, AssistantMessage)), None)
        if after is not None and after.tool_calls and not after.tool_calls[0].id.startswith(FIX_ID):
            return True
    return False


def _shown(node: str, lines: list[str]) -> Focus | None:
    """The code under test a run's result ``lines`` show from one file: the file of the
    first such block (not a test file's), and its blocks that fit ``MAX_LINES`` in the order
    the run shows them, put in the order of their lines, with a line that says which lines
    lie between two blocks."""
    start = next((i for i, line in enumerate(lines) if line.startswith(_STORY)), None)
    if start is None:
        return None
    blocks: list[_Shown] = []
    story = len(lines)
    for at in range(start, len(lines) - 1):
        title, header = _TITLE.match(lines[at]), HEADER.match(lines[at + 1])
        if title is None or header is None or is_test_file(header[1]):
            continue
        story = min(story, at)
        blocks.append((title[1], header[1], _block(lines[at + 2 :])))
    if not blocks:
        return None
    path = blocks[0][1]
    if not blocks[0][2] or len(blocks[0][2]) > MAX_LINES:
        return None
    chosen = [blocks[0]]
    for shown in blocks[1:]:  # the run's order: the code under test first, then what it calls
        taken = sum(len(b[2]) + 1 for b in chosen)  # a block and the line before it
        if shown[1] == path and shown[2] and taken + len(shown[2]) <= MAX_LINES:
            chosen.append(shown)
    chosen.sort(key=lambda b: _first_number(b[2]))
    code: list[tuple[int | None, str]] = []
    for _, _, block in chosen:
        before, first = _last_number(code), _first_number(block)
        if before is not None and first <= before:
            continue  # inside a block already taken
        if before is not None and first > before + 1:
            code.append((None, f"# (lines {before + 1}-{first - 1}, not shown)"))
        code += block
    names = ", ".join(dict.fromkeys(name for name, _, block in chosen))
    return Focus(
        node=node,
        story="\n".join(lines[start:story]).rstrip(),
        name=names,
        path=path,
        lines=tuple(code),
    )


def _block(lines: list[str]) -> list[tuple[int | None, str]]:
    """The numbered lines at the start of ``lines``, as a block of code (a line left out, or
    cut, as a comment that says so)."""
    code: list[tuple[int | None, str]] = []
    for line in lines:
        numbered, left_out = NUMBERED.match(line), _LEFT_OUT.match(line)
        if numbered is not None and not CUT.search(numbered[2]):
            code.append((int(numbered[1]), numbered[2]))
            continue
        if numbered is not None:
            what = f"line {numbered[1]}, too long to show"
        elif left_out is not None:
            what = left_out[1]
        else:
            break
        last = code[-1][1] if code else ""
        code.append((None, f"{last[: len(last) - len(last.lstrip())]}# ({what}, not shown)"))
    return code


def _first_number(code: list[tuple[int | None, str]]) -> int:
    return next((n for n, _ in code if n is not None), 0)


def _last_number(code: list[tuple[int | None, str]]) -> int | None:
    return next((n for n, _ in reversed(code) if n is not None), None)


def request(fix: Focus) -> list[ChatMessage]:
    """The prompt that asks for the code corrected."""
    code = "\n".join(text for _, text in fix.lines)
    return [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": (
                f"The test {fix.node} fails.\n\n{fix.story}\n\nThe code the test calls, "
                f"{fix.name} in {fix.path}:\n```python\n{code}\n```\n{ASK}"
            ),
        },
    ]


def written(reply: str) -> bool:
    """Whether ``reply`` holds a whole code block (nothing after it is needed)."""
    return _BLOCK.search(reply) is not None


def edit(fix: Focus, reply: str) -> dict[str, Any] | None:
    """The ``edit_file`` arguments that make the changes ``reply``'s code block makes to the
    code shown, or ``None`` when it has no block, changes nothing or changes a line that was
    not shown."""
    block = _BLOCK.search(reply)
    if block is None:
        return None
    old = [text for _, text in fix.lines]
    new = block[1].rstrip("\n").split("\n")
    spans: list[tuple[int, int, list[str]]] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        removed, added = old[i1:i2], _uncommented(old[i1:i2], new[j1:j2])
        if tag == "equal" or _code(removed) == _code(added):
            continue  # the same code, or comments and blank lines only
        if tag == "insert" and i1 == 0:
            continue  # above the code shown: an import, a comment
        if any(fix.lines[i][0] is None for i in range(i1, i2)):
            return None
        if tag == "insert":  # anchored on the line before it
            i1 -= 1
            removed, added = [old[i1]], [old[i1], *added]
            if fix.lines[i1][0] is None:
                return None
        spans.append((i1, i1 + len(removed), added))
    edits = [_edit(fix, old, span) for span in _merged(spans)]
    return {"path": fix.path, "edits": edits} if edits else None


def _uncommented(removed: Sequence[str], added: Sequence[str]) -> list[str]:
    """``added`` less the comments it brings that ``removed`` did not have: the model marks
    its change ("# Changed from rv[k] = k to rv[k] = v"), which is not the person's code."""
    kept: list[str] = []
    for line in added:
        comment = _TRAILING.search(line)
        if line in removed or not line.strip():
            kept.append(line)
        elif _COMMENT.match(line):
            continue  # a comment line of its own
        elif comment is None or any(comment[0].strip() in r for r in removed):
            kept.append(line)
        else:
            kept.append(line[: comment.start()])
    return kept


def _code(lines: Sequence[str]) -> list[str]:
    """``lines`` less comments and blank lines."""
    return [_TRAILING.sub("", line) for line in lines if not _COMMENT.match(line)]


def _merged(spans: list[tuple[int, int, list[str]]]) -> list[tuple[int, int, list[str]]]:
    """Spans that touch or overlap joined into one (their lines in order)."""
    merged: list[tuple[int, int, list[str]]] = []
    for start, end, added in spans:
        if merged and start <= merged[-1][1]:
            first, last, before = merged[-1]
            merged[-1] = (first, max(last, end), [*before, *added])
        else:
            merged.append((start, end, added))
    return merged


def _edit(fix: Focus, old: list[str], span: tuple[int, int, list[str]]) -> dict[str, str]:
    """One edit for ``span`` with a shown line on each side where there is one, widened by up
    to ``CONTEXT`` lines on each side until its ``old_text`` is found once in the code shown
    (a line such as ``return word`` is in a file many times)."""
    start, end, added = span
    whole = "\n".join(old)
    above = below = 0
    for _ in range(CONTEXT):
        if start - above > 0 and fix.lines[start - above - 1][0] is not None:
            above += 1
        if end + below < len(old) and fix.lines[end + below][0] is not None:
            below += 1
        if whole.count("\n".join(old[start - above : end + below])) == 1:
            break
    return {
        "old_text": "\n".join(old[start - above : end + below]),
        "new_text": "\n".join([*old[start - above : start], *added, *old[end : end + below]]),
    }
