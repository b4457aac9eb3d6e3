"""What the code under test did on a test's failing line: the test run once more, read-only,
with a line tracer on the calls that line (and the lines that set what it reads) makes into the
workspace's own code, and on the calls those of the failing statement make themselves. For
``run_tests`` to show, under a failed assertion, what each such call was given, which of its
lines ran, what each line set the first time it ran, and where it returned (and what), or
raised: the return that gave the wrong value is usually next to the bug, the values say at
which step it went wrong (``string = transliterate(string)   <- string = 'Malm'`` for
``'Malmö'``: the bug is in ``transliterate``), and the arguments say which case it was.

It runs only where ``run_tests`` ran ``python -m pytest`` (the tracer needs that interpreter),
in the read-only sandbox (what it writes is thrown away, it reaches no network, so it asks
nobody, as the checks after edits do), for one node id, within ``SECONDS``; whatever goes wrong
leaves the digest without it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from foehn_lsp import ToolContext
from foehn_lsp.errors import FileReadError
from foehn_lsp.sandbox import ProgramStartError, SandboxUnavailableError, system_sandbox
from foehn_lsp.sandbox.runner import SandboxViewError

SECONDS = 30.0
"""How long the traced run may take."""
MAX_CALLS = 3
"""Calls shown at most: the failing statement's first, each with those it made, then those of
the lines before it, all from the last run of the failing lines (in a loop, the run that
failed; seen, bench: np-tz-compose, where the digest showed the first two passes of the test's
loop, which passed, and not the third)."""
MAX_LINES = 24
"""Lines shown for one call at most."""
MAX_ARGUMENTS = 4
"""Arguments shown for one call at most (the first ones; ``self`` and ``cls`` are left out)."""
MARKER = "@@foehn-trace@@"
SNAPSHOTS = 2_000
"""Line events of one call after which what each line set is no longer read (a long loop)."""

# Run as ``python -c TRACER TEST_FILE FIRST LAST NODE FOCUS`` from the workspace's root, the
# workspace first on the module path as the tests' own run had it: pytest runs the one node with
# a tracer that follows only the frames the test file's lines FIRST to LAST call directly, and
# those that the calls from line FOCUS on (the failing statement) call directly, all of them
# living under the root, outside any environment; then it prints what they did after MARKER.
TRACER = r"""
import copy, itertools, json, os, re, reprlib, sys, warnings
sys.path.insert(0, os.getcwd())  # as ``python -m pytest`` has it; the read-only sandbox does not
import pytest
test_file, node = os.path.abspath(sys.argv[1]), sys.argv[4]
first, last, focus = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[5])
root = os.getcwd() + os.sep
calls = []
def shown(value, limit=120):
    # A tuple item by item (an iterator in it shows what it yields); no object's address: it
    # differs from one run to the next, and the same value has to read the same.
    try:
        if type(value) is tuple and 0 < len(value) <= 6:
            items = [shown(item, limit) for item in value]
            text = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        else:
            text = repr(value)
            first = yields(value)
            if first is not None:
                more = ", ..." if len(first) > 10 else ""
                items = repr(first[:10])[:-1] + more + "]"
                text = "<" + type(value).__name__ + " yielding " + items + ">"
        text = re.sub(r" at 0x[0-9a-fA-F]+>", ">", text)
    except Exception as exc:
        text = "<" + type(exc).__name__ + " from repr>"
    return text if len(text) <= limit else text[:limit - 3] + "..."
def yields(value):
    # The first items of an iterator the language makes (itertools', iter(), zip, map...), read
    # from a copy: the test still gets the iterator whole. A generator cannot be copied.
    if type(value).__module__ not in ("itertools", "builtins") or not hasattr(value, "__next__"):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            copied = copy.deepcopy(value)
        return None if copied is value else list(itertools.islice(copied, 11))
    except Exception:
        return None
def arguments(frame):
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    names = [n for n in code.co_varnames[:count] if n not in ("self", "cls")]
    given = frame.f_locals
    return [[n, shown(given[n], 60)] for n in names if n in given]
brief = reprlib.Repr()
brief.maxstring, brief.maxother, brief.maxlist, brief.maxtuple = 58, 58, 8, 8
def glimpse(value):
    # A value in at most 60 characters, read in bounded time (a long list is not repr'd whole).
    try:
        text = re.sub(r" at 0x[0-9a-fA-F]+>", ">", brief.repr(value))
    except Exception as exc:
        text = "<" + type(exc).__name__ + " from repr>"
    return text if len(text) <= 60 else text[:57] + "..."
def values(frame):
    # A frame's plain local values (no modules, functions, classes or _), briefly.
    return {n: glimpse(v) for n, v in frame.f_locals.items()
            if n != "_" and not (callable(v) or type(v).__name__ == "module")}
