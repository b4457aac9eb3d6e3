"""What an answer claims, read from its words: which clauses say a change was made (and which
files they name: "I changed a.py and b.py" names both, "… so that tests/test_a.py passes" not
the test), which sentences say the tests pass, a bug is fixed or something is faster (results
a run must show), and which code they name (``checks/honesty.py`` checks them against what the
turn did); and ``HeldText``, which holds such sentences back while they stream, until the loop
has checked them.

These read English words and can misread them: a claim they miss is not checked, and the checks
built on them leave out a sentence rather than an answer where a word may be misread. A clause
that denies (not, no, never, could not …) claims nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

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
_WHERE = re.compile(
    r"\b(?:is|are)\s+(?:implemented|set|written|made|put|defined|declared)\s+"
    r"(?:in|at|inside|within)\b",
    re.IGNORECASE,
)
"""Where something is, in the present passive ("merge_with is implemented in dicttoolz.py"):
a place, not a change."""
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
_NOT_AN_END = r"(?<!\b[A-Z])(?<!\be\.g)(?<!\bi\.e)"
"""A point after an initial ("Donald E. Knuth") or in "e.g." / "i.e." ends no sentence."""
_SENTENCE_END = re.compile(rf"{_NOT_AN_END}[.!?](?=\s)|\n")
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
    """Whether the person's task asks for a change: a verb of change in its first line, not in
    a question (one that starts with a question word, or a sentence that ends with "?" and
    does not ask for something: "Can you fix that?" does) and not negated ("please don't
    change any files"; seen, bench: th-shopping, a question that began "If one recipe has …"
    and ended so, sent back for changing no file)."""
    first_line = task.strip().splitlines()[0] if task.strip() else ""
    if _QUESTION.match(first_line):
        return False
    return any(
        not _NOT_BEFORE.search(sentence[: verb.start()])
        for sentence in sentences(first_line)
        if not sentence.rstrip().endswith("?") or _REQUEST.search(sentence)
        for verb in _ASKS.finditer(sentence)
    )


_REQUEST = re.compile(r"\b(?:(?:can|could|would|will)\s+you|please)\b", re.IGNORECASE)
"""A question that asks for something ("Can you fix that?")."""


def asks_for_test(task: str) -> bool:
    """Whether the person's task asks for a new test ("… and a test for it", "with a test",
    "write tests for …"); not one that names tests to pass or to change."""
    return bool(_ASKS_TEST.search(task))


_ASKS_TEST = re.compile(
    r"\b(?:add|write|create)\s+(?:(?:a|an|one|new|unit|regression|some)\s+){0,2}tests?\b"
    r"|\b(?:with|and|plus)\s+(?:a|an|its|their|one)\s+(?:(?:new|unit|regression)\s+)?tests?\b"
    r"|\b(?:a|one)\s+(?:new\s+)?test\s+for\b",
    re.IGNORECASE,
)


def files_asked(task: str) -> tuple[str, ...]:
    """The files the person's ``task`` asks to change: those named after a verb that asks for
    a change in them ("add a line to CHANGELOG.md", "bump the version in pyproject.toml and
    in src/x/__init__.py"), up to the end of that part of the sentence; not after a negation
    ("do not change tests/test_x.py"), not what a program is to do ("make the script write
    the report to report.csv": the part ends where that begins) and not a failing test it
    names."""
    names: list[str] = []
    for sentence in sentences(task):
        verbs = list(_ASKS_IN.finditer(sentence))
        programs = [m.start() for v in verbs if (m := _DONE_BY.search(sentence[: v.start()]))]
        for verb in verbs:
            before = sentence[: verb.start()]
            if _NOT_BEFORE.search(before) or _DONE_BY.search(before):
                continue
            end = min([p for p in programs if p > verb.end()], default=len(sentence))
            part = _PART_END.split(sentence[verb.end() : end], maxsplit=1)[0]
            names += [n for n in mentioned_files(part) if n not in names]
    return tuple(n for n in names if not re.search(rf"{re.escape(n)}\S*\s+{_CONDITION}", task))


_ASKS_IN = re.compile(
    r"\b(?:add|append|write|insert|put|note|mention|record|update|bump|change|set|edit|"
    r"document)\b",
    re.IGNORECASE,
)
_NOT_BEFORE = re.compile(
    r"(?:\b(?:not|never|without|no\s+need\s+to)|n't)\s+(?:\w+\s+)?$", re.IGNORECASE
)
"""Before a verb, words that negate it ("do not change", "please don't", "no need to")."""
_DONE_BY = re.compile(
    r"(?:\b(?:it|that|which|who|will|shall|should)|\b(?:make|makes|let|lets)\s+(?!sure\b)"
    r"(?:\w+\s+){1,3})\s*$",
    re.IGNORECASE,
)
"""Before the verb, words that make a program its subject ("make the script write …", "a
flag that will write …"), not the person asking for the change."""
_PART_END = re.compile(r"[;:]|,?\s+(?:and\s+)?(?:then|so|but|because|since|while)\b")
_CONDITION = r"(?:must|should|has to|needs to|fails|passes|is failing|still)\b"
"""After a file it names, words that make it a condition, not a file to change
("tests/test_a.py must pass")."""


def definitions_asked(task: str) -> tuple[str, ...]:
    """The functions, methods and classes the person's ``task`` asks to add, by name ("add a
    function moving_average(readings, size) to …", "write a class Cache")."""
    found = [m for pattern in (_DEFINE, _DEFINE_CALLED) for m in pattern.finditer(task)]
    return tuple(dict.fromkeys(m.group("name") for m in sorted(found, key=lambda m: m.start())))


_DEFINE = re.compile(
    r"\b(?:add|write|create|implement|define)\s+(?:(?:a|an|the|new|small|helper)\s+){0,3}"
    r"(?:function|method|class|helper)\s+(?:(?:called|named)\s+)?`?"
    r"(?P<name>(?!(?:to|that|which|for|in|on|with|the|a|an|and|or|so)\b)[A-Za-z_]\w*)",
    re.IGNORECASE,
)
_DEFINE_CALLED = re.compile(
    r"\b(?:add|write|create|implement|define)\s+(?:(?:a|an|the|new)\s+)?`?"
    r"(?P<name>[A-Za-z_]\w*)\([^()]*\)`?\s+(?:function|method)\b",
    re.IGNORECASE,
)
"""The name written as its call before the word: "add a `downsample(readings, step)` function"."""


def claims_change(text: str) -> bool:
    """Whether ``text`` says a change was made, or what the code now does."""
    return any(kind == "change" for sentence in sentences(text) for kind, _ in clauses(sentence))


ClauseKind = Literal["change", "other", "bare"]

_JOIN = re.compile(
    r"(;|,|:|\s(?:and then|and|but|so that|so|because|since|which|that|while|whereas|where|"
    r"when|after|before|then|as|if|unless|until|although|though|"
    r"to(?=\s+(?:match|make|reflect|keep|mirror|fit|pass)\b))\b)\s*",
    re.IGNORECASE,
)
_COORDINATING = frozenset({";", ",", ":", "and", "and then", "then"})
_NOT = re.compile(r"\b(?:not|no|never|nothing|cannot|unable)\b|n't\b", re.IGNORECASE)
_OTHER_VERB = re.compile(
    r"\b(?:read|ran|run|runs|found|finds|saw|see|sees|looked|checked|searched|opened|calls?|"
    r"called|imports?|imported|uses?|used|pass(?:es|ed)?|fail(?:s|ed)?|shows?|showed|is|are|"
    r"was|were|has|have|had|contains?|defines?|holds?|expects?|says?|mentions?|returns?|"
    r"covers?|matches|still|stays|remains?|keeps?)\b",
    re.IGNORECASE,
)


def clauses(sentence: str) -> list[tuple[ClauseKind, str]]:
    """``sentence`` cut into clauses (at ``;``, commas, ``and``, ``but``, ``so that``, ``because``,
    ``which`` …), each marked: ``change`` if it says a change was made (and does not deny it),
    ``other`` if it says something else with a verb of its own or follows ``so``, ``because``,
    ``which``…, and otherwise what the clause it continues says ("I changed a.py and b.py": b.py
    was changed too; "so that tests/test_a.py passes": the test file was not)."""
    parts = _JOIN.split(sentence)
    found: list[tuple[ClauseKind, str]] = []
    joins: list[str] = [","]
    for index, part in enumerate(parts):
        if index % 2:
            joins.append(part.strip().lower())
            continue
        text = part.strip()
        if not text:
            joins.pop()
            continue
        found.append((_kind(text, joins[-1]), text))
    return _carried(found)


_CONTINUED = re.compile(rf"^(?:also\s+|then\s+|now\s+)?(?:{_DONE})\b", re.IGNORECASE)
"""A clause that goes on with the subject before it: "I read a.py and changed b.py"."""


def _kind(clause: str, join: str) -> ClauseKind:
    passive = _PASSIVE.search(clause) and not _WHERE.search(clause)
    said = bool(_FIRST_PERSON.search(clause) or passive or _LEADING.search(clause))
    said = said or (join in _COORDINATING and bool(_CONTINUED.search(clause)))
    if said and not _NOT.search(clause):
        return "change"
    if not said and _NOW.search(clause) and not _NEGATED.search(clause):
        return "change"
    if said or _OTHER_VERB.search(clause) or _NOT.search(clause) or join not in _COORDINATING:
        return "other"
    return "bare"


def _carried(found: list[tuple[ClauseKind, str]]) -> list[tuple[ClauseKind, str]]:
    """Bare clauses take the kind of the clause before them (the first ones, of the first
    clause after them that has a kind)."""
    out: list[tuple[ClauseKind, str]] = []
    for kind, text in found:
        if kind == "bare" and out:
            kind = out[-1][0]
        out.append((kind, text))
    following: ClauseKind = "other"
    for index in range(len(out) - 1, -1, -1):
        kind, text = out[index]
        if kind == "bare":
            out[index] = (following, text)
        else:
            following = kind
    return out


_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])(?<!\b[A-Z][.!?])(?<!\be\.g\.)(?<!\bi\.e\.)\s+|\n+")


def sentences(text: str) -> list[str]:
    """``text`` cut after each ``.``, ``!`` or ``?`` followed by space (not the point of an
    initial, "e.g." or "i.e."), and at line ends."""
    return _SENTENCE_SPLIT.split(text)


def claims_tests_pass(text: str) -> bool:
    """Whether a sentence of ``text`` says tests pass (and no word in it says they do not)."""
    return any(
        _TESTS_PASS.search(sentence) and not _NEGATED.search(sentence)
        for sentence in sentences(text)
    )


_PROBLEM = (
    r"(?:bugs?|errors?|exceptions?|failures?|failing\s+\w+|crash(?:es)?|issues?|tests?|\w+Error)"
)
_FIXED = re.compile(
    r"\b(?:fix(?:ed|es)|resolv(?:ed|es)|solv(?:ed|es)|repaired)\b(?:[^.!?\n]){0,60}?"
    rf"\b{_PROBLEM}\b"
    rf"|\b{_PROBLEM}\b(?:[^.!?\n]){{0,40}}?\b(?:is|are|has\s+been|have\s+been|was|were)\s+"
    r"(?:now\s+)?(?:fixed|resolved|gone)\b|\bnow\s+works\b|\bworks\s+now\b",
    re.IGNORECASE,
)
_TO_BE_FIXED = re.compile(
    r"\b(?:to|should|must|can|could|will|would|might|may)\s+(?:still\s+)?be\s+"
    r"(?:fixed|resolved|solved|repaired)\b",
    re.IGNORECASE,
)
"""Work still to be done ("needs to be fixed", "should be fixed"): not a result."""
_FASTER = re.compile(
    r"\b(?:faster|quicker|speed(?:s|ed)?\s+up|sped\s+up|more\s+quickly|less\s+time)\b",
    re.IGNORECASE,
)


def claims_fixed(sentence: str) -> bool:
    """Whether ``sentence`` says a bug, an error or a failing test is fixed (a result: a run
    must show it), and does not deny it or say it is still to be done."""
    return bool(_FIXED.search(sentence)) and not (
        _NOT.search(sentence) or _TO_BE_FIXED.search(sentence)
    )


def claims_faster(sentence: str) -> bool:
    """Whether ``sentence`` says something is faster now (a run must show it)."""
    return bool(_FASTER.search(sentence)) and not _NOT.search(sentence)


_ADDS_TEST = re.compile(r"\b(?:add(?:ed|s)?|wr(?:ote|itten|ite)|creat(?:ed|e))\b", re.IGNORECASE)
_A_TEST = re.compile(
    r"\b(?:(?:a|an|its|their|the|new|one|two|three|some|\d+)\s+(?:new\s+|unit\s+|regression\s+)?"
    r"tests?|test_\w+)\b",
    re.IGNORECASE,
)
_RUN_WORD = re.compile(r"\b(?:pass\w*|fail\w*|run\w*|ran|succeed\w*)\b", re.IGNORECASE)


def claims_test_added(sentence: str) -> bool:
    """Whether ``sentence`` says a test was added or written: a verb that adds, then a test
    (``its test``, ``a new test``, ``test_lowest``) with no word of a run between them, that
    the rest of its clause does not say passes or fails, and no denial. Seen (bench:
    pa-lowest): "I made the change to src/weatherlog/stats.py to add the function
    lowest(values) and its test for it.", where no change added one."""
    verb = _ADDS_TEST.search(sentence)
    if verb is None or _NOT.search(sentence):
        return False
    for test in _A_TEST.finditer(sentence, verb.end()):
        if _RUN_WORD.search(sentence, verb.end(), test.start()):
            continue  # "added a check and ran the tests"
        rest = sentence[test.end() :]
        clause = rest[: end.start()] if (end := re.search(r"[.;,]|\band\b", rest)) else rest
        if not _RUN_WORD.search(clause):
            return True
    return False


_EVERY_USE = re.compile(
    r"\b(?:every|all|each)\b(?:\s+\w+){0,2}?\s+(?:calls?|uses?|usages?|references?|places?|"
    r"occurrences?)\b|\beverywhere\b",
    re.IGNORECASE,
)


def claims_every_use(sentence: str) -> bool:
    """Whether ``sentence`` says every use (call, reference) of something was changed."""
    return claims_change(sentence) and bool(_EVERY_USE.search(sentence))


_WHOLE = re.compile(
    r"\b(?:whole|entire|full|complete)\s+(?:\w+\s+)?(?:file|files|contents?|module)\b|"
    r"\ball\s+of\s+(?:the\s+)?(?:file|module)\b",
    re.IGNORECASE,
)


def claims_whole_file(sentence: str) -> bool:
    """Whether a clause of ``sentence`` says a whole file was replaced or rewritten."""
    return any(kind == "change" and _WHOLE.search(text) for kind, text in clauses(sentence))


_VALUE = re.compile(r"\b(?:returns|prints|outputs|evaluates\s+to)\b", re.IGNORECASE)
"""Words of prose that say what code gives ("it returns …"), not code (``return 2``)."""


def claims_value(sentence: str) -> bool:
    """Whether ``sentence`` says what code returns or prints (and no change or denial)."""
    return (
        bool(_VALUE.search(sentence))
        and not _NEGATED.search(sentence)
        and not claims_change(sentence)
    )


def admits_failure(text: str) -> bool:
    """Whether ``text`` says something could not be done: an honest answer, never sent back."""
    return bool(_ADMITS.search(text))


_ADMITS = re.compile(
    r"\b(?:could\s+not|couldn't|cannot|can't|unable|wasn't\s+able|was\s+not\s+able|"
    r"did\s+not\s+manage|not\s+possible|impossible|gave\s+up)\b",
    re.IGNORECASE,
)


def tells_of_failure(text: str) -> bool:
    """Whether ``text`` says that something failed or could not be done ("the test still
    fails", "an error remains", "it does not pass yet")."""
    return admits_failure(text) or bool(_FAILURE.search(text))


_FAILURE = re.compile(
    r"\b(?:fail\w*|still|errors?|not\s+(?:yet\s+)?pass\w*|doesn't\s+pass|don't\s+pass|"
    r"broken|unsuccessful\w*)\b",
    re.IGNORECASE,
)


def locations(text: str) -> list[tuple[str, str, str]]:
    """Where ``text`` says a definition is: for each sentence that names one file and says a
    function, class or method is defined (implemented, declared, located) there, the sentence,
    the name and the file. A name is one given after "function", "class" or "method", in
    backquotes, or followed by ``()``."""
    found: list[tuple[str, str, str]] = []
    for sentence in sentences(text):
        files = mentioned_files(sentence)
        if len(files) != 1 or not _LOCATED.search(sentence):
            continue
        parts = set(re.split(r"[/.]", files[0]))
        for match in _DEFINITION_NAME.finditer(sentence):
            name = next(group for group in match.groups() if group).rsplit(".", 1)[-1]
            if name.lower() in _NOT_NAMES or name in parts:
                continue
            if (sentence, name, files[0]) not in found:
                found.append((sentence, name, files[0]))
    return found


_LOCATED = re.compile(r"\b(?:defined|implemented|declared|located|lives)\b", re.IGNORECASE)
_DEFINITION_NAME = re.compile(
    r"\b(?:function|class|method)\s+(?:named\s+|called\s+)?`?([A-Za-z_]\w*)"
    r"|`([A-Za-z_][\w.]*)(?:\(\))?`|\b([A-Za-z_]\w*)\(\)",
    re.IGNORECASE,
)
# fmt: off
_NOT_NAMES = frozenset({
    "is", "was", "that", "which", "in", "of", "the", "a", "an", "it", "its", "has", "and", "to",
    "for", "with", "are", "be", "you", "i", "we", "this", "there", "here",
})
# fmt: on


def claims(text: str) -> bool:
    """Whether ``text`` claims something the loop checks: a change, passing tests, a fix or a
    speed-up."""
    return (
        claims_change(text)
        or claims_tests_pass(text)
        or any(claims_fixed(s) or claims_faster(s) for s in sentences(text))
    )


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
    """The files ``text`` says were changed: those its clauses that claim a change name."""
    return tuple(dict.fromkeys(n for _, names in files_by_sentence(text) for n in names))


def files_by_sentence(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each sentence of ``text`` with the files it says were changed: those its clauses that
    claim a change name, or, where the sentence names no file and points back (``there``,
    ``that line``), those the sentence before it names. Seen (bench: pa-release): "… is still
    given in 1 place in CHANGELOG.md: src/weatherlog/__init__.py:3: … I fixed that line to
    2.1.1 there too (edit_file).", where the turn changed neither file."""
    found: list[tuple[str, tuple[str, ...]]] = []
    before: tuple[str, ...] = ()
    for sentence in sentences(text):
        names: list[str] = []
        mentioned = mentioned_files(sentence)
        back = before if not mentioned and _BACK.search(sentence) else ()
        for kind, clause in clauses(sentence):
            if kind == "change":
                names += [n for n in mentioned_files(clause) or back if n not in names]
        found.append((sentence, tuple(names)))
        before = mentioned
    return found


_BACK = re.compile(
    r"\b(?:there|that (?:line|file|place|one)|those (?:lines|files|places)|in (?:it|them))\b",
    re.IGNORECASE,
)
"""Words of a sentence that point back at what the sentence before it named."""


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
    """A response's text on its way to the person: sentences stream at once, except that, from
    the first sentence the loop says is ``checked`` on (one that claims a change or passing
    tests, where the turn asks for a change or tried one), the text waits until the loop
    ``release``s it (the answer stands) or ``drop``s it (the answer goes back to the model, or
    is withheld)."""

    def __init__(self, send: Callable[[str], None], checked: Callable[[str], bool]) -> None:
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
            if self._held or self._checked(sentence):
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
