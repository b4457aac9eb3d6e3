"""Does an edit add Python code that never runs? Two shapes a small model writes when it
indents new code under the function before it (bench: mt-median): statements after that
function's ``return`` (a ``def median`` that only exists if ``mean`` never returns), and a
``test_…`` function nested in another function of a test file, which pytest never collects
(unless that function calls it).
``edit_file`` and ``write_file`` refuse such an edit, naming the line, as they refuse one that
does not parse. Only what the edit brings in counts."""

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
