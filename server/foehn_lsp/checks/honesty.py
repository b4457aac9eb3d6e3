"""No claims without effects: the loop's checks on what a model says it did, for every model.

- A change that failed (not one refused by the person, a rule or a mode) must be followed by a
  tool call: an answer right after it is sent back once with the failure, unless it says
  honestly that it could not be done (an honest "I could not" is never sent back).
- An answer that claims a change (created, fixed, updated, …) is checked against the files the
  turn really changed (the checkpoint's record), file by file: when it changed none, or a file
  the claim says it changed is not among them, the answer is sent back once with what actually
  changed; claimed again, it stands less the sentences that name the unchanged files, or, when
  the turn changed nothing, it is withheld and the person reads what happened instead. The
  check applies when the task asks for a change or the turn tried one. A file whose changes in
  the turn touched only comments counts as unchanged for such a claim (``check_comment_claim``),
  unless the task or the claim speaks of comments.
- An answer to a task that asks for a change, after a turn that only read (it changed no file
  and called no tool that changes files and no program), goes back once unless it says that
  nothing changed or why, or asks the person something; said again, it stands, with the
  statement that the turn changed no file (``check_nothing_done``).
- An answer that says what a run would show is checked against the turn's runs: "the tests
  pass" against its last test run (it ran none, that run failed, or a change came after it; a
  ``run_command`` of a test runner such as ``python -m pytest`` is a test run, other programs
  show nothing of the tests); "the bug (the error, the failing test) is fixed" against the last
  run after its last change (there is none, or it failed); "faster" against ``run_tests`` times
  before and after its last change. Such sentences go back once; said again, the answer stands
  less them, with what the check found after it. An answer that says what code returns after
  the turn's last run, a ``run_command``, failed goes back once too (``check_value_claim``), and
  one that says it replaced a whole file where every change replaced a part
  (``check_whole_claim``). An answer that reports a change and says nothing of the failure the
  turn's last test run, after that change, showed goes back once; said again, it stands with
  that run's result after it (``check_unsaid_failure``).
- An answer that says what it wrote, in code (`--verbose`, a version, a name in backquotes), is
  checked against the diffs of the session's changes and what the turn read of the files it
  changed; an answer that says only that it added is checked against the lines the turn's
  changes took away. Either is sent back once; said again, the answer stands less the sentences
  that claim code no change holds, and the person reads what the check found after it (these
  checks read words, and words can be misread: they leave out a sentence, not the answer).
  They apply only where the diffs show every change whole.
- While text streams, a sentence that claims a change or a result (and everything after it) is
  held back until the loop has checked the answer, so a withheld claim never reaches the person
  (``claims.HeldText``).

What an answer claims is read from its words in ``checks/claims.py``; which calls changed files
is read in ``effects``; this module holds the claims against the turn's messages.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from foehn_lsp.checks.claims import (
    asks_for_change,
    asks_for_test,
    claims_change,
    claims_every_use,
    claims_faster,
    claims_fixed,
    claims_test_added,
    claims_tests_pass,
    claims_value,
    claims_whole_file,
    code_claims,
    definitions_asked,
    files_asked,
    files_by_sentence,
    locations,
    mentioned_files,
    named_files,
    same_file,
    sentences,
    tells_of_failure,
)
from foehn_lsp.checks.comments import only_comments
from foehn_lsp.providers.effects import (
    PROGRAM_TOOL,
    TESTS_TOOL,
    calls_in,
    program_asked,
    ran,
    refused,
    runs_tests,
    seconds_if_passed,
)
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.tools.registry import ToolRegistry
from foehn_lsp.workspace import references
from foehn_lsp.workspace.symbols import outline


def failed_change(
    results: Sequence[ToolResultMessage], tools: ToolRegistry
) -> ToolResultMessage | None:
    """The last failed change among a step's results that the model must act on."""
    for result in reversed(results):
        if result.is_error and tools.changes_files(result.name):
            if refused(result):
                return None
            return result
    return None


def act_on_failure_note(result: ToolResultMessage) -> str:
    """What the model is told when it answers right after a failed change."""
    said = " ".join(result.content.split())[:400] or "it failed"
    return (
        f"[Foehn] Your last change ({result.name}) failed and changed nothing: {said} "
        "Do not answer yet: act on what the failure says with a tool call (read the file "
        "again, fix old_text or the path). If it cannot be done, try another way; answer only "
        "once you have done it, or with what failed."
    )


@dataclass(frozen=True, kw_only=True)
class ClaimCheck:
    """A false claim found in an answer: what to tell the model, and, if it claims again, what
    the person reads."""

    note: str | None
    """What to tell the model, the answer sent back once; ``None``: the answer stands at once,
    with ``statement`` after it."""
    statement: str
    kept: str | None = None
    """What the person reads of the answer, before ``statement``, if it is not withheld: where
    the check reads words and may misread them, all of it, or all but the false sentences."""


