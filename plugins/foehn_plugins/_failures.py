"""What a developer looks at when a test fails, for ``run_tests`` to return instead of whole
files: the failing test's own code (found by its node id), the traceback's frames inside the
workspace, and the source of the functions those frames run and call, within a budget of
characters; then the run to repeat after a change.

It is read from pytest's report (the ``FAILURES``/``ERRORS`` sections and the short summary);
another test command's output gets no digest. Every definition shown whole is recorded in the
session's read ledger (``edit_file`` accepts edits inside it, as after ``read_symbol``), and
every frame's line as a point (``read_file`` of a long file in a small window opens there).
Code is shown as ``read_file`` shows it: a ``path: lines A-B of N`` line, then numbered lines
(the inside of a long docstring left out, a line saying where it is).
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import json
import keyword
import re
import subprocess
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from foehn_lsp import ToolContext
from foehn_lsp.errors import FileReadError, PathRefusedError
from foehn_lsp.workspace.listing import common_args, ripgrep
from foehn_lsp.workspace.symbols import Outline, Symbol, outline
from foehn_lsp.workspace.testfiles import SHORT_SUMMARY, is_test_file
from foehn_plugins._tracing import Traced
from foehn_plugins._window import is_small

SMALL_BUDGET = 3_000
LARGE_BUDGET = 12_000
"""Characters of code a digest shows, for a small window and otherwise."""
MAX_FAILURES_LISTED = 8
MAX_ERROR_LINES = 8
MAX_LINE = 200
SEARCH_SECONDS = 10.0

_TITLE = re.compile(r"^_{2,} (.+?) _{2,}$")
_FRAME = re.compile(r"^([^\s:=>][^:\n]*?\.py):(\d+):(?: in (\S+)| \w+|\s*$)")
_ERROR = re.compile(r"^E\s+(.*)$")
_CALL = re.compile(r"(?<![\w.])(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)\s*\(")
_IGNORED = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | {"raises", "approx", "fixture"}
_CONTAINER_METHODS = frozenset(
    name for kind in (list, dict, set, str, bytes) for name in dir(kind) if not name.startswith("_")
)
"""Methods of Python's own containers: a test's ``seen.append(x)`` calls one of these, not the
method of that name of some class in the workspace."""


@dataclass(frozen=True, kw_only=True)
class Failure:
    """One failing test (or a file that failed to collect) as pytest reported it."""

    node: str
    """Its node id (``tests/test_x.py::TestY::test_z``), or the report's title for it."""
    message: str
    """What the short summary says after the node id."""
    frames: tuple[tuple[str, int], ...]
    """The traceback's entries (path as printed, line), outermost first."""
    errors: tuple[str, ...]
    """The ``E`` lines: the exception and the assertion's comparison."""


def failures(output: str) -> list[Failure]:
    """The failures of a pytest report, in the order of its short summary."""
    lines = output.splitlines()
    summary = [(m[2], m[3] or "") for line in lines if (m := SHORT_SUMMARY.match(line))]
    sections: dict[str, tuple[list[tuple[str, int]], list[str]]] = {}
    current: tuple[list[tuple[str, int]], list[str]] | None = None
    for line in lines:
        if (title := _TITLE.match(line)) is not None:
            current = sections.setdefault(title[1], ([], []))
        elif line.startswith("="):
            current = None
        elif current is not None:
            if (frame := _FRAME.match(line)) is not None:
                entry = (frame[1], int(frame[2]))
                if entry not in current[0]:
                    current[0].append(entry)
            elif (error := _ERROR.match(line)) is not None and _telling(error[1]):
                current[1].append(error[1][:MAX_LINE])
    found: list[Failure] = []
    for node, message in summary:
        frames, errors = _section(node, sections)
        found.append(Failure(node=node, message=message, frames=frames, errors=errors))
    return found


def _telling(error: str) -> bool:
    """Whether an ``E`` line says something (not blank, not pytest's advice on verbosity)."""
    return bool(error.strip()) and not error.startswith(("Use -v", "Full diff:", "Omitting "))


