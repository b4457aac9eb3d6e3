"""Does an edit add Python code that never runs? Two shapes a small model writes when it
indents new code under the function before it (bench: mt-median): statements after that
function's ``return`` (a ``def median`` that only exists if ``mean`` never returns), and a
``test_…`` function nested in another function of a test file, which pytest never collects
(unless that function calls it).
``edit_file`` and ``write_file`` refuse such an edit, naming the line, as they refuse one that
does not parse. Only what the edit brings in counts. ``edit_file`` first moves definitions the
edit indented after a function's end out beside that function (``lifted``): that is what their
author meant, and the plan it shows for approval holds them moved."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from foehn_lsp.workspace.testfiles import is_test_file

_ENDS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_DEDENT = "A new function goes at the file's top level, not indented under the function before it."


@dataclass(frozen=True, kw_only=True)
class Unrun:
    line: int
    why: str
    fix: str
    """What to do instead, in a sentence."""


def new_unrun(path: str, before: ast.Module, after: ast.Module) -> list[Unrun]:
    """What the module ``after`` (the file ``path``) holds that never runs and ``before`` did
    not."""
    tests = is_test_file(path)
    seen = {key for key, _ in _found(before, tests)}
    return [unrun for key, unrun in _found(after, tests) if key not in seen]


def _found(tree: ast.Module, tests: bool) -> Iterator[tuple[str, Unrun]]:
    """Each piece of code in ``tree`` that never runs, with a key that is the same for the
    same code in another version of the file (its enclosing definitions and its text)."""

    def visit(node: ast.AST, where: str, in_function: bool) -> Iterator[tuple[str, Unrun]]:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            ended = next((s for s in block if isinstance(s, _ENDS)), None)
            if ended is not None and block[-1] is not ended:
                first = block[block.index(ended) + 1]
                if _yields(first):
                    continue  # a yield no one reaches makes a generator: written on purpose
                kind = type(ended).__name__.lower()
                yield (
                    f"{where}:after:{ast.dump(first)}",
                    Unrun(
                        line=first.lineno,
                        why=f"it follows the {kind} on line {ended.lineno}",
                        fix=_DEDENT
                        if isinstance(first, _DEFINITIONS)
                        else f"Put it before the {kind}, or leave it out.",
                    ),
                )
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFINITIONS):
                if (
                    tests
                    and in_function
                    and child.name.startswith("test")
                    and not _used(node, child.name)
                ):
                    yield (
                        f"{where}:test:{child.name}",
                        Unrun(
                            line=child.lineno,
                            why=f"{child.name} is defined inside {where.rsplit('.', 1)[-1]}, "
                            "and pytest collects only top-level tests and the methods of test "
                            "classes",
                            fix=_DEDENT,
                        ),
                    )
                function = not isinstance(child, ast.ClassDef)
                yield from visit(child, f"{where}.{child.name}", in_function or function)
            else:
                yield from visit(child, where, in_function)

    yield from visit(tree, "", False)


@dataclass(frozen=True, kw_only=True)
class Lifted:
    """An edit's text with the definitions it indented after a function's end put beside that
    function."""

    text: str
    moved: tuple[tuple[str, str], ...]
    """Each definition moved, and the function it was under."""


def lifted(path: str, before: str, after: str) -> Lifted | None:
    """``after`` with the definitions it adds after the ``return`` (or ``raise``) that ends a
    function of the module or of a class moved out to that function's own indentation, when
    that is all the edit adds that never runs; ``None`` when it adds none, or something else.
    A definition indented there only exists if the function never returns: its author meant
    it beside the function (seen, bench: mo-count-above, where the embedded model was refused
    seven times in a row for ``def count_above`` indented under ``spread`` and never wrote it
    at the top level)."""
    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    found = new_unrun(path, old, new)
    if not found:
        return None
    lines = after.split("\n")
    moved: list[tuple[str, str]] = []
    for function in _outer_functions(new):
        body = function.body
        ended = next((s for s in body if isinstance(s, _ENDS)), None)
        after_end = body[body.index(ended) + 1 :] if ended is not None else []
        rest = [s for s in after_end if isinstance(s, _DEFINITIONS)]
        if not rest or len(rest) != len(after_end):
            continue
        first = min([rest[0].lineno, *(d.lineno for d in rest[0].decorator_list)])
        last = rest[-1].end_lineno or rest[-1].lineno
        depth = rest[0].col_offset - function.col_offset
        span = lines[first - 1 : last]
        if any(line.strip() and not line.startswith(" " * depth) for line in span):
            return None
        lines[first - 1 : last] = [line[depth:] for line in span]
        moved += [(definition.name, function.name) for definition in rest]
    text = "\n".join(lines)
    try:
        if not moved or new_unrun(path, old, ast.parse(text)):
            return None
    except (SyntaxError, ValueError):
        return None
    return Lifted(text=text, moved=tuple(moved))


def _outer_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions of the module and the methods of its classes (at any depth of classes)."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []

    def visit(body: list[ast.stmt]) -> None:
        for statement in body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append(statement)
            elif isinstance(statement, ast.ClassDef):
                visit(statement.body)

    visit(tree.body)
    return found


def _yields(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(
        statement.value, ast.Yield | ast.YieldFrom
    )


def _used(scope: ast.AST, name: str) -> bool:
    """Whether ``scope`` reads ``name`` (a nested helper called by the test that holds it)."""
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
        for n in ast.walk(scope)
    )
