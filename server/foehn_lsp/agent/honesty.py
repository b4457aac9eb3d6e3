"""No claims without effects: the loop's checks on what a model says it did, for every model.

- A change that failed (not one the person denied or plan mode refused) must be followed by a
  tool call: an answer right after it is sent back once with the failure.
- An answer that claims a change (created, fixed, updated, …) is checked against the files the
  turn really changed (the checkpoint's record): when it changed none, or none of those the
  claim names, the answer is sent back once with what actually changed; claimed again, it is
  withheld and the person reads what happened instead. The check applies when the task asks
  for a change or the turn tried one.
- An answer that says the tests pass is checked against the turn's last ``run_tests``: when
  the turn ran none, that run failed, or a change came after it, the answer is sent back (and
  withheld if it says so again) like a false claim of a change. A turn that ran programs with
  ``run_command`` and no ``run_tests`` is not checked (Foehn cannot tell a test run there).
- An answer that says what it wrote, in code (`--verbose`, a version, a name in backquotes), is
  checked against the diffs of the session's changes and what the turn read of the files it
  changed; an answer that says only that it added is checked against the lines the turn's
  changes took away. Either is sent back once; said again, the answer stands less the sentences
  that claim code no change holds, and the person reads what the check found after it (these
  checks read words, and words can be misread: they leave out a sentence, not the answer).
  They apply only where the diffs show every change whole.
- While text streams, a sentence that claims a change or passing tests (and everything after
  it) is held back until the loop has checked the answer, so a withheld claim never reaches
  the person.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from foehn_lsp.providers.messages import AssistantMessage, Message, ToolResultMessage
from foehn_lsp.risk import CHANGE_TOOLS

NOT_THE_MODELS_FAILURE = (
    "the person denied this call",
    "was not run: policy denies",
    "plan mode:",
    "investigate is read-only:",
)
"""Beginnings and pieces of failures that are no fault to act on: a denial, a refusal."""

_DONE = (
    r"changed|created|fixed|added|updated|modified|edited|wrote|written|replaced|removed|"
    r"deleted|renamed|moved|bumped|set|inserted|appended|implemented|refactored|corrected|"
    r"guarded|made|put|adjusted|converted|rewritten|rewrote|cleaned"
)
_FIRST_PERSON = re.compile(
    rf"\b(?:I|we)(?:'ve|'d| have| had)?(?:\s+(?:also|now|just|successfully|then|already|"
    rf"finally|went ahead and))?\s+(?:{_DONE})\b",
    re.IGNORECASE,
)
_PASSIVE = re.compile(
    rf"\b(?:has|have|was|were|is|are)\s+(?:now\s+)?(?:been\s+)?(?:successfully\s+)?(?:{_DONE})\b",
    re.IGNORECASE,
)
_LEADING = re.compile(
    r"(?:^|[.!?]\s+|\n\s*(?:[-*]|\d+\.)?\s*)(?:Added|Created|Fixed|Updated|Changed|Set|Renamed|"
    r"Removed|Deleted|Bumped|Replaced|Modified|Edited|Wrote|Moved|Inserted|Appended|"
    r"Implemented|Refactored)\b"
)
_ASKS = re.compile(
    r"\b(?:add|change|create|fix|edit|update|set|replace|rename|delete|remove|bump|write|"
    r"append|insert|implement|refactor|move|guard|make|put|convert|rewrite|clean)\b",
    re.IGNORECASE,
)
_QUESTION = re.compile(
    r"^\s*(?:what|which|where|when|who|whom|why|how|did|does|do|is|are|was|were|has|have|"
    r"explain|show|list|find|tell)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
_TESTS_PASS = re.compile(
    r"\btests?\b(?:[^.!?\n]|[.](?=\S)){0,60}?"
    r"\b(?:pass|passes|passed|passing|succeed|succeeds|succeeded)\b",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(?:not|no|never|cannot|still|fail\w*)\b|n't\b", re.IGNORECASE)
TESTS_TOOL = "run_tests"
PROGRAM_TOOL = "run_command"
_FILE = re.compile(
    r"(?<![\w/.-])(?:[\w-]+/)*(?:[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}|\.[A-Za-z][\w-]*)"
    r"(?![\w/])"
)
_SUFFIXES = (
    "py pyi js jsx ts tsx mjs cjs json jsonc toml yaml yml md rst txt cfg ini csv tsv html htm "
    "css scss less rs go java kt kts c h cc cpp hpp cs rb php sh bash zsh fish ps1 sql xml lock "
    "env mk gradle swift lua pl r vue svelte tf conf properties ipynb gitignore dockerignore "
    "editorconfig nvmrc"
)
KNOWN_SUFFIXES = frozenset(_SUFFIXES.split())


def failed_change(results: Sequence[ToolResultMessage]) -> ToolResultMessage | None:
    """The last failed change among a step's results that the model must act on."""
    for result in reversed(results):
        if result.is_error and result.name in CHANGE_TOOLS:
            if any(piece in result.content for piece in NOT_THE_MODELS_FAILURE):
                return None
            return result
    return None