run = {"caller": None, "at": -1}
resumable = set()  # generators' frames seen: a generator resumed is no new call
followed = {}  # id() of the running frame of a call from the failing statement: its index
def tracer(frame, event, arg):
    caller = frame.f_back
    if caller is None:
        return None
    within = followed.get(id(caller))
    from_test = caller.f_code.co_filename == test_file and first <= caller.f_lineno <= last
    if within is None and not from_test:
        return None
    name = frame.f_code.co_filename
    if name == test_file or not name.startswith(root) or "site-packages" in name:
        return None
    if within is None and id(frame) not in resumable:
        # A call from the same place as an earlier one, or from before it, is the failing
        # lines run again (a loop in the test): only their last run, the one that failed, is
        # kept.
        if run["caller"] == id(caller) and caller.f_lasti <= run["at"]:
            calls.clear()
            followed.clear()
        run["caller"], run["at"] = id(caller), caller.f_lasti
        if frame.f_code.co_flags & 0x2A0:  # a generator, coroutine or async generator
            resumable.add(id(frame))
    failing = within is not None or caller.f_lineno >= focus
    if len(calls) >= (40 if failing else 20):  # the lines before may not crowd out the failing
        return None
    call = {"file": name[len(root):], "name": frame.f_code.co_name, "args": arguments(frame),
            "lines": {}, "sets": {}, "end": None, "at": caller.f_lineno, "within": within}
    index = len(calls)
    if within is None and failing:
        followed[id(frame)] = index
    calls.append(call)
    lines = call["lines"]  # a dict: each line once, in the order it first ran, looked up fast
    sets = call["sets"]
    # What each line set, the first time it ran (read at the next event, for the first
    # SNAPSHOTS events): the value that went wrong is usually one step before the wrong return.
    state = {"line": None, "values": values(frame), "events": 0}
    def local(frame, event, arg):
        if state["events"] < SNAPSHOTS:
            state["events"] += 1
            now = values(frame)
            if state["line"] is not None and state["line"] not in sets:
                changed = [[n, v] for n, v in now.items() if state["values"].get(n) != v]
                if changed:
                    sets[state["line"]] = changed[:3]
            state["values"], state["line"] = now, frame.f_lineno if event == "line" else None
        if event == "line" and frame.f_lineno not in lines and len(lines) < 400:
            lines[frame.f_lineno] = None
        elif event == "exception":
            call["end"] = ["raised", frame.f_lineno, type(arg[1]).__name__ + ": " + shown(arg[1])]
        elif event == "return" and not (arg is None and call["end"]):
            call["end"] = ["returned", frame.f_lineno, shown(arg)]
        if event == "return" and followed.get(id(frame)) == index:
            del followed[id(frame)]  # the frame's id may be another's later
        return local
    return local
sys.settrace(tracer)
pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:cov", "-x", "--", node])
sys.settrace(None)
print()
print(MARKER + json.dumps([{**c, "lines": list(c["lines"]), "sets": list(c["sets"].items())}
                           for c in calls]))
