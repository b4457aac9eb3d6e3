"""Does an edit make a Python module define a name it imports? The definition and the import
hide one another, and callers that import the name from its own module still get the old one:
the embedded model "fixed" a wrong ``c_to_f`` in ``units.py`` by writing a second ``c_to_f``
into the module that imported it, so the named test passed and the bug stayed (the held-out
task ``mt-report``). ``edit_file`` and ``write_file`` refuse such an edit, naming where the name
comes from; one that also takes the name out of the import is a move, and goes ahead. They
refuse, too, an edit that makes a module define one name twice at its top level: the later
definition replaces the earlier as the module loads."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Hidden:
    name: str
    defined: int
    """The line of the new definition."""
    imported: int
    """The line of the import."""
    module: str
    """Where the import takes it from, as written (``weatherlog.units``, ``.units``)."""


def hidden_imports(before: ast.Module, after: ast.Module) -> list[Hidden]:
    """The names the module ``after`` both imports and defines at its top level where
    ``before`` did not."""
    return _brought_in(before, after, _clashes)


@dataclass(frozen=True, kw_only=True)
class Twice:
    name: str
    first: int
    second: int
    """The lines of the two definitions; the second replaces the first as the module loads."""


def redefined(before: ast.Module, after: ast.Module) -> list[Twice]:
    """The names the module ``after`` defines twice at its top level (``def``, ``class``)
    where ``before`` did not. Seen (bench: mt-report): told a second ``c_to_f`` would hide the
    imported one, the model wrote the fixed ``c_to_f`` into ``units.py`` and the wrong one
    again below it."""
    return _brought_in(before, after, _twice)


def _brought_in(
    before: ast.Module, after: ast.Module, find: Callable[[ast.Module], dict[str, T]]
) -> list[T]:
    """What ``find`` finds by name in ``after`` and not in ``before``."""
    old = find(before)
    return [found for name, found in find(after).items() if name not in old]


def _twice(tree: ast.Module) -> dict[str, Twice]:
    first: dict[str, int] = {}
    found: dict[str, Twice] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == "_" or any(_overload(d) for d in node.decorator_list):
                continue  # typing's overloads, and registered functions named _, repeat on purpose
            if node.name in first and node.name not in found:
                found[node.name] = Twice(name=node.name, first=first[node.name], second=node.lineno)
            first.setdefault(node.name, node.lineno)
    return found


def _overload(decorator: ast.expr) -> bool:
    return (isinstance(decorator, ast.Name) and decorator.id == "overload") or (
        isinstance(decorator, ast.Attribute) and decorator.attr == "overload"
    )


def _clashes(tree: ast.Module) -> dict[str, Hidden]:
    imported: dict[str, tuple[int, str]] = {}
    defined: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name != "*":
                    imported[alias.asname or alias.name] = (node.lineno, module)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.setdefault(node.name, node.lineno)
    return {
        name: Hidden(name=name, defined=line, imported=imported[name][0], module=imported[name][1])
        for name, line in defined.items()
        if name in imported
    }


def source_of(module: str, importer: Path, roots: Sequence[Path]) -> Path | None:
    """The workspace file ``module`` names, imported from ``importer``: a relative module from
    the importer's package, an absolute one from a root or its ``src`` folder."""
    dots = len(module) - len(module.lstrip("."))
    parts = module.lstrip(".").split(".") if module.lstrip(".") else []
    if dots:
        base = importer.parent
        for _ in range(dots - 1):
            base = base.parent
        bases = [base]
    else:
        bases = [folder for root in roots for folder in (root, root / "src")]
    for base in bases:
        target = base.joinpath(*parts)
        for candidate in (target.with_suffix(".py"), target / "__init__.py"):
            inside = any(candidate.is_relative_to(root) for root in roots)
            if parts and inside and candidate.is_file():
                return candidate
    return None
