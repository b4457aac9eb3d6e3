"""What an edit's new Python code is refused for, beside its syntax (``_syntax``): a name
defined nowhere (``_names``), a call its function does not take (``_calls``), code that never
runs (``_unrun``), a definition that hides a name the module imports, or one name defined twice
(``_shadowing``). ``edit_file`` and ``write_file`` ask ``code_refusal`` before they plan a
change, which parses both texts once for all five; each refusal says what was found, where,
and what to do instead. Only what the edit brings in counts."""

from __future__ import annotations

import ast
import sys
from pathlib import Path, PurePosixPath

from foehn_lsp import ToolContext
from foehn_plugins._calls import Mismatch, new_mismatches
from foehn_plugins._names import Undefined, new_undefined
from foehn_plugins._shadowing import Hidden, Twice, hidden_imports, redefined, source_of
from foehn_plugins._unrun import Unrun, new_unrun


def code_refusal(name: str, before: str, after: str, path: Path, ctx: ToolContext) -> str | None:
    """Why changing ``name`` (at ``path``) from ``before`` to ``after`` is refused, or ``None``
    (also for a file that is not Python, or a text that does not parse)."""
    if (trees := parsed(name, before, after)) is None:
        return None
    old, new = trees
    stub = PurePosixPath(name).suffix == ".pyi"  # names and code that runs mean nothing there
    if not stub and (undefined := new_undefined(old, new)):
        return _undefined(name, undefined, _first_import(old, before))
    roots, buffers = ctx.workspace.roots, ctx.files.buffers
    if not stub and (mismatched := new_mismatches(old, new, path, roots, buffers)):
        return _mismatched(name, mismatched[0], ctx)
    if not stub and (unrun := new_unrun(name, old, new)):
        return _never_runs(name, unrun)
    if hidden := hidden_imports(old, new):
        return _hiding(name, hidden[0], path, ctx)
    if twice := redefined(old, new):
        return _twice(name, twice[0])
    return None


def parsed(name: str, before: str, after: str) -> tuple[ast.Module, ast.Module] | None:
    """Both texts of the Python file ``name``, parsed once for every check; ``None`` when it is
    not Python or either does not parse."""
    if PurePosixPath(name).suffix not in (".py", ".pyi"):
        return None
    try:
        return ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return None


def _undefined(name: str, found: list[Undefined], first_import: str | None) -> str:
    uses = "; ".join(
        f"{u.name} (line {u.line}{f'; did you mean {u.like}?' if u.like else ''})"
        for u in found[:3]
    )
    said = (
        f"no change was made to {name}: the edit uses names defined nowhere in {name} and not "
        f"among Python's builtins, which would raise NameError when they run: {uses}. Use "
        "names the file has, or define or import them in the same edit."
    )
    modules = [u.name for u in found[:3] if u.name in sys.stdlib_module_names]
    if not modules:
        return said
    imports = "\n".join(f"import {module}" for module in modules)
    them = "it" if len(modules) == 1 else "them"
    said += f" {', '.join(modules)}: Python's standard library; import {them} "
    if first_import is None:
        return said + f"at the top of the file ({imports!r}) in the same edit."
    both = f"{first_import}\n{imports}"
    return said + (
        f"in the same edit, with one more block: old_text {first_import!r}, new_text {both!r}."
    )


def _first_import(tree: ast.Module, text: str) -> str | None:
    """The line of the module's first top-level import of one line, as the file has it."""
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom) and node.end_lineno == node.lineno:
            return text.splitlines()[node.lineno - 1]
    return None


def _mismatched(name: str, found: Mismatch, ctx: ToolContext) -> str:
    where = "" if found.source is None else f" in {ctx.workspace.display(found.source)}"
    return (
        f"no change was made to {name}: the call of {found.name} on line {found.line} "
        f"{found.why}: it is defined{where} as {found.signature}, and the call would raise "
        f"TypeError when it runs. Call {found.name} as it is defined; if it is to take more, "
        "change its definition first."
    )


def _never_runs(name: str, found: list[Unrun]) -> str:
    where = "; ".join(f"line {u.line}: {u.why}" for u in found[:3])
    return (
        f"no change was made to {name}: the edit adds code that never runs ({where}). "
        + found[0].fix
    )


def _twice(name: str, twice: Twice) -> str:
    return (
        f"no change was made to {name}: the edit defines {twice.name} twice at the top level "
        f"(lines {twice.first} and {twice.second}), and the later one replaces the earlier as "
        f"the module loads. Change the {twice.name} that is there instead of adding another."
    )


def _hiding(name: str, hidden: Hidden, path: Path, ctx: ToolContext) -> str:
    what, module = hidden.name, hidden.module
    source = source_of(module, path, ctx.workspace.roots)
    where = (
        f"in {ctx.workspace.display(source)}, where it is defined"
        if source is not None
        else f"where {module} defines it (search finds it)"
    )
    return (
        f"no change was made to {name}: the edit defines {what} (line {hidden.defined}), which "
        f"{name} imports from {module} (line {hidden.imported}). The new definition would hide "
        f"the imported one, and code that imports {what} from {module} would still get the old "
        f"one. Change {what} {where}; if {name} is to have its own {what}, take {what} out of "
        "the import in the same edit."
    )
