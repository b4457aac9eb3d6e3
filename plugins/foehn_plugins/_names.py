"""Does an edit make Python code use a name that is defined nowhere? A name the module binds
nowhere (no assignment, parameter, definition, import, loop or ``except`` target in any scope)
and Python does not provide raises ``NameError`` when that line runs: the embedded model wrote
``re.sub(ruule, …)`` for ``rule`` (bench: nh-inf-transliterate). ``edit_file`` and
``write_file`` refuse such an edit, naming the line and the nearest name the file has, as they
refuse one that does not parse. Only names the edit brings in count (a module that already
used such a name may get it in a way this cannot see), and a module with a ``*`` import is
left alone."""

from __future__ import annotations

import ast
import builtins
import difflib
from dataclasses import dataclass

PROVIDED = frozenset(dir(builtins)) | {
    "__annotations__",
    "__builtins__",
    "__cached__",
    "__class__",
    "__dict__",
    "__doc__",
    "__file__",
    "__loader__",
    "__module__",
    "__name__",
    "__package__",
    "__path__",
    "__qualname__",
    "__spec__",
}
"""What Python gives every module (and ``__class__`` every method) without a binding."""


@dataclass(frozen=True, kw_only=True)
class Undefined:
    name: str
    line: int
    """The first line that uses it."""
    like: str | None
    """The nearest name the module has, if one is near."""


def new_undefined(before: ast.Module, after: ast.Module) -> list[Undefined]:
    """The names the module ``after`` uses but defines nowhere, that ``before`` did not use so,
    in the order of their lines."""
    old, new = _names(before), _names(after)
    if old is None or new is None:
        return []
    old_bound, old_used = old
    bound, used = new
    missing = {
        name: line
        for name, line in used.items()
        if name not in bound
        and name not in PROVIDED
        and (name in old_bound or name not in old_used)
    }
    known = sorted(bound | PROVIDED)
    return [
        Undefined(
            name=name, line=line, like=next(iter(difflib.get_close_matches(name, known, 1)), None)
        )
        for name, line in sorted(missing.items(), key=lambda item: item[1])
    ]


def _names(tree: ast.Module) -> tuple[set[str], dict[str, int]] | None:
    """The names ``tree`` binds anywhere, and those it reads with the first line of each;
    ``None`` for a module with a ``*`` import."""
    bound: set[str] = set()
    used: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                used[node.id] = min(used.get(node.id, node.lineno), node.lineno)
            else:
                bound.add(node.id)
        elif isinstance(node, ast.alias):
            if node.name == "*":
                return None
            bound.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            bound.update(node.names)
        elif isinstance(name := getattr(node, "name", None), str):
            bound.add(name)  # a def, a class, an except, a match capture, a type parameter
        elif isinstance(rest := getattr(node, "rest", None), str):
            bound.add(rest)  # a mapping pattern's **rest
    return bound, used