def _section(
    node: str, sections: dict[str, tuple[list[tuple[str, int]], list[str]]]
) -> tuple[tuple[tuple[str, int], ...], tuple[str, ...]]:
    """The traceback pytest printed for ``node``: its section is titled with the test's name
    (``TestY.test_z``), ``ERROR at setup of …`` or ``ERROR collecting <path>``."""
    path, _, name = node.partition("::")
    wanted = name.replace("::", ".")
    for title, (frames, errors) in sections.items():
        bare = title.removeprefix("ERROR at setup of ").removeprefix("ERROR at teardown of ")
        if (wanted and bare in (wanted, wanted.rsplit(".", 1)[-1])) or title.endswith(path):
            return tuple(frames), tuple(errors)
    return (), ()


@dataclass
class _Block:
    path: Path
    shown: str
    """The workspace-relative name."""
    symbol: Symbol
    total: int
    lines: list[str]
    kind: Literal["test", "returned", "frame", "called"]
    why: str
    """Why it is shown, after its name: "which the traceback runs (line 12)"."""
    failed_at: int | None = None
    """For the failing test: the last line of the statement it failed on, when the lines after
    it are left out (a line names them)."""


class _Files:
    """The workspace's files as the digest reads them, each read and outlined once."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self._read: dict[Path, tuple[list[str], Outline] | None] = {}
        self._statements: dict[Path, ast.Module | None] = {}

    def resolve(self, printed: str) -> Path | None:
        try:
            path = self.ctx.workspace.resolve(printed)
        except (PathRefusedError, OSError, ValueError):
            return None
        return path if path.is_file() else None

    async def get(self, path: Path) -> tuple[list[str], Outline] | None:
        if path not in self._read:
            try:
                text = (await self.ctx.files.read(path)).text
            except FileReadError:
                self._read[path] = None
            else:
                self._read[path] = (text.splitlines(), outline(self.shown(path), text))
        return self._read[path]

    def shown(self, path: Path) -> str:
        return self.ctx.workspace.display(path)

    def statement(self, path: Path, line: int) -> tuple[int, int]:
        """``statement`` of a file already read, its source parsed once."""
        return statement(self._parsed(path), line)

    def sources(self, path: Path, lines: tuple[int, int]) -> tuple[int, int]:
        """``sources`` of a file already read, its source parsed once."""
        return sources(self._parsed(path), lines)

    def output_from(self, path: Path, line: int) -> int | None:
        """``output_from`` of a file already read, its source parsed once."""
        return output_from(self._parsed(path), line)

    def _parsed(self, path: Path) -> ast.Module | None:
        if path not in self._statements:
            read = self._read.get(path)
            self._statements[path] = parsed(read[0]) if read else None
        return self._statements[path]


def budget_for(window: int | None) -> int:
    """Characters of code a digest may show for a model with this context window."""
    return SMALL_BUDGET if is_small(window) else LARGE_BUDGET


Tracer = Callable[[str, tuple[int, int], int, Sequence[str]], Awaitable[Traced]]
"""Given a failing test's node id (its file as an absolute path), the first and last line of
the statements of that file that it failed on and that set what it reads (``sources``), the
first line of the one it failed on, and its ``E`` lines, what those statements ran
(``_tracing.trace``)."""


async def digest(output: str, ctx: ToolContext, tracer: Tracer | None = None) -> str | None:
    """The digest of a failing pytest run's ``output``, or ``None`` when it reports no failure
    Foehn can read. With ``tracer``, a failure in the test's own code (a failed assertion) also
    shows what its failing line ran."""
    found = failures(output)
    if not found:
        return None
    files = _Files(ctx)
    first = found[0]
    out = [f"{len(found)} failing:"]
    out += [f"  {f.node}" + (f" - {f.message}" if f.message else "") for f in found]
    del out[1 + MAX_FAILURES_LISTED :]
    if len(found) > MAX_FAILURES_LISTED:
        out.append(f"  … and {len(found) - MAX_FAILURES_LISTED} more")
    out.append(f"The first failure, {first.node}, from the test to where it failed:")
    blocks: list[_Block] = []
    for printed, line in first.frames:
        path = files.resolve(printed)
        read = await files.get(path) if path is not None else None
        if path is None or read is None:
            continue
        text, found_outline = read
        ctx.files.shown.point(path, line)
        symbol = found_outline.enclosing(line)
        where = f" in {symbol.name}" if symbol else ""
        in_test = is_test_file(files.shown(path))
        first_line, last_line = files.statement(path, line) if in_test else (line, line)
        source = " ".join(t.strip() for t in text[first_line - 1 : last_line])[:MAX_LINE]
        out.append(f"  {files.shown(path)}:{line}{where}: {source}")
        if symbol is not None:
            why = f"which the traceback runs (line {line})"
            blocks.append(_block(path, files.shown(path), symbol, text, "frame", why))
        if in_test:
            start, end = files.sources(path, (first_line, last_line))
            start = min(start, files.output_from(path, first_line) or start)
            for name in _called("\n".join(text[start - 1 : end])):
                blocks += await _definitions(files, name, files.shown(path))
    out += [f"  E {error}" for error in first.errors[:MAX_ERROR_LINES]]
    if tracer is not None and (failing := await _in_the_test(first, files)) is not None:
        traced = await tracer(*failing, first.errors)
        out += traced.lines
        if traced.returned is not None:
            blocks += await _returned(files, *traced.returned)
    test = await _test_block(files, first.node)
    if test is not None:
        test = _up_to_failure(test, first.frames, files)
    ordered = _ordered(blocks, test)
    if test is not None and all(is_test_file(block.shown) for block in ordered):
        ordered += await _called_by_test(files, test)
    ordered += _ordered(await _callees(files, ordered), None)
    out += _shown_within(ordered, ctx, budget_for(ctx.window))
    if "::" in first.node:
        paths = json.dumps([f.node for f in found[:5] if "::" in f.node])
        then = f"then run_tests with paths {paths} first."
        if any(not is_test_file(block.shown) for block in ordered):
            out.append(f"Fix the code above with edit_file, {then}")
        else:
            out.append(
                "The code the test runs is not shown: read_symbol the function the test calls, "
                f"fix it with edit_file, {then}"
            )
    return "\n".join(out)


async def _in_the_test(failure: Failure, files: _Files) -> tuple[str, tuple[int, int], int] | None:
    """The failure's node id (its file absolute), the lines of the test file's statements it
    failed on and that set what it reads, and the first line of the one it failed on, when the
    traceback ends in the test file itself (an assertion, not an error in the code)."""
    if "::" not in failure.node or not failure.frames:
        return None
    printed, line = failure.frames[-1]
    path = files.resolve(printed)
    if path is None or not is_test_file(files.shown(path)):
        return None
    if await files.get(path) is None:
        return None
    node = f"{path}::{failure.node.partition('::')[2]}"
    first, last = files.sources(path, files.statement(path, line))
    written = files.output_from(path, line)
    if written is None:
        return node, (first, last), line
    return node, (min(first, written), last), written


def parsed(text: list[str]) -> ast.Module | None:
    """``text`` (Python source, as lines) parsed, or ``None`` when it does not parse."""
    try:
        return ast.parse("\n".join(text))
    except (SyntaxError, ValueError):
        return None


def statement(tree: ast.Module | None, line: int) -> tuple[int, int]:
    """The first and last line of the innermost statement of ``tree`` (``parsed``) that starts
    on ``line``: a traceback names a statement's first line, and its calls may be on the lines
    after (``self.assertEqual(`` then ``mi.ilen(…), 11``). Just ``line`` when the source did
    not parse or no statement starts there."""
    if tree is None:
        return line, line
    ends = [
        node.end_lineno or line
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt)
        and node.lineno == line
        and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    return line, min(ends, default=line)


def sources(tree: ast.Module | None, lines: tuple[int, int]) -> tuple[int, int]:
    """A failing statement's first and last ``lines`` of ``tree`` (``parsed``), from the
    earliest of the statements before it, in its function, that last set a name it reads:
    ``t = mi.take(5, range(10))`` then ``self.assertEqual(t, [0, 1, 2, 3, 4])``. Seen (bench:
    nd-mi-take, nd-bo-research): the failing line called only the assertion, the call whose
    value failed was on a line before it, and the digest showed none of the code under test."""
    first, last = lines
    function = _function(tree, first)
    if function is None:
        return lines
    read = _reads(function, first)
    latest: dict[str, int] = {}
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Store)
            and node.id in read
            and node.lineno < first
        ):
            latest[node.id] = max(latest.get(node.id, 0), node.lineno)
    return min([first, *latest.values()]), last


def output_from(tree: ast.Module | None, line: int) -> int | None:
    """For a failing statement (its first ``line``) that reads what pytest captured
    (``capsys.readouterr()``, ``capfd``, ``caplog``): the first line of the statements of its
    test that wrote it, those after the last one that read the capture before; else ``None``.
    Seen (bench: dr-hour-total): ``main([str(playlist)])``, then ``assert
    capsys.readouterr().out.splitlines()[-1] == "total: 1:05:30"``; nothing showed the
    ``format_duration`` that printed ``1:5:30``."""
    function = _function(tree, line)
    captures = _reads(function, line) & CAPTURES if function is not None else set()
    if function is None or not captures:
        return None
    since = None
    for node in function.body:
        if node.lineno >= line:
            break
        if since is None:
            since = node.lineno
        if _reads_in(node) & captures:
            since = None
    return since


CAPTURES = frozenset({"capsys", "capfd", "capsysbinary", "capfdbinary", "caplog"})
"""pytest's fixtures that hold what the code under test printed or logged."""


def _function(tree: ast.Module | None, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function of ``tree`` that ``line`` is in."""
    if tree is None:
        return None
    functions = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return max(functions, key=lambda node: node.lineno, default=None)


def _reads(function: ast.FunctionDef | ast.AsyncFunctionDef, line: int) -> set[str]:
    """The names the statements of ``function`` that start on ``line`` read."""
    return {
        name
        for node in ast.walk(function)
        if isinstance(node, ast.stmt) and node.lineno == line
        for name in _reads_in(node)
    }


def _reads_in(node: ast.AST) -> set[str]:
    return {
        name.id
        for name in ast.walk(node)
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load)
    }


async def _callees(files: _Files, blocks: list[_Block]) -> list[_Block]:
    """The functions the code under test calls that its own file defines (one level down)."""
    found: list[_Block] = []
    for block in blocks:
        if is_test_file(block.shown):
            continue
        read = await files.get(block.path)
        if read is None:
            continue
        text, outlined = read
        for call in _CALL.finditer("\n".join(block.lines[1:])):
            symbol = _callee(outlined, block.symbol, call[0].split("(")[0].rstrip())
            if symbol is not None and not block.symbol.start <= symbol.start <= block.symbol.end:
                why = f"which {block.symbol.name} calls"
                found.append(_block(block.path, block.shown, symbol, text, "called", why))
    return found


def _callee(outlined: Outline, caller: Symbol, called: str) -> Symbol | None:
    """The definition in the caller's file that ``called`` (``helper``, ``self.helper``,
    ``x.helper``) runs, as far as its spelling says: a bare name is never a class's method
    (seen, bench: nn-mi-sliced, where ``sliced``'s ``count(1, n)``, itertools' ``count``, was
    shown as ``numeric_range.count``), ``self.`` or ``cls.`` names a method of the caller's
    own class, and another object's method is one no container of Python's has."""
    *owner, name = called.split(".")
    if name in _IGNORED:
        return None
    if not owner:
        symbol = outlined.find(name)
        return symbol if symbol is not None and symbol.depth == 0 else None
    own_class = caller.name if caller.kind == "class" else caller.name.rpartition(".")[0]
    if owner in (["self"], ["cls"]) and own_class:
        own = outlined.find(f"{own_class}.{name}")
        if own is not None:
            return own
    return None if name in _CONTAINER_METHODS else outlined.find(name)


def _called(source: str) -> list[str]:
    """The calls a test's lines make that may be of the code under test, each as written
    (``mi.run_length.encode``), the innermost first: in ``take(4, encode(x))`` what ``take``
    returns came through ``encode`` (seen, bench: np-mi-run-length, where the digest showed only
    ``take`` and the model changed it)."""
    calls: list[tuple[int, int, str]] = []
    for match in _CALL.finditer(source):
        if match[1] in _IGNORED or match[1].startswith("test"):
            continue
        depth = source.count("(", 0, match.start()) - source.count(")", 0, match.start())
        calls.append((-depth, match.start(), match[0].split("(")[0].rstrip()))
    return list(dict.fromkeys(called for _, _, called in sorted(calls)))


def _block(
    path: Path,
    shown: str,
    symbol: Symbol,
    text: list[str],
    kind: Literal["test", "returned", "frame", "called"],
    why: str,
) -> _Block:
    return _Block(
        path=path,
        shown=shown,
        symbol=symbol,
        total=len(text),
        lines=text[symbol.start - 1 : symbol.end],
        kind=kind,
        why=why,
    )


async def _test_block(files: _Files, node: str) -> _Block | None:
    """The failing test's own code, by its node id."""
    printed, _, name = node.partition("::")
    path = files.resolve(printed)
    read = await files.get(path) if path is not None and name else None
    if path is None or read is None:
        return None
    text, found = read
    symbol = found.find(re.sub(r"\[.*\]$", "", name))
    if symbol is None:
        return None
    return _block(path, files.shown(path), symbol, text, "test", "the failing test")


MAX_PLACES = 6
"""Files defining a name the test calls that are read to choose its definition."""


async def _returned(files: _Files, shown: str, line: int) -> list[_Block]:
    """The definition in ``shown`` (a workspace-relative file, not a test) that returned at
    ``line`` a value the failed assertion shows. Seen (bench: dr-hour-total): the traced run
    showed ``format_duration`` return ``'1:5:30'``, but the code shown whole, and so the fix
    written as code, was the ``main`` the test calls, and the model changed a line of it."""
    path = files.resolve(shown)
    read = await files.get(path) if path is not None and not is_test_file(shown) else None
    symbol = read[1].enclosing(line) if read is not None else None
    if path is None or read is None or symbol is None:
        return []
    why = "whose value the failed assertion shows"
    return [_block(path, files.shown(path), symbol, read[0], "returned", why)]


async def _definitions(files: _Files, called: str, test_file: str) -> list[_Block]:
    """The definition ``called`` (a call as written, ``mi.run_length.encode``) runs, outside
    the tests: a class's method the call names with its class first, then a module's function
    before a class's method of that name (seen, bench: nd-mi-prepend, where ``mi.prepend`` was
    shown as ``peekable.prepend``), then the one in a module the test file names. A name of a
    method of Python's containers is never a class's method, unless the call names its class
    (seen, bench: ni-bo-backoff-repeat, where the test's ``fives.append`` was shown as
    ``BarrelList.append``; np-mi-run-length, where ``run_length.encode`` was not shown)."""
    name = called.rsplit(".", 1)[-1]
    places = await asyncio.to_thread(_search, files.ctx, name)
    places = [p for p in places if not is_test_file(p)][:MAX_PLACES]
    test_path = files.resolve(test_file)
    test_text = "\n".join((await files.get(test_path) or ([], None))[0]) if test_path else ""
    found: list[tuple[tuple[bool, bool, bool], _Block]] = []
    for place in places:
        path = files.resolve(place)
        read = await files.get(path) if path is not None else None
        if path is None or read is None:
            continue
        named = next((s for s in read[1].symbols if f".{called}".endswith(f".{s.name}")), None)
        symbol = named if named is not None and "." in named.name else read[1].find(name)
        if symbol is None:
            continue
        if symbol is not named and "." in symbol.name and name in _CONTAINER_METHODS:
            continue
        rank = (symbol is not named, "." in symbol.name, Path(place).stem not in test_text)
        block = _block(path, files.shown(path), symbol, read[0], "called", "which the test calls")
        found.append((rank, block))
    return [min(found, key=lambda pair: pair[0])[1]] if found else []


def _search(ctx: ToolContext, name: str) -> list[str]:
    """The Python files of the workspace that define ``name`` (a ``def`` or ``class``)."""
    rg = ripgrep()
    if rg is None:
        return []
    pattern = rf"^\s*(async\s+)?(def|class)\s+{name}\b"
    args = [rg, "--files-with-matches", *common_args(ctx.workspace), "--glob", "*.py"]
    try:
        done = subprocess.run(
            [*args, "--regexp", pattern, "--", "."],
            cwd=ctx.workspace.root,
            capture_output=True,
            text=True,
            timeout=SEARCH_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return sorted(line.removeprefix("./") for line in done.stdout.splitlines() if line)


async def _called_by_test(files: _Files, test: _Block) -> list[_Block]:
    """The definitions outside the tests that the lines of ``test`` shown call, the first
    ``MAX_TEST_CALLS`` names: for a failure none of whose frames or failing statement reaches
    the code under test (seen, bench: na-bo-one-to-one: the failing line called ``ck(…)``, a
    helper defined in the test, and ``OneToOne`` was called on the lines before it)."""
    found: list[_Block] = []
    for name in _called("\n".join(test.lines))[:MAX_TEST_CALLS]:
        found += await _definitions(files, name, test.shown)
    return _ordered(found, None)


MAX_TEST_CALLS = 4
"""Names the test's own lines call that are looked up when nothing else shows the code under
test (each is a search of the workspace)."""


def _up_to_failure(test: _Block, frames: tuple[tuple[str, int], ...], files: _Files) -> _Block:
    """``test`` up to the statement it failed on (the first frame in it), when lines follow:
    a long test repeated in full at every run was most of what the model read (bench:
    nu-tz-excepts, 62 lines for a failure at the 28th)."""
    start, end = test.symbol.start, test.symbol.end
    for printed, line in frames:
        if files.resolve(printed) == test.path and start <= line <= end:
            last = files.statement(test.path, line)[1]
            if last < end:
                return replace(test, lines=test.lines[: last - start + 1], failed_at=last)
            break
    return test


def _ordered(blocks: list[_Block], test: _Block | None) -> list[_Block]:
    """The test's own code first, then the function whose return value the failed assertion
    shows (said as a frame or a called function when it is one too), then the code under test
    from the deepest frame up, then the functions the test calls; each definition once."""
    frames = [b for b in blocks if b.kind == "frame" and not is_test_file(b.shown)]
    called = [b for b in blocks if b.kind == "called"]
    why = {(b.path, b.symbol.name): b.why for b in [*reversed(called), *frames]}  # first wins
    returned = [
        replace(b, why=why.get((b.path, b.symbol.name), b.why))  # said as it was found first
        for b in blocks
        if b.kind == "returned"
    ]
    ordered: list[_Block] = []
    for block in [*([test] if test else []), *returned, *reversed(frames), *called]:
        key = (block.path, block.symbol.name)
        if key not in {(b.path, b.symbol.name) for b in ordered}:
            ordered.append(block)
    return ordered


def _shown_within(blocks: list[_Block], ctx: ToolContext, budget: int) -> list[str]:
    """The blocks that fit ``budget`` characters, numbered as read_file numbers lines, each
    recorded as read; the rest named with the call that reads them."""
    out: list[str] = []
    left = budget
    for block in blocks:
        symbol = block.symbol
        numbered = _numbered(block.lines, symbol.start)
        size = sum(len(line) + 1 for line in numbered)
        if size > left:
            out.append(
                f"Not shown: {symbol.name}, {block.why}, {block.shown} lines {symbol.start}-"
                f"{symbol.end}; read_symbol path={block.shown!r} name={symbol.name!r} shows it."
            )
            continue
        left -= size
        out.append(f"{symbol.name}, {block.why}:")
        out.append(f"{block.shown}: lines {symbol.start}-{symbol.end} of {block.total}")
        out += numbered
        if block.failed_at is None:
            ctx.files.shown.saw_symbol(block.path, symbol.name)
        else:
            out.append(
                f"        (lines {block.failed_at + 1}-{symbol.end}: after the statement it "
                "failed on)"
            )
    return out


DOCSTRING_KEPT = 3
"""Lines of a docstring shown whole; a longer one is named by its lines instead."""


def _numbered(lines: list[str], first: int) -> list[str]:
    """``lines`` numbered as read_file numbers them, from ``first``, less the inside of a long
    docstring right after the definition's header (a line says which lines it takes): the code
    is what a failure is about, and the model reads every line on a CPU."""
    out = [f"{number:>6}\t{line}" for number, line in enumerate(lines, first)]
    header = next((i for i, line in enumerate(lines) if line.rstrip().endswith(":")), None)
    if header is None or header + 1 >= len(lines):
        return out
    opening = lines[header + 1].strip().lstrip("rRuUbB")  # r"""…""" is a docstring too
    quote = opening[:3]
    if quote not in ('"""', "'''") or (len(opening) > 3 and opening.endswith(quote)):
        return out
    closing = next(
        (i for i in range(header + 2, len(lines)) if lines[i].rstrip().endswith(quote)), None
    )
    if closing is None or closing - header <= DOCSTRING_KEPT:
        return out
    start, end = first + header + 2, first + closing - 1
    return [*out[: header + 2], f"        (lines {start}-{end}: the docstring)", *out[closing:]]


LEFT_OUT = re.compile(r"(\(lines \d+-\d+: (?:the docstring|after the statement it failed on)\))")
"""The words ``_numbered`` shows on a line of their own in place of a docstring it leaves out,
and ``_shown_within`` after a failing test's statement: not the file's, wherever they are
copied (seen at the end of a docstring's first line, bench: nh-tz-partitionby)."""