def changed_by_calls(messages: Sequence[Message], written: Sequence[str] = ()) -> list[str]:
    """The files the turn's successful file tools changed: ``written``, those their results
    named (``data["files"]``: all the files a ``rename_symbol`` wrote), then those the calls'
    arguments named; what a turn changed, for a loop run without a checkpoint or with one that
    has not seen the editor's buffers yet."""
    ok = {m.call_id for m in messages if isinstance(m, ToolResultMessage) and not m.is_error}
    named: list[str] = list(dict.fromkeys(written))
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        for call in message.tool_calls:
            # A rename's path is where the symbol is written, which its result's files name
            # if the rename changed it.
            if call.name not in CHANGE_TOOLS - {"rename_symbol"} or call.id not in ok:
                continue
            try:
                arguments = json.loads(call.arguments)
            except json.JSONDecodeError:
                continue
            for key in ("path", "source", "destination"):
                value = arguments.get(key) if isinstance(arguments, dict) else None
                if isinstance(value, str) and value not in named:
                    named.append(value)
    return named


def act_on_failure_note(result: ToolResultMessage) -> str:
    """What the model is told when it answers right after a failed change."""
    said = " ".join(result.content.split())[:400] or "it failed"
    return (
        f"[Foehn] Your last change ({result.name}) failed and changed nothing: {said} "
        "Do not answer yet: act on what the failure says with a tool call (read the file "
        "again, fix old_text or the path). If it cannot be done, try another way; answer only "
        "once you have done it, or with what failed."
    )


def asks_for_change(task: str) -> bool:
    """Whether the person's task asks for a change (an imperative, not a question about one)."""
    first_line = task.strip().splitlines()[0] if task.strip() else ""
    return bool(_ASKS.search(first_line)) and not _QUESTION.match(first_line)


def claims_change(text: str) -> bool:
    """Whether ``text`` says a change was made."""
    return bool(_FIRST_PERSON.search(text) or _PASSIVE.search(text) or _LEADING.search(text))


def _sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+|\n+", text)


def claims_tests_pass(text: str) -> bool:
    """Whether a sentence of ``text`` says tests pass (and no word in it says they do not)."""
    return any(
        _TESTS_PASS.search(sentence) and not _NEGATED.search(sentence)
        for sentence in _sentences(text)
    )


def claims(text: str) -> bool:
    """Whether ``text`` claims something the loop checks: a change, or passing tests."""
    return claims_change(text) or claims_tests_pass(text)


def mentioned_files(text: str) -> tuple[str, ...]:
    """File names ``text`` mentions: paths, or names with the suffix of a known kind of file."""
    names: list[str] = []
    for match in _FILE.finditer(text.replace("`", " ")):
        name = match.group(0).rstrip(".")
        suffix = name.rsplit(".", 1)[-1].lower()
        if ("/" in name or suffix in KNOWN_SUFFIXES) and name not in names:
            names.append(name)
    return tuple(names)


def named_files(text: str) -> tuple[str, ...]:
    """File names the sentences of ``text`` that claim a change mention."""
    names: list[str] = []
    for sentence in _sentences(text):
        if claims_change(sentence):
            names += [n for n in mentioned_files(sentence) if n not in names]
    return tuple(names)


def _same_file(named: str, changed: str) -> bool:
    named, changed = named.removeprefix("./"), changed.removeprefix("./")
    return named == changed or changed.endswith("/" + named) or named.endswith("/" + changed)


@dataclass(frozen=True, kw_only=True)
class ClaimCheck:
    """A false claim found in an answer: what to tell the model, and, if it claims again, what
    the person reads."""

    note: str
    statement: str
    kept: str | None = None
    """What the person reads of the answer, before ``statement``, if it is not withheld: where
    the check reads words and may misread them, all of it, or all but the false sentences."""


