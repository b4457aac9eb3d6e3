"""Does an edit call a function of the workspace with arguments its definition does not take?
A call that gives more positional arguments than the function has parameters, a keyword it has
no parameter for, or leaves out one it needs raises ``TypeError`` when it runs: asked for a
``--kelvin`` flag, the embedded model wrote ``line(args.station, args.celsius, '--kelvin')``
for ``def line(station, celsius)`` and answered that the flag worked (bench: pa-kelvin).
``edit_file`` and ``write_file`` refuse such an edit, naming the call and the definition.

Only calls by a bare name count, to a plain function (no decorator, which may change what it
takes) defined at the top level of the module itself or of a workspace module it imports the
name from (``from weatherlog.report import line``), a name the module binds nowhere else (not
as a parameter, a variable or another definition); a call with ``*args`` or ``**kwargs`` is
not judged, and only the calls the edit brings in (a name, a count of positional arguments and
the keywords, that the module did not call so before).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from foehn_lsp.workspace.files import BufferSource
from foehn_plugins._shadowing import source_of


@dataclass(frozen=True, kw_only=True)
class Mismatch:
    """A call the edit brings in that its function's definition does not take."""

    name: str
    line: int
    why: str
    """What does not fit: ``gives 3 positional arguments; it takes 2``."""
    signature: str
    """The definition's name and parameters: ``line(station, celsius)``."""
    source: Path | None
    """The file that defines it, when it is not the module itself."""


def new_mismatches(
    before: ast.Module,
    after: ast.Module,
    path: Path,
    roots: Sequence[Path],
    buffers: BufferSource | None = None,
) -> list[Mismatch]:
    """The calls of ``after`` (the module at ``path``) that ``before`` did not make so and that
    the definitions they call do not take, in the order of their lines. A module it imports
    from is read from its open editor buffer (``buffers``), where it has one, else the disk:
    an editor applies edits to its buffers before they are saved."""
    known = {_shape(name, call) for name, call in _named_calls(before)}
    once = _bound_once(after)
    calls = [
        (name, call)
        for name, call in _named_calls(after)
        if name in once and _shape(name, call) not in known
    ]
    definitions = _definitions(after, {name for name, _ in calls}, path, roots, buffers)
    found: list[Mismatch] = []
    for name, call in calls:
        definition, source = definitions.get(name, (None, None))
        if definition is None:
            continue
        if (why := _misfit(definition.args, call)) is not None:
            signature = f"{definition.name}({ast.unparse(definition.args)})"
            found.append(
                Mismatch(name=name, line=call.lineno, why=why, signature=signature, source=source)
            )
    return sorted(found, key=lambda m: m.line)


def _bound_once(tree: ast.Module) -> set[str]:
    """The names ``tree`` binds exactly once, anywhere: a name also bound as a parameter, a
    variable or a nested definition may not be the function where it is called."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names = [node.id]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.alias):
            names = [node.asname or node.name.split(".")[0]]
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names = [node.name]
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return {name for name, count in counts.items() if count == 1}


def _named_calls(tree: ast.Module) -> list[tuple[str, ast.Call]]:
    """The calls of ``tree`` by a bare name, with that name."""
    return [
        (node.func.id, node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    ]


def _shape(name: str, call: ast.Call) -> tuple[str, int, tuple[str, ...]]:
    """What a call gives: the name, how many positional arguments, which keywords."""
    return name, len(call.args), tuple(sorted(k.arg or "**" for k in call.keywords))


Definition = tuple[ast.FunctionDef | ast.AsyncFunctionDef, Path | None]


def _definitions(
    tree: ast.Module,
    names: set[str],
    path: Path,
    roots: Sequence[Path],
    buffers: BufferSource | None,
) -> dict[str, Definition]:
    """The plain top-level functions among ``names`` that ``tree`` defines or imports by name
    from a workspace module (with the file of those it imports), by the name the module calls
    them. Only a module that one of ``names`` is imported from is read."""
    found: dict[str, Definition] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(
            (alias.asname or alias.name) in names for alias in node.names
        ):
            module = "." * node.level + (node.module or "")
            source = source_of(module, path, roots)
            if source is None:
                continue
            functions = _plain_functions(source, buffers)
            for alias in node.names:
                if alias.name in functions:
                    found[alias.asname or alias.name] = (functions[alias.name], source)
    for node in tree.body:  # the module's own definitions come last: they bind the name last
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and not node.decorator_list
            and node.name in names
        ):
            found[node.name] = (node, None)
    return found


def _plain_functions(
    source: Path, buffers: BufferSource | None
) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    try:
        text = buffers(source) if buffers is not None else None
        tree = ast.parse(source.read_text(encoding="utf-8") if text is None else text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return {}
    return {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.decorator_list
    }


def _misfit(parameters: ast.arguments, call: ast.Call) -> str | None:
    """What of ``call`` the ``parameters`` do not take, or ``None``."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    positional = [*parameters.posonlyargs, *parameters.args]
    if len(call.args) > len(positional) and parameters.vararg is None:
        plural = "s" if len(call.args) != 1 else ""
        return f"gives {len(call.args)} positional argument{plural}; it takes {len(positional)}"
    by_keyword = {a.arg for a in [*parameters.args, *parameters.kwonlyargs]}
    for keyword in call.keywords:
        if keyword.arg not in by_keyword and parameters.kwarg is None:
            return f"gives the keyword {keyword.arg}, which it has no parameter for"
    given = {k.arg for k in call.keywords}
    needed = positional[: len(positional) - len(parameters.defaults)]
    missing = [a.arg for a in needed[len(call.args) :] if a.arg not in given]
    missing += [
        a.arg
        for a, default in zip(parameters.kwonlyargs, parameters.kw_defaults, strict=True)
        if default is None and a.arg not in given
    ]
    if missing:
        return f"leaves out {', '.join(missing)}, which it needs"
    return None