def check_claim(
    answer: str,
    *,
    changed: Sequence[str],
    earlier: Sequence[str],
    restored: Collection[str] = (),
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when ``answer`` claims a change the turn did not make: it changed no
    file (``changed``: this turn's files), or a file it says it changed is not among them (nor
    among ``earlier``: files changed by earlier turns of the session, for a claim that names
    them). A file the turn's edits left as it was (``restored``) is not a change, and the
    check says so. Said again, an answer that names files some of which did change stands
    less the sentences that name the others; one that claims changes where none were made is
    withheld."""
    if not claims_change(answer):
        return None
    files = named_files(answer)
    really = [*changed, *earlier]
    missing = [f for f in files if not any(same_file(f, c) for c in really)]
    if (files and not missing) or (not files and changed):
        return None
    done = f"only: {', '.join(changed)}" if changed else "no file"
    if back := [f for f in missing if any(same_file(f, r) for r in restored)]:
        done += f" (its edits of {', '.join(back)} undid each other)"
    named = f" (it names {', '.join(missing)})" if missing else ""
    note = (
        f"[Foehn] Your answer says you changed files{named}, but this turn changed {done}. "
        "Never report a change that was not made: make the change now with a tool, or answer "
        "with what you actually did and what failed."
    )
    if changed and missing:
        false = [s for s, names in files_by_sentence(answer) if any(f in names for f in missing)]
        them = "that sentence is" if len(false) == 1 else "those sentences are"
        return ClaimCheck(
            note=note,
            statement=(
                f"[Foehn] The answer said it had changed {', '.join(missing)}, but this turn "
                f"changed {done}; {them} left out."
            ),
            kept=_without(answer, false),
        )
    return ClaimCheck(
        note=note,
        statement=(
            f"[Foehn] The model's answer said it had changed files{named}, but this turn "
            f"changed {done}; the answer is withheld. "
            + ("Check those files before relying on it." if changed else "Nothing was changed.")
        ),
    )


def check_test_claim(
    answer: str, turn: Sequence[Message], tools: ToolRegistry
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when ``answer`` says it added a test (``claims_test_added``) and no
    change of the ``turn`` adds one: none changed a test's file (``tests/…``, ``test_*.py``,
    ``*.test.ts``…) or added a test's line (``def test…``, ``assert``, ``it(``). Checked only
    where the diffs show every change whole (no program ran). Said again, the answer stands
    less those sentences."""
    false = [s for s in sentences(answer) if claims_test_added(s)]
    if not false:
        return None
    diff = _diffs(turn, tools)
    if not diff.whole or any(_TEST_FILE.search(f) for f in diff.files):
        return None
    if any(_TEST_LINE.match(line) for line in diff.added):
        return None
    changed = f"it changed only {', '.join(diff.files)}" if diff.files else "it changed no file"
    them = "that sentence is" if len(false) == 1 else "those sentences are"
    return ClaimCheck(
        note=(
            f"[Foehn] Your answer says you added a test, but no change in this turn adds one "
            f"({changed}). Add the test now with a tool (edit_file in the tests' file), or "
            "answer again with what you actually did."
        ),
        statement=(
            f"[Foehn] The answer said it added a test, but no change in this turn adds one; "
            f"{them} left out."
        ),
        kept=_without(answer, false),
    )


def check_test_asked(
    answer: str, *, task: str, turn: Sequence[Message], tools: ToolRegistry
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when the ``task`` asks for a test (``asks_for_test``), the ``turn``
    changed files, every change shows its whole diff and none adds a test (no test's file, no
    test's line), and ``answer`` does not say why there is none. Seen (bench: ri-mean-empty,
    ri-to-kelvin): "… with its test" answered after an edit of the code alone. Said again,
    the answer stands, with what the turn did after it."""
    if not asks_for_test(task):
        return None
    diff = _diffs(turn, tools)
    if not diff.files or not diff.whole or any(_TEST_FILE.search(f) for f in diff.files):
        return None
    if any(_TEST_LINE.match(line) for line in diff.added):
        return None
    own = _own_words(answer, turn)
    if own is None or _NO_TEST.search(own):
        return None
    return ClaimCheck(
        note=(
            f"[Foehn] The task asks for a test, and no change in this turn adds one (it "
            f"changed only {', '.join(diff.files)}). Add the test now: edit_file in the tests' "
            "file (write_file for a new one), then run_tests; or answer with why there is none."
        ),
        statement="[Foehn] This turn added no test.",
        kept=answer,
    )


_NO_TEST = re.compile(
    r"(?:\b(?:not|cannot)\b|n't\b)[^.!?\n]*\b(?:add|writ|creat)\w*[^.!?\n]*\btests?\b"
    r"|\b(?:no|without)\s+(?:a\s+|\w+\s+)?tests?\b",
    re.IGNORECASE,
)
"""A sentence that says there is no test, or why."""


def check_files_asked(
    answer: str, *, task: str, changed: Sequence[str], turn: Sequence[Message]
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when the ``turn`` changed files but not every file the ``task`` asks
    to change (``files_asked``), and ``answer`` does not say why (it names such a file in a
    sentence that says it was not changed or could not be, or tells of a failure). Seen
    (bench: ta-unit-label): "fix the code, and add a line about the fix to CHANGELOG.md"
    answered with the fix alone. Said again, the answer stands, with what the turn did."""
    if not changed:
        return None
    missing = [f for f in files_asked(task) if not any(same_file(f, c) for c in changed)]
    if not missing:
        return None
    own = _own_words(answer, turn)
    if own is None:
        return None
    for sentence in sentences(own):
        if _SAYS_WHY.search(sentence) and any(
            same_file(f, n) for f in missing for n in mentioned_files(sentence)
        ):
            return None
    names = _quoted(missing)
    them = "it" if len(missing) == 1 else "them"
    return ClaimCheck(
        note=(
            f"[Foehn] The task asks for a change in {names}, and this turn has not changed "
            f"{them}. Make that change now with a tool (edit_file; write_file for a new file), "
            "or answer with why not."
        ),
        statement=f"[Foehn] This turn did not change {names}.",
        kept=answer,
    )


def check_definitions_asked(
    answer: str, *, task: str, turn: Sequence[Message], tools: ToolRegistry
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when the ``turn`` changed files, every change shows its whole diff,
    and no added line defines a function or class the ``task`` asks to add by name
    (``definitions_asked``), and ``answer`` does not say why. Seen (bench:
    ta-moving-average): asked to add ``moving_average``, the embedded model rewrote ``recent``
    beside it and answered that it had added the function. Said again, the answer stands,
    with what the turn did."""
    asked = definitions_asked(task)
    if not asked:
        return None
    diff = _diffs(turn, tools)
    if not diff.files or not diff.whole:
        return None
    defined = {m.group(1) for line in diff.added for m in [_DEFINES.match(line)] if m}
    missing = [name for name in asked if name not in defined]
    own = _own_words(answer, turn)
    if not missing or own is None:
        return None
    if any(name in s and _NOT.search(s) for s in sentences(own) for name in missing):
        return None
    names = _quoted(missing)
    return ClaimCheck(
        note=(
            f"[Foehn] The task asks to add {names}, and no change in this turn defines "
            f"{'it' if len(missing) == 1 else 'them'}. Add the definition now with edit_file "
            "(new_text: the lines around where it goes, with it added), or answer with why not."
        ),
        statement=f"[Foehn] No change in this turn defines {names}.",
        kept=answer,
    )


_NOT = re.compile(r"\b(?:not|never|cannot|no)\b|n't\b", re.IGNORECASE)
_DEFINES = re.compile(r"(?:async\s+def|def|class|function|fn|func)\s+([A-Za-z_]\w*)")
"""An added line (stripped) that defines a function or class, and its name."""


def check_nothing_done(
    answer: str,
    *,
    task: str,
    changed: Sequence[str],
    turn: Sequence[Message],
    tools: ToolRegistry,
    sees_programs: bool = False,
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when the ``task`` asks for a change and the ``turn`` only read: it
    changed no file and called no tool that changes files and no program; and ``answer`` does
    not say that nothing changed or why (it could not, something failed, it was already so)
    and asks the person nothing. Seen (bench: ri-freezing): "tests/test_units.py fails. Fix
    the code, not the tests." answered with what the tests check, with no test run and no
    edit. A turn that tried a change is left to the notes of its failures and refusals. Said
    again, the answer stands, with what the turn did after it. A sentence that repeats one of
    Foehn's notes says nothing of its own (seen, run 64: the note sent back as "this turn has
    not changed any file", which reads as saying why). Where ``changed`` sees what programs
    changed (``sees_programs``: the session's checkpoint), a program that ran without failing
    is no tried change (seen, bench: ta-rounding: asked to fix a wrong value, the model ran the
    command, read the wrong value and answered that the program ran successfully)."""
    if changed or not asks_for_change(task):
        return None
    own = _own_words(answer, turn)
    if own is None or _SAYS_WHY.search(own):
        return None
    failed = {m.call_id for m in turn if isinstance(m, ToolResultMessage) and m.is_error}
    for call in calls_in(turn):
        if tools.changes_files(call.name):
            return None
        if call.name == PROGRAM_TOOL and (not sees_programs or call.id in failed):
            return None
    return ClaimCheck(
        note=(
            "[Foehn] The task asks for a change, and this turn has changed no file. Make the "
            "change with a tool call (where a test fails, run_tests shows the failure and the "
            "code it runs), or answer with why it cannot be done."
        ),
        statement="[Foehn] This turn changed no file.",
        kept=own if any(copies_note(s, turn) for s in sentences(answer)) else answer,
    )


def _own_words(answer: str, turn: Sequence[Message]) -> str | None:
    """``answer`` without its sentences that copy a note of Foehn's in the ``turn``
    (``copies_note``); ``None`` when those words tell of a failure or ask the person a question
    (an answer the checks of a part left undone never send back)."""
    noted = _noted(turn)
    own = " ".join(s for s in sentences(answer) if noted.isdisjoint(_grams(s)))
    return None if tells_of_failure(own) or own.rstrip().endswith("?") else own


def copies_note(sentence: str, turn: Sequence[Message]) -> bool:
    """Whether ``sentence`` shares five words in a row with a note of Foehn's in the
    ``turn``."""
    return not _noted(turn).isdisjoint(_grams(sentence))


def _noted(turn: Sequence[Message]) -> set[tuple[str, ...]]:
    return {
        gram
        for m in turn
        if isinstance(m, UserMessage) and m.content.startswith("[Foehn]")
        for gram in _grams(m.content)
    }


def _grams(text: str, n: int = 5) -> set[tuple[str, ...]]:
    words = [w.lower() for w in _WORD.findall(text)]
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


_SAYS_WHY = re.compile(
    r"\balready\b|\bno\s+(?:change|edit)s?\s+(?:is\s+|are\s+|was\s+|were\s+)?"
    r"(?:needed|necessary|required|made)\b|\bnothing\s+(?:needs|needed|to\s+change)\b|"
    r"\bnothing\s+(?:was\s+|has\s+been\s+|is\s+)?changed\b|\bno\s+(?:file|change)s?\s+"
    r"(?:was|were|has|have)\s+(?:been\s+)?(?:made|changed)\b|\b(?:made|make)\s+no\s+change|"
    r"\b(?:did|do|has|have|had|is|was)\s*(?:not|n't)\s+(?:been\s+)?(?:change|edit|modif)\w*",
    re.IGNORECASE,
)
"""An answer that says nothing changed, or why: it was already so, no change is needed."""


_TEST_FILE = re.compile(
    r"(?:^|/)(?:tests?/|test_[^/]*$|[^/]*_test\.\w+$|[^/]*\.(?:test|spec)\.\w+$)"
)
_TEST_LINE = re.compile(
    r"(?:async\s+)?def\s+test|(?:it|test|describe)\(|assert\b|self\.assert|#\[test\]"
)
"""An added line (stripped) that writes a test."""


_ADDS = re.compile(
    r"\b(?:added|appended|inserted|created|wrote|written|implemented|introduced|defined)\b",
    re.IGNORECASE,
)
_TAKES = re.compile(
    r"\b(?:remov\w*|delet\w*|replac\w*|renam\w*|rewr\w*|chang\w*|modif\w*|updat\w*|mov\w*|"
    r"fix\w*|correct\w*|refactor\w*|convert\w*|clean\w*|adjust\w*|edit\w*|drop\w*|swap\w*|"
    r"restructur\w*|reorder\w*|reformat\w*|overwr\w*|turn\w*)\b",
    re.IGNORECASE,
)
_ADD_ASK = re.compile(r"\b(?:add|append|insert)\b", re.IGNORECASE)
_CUT = "more diff lines not shown"
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, kw_only=True)
class _Diff:
    """What the successful file changes among some messages showed of themselves."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    text: str
    """Every line of their diffs without its ``+``/``-`` mark, whitespace removed."""
    files: tuple[str, ...]
    whole: bool
    """Whether each change showed its whole diff (none was cut, moved or deleted a folder)."""
    lines: Mapping[str, tuple[str, ...]]
    """Each file's lines taken away (``-``) and added (``+``), with their marks, as written; of
    the files changed in place (not created or deleted)."""


def _diffs(messages: Sequence[Message], tools: ToolRegistry) -> _Diff:
    added: list[str] = []
    removed: list[str] = []
    text: list[str] = []
    by_file: dict[str, list[str]] = {}
    created_or_deleted: set[str] = set()
    whole = True
    for message in messages:
        if not isinstance(message, ToolResultMessage):
            continue
        if message.name == PROGRAM_TOOL:
            whole = False  # a program, even one that failed, may have changed files unseen
        if message.is_error or not tools.changes_files(message.name):
            continue
        lines = message.content.split("\n[Foehn] ", 1)[0].splitlines()[1:]  # not its notes
        tool = tools.get(message.name)
        changed: list[str] = []
        shows_diff = any(line.startswith("+++ ") for line in lines)
        if tool is None or tool.kind != "edit" or not shows_diff or _CUT in message.content:
            whole = False
        source = ""
        for line in lines:
            if line.startswith("--- "):
                source = _named(line)
            elif line.startswith("+++ "):
                target = _named(line)
                name = source if target == "/dev/null" else target
                changed = by_file.setdefault(name, [])
                if "/dev/null" in (source, target):
                    created_or_deleted.add(name)
            elif line.startswith(("+", "-")):
                (added if line.startswith("+") else removed).append(line[1:].strip())
                changed.append(line)
            if not line.startswith(("+++ ", "--- ", "@@")):
                text.append(line[1:])
    return _Diff(
        added=tuple(added),
        removed=tuple(removed),
        text="".join("".join(text).split()),
        files=tuple(by_file),
        whole=whole,
        lines={
            name: tuple(changed)
            for name, changed in by_file.items()
            if name not in created_or_deleted
        },
    )


def _named(header: str) -> str:
    """The file a diff's ``---``/``+++`` line names (``/dev/null``: none)."""
    name = header[4:].strip()
    return name[2:] if name.startswith(("a/", "b/")) else name


def _reads_of(messages: Sequence[Message], files: Sequence[str], tools: ToolRegistry) -> str:
    """What the successful reads among ``messages`` showed of ``files``, whitespace removed."""
    shown = {
        m.call_id: m.content
        for m in messages
        if isinstance(m, ToolResultMessage) and not m.is_error
    }
    texts: list[str] = []
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        for call in message.tool_calls:
            if call.id not in shown:
                continue
            reads = tools.paths_of(call.name, call.arguments).reads
            if any(same_file(path, f) for path in reads for f in files):
                texts.append(shown[call.id])
    return "".join("".join(texts).split())


def _without(answer: str, sentences: Sequence[str]) -> str:
    """``answer`` without ``sentences``, its spacing tidied where they were."""
    for sentence in sentences:
        answer = answer.replace(sentence, "")
    return re.sub(r"[ \t]{2,}", " ", re.sub(r"\n{3,}", "\n\n", answer)).strip()


def _quoted(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(f"`{item}`" for item in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def check_content_claim(
    answer: str,
    *,
    turn: Sequence[Message],
    session: Sequence[Message],
    task: str,
    tools: ToolRegistry,
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when the code ``answer`` says it wrote (``code_claims``) is in no diff
    of the ``session``'s changes nor in what it read of the files the turn changed, or when it
    says only that it added and the ``turn``'s changes also took lines away (where the ``task``
    only asks to add, the model is told to put them back). Checked only where the diffs show
    every change whole (no program ran, nothing was cut). Said again, the
    answer stands with what the check found after it, less the sentences that claim code no
    change holds."""
    if not claims_change(answer):
        return None
    diff = _diffs(turn, tools)
    if not diff.whole or not diff.files:
        return None
    # What the session's changes wrote or took away, and what the changed files already
    # held (a claim may name the function it changed, far from the lines it changed).
    everywhere = _diffs(session, tools).text + _reads_of(session, diff.files, tools)
    claimed = code_claims(answer)
    missing = list(dict.fromkeys(t for _, t in claimed if "".join(t.split()) not in everywhere))
    if missing:
        false = [s for s, t in dict.fromkeys(claimed) if t in missing]
        them = "it" if len(missing) == 1 else "them"
        return ClaimCheck(
            note=(
                f"[Foehn] Your answer says you wrote {_quoted(missing)}, but no change in this "
                f"session contains {them} (this turn changed {', '.join(diff.files)}). Never "
                "report a change that was not made: make it now with a tool, or answer again "
                "with what you actually changed."
            ),
            statement=(
                f"[Foehn] The answer said it wrote {_quoted(missing)}, but no change in this "
                f"session contains {them}; "
                f"{'that sentence is' if len(set(false)) == 1 else 'those sentences are'} "
                "left out."
            ),
            kept=_without(answer, false),
        )
    # A line comes back in another line that holds all its words: `def main():` in
    # `def main(verbose=False):` was added to, not taken away.
    kept = [set(_WORD.findall(line)) for line in diff.added]
    taken = [
        line
        for line in diff.removed
        if (words := set(_WORD.findall(line))) and not any(words <= other for other in kept)
    ]
    claim = " ".join(s for s in sentences(answer) if claims_change(s))
    if taken and _ADDS.search(claim) and not _TAKES.search(answer):
        lines = _quoted(taken)
        # Where the task only asks to add, what was taken away was not asked for.
        first = task.strip().splitlines()[0] if task.strip() else ""
        only_adds = bool(_ADD_ASK.search(first)) and not _TAKES.search(first)
        return ClaimCheck(
            note=(
                f"[Foehn] Your answer says you added, but this turn's changes also took away "
                f"these lines: {lines}. "
                + (
                    "The task asks only to add: put them back with edit_file, keeping what you "
                    "added, then answer."
                    if only_adds
                    else "If they should stay, put them back with a tool; otherwise answer "
                    "again and say what you removed."
                )
            ),
            statement=f"[Foehn] This turn's changes also took away these lines: {_quoted(taken)}.",
            kept=answer,
        )
    return None


def untested(messages: Sequence[Message], tools: ToolRegistry) -> str | None:
    """Why this turn's test runs do not back a claim that the tests pass (it ran none, its last
    test run failed, or a change came after it), or ``None``: they back it. A test run is a
    ``run_tests``, or a ``run_command`` of a test runner (``effects.runs_tests``); other
    programs show nothing of the tests."""
    last_run, changed_since, _ = _last_test_run(messages, tools)
    if last_run is None:
        return "this turn did not run them"
    if last_run.is_error:
        return f"the last test run in this turn failed ({_counted(last_run)})"
    if changed_since:
        return "the tests were not run again after the last change"
    return None


def _counted(run: ToolResultMessage) -> str:
    """What a failed test run's result says of it: its first line of counts ("1 failed, 3
    passed", without pytest's rule of ``=`` around it) if it has one, else its last line."""
    lines = [line for line in run.content.splitlines() if line.strip()]
    counts = [line for line in lines if _COUNTS.search(line)]
    said = counts[0] if counts else (lines or ["it failed"])[-1]
    return " ".join(said.strip("= ").split())[:200]


_COUNTS = re.compile(r"\b\d+ (?:failed|passed|errors?)\b")


def _last_test_run(
    messages: Sequence[Message], tools: ToolRegistry
) -> tuple[ToolResultMessage | None, bool, bool]:
    """The turn's last test run (``run_tests``, or a ``run_command`` of a test runner), whether
    a successful change came after it, and whether one came before it."""
    calls = {(call.id, call.name): call for call in calls_in(messages)}
    last_run: ToolResultMessage | None = None
    changed_since = changed_before = False
    for message in messages:
        if not isinstance(message, ToolResultMessage):
            continue
        # By id and name: a provider may give the calls of different steps one id.
        call = calls.get((message.call_id, message.name))
        if message.name == TESTS_TOOL or (call is not None and runs_tests(call)):
            last_run, changed_before = message, changed_before or changed_since
            changed_since = False
        elif tools.changes_files(message.name) and not message.is_error:
            changed_since = True
    return last_run, changed_since, changed_before


def check_unsaid_failure(
    answer: str, messages: Sequence[Message], tools: ToolRegistry
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when ``answer`` reports a change and says nothing of the failure that
    this turn's last test run, after that change, showed (seen, bench: nn-tz-get, "I changed
    that line to return 'B'." after a run that still failed). Said again, the answer stands
    with the run's result after it."""
    if not claims_change(answer) or tells_of_failure(answer):
        return None
    last_run, changed_since, changed_before = _last_test_run(messages, tools)
    if last_run is None or not last_run.is_error or changed_since or not changed_before:
        return None
    said = _counted(last_run)
    return ClaimCheck(
        note=(
            "[Foehn] Your answer says what you changed, but not that the last test run, after "
            f"your last change, failed ({said}). Fix what fails and run the tests again, or "
            "answer with what you changed and that the tests still fail."
        ),
        statement=f"[Foehn] The last test run, after this turn's last change, failed ({said}).",
        kept=answer,
    )


def _runs(
    messages: Sequence[Message], tools: ToolRegistry
) -> tuple[list[tuple[int, ToolResultMessage]], int]:
    """The turn's runs (``run_tests``, ``run_command``) with their places, and the place of its
    last successful change (-1: none)."""
    runs: list[tuple[int, ToolResultMessage]] = []
    last_change = -1
    for index, message in enumerate(messages):
        if not isinstance(message, ToolResultMessage):
            continue
        if message.name in (TESTS_TOOL, PROGRAM_TOOL):
            runs.append((index, message))
        elif tools.changes_files(message.name) and not message.is_error:
            last_change = index
    return runs, last_change


def unfixed(messages: Sequence[Message], tools: ToolRegistry) -> str | None:
    """Why the turn's runs do not show a fix (no run after its last change, or that run
    failed), or ``None``: one does."""
    runs, last_change = _runs(messages, tools)
    after = [run for index, run in runs if index > last_change]
    if not after:
        return "nothing ran after your last change"
    if after[-1].is_error:
        return f"the last {after[-1].name} after your change failed"
    return None


def slower(messages: Sequence[Message], tools: ToolRegistry) -> str | None:
    """Why the turn's runs do not show a speed-up (no ``run_tests`` before and after its last
    change, or the one after took no less time), or ``None``: they show one."""
    runs, last_change = _runs(messages, tools)
    timed = [
        (index, seconds)
        for index, run in runs
        if run.name == TESTS_TOOL and (seconds := seconds_if_passed(run)) is not None
    ]
    before = [seconds for index, seconds in timed if index < last_change]
    after = [seconds for index, seconds in timed if index > last_change]
    if last_change < 0 or not before or not after:
        return "no passing run_tests before and after your change compares their times"
    if after[-1] >= min(before):
        return f"run_tests took {after[-1]:.1f} s after your change and {min(before):.1f} s before"
    return None


def check_result_claim(
    answer: str, messages: Sequence[Message], tools: ToolRegistry
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when ``answer`` says what a run would show (the tests pass, a bug or a
    failing test is fixed, something is faster) and this turn's ``messages`` hold no run after
    its last change that shows it. Said again, the answer stands less those sentences."""
    unproven: list[tuple[str, str]] = []
    for sentence in sentences(answer):
        if claims_tests_pass(sentence) and (why := untested(messages, tools)) is not None:
            unproven.append((sentence, f"says the tests pass, but {why}"))
        elif claims_fixed(sentence) and (why := unfixed(messages, tools)) is not None:
            unproven.append((sentence, f"says it is fixed, but {why}"))
        elif claims_faster(sentence) and (why := slower(messages, tools)) is not None:
            unproven.append((sentence, f"says it is faster, but {why}"))
    if not unproven:
        return None
    listed = "; ".join(f"{s.strip()!r} {why}" for s, why in unproven)
    false = [s for s, _ in unproven]
    return ClaimCheck(
        note=(
            f"[Foehn] Your answer {listed}. Never report a result you did not see: run "
            "run_tests now (and fix what fails), or answer again without saying it."
        ),
        statement=(
            "[Foehn] No run in this turn shows "
            + ", ".join(repr(s.strip()) for s in false)
            + ("; that sentence is" if len(false) == 1 else "; those sentences are")
            + " left out. Run the tests before relying on this turn's changes."
        ),
        kept=_without(answer, false),
    )


def check_location_claim(answer: str, texts: Mapping[str, str]) -> ClaimCheck | None:
    """A ``ClaimCheck`` when ``answer`` says a definition is in a file (``claims.locations``)
    whose text (``texts``: the files of the workspace it names that exist) does not hold its
    name at all (seen, bench: mo-where, "The function celsius_to_f is defined in
    src/weatherlog/units.py." after reading that file, which defines ``c_to_f``). The answer
    stands at once with what the file defines after it: sent back, the embedded model renamed
    ``c_to_f`` to ``celsius_to_f`` to make its answer true."""
    wrong: list[str] = []
    for _, name, path in locations(answer):
        text = texts.get(path)
        if text is None or re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text):
            continue
        defined = [s.name for s in outline(path, text).symbols if s.depth == 0][:8]
        wrong.append(
            f"{path} has no {name}" + (f" (it defines: {', '.join(defined)})" if defined else "")
        )
    if not wrong:
        return None
    found = "; ".join(wrong)
    return ClaimCheck(
        note=None,
        statement=f"[Foehn] {found}.",
        kept=answer,
    )


def left_behind(answer: str, found: Sequence[references.Leftovers]) -> ClaimCheck:
    """What stands of ``answer``, sent back once already while the old names of renames still
    appeared (``found``): the answer less its sentences that say every use was changed, and
    where the old names appear after it."""
    false = [s for s in sentences(answer) if claims_every_use(s)]
    return ClaimCheck(
        note=f"[Foehn] Do not answer yet. {references.note(found)}",
        statement=references.statement(found),
        kept=_without(answer, false),
    )


_COMMENT = re.compile(r"\bcomment|\bdocstring|\btodo\b", re.IGNORECASE)


def check_comment_claim(
    answer: str,
    *,
    turn: Sequence[Message],
    task: str,
    earlier: Sequence[str],
    tools: ToolRegistry,
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when ``answer`` claims a change to a file (the files it names, else
    every file the ``turn`` changed) whose changes in the turn touched only comments and blank
    lines (``comments.only_comments``), so the code runs as before. Not where the ``task`` or
    the claim speaks of comments, nor for a file changed by earlier turns too (``earlier``).
    Said again, the answer stands less the sentences that claim the change, with what the check
    found after it."""
    if not claims_change(answer) or _COMMENT.search(task):
        return None
    diff = _diffs(turn, tools)
    if not diff.whole or not diff.files:
        return None
    named = named_files(answer)
    claimed = (
        [f for f in diff.files if any(same_file(n, f) for n in named)] if named else diff.files
    )
    quiet = [
        f
        for f in claimed
        if f in diff.lines
        and only_comments(f, diff.lines[f])
        and not any(same_file(f, e) for e in earlier)
    ]
    if not quiet or (not named and len(quiet) < len(diff.files)):
        return None
    false = [
        s
        for s in sentences(answer)
        if claims_change(s)
        and not _COMMENT.search(s)
        and (not named or any(same_file(n, f) for n in named_files(s) for f in quiet))
    ]
    if not false:
        return None
    files, them = ", ".join(quiet), "it" if len(quiet) == 1 else "them"
    return ClaimCheck(
        note=(
            f"[Foehn] Your answer says you changed {files}, but this turn's changes to {them} "
            "touched only comments: the code runs as it did. Make the change in the code with "
            "a tool, or answer with what you actually changed."
        ),
        statement=(
            f"[Foehn] This turn changed only comments in {files}: the code runs as it did; "
            f"{'the sentence' if len(false) == 1 else 'the sentences'} saying otherwise "
            f"{'is' if len(false) == 1 else 'are'} left out."
        ),
        kept=_without(answer, false),
    )


def check_whole_claim(
    answer: str, messages: Sequence[Message], tools: ToolRegistry
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when ``answer`` says it replaced or rewrote a whole file and no
    successful change of the turn wrote a file whole (``CallPaths.whole``: ``write_file``;
    ``edit_file`` changes a part; a turn that ran a program is not checked). Said again, the
    answer stands less those sentences."""
    false = [s for s in sentences(answer) if claims_whole_file(s)]
    ran = any(isinstance(m, ToolResultMessage) and m.name == PROGRAM_TOOL for m in messages)
    if not false or ran:  # a program may have rewritten a file, unseen
        return None
    ok = {m.call_id for m in messages if isinstance(m, ToolResultMessage) and not m.is_error}
    for call in calls_in(messages):
        paths = tools.paths_of(call.name, call.arguments)
        if call.id in ok and paths.changes and paths.whole:
            return None
    return ClaimCheck(
        note=(
            f"[Foehn] Your answer says {false[0].strip()!r}, but no change in this turn wrote a "
            "whole file: its changes replaced parts of files. Answer again with what you "
            "actually changed."
        ),
        statement=(
            "[Foehn] No change in this turn wrote a whole file; "
            + ("that sentence is" if len(false) == 1 else "those sentences are")
            + " left out."
        ),
        kept=_without(answer, false),
    )


def check_value_claim(
    answer: str, messages: Sequence[Message], tools: ToolRegistry
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when ``answer`` says what code returns or prints and the turn's last
    run (one that started: a denied call is none) was a ``run_command`` that failed: that run
    showed no value (a failing ``run_tests`` may: its assertions show what the code returned).
    Said again, the answer stands less those sentences."""
    runs = [run for _, run in _runs(messages, tools)[0] if ran(run)]
    if not runs or runs[-1].name != PROGRAM_TOOL or not runs[-1].is_error:
        return None
    false = [s for s in sentences(answer) if claims_value(s)]
    if not false:
        return None
    said = " ".join(runs[-1].content.split())[:300]
    return ClaimCheck(
        note=(
            f"[Foehn] Your answer says what the code returns ({false[0].strip()!r}), but your "
            f"last run_command failed and showed no value: {said} Fix the command and run it "
            "again (or read the code that computes it), then answer with what it showed."
        ),
        statement=(
            "[Foehn] The run in this turn failed, so it does not show "
            + ", ".join(repr(s.strip()) for s in false)
            + ("; that sentence is" if len(false) == 1 else "; those sentences are")
            + " left out."
        ),
        kept=_without(answer, false),
    )


def check_program_asked(
    answer: str, *, task: str, turn: Sequence[Message], tools: ToolRegistry
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when the ``task`` asks what a command prints (``program_asked``), the
    ``turn`` started no program, and ``answer`` does not tell of a failure: what it says the
    command prints was not seen. Seen (bench: sl-hundred): "What exactly does python -m
    kitty.cli 100.00 ana ben cy print?" answered at once, with no call at all: "… prints
    'Hello, ana ben cy!'". Said again, the answer stands, with what the turn did."""
    command = program_asked(task)
    if command is None or tells_of_failure(answer):
        return None
    if any(run.name == PROGRAM_TOOL for _, run in _runs(turn, tools)[0] if ran(run)):
        return None
    shown = shlex.join(command)
    return ClaimCheck(
        note=(
            f"[Foehn] The task asks what `{shown}` prints, and this turn has not run it: run "
            "it with run_command, then answer with what it showed."
        ),
        statement=f"[Foehn] This turn did not run `{shown}`; what it prints was not seen.",
        kept=answer,
    )


def changed_by_calls(
    messages: Sequence[Message], tools: ToolRegistry, written: Sequence[str] = ()
) -> list[str]:
    """The files the successful calls among ``messages`` changed: ``written`` (what the
    executor recorded from the results: all the files a ``rename_symbol`` wrote), then those
    the calls name (``Tool.paths``); what a turn changed, for a loop run without a checkpoint
    or with one that has not seen the editor's buffers yet."""
    ok = {m.call_id for m in messages if isinstance(m, ToolResultMessage) and not m.is_error}
    named: list[str] = list(dict.fromkeys(written))
    for call in calls_in(messages):
        if call.id not in ok:
            continue
        changes = tools.paths_of(call.name, call.arguments).changes
        for path in (p for change in changes for p in (change.before, change.after) if p):
            if path not in named:
                named.append(path)
    return named