def check_claim(
    answer: str, *, changed: Sequence[str], earlier: Sequence[str]
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when ``answer`` claims a change the turn did not make: it changed no
    file (``changed``: this turn's files), or none of the files the claim names (files changed
    by earlier turns of the session count for a claim that names them)."""
    if not claims_change(answer):
        return None
    files = named_files(answer)
    if files:
        if any(_same_file(f, c) for f in files for c in [*changed, *earlier]):
            return None
    elif changed:
        return None
    really = ", ".join(changed) if changed else "none"
    named = f" (it names {', '.join(files)})" if files else ""
    return ClaimCheck(
        note=(
            f"[Foehn] Your answer says you changed files{named}, but this turn changed "
            f"{'only: ' + really if changed else 'no file'}. Never report a change that was not "
            "made: make the change now with a tool, or answer with what you actually did and "
            "what failed."
        ),
        statement=(
            f"[Foehn] The model's answer said it had changed files{named}, but this turn "
            f"changed {'only: ' + really if changed else 'no file'}; the answer is withheld. "
            + ("Nothing was changed." if not changed else "Check those files before relying on it.")
        ),
    )


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
_VERB = re.compile(rf"\b(?:{_DONE}|introduced|defined)\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r";|\s(?:so|because|since|which|then|but|while)\b", re.IGNORECASE)
_CODE = re.compile(
    r"`(?P<quoted>[^`\n]{1,80})`|(?<![\w-])(?P<flag>--[A-Za-z][\w-]*)"
    r"|(?<![\w.])(?P<version>v?\d+(?:\.\d+)+)(?![\w.]*\w)"
    r"|\bto\s+(?P<value>\d{2,}|None|True|False|null|true|false|\"[^\"\n]{1,40}\"|'[^'\n]{1,40}')"
    r"(?![\w'\"])"
)
_ADD_ASK = re.compile(r"\b(?:add|append|insert)\b", re.IGNORECASE)
_CUT = "more diff lines not shown"
_READS = frozenset({"read_file", "read_symbol"})
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


def _diffs(messages: Sequence[Message]) -> _Diff:
    added: list[str] = []
    removed: list[str] = []
    text: list[str] = []
    files: list[str] = []
    whole = True
    for message in messages:
        if not isinstance(message, ToolResultMessage):
            continue
        if message.name == PROGRAM_TOOL:
            whole = False  # a program, even one that failed, may have changed files unseen
        if message.is_error or message.name not in CHANGE_TOOLS:
            continue
        lines = message.content.splitlines()[1:]
        if message.name not in {"edit_file", "write_file"} or _CUT in message.content:
            whole = False
        for line in lines:
            if line.startswith(("+++ ", "--- ")):
                name = line[4:].strip()
                name = name[2:] if name.startswith(("a/", "b/")) else name
                if name != "/dev/null" and name not in files:
                    files.append(name)
            elif line.startswith("+"):
                added.append(line[1:].strip())
            elif line.startswith("-"):
                removed.append(line[1:].strip())
            if not line.startswith(("+++ ", "--- ", "@@")):
                text.append(line[1:])
    return _Diff(
        added=tuple(added),
        removed=tuple(removed),
        text="".join("".join(text).split()),
        files=tuple(files),
        whole=whole,
    )


def _reads_of(messages: Sequence[Message], files: Sequence[str]) -> str:
    """What the successful reads among ``messages`` showed of ``files``, whitespace removed."""
    shown = {
        m.call_id: m.content
        for m in messages
        if isinstance(m, ToolResultMessage) and not m.is_error and m.name in _READS
    }
    texts: list[str] = []
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        for call in message.tool_calls:
            if call.id not in shown:
                continue
            try:
                path = json.loads(call.arguments or "{}").get("path")
            except (json.JSONDecodeError, AttributeError):
                continue
            if isinstance(path, str) and any(_same_file(path, f) for f in files):
                texts.append(shown[call.id])
    return "".join("".join(texts).split())


def claimed_code(answer: str) -> tuple[str, ...]:
    """What the sentences of ``answer`` that claim a change say they wrote, in so many
    characters: code in backquotes, ``--flags``, versions, and numbers, quoted strings and
    ``None``/``True``/``False`` something was set to (not file names, which ``check_claim``
    checks)."""
    return tuple(dict.fromkeys(token for _, token in _claimed_code(answer)))


def _claimed_code(answer: str) -> list[tuple[str, str]]:
    """``claimed_code``'s tokens, each with the sentence that says it."""
    found: list[tuple[str, str]] = []
    for sentence in _sentences(answer):
        if not claims_change(sentence):
            continue
        for verb in _VERB.finditer(sentence):
            clause = sentence[verb.end() : verb.end() + 100]
            clause = clause[: end.start()] if (end := _CLAUSE_END.search(clause)) else clause
            for match in _CODE.finditer(clause):
                token = next(group for group in match.groups() if group).strip()
                token = token.removesuffix("()").strip("'\"")
                if token and mentioned_files(token) != (token,):
                    found.append((sentence, token))
    return found


def _without(answer: str, sentences: Sequence[str]) -> str:
    """``answer`` without ``sentences``, its spacing tidied where they were."""
    for sentence in sentences:
        answer = answer.replace(sentence, "")
    return re.sub(r"[ \t]{2,}", " ", re.sub(r"\n{3,}", "\n\n", answer)).strip()


def _quoted(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(f"`{item}`" for item in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def check_content_claim(
    answer: str, *, turn: Sequence[Message], session: Sequence[Message], task: str
) -> ClaimCheck | None:
    """A ``ClaimCheck`` when the code ``answer`` says it wrote (``claimed_code``) is in no diff
    of the ``session``'s changes nor in what it read of the files the turn changed, or when it
    says only that it added and the ``turn``'s changes also took lines away (where the ``task``
    only asks to add, the model is told to put them back). Checked only where the diffs show
    every change whole (no program ran, nothing was cut). Said again, the
    answer stands with what the check found after it, less the sentences that claim code no
    change holds."""
    if not claims_change(answer):
        return None
    diff = _diffs(turn)
    if not diff.whole or not diff.files:
        return None
    # What the session's changes wrote or took away, and what the changed files already
    # held (a claim may name the function it changed, far from the lines it changed).
    everywhere = _diffs(session).text + _reads_of(session, diff.files)
    claimed = _claimed_code(answer)
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
    claim = " ".join(s for s in _sentences(answer) if claims_change(s))
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


def untested(messages: Sequence[Message]) -> str | None:
    """Why this turn's test runs do not back a claim that the tests pass (it ran none, its last
    ``run_tests`` failed, or a change came after it), or ``None``: they back it, or the turn
    ran programs of its own choosing (``run_command``), whose results Foehn cannot read."""
    last_run: ToolResultMessage | None = None
    changed_since = ran_programs = False
    for message in messages:
        if not isinstance(message, ToolResultMessage):
            continue
        if message.name == TESTS_TOOL:
            last_run, changed_since = message, False
        elif message.name == PROGRAM_TOOL:
            ran_programs = True
        elif message.name in CHANGE_TOOLS and not message.is_error:
            changed_since = True
    if last_run is None:
        return None if ran_programs else "this turn did not run them"
    if last_run.is_error:
        lines = [line for line in last_run.content.splitlines() if line.strip()]
        said = " ".join(lines[-1].split())[:200] if lines else "it failed"
        return f"the last run_tests in this turn failed ({said})"
    if changed_since:
        return "the tests were not run again after the last change"
    return None


def check_tests_claim(answer: str, messages: Sequence[Message]) -> ClaimCheck | None:
    """A ``ClaimCheck`` when ``answer`` says the tests pass and this turn's ``messages`` show
    otherwise (``untested``)."""
    if not claims_tests_pass(answer) or (why := untested(messages)) is None:
        return None
    return ClaimCheck(
        note=(
            f"[Foehn] Your answer says the tests pass, but {why}. Never report a result you "
            "did not see: run run_tests now and fix what fails, or answer with what fails."
        ),
        statement=(
            f"[Foehn] The model's answer said the tests pass, but {why}; the answer is "
            "withheld. Run the tests before relying on this turn's changes."
        ),
    )


class HeldText:
    """A response's text on its way to the person: sentences stream at once, except that, while
    claims are ``checked`` (the turn asks for a change or tried one), from the first sentence
    that claims a change or passing tests on, the text waits until the loop ``release``s it
    (the answer stands) or ``drop``s it (the answer goes back to the model, or is withheld)."""

    def __init__(self, send: Callable[[str], None], checked: Callable[[], bool]) -> None:
        self._send = send
        self._checked = checked
        self._pending = ""
        self._held = ""
        self.sent = ""
        """What was sent of the text since the last ``release`` or ``drop``: of the response
        being checked, the part before its first claim."""

    def feed(self, piece: str) -> None:
        self._pending += piece
        while (end := _SENTENCE_END.search(self._pending)) is not None:
            sentence, self._pending = (
                self._pending[: end.end()],
                self._pending[end.end() :],
            )
            if self._held or (claims(sentence) and self._checked()):
                self._held += sentence
            else:
                self._out(sentence)

    def _out(self, text: str) -> None:
        self.sent += text
        self._send(text)

    def release(self) -> None:
        """Send whatever waits."""
        rest = self._held + self._pending
        self._held = self._pending = ""
        if rest:
            self._out(rest)
        self.sent = ""

    def drop(self) -> None:
        """Forget the sentences that wait; the ones sent before them stay sent."""
        self._held = self._pending = self.sent = ""
