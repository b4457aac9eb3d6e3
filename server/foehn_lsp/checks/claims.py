"""What an answer claims, read from its words: which sentences say a change was made or the
tests pass, and which files and which code they name (``agent/honesty.py`` checks them against
what the turn did); and ``HeldText``, which holds such sentences back while they stream, until
the loop has checked them.

These read English words and can misread them: a claim they miss is not checked, and the checks
built on them leave out a sentence rather than an answer where a word may be misread.
"""

from __future__ import annotations

import re
from collections.abc import Callable

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
_NOW_DOES = r"\b(?:is|are)\s+now\b|\bnow\s+(?!(?:this|its|his|as|us|yes)\b)[a-z]+s\b"
"""What the code now does ("now returns", "is now printed"): a claim that it was changed so,
unless the sentence says it fails or does not."""
_NOW = re.compile(_NOW_DOES, re.IGNORECASE)
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
_VERB = re.compile(rf"\b(?:{_DONE}|introduced|defined)\b|{_NOW_DOES}", re.IGNORECASE)
_CLAUSE_END = re.compile(r";|\s(?:so|because|since|which|then|but|while)\b", re.IGNORECASE)
_CODE = re.compile(
    r"`(?P<quoted>[^`\n]{1,80})`|(?<![\w-])(?P<flag>--[A-Za-z][\w-]*)"
    r"|(?<![\w.])(?P<version>v?\d+(?:\.\d+)+)(?![\w.]*\w)"
    r"|\bto\s+(?P<value>\d{2,}|None|True|False|null|true|false|\"[^\"\n]{1,40}\"|'[^'\n]{1,40}')"
    r"(?![\w'\"])"
)


def asks_for_change(task: str) -> bool:
    """Whether the person's task asks for a change (an imperative, not a question about one)."""
    first_line = task.strip().splitlines()[0] if task.strip() else ""
    return bool(_ASKS.search(first_line)) and not _QUESTION.match(first_line)


def claims_change(text: str) -> bool:
    """Whether ``text`` says a change was made, or what the code now does."""
    if _FIRST_PERSON.search(text) or _PASSIVE.search(text) or _LEADING.search(text):
        return True
    return any(_NOW.search(s) and not _NEGATED.search(s) for s in sentences(text))


def sentences(text: str) -> list[str]:
    """``text`` cut after each ``.``, ``!`` or ``?`` followed by space, and at line ends."""
    return re.split(r"(?<=[.!?])\s+|\n+", text)


def claims_tests_pass(text: str) -> bool:
    """Whether a sentence of ``text`` says tests pass (and no word in it says they do not)."""
    return any(
        _TESTS_PASS.search(sentence) and not _NEGATED.search(sentence)
        for sentence in sentences(text)
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
    for sentence in sentences(text):
        if claims_change(sentence):
            names += [n for n in mentioned_files(sentence) if n not in names]
    return tuple(names)


def same_file(named: str, changed: str) -> bool:
    named, changed = named.removeprefix("./"), changed.removeprefix("./")
    return named == changed or changed.endswith("/" + named) or named.endswith("/" + changed)


def code_claims(answer: str) -> list[tuple[str, str]]:
    """What the sentences of ``answer`` that claim a change say they wrote, in so many
    characters, each with the sentence that says it: code in backquotes, ``--flags``, versions,
    and numbers, quoted strings and ``None``/``True``/``False`` something was set to (not file
    names, which ``honesty.check_claim`` checks)."""
    found: list[tuple[str, str]] = []
    for sentence in sentences(answer):
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