""".replace("MARKER", repr(MARKER)).replace("SNAPSHOTS", str(SNAPSHOTS))


@dataclass(frozen=True, kw_only=True)
class Call:
    """One call the failing line made into the workspace's code."""

    file: str
    """Workspace-relative."""
    name: str
    arguments: tuple[tuple[str, str], ...]
    """Its arguments as it was given them: (name, value as ``repr`` shows it, cut at 60)."""
    lines: tuple[int, ...]
    """The lines that ran, each once, in the order they first ran."""
    sets: Mapping[int, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    """What a line set the first time it ran: (local name, new value as shown, cut at 60)."""
    end: tuple[str, int, str] | None
    """``("returned", line, value)`` or ``("raised", line, "Error: message")``."""
    at: int = 0
    """The line it was called from: of the test file, for a call the test made."""
    within: int | None = None
    """For a call another call made: that call's index among those the tracer printed."""


@dataclass(frozen=True)
class Traced:
    """What the traced run showed: the digest's lines, and where the call shown first returned
    (its file, workspace-relative, and line) when its value is the failure's
    (``shows_difference``)."""

    lines: list[str]
    returned: tuple[str, int] | None = None


def parse(output: str) -> list[Call]:
    """The calls the tracer printed after its marker, or none."""
    _, found, printed = output.rpartition(MARKER)
    if not found:
        return []
    try:
        raw = json.loads(printed.strip().splitlines()[0])
        return [
            Call(
                file=str(c["file"]),
                name=str(c["name"]),
                arguments=tuple((str(n), str(v)) for n, v in c["args"]),
                lines=tuple(int(n) for n in c["lines"]),
                sets={
                    int(n): tuple((str(name), str(v)) for name, v in changed)
                    for n, changed in c.get("sets", ())
                },
                end=(str(c["end"][0]), int(c["end"][1]), str(c["end"][2])) if c["end"] else None,
                at=int(c.get("at") or 0),
                within=None if c.get("within") is None else int(c["within"]),
            )
            for c in raw
        ]
    except (ValueError, IndexError, KeyError, TypeError):
        return []


async def trace(
    python: str,
    environment: Mapping[str, str] | None,
    node: str,
    lines: tuple[int, int],
    focus: int,
    errors: Sequence[str],
    ctx: ToolContext,
) -> Traced:
    """What the first to the last of ``lines`` of ``node``'s test file ran, the failing
    statement (from line ``focus``) first, as digest lines, or none; a call whose value is one
    side of the failed comparison in ``errors`` (the ``E`` lines) is said to have given it where
    the test expects the other side."""
    test_file = node.partition("::")[0]
    try:
        finished = await system_sandbox().run(
            [python, "-c", TRACER, test_file, str(lines[0]), str(lines[1]), node, str(focus)],
            workspace=ctx.workspace,
            cwd=ctx.workspace.root,
            policy="read-only",
            seconds=SECONDS,
            env=environment,
            keep_head=0,
            keep_tail=20_000,
        )
    except (SandboxUnavailableError, SandboxViewError, ProgramStartError):
        return Traced([])
    test = node.partition("::")[2]  # the test's name, as the ledger keys it: its file is absolute
    out: list[str] = []
    shown = _ordered(parse(finished.output), focus, errors)[:MAX_CALLS]
    for call, by in shown:
        block = await _shown(call, by, expected_of(call, errors), ctx, point=not out)
        if block and call.end is not None:
            before = ctx.files.shown.end_of(test, (call.file, call.name))
            same = before is not None and (before[0], before[2]) == (call.end[0], call.end[2])
            if same and call.name != "__init__":  # its None says nothing of the failure
                block.append(_unchanged(call.name, *call.end))
            ctx.files.shown.saw_end(test, (call.file, call.name), call.end)
        out += block
    if not out:
        return Traced([])
    which = f"line {lines[0]}" if lines[0] == lines[1] else f"lines {lines[0]}-{lines[1]}"
    out.insert(0, f"What {which} of the test ran (the test run once more, traced):")
    first = shown[0][0]
    if first.end is None or not shows_difference(errors, first):
        return Traced(out)
    return Traced(out, (first.file, first.end[1]))


def _ordered(
    calls: Sequence[Call], focus: int, errors: Sequence[str]
) -> list[tuple[Call, str | None]]:
    """The calls to show, each with the name of the call that made it (``None`` for the test's
    own): those whose value is the failure's (``shows_difference``), then the failing
    statement's (called from line ``focus`` on), each followed by those it made, then the
    others, each group in the order they ran; a call that ran no line of its own, or ran as one
    already kept did (same function, arguments, lines and end), is left out."""
    made = [(i, c) for i, c in enumerate(calls) if c.within is None]
    made.sort(key=lambda made: made[1].at < focus)  # stable: each group in the order it ran
    kept: list[tuple[Call, str | None]] = []
    for index, call in made:
        kept.append((call, None))
        kept += [(c, call.name) for c in calls if c.within == index]
    seen: set[tuple[object, ...]] = set()
    ordered: list[tuple[Call, str | None]] = []
    for call, by in kept:
        alike = (call.file, call.name, call.arguments, call.lines, call.end)
        if call.lines and alike not in seen:
            seen.add(alike)
            ordered.append((call, by))
    ordered.sort(key=lambda kept: not shows_difference(errors, kept[0]))
    return ordered


def shows_difference(errors: Sequence[str], call: Call) -> bool:
    """Whether the value ``call`` returned covers where the two sides of the failed comparison
    the first ``E`` line shows differ: ``'1:5:30'`` in ``assert 'total: 1:5:30' == 'total:
    1:05:30'``. Not when pytest cut a side short (``...``): seen (bench: em-overnight), a
    correct ``'7.50'`` was in a cut side, and the code shown first was the wrong function; not
    a value too short to tell (``None``, ``True``, ``0``)."""
    compared = _compared(errors)
    if compared is None or call.end is None or call.end[0] != "returned":
        return False
    left, right = (_unquoted(side) for side in compared)
    value = _unquoted(call.end[2])
    if "..." in left + right + value or len(value) < 3 or value in ("None", "True", "False"):
        return False
    return _covers(left, right, value) or _covers(right, left, value)


def _covers(side: str, other: str, value: str) -> bool:
    """Whether ``value`` occurs in ``side`` over all of where ``side`` differs from ``other``
    (between their common start and their common end)."""
    start = _common(side, other)
    end = len(side) - _common(side[start:][::-1], other[start:][::-1])
    at = side.find(value)
    while at >= 0:
        if at <= start and at + len(value) >= end:
            return True
        at = side.find(value, at + 1)
    return False


def _common(one: str, other: str) -> int:
    """How many characters ``one`` and ``other`` begin with alike."""
    return next(
        (i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b),
        min(len(one), len(other)),
    )


def _unquoted(shown: str) -> str:
    """A value as ``repr`` shows it, a string without its quotes."""
    if len(shown) > 1 and shown[0] == shown[-1] and shown[0] in "'\"":
        return shown[1:-1]
    return shown


_COMPARED = re.compile(r"^(?:AssertionError: )?(?:assert |\w+ differ: )?(.+?) (==|!=) (.+)$")


def _compared(errors: Sequence[str]) -> tuple[str, str] | None:
    """The two sides of the failed comparison the first ``E`` line shows (pytest's
    ``assert A == B``, unittest's ``A != B`` and ``Lists differ: A != B``), or ``None``."""
    if not errors or (found := _COMPARED.match(errors[0])) is None:
        return None
    left, right = found[1], found[3]
    if " == " in left or " != " in left or " == " in right or " != " in right:
        return None
    return left, right


def expected_of(call: Call, errors: Sequence[str]) -> str | None:
    """What the test expects in place of the value ``call`` returned, when that value is
    exactly one side of the comparison the ``E`` lines show."""
    compared = _compared(errors)
    if compared is None or call.end is None or call.end[0] != "returned":
        return None
    left, right = compared
    value = call.end[2]
    if (value == left) == (value == right):
        return None
    return right if value == left else left


async def _shown(
    call: Call, by: str | None, expected: str | None, ctx: ToolContext, *, point: bool
) -> list[str]:
    """``call``'s lines that ran, numbered as read_file numbers them, the one it returned or
    raised at marked; with the call that made it (``by``), and what the test expects instead,
    when that is known. With ``point``, the next read of its file opens where it ended."""
    try:
        path = ctx.workspace.resolve(call.file)
        text = (await ctx.files.read(path)).text.splitlines()
    except (FileReadError, OSError, ValueError):
        return []
    if point and call.end is not None:
        ctx.files.shown.point(path, call.end[1])
    how = f" and {call.end[0]} {call.end[2]} at line {call.end[1]}" if call.end else ""
    if expected is not None:
        how += f"; the test expects {expected}"
    made = f", which {by} called," if by else ""
    out = [f"{call.name}({_given(call.arguments)}) ({call.file}){made} ran these lines{how}:"]
    ran = sorted(n for n in call.lines if 0 < n <= len(text))
    for number in _kept(ran, call.end[1] if call.end else None):
        if call.end and number == call.end[1]:
            mark = f"   <- {call.end[0]} {call.end[2]}"
        elif number in call.sets:
            mark = "   <- " + ", ".join(f"{name} = {value}" for name, value in call.sets[number])
        else:
            mark = ""
        out.append(f"{number:>6}\t{text[number - 1]}{mark}")
    if len(ran) > MAX_LINES:
        out.append(f"        ({len(ran) - MAX_LINES} more lines ran)")
    return out


def _given(arguments: Sequence[tuple[str, str]]) -> str:
    """``number=-1, pad=None``: the first MAX_ARGUMENTS, then ``…`` for the rest."""
    shown = [f"{name}={value}" for name, value in arguments[:MAX_ARGUMENTS]]
    return ", ".join(shown + ["…"] * (len(arguments) > MAX_ARGUMENTS))


def _unchanged(name: str, how: str, line: int, value: str) -> str:
    """Said under a call that ended as it did in the last failing run of the same test shown
    (not under ``__init__``: said of its ``None``, it pointed at the constructor's last line,
    bench: ns-bo-multi-replace). Seen (bench: nz-inf-parameterize, nz-tz-count): the model
    changed a line before the one the value came from, ran the test again, and took the same
    failure for a new one."""
    return (
        f"{name} {how} {value} in the run before too: what changed since did not change it. "
        f"It comes from line {line}: change that line, or what it uses."
    )


def _kept(ran: Sequence[int], end: int | None) -> list[int]:
    """At most MAX_LINES of ``ran``: those around the line the call ended at, else the last
    ones."""
    if len(ran) <= MAX_LINES:
        return list(ran)
    if end is not None and end in ran:
        at = ran.index(end)
        start = max(0, min(at + 1 - MAX_LINES // 2, len(ran) - MAX_LINES))
        return list(ran[start : start + MAX_LINES])
    return list(ran[-MAX_LINES:])


def pytest_python(argv: Sequence[str]) -> str | None:
    """The interpreter of a ``python -m pytest`` command line, or ``None``."""
    if len(argv) >= 3 and list(argv[1:3]) == ["-m", "pytest"]:
        return argv[0]
    return None
