"""The definitions in a source text, with their line ranges: what ``outline``, ``read_symbol``
and the workspace map are built on.

Python is read through ``ast``; JavaScript, TypeScript, Rust and Go through tree-sitter and the
tag queries their grammar packages ship (the same queries editors use for symbol navigation).
Anything else, a grammar that is not installed, or a file that does not parse, gets a plain
listing: lines that look like definitions (``def``, ``class``, ``function``, ``fn``, …, or
Markdown headings), each ending where the indentation returns. ``Outline.note`` says when the
plain listing was used and why, so nobody mistakes a guess for a parse.

Names are qualified by the classes (impls, interfaces, modules) they sit in: ``Store.restock``.
Functions nested inside functions are not listed; they are part of their function's text.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import importlib.resources
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath
from typing import Any, Literal

Parser = Literal["ast", "tree-sitter", "plain"]

LANGUAGES: dict[str, str] = {
    ".py": "Python",
    ".pyi": "Python",
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".jsx": "JavaScript",
    ".ts": "TypeScript",
    ".mts": "TypeScript",
    ".cts": "TypeScript",
    ".tsx": "TSX",
    ".rs": "Rust",
    ".go": "Go",
}
"""File suffix -> language with a real parser."""

CONTAINERS = frozenset({"class", "interface", "module", "impl", "enum", "trait"})
"""Kinds whose members are listed under them (qualified by their name)."""

MAX_SIGNATURE = 120


@dataclass(frozen=True, kw_only=True)
class Symbol:
    """One definition."""

    name: str
    """Qualified by its containers: ``Store.restock``."""
    kind: str
    """class, function, method, interface, module, … (from the parser), or heading."""
    start: int
    """First line (1-based), decorators and attributes included."""
    end: int
    """Last line (1-based, included)."""
    line: int
    """The line that names it (``def …``), shown as its signature."""
    signature: str
    depth: int
    """How many containers it sits in (0: top level)."""


@dataclass(frozen=True, kw_only=True)
class Outline:
    """The definitions of one text, in order, and how they were found."""

    language: str
    """Python, JavaScript, … or ``text``."""
    parser: Parser
    symbols: tuple[Symbol, ...]
    note: str = ""
    """Why the plain listing was used (empty when a parser read the text)."""

    def find(self, name: str) -> Symbol | None:
        """The symbol called ``name``: its qualified name (also as pytest writes it in a node
        id, ``Store::restock``), or its own name when exactly one symbol has it (``restock``
        finds ``Store.restock``)."""
        name = name.replace("::", ".")
        for symbol in self.symbols:
            if symbol.name == name:
                return symbol
        last = [s for s in self.symbols if s.name.rsplit(".", 1)[-1] == name]
        return last[0] if len(last) == 1 else None

    def enclosing(self, line: int) -> Symbol | None:
        """The innermost definition whose lines hold ``line`` (``None``: module level)."""
        holding = [s for s in self.symbols if s.start <= line <= s.end]
        return min(holding, key=lambda s: s.end - s.start, default=None)

    def nearest(self, name: str, count: int = 5) -> list[str]:
        """Names that look like ``name``, best first (for 'not found' messages)."""
        names = [s.name for s in self.symbols]
        close = difflib.get_close_matches(name, names, n=count, cutoff=0.5)
        tail = name.rsplit(".", 1)[-1].lower()
        for candidate in names:
            if len(close) >= count:
                break
            if candidate not in close and tail and tail in candidate.lower():
                close.append(candidate)
        return close


def language_of(path: str) -> str | None:
    """The language a file's name says it is in, where Foehn has a parser for it."""
    return LANGUAGES.get(PurePosixPath(path).suffix.lower())


def outline(path: str, text: str) -> Outline:
    """The definitions in ``text`` (the content of the file ``path``)."""
    language = language_of(path)
    if language == "Python":
        return _python(text)
    if language is not None:
        return _tree_sitter(language, text)
    return _plain(text, "text", markdown=PurePosixPath(path).suffix.lower() in (".md", ".rst"))


def symbol_text(text: str, symbol: Symbol) -> str:
    """The exact lines of ``symbol`` in ``text``, line endings as in the file."""
    lines = text.splitlines(keepends=True)
    return "".join(lines[symbol.start - 1 : symbol.end])


def _signature(lines: Sequence[str], number: int) -> str:
    line = lines[number - 1].strip() if 0 < number <= len(lines) else ""
    return line if len(line) <= MAX_SIGNATURE else line[: MAX_SIGNATURE - 1] + "…"


def _python(text: str) -> Outline:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        where = f" at line {line}" if line else ""
        msg = getattr(exc, "msg", str(exc))
        return _plain(
            text, "Python", note=f"does not parse as Python ({msg}{where}); a plain listing"
        )
    lines = text.splitlines()
    found: list[Symbol] = []

    def visit(body: Sequence[ast.stmt], prefix: str, depth: int, in_class: bool) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                is_class = isinstance(node, ast.ClassDef)
                kind = "class" if is_class else ("method" if in_class else "function")
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                found.append(
                    Symbol(
                        name=prefix + node.name,
                        kind=kind,
                        start=start,
                        end=node.end_lineno or node.lineno,
                        line=node.lineno,
                        signature=_signature(lines, node.lineno),
                        depth=depth,
                    )
                )
                if is_class:
                    visit(node.body, f"{prefix}{node.name}.", depth + 1, True)
            elif isinstance(node, ast.If | ast.Try):
                # Definitions under ``if TYPE_CHECKING:`` or ``try: … except ImportError:``
                # are still the module's (or the class's).
                branches = [node.body, node.orelse]
                if isinstance(node, ast.Try):
                    branches += [h.body for h in node.handlers] + [node.finalbody]
                for branch in branches:
                    visit(branch, prefix, depth, in_class)

    visit(tree.body, "", 0, False)
    return Outline(language="Python", parser="ast", symbols=tuple(found))


def nested(text: str, name: str) -> Symbol | None:
    """The Python definition called ``name`` inside a function of ``text`` (which the outline
    leaves out): by its own name when exactly one such definition has it, or qualified by the
    definitions that hold it (``thread_last.evalform_back``)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines()
    found: list[Symbol] = []

    def visit(node: ast.AST, prefix: str, inside: bool, depth: int) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                qualified = prefix + child.name
                if inside and name in (child.name, qualified):
                    start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    found.append(
                        Symbol(
                            name=qualified,
                            kind="class" if isinstance(child, ast.ClassDef) else "function",
                            start=start,
                            end=child.end_lineno or child.lineno,
                            line=child.lineno,
                            signature=_signature(lines, child.lineno),
                            depth=depth,
                        )
                    )
                is_function = not isinstance(child, ast.ClassDef)
                visit(child, f"{qualified}.", inside or is_function, depth + 1)
            else:
                visit(child, prefix, inside, depth)

    visit(tree, "", False, 0)
    return found[0] if len(found) == 1 else None


# Tags the grammars' own queries do not capture, in the same capture convention.
_EXTRA_QUERIES = {
    "TypeScript": """
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
""",
    "TSX": """
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
""",
    "Rust": "(impl_item type: (_) @name) @definition.impl",
}

_GRAMMARS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # language -> (package, function returning the grammar, packages whose tags.scm apply)
    "JavaScript": ("tree_sitter_javascript", "language", ("tree_sitter_javascript",)),
    "TypeScript": (
        "tree_sitter_typescript",
        "language_typescript",
        ("tree_sitter_javascript", "tree_sitter_typescript"),
    ),
    "TSX": (
        "tree_sitter_typescript",
        "language_tsx",
        ("tree_sitter_javascript", "tree_sitter_typescript"),
    ),
    "Rust": ("tree_sitter_rust", "language", ("tree_sitter_rust",)),
    "Go": ("tree_sitter_go", "language", ("tree_sitter_go",)),
}


@cache
def _grammar(language: str) -> tuple[Any, Any] | None:
    """The tree-sitter language and its compiled definitions query, or ``None`` when the
    grammar package is not installed."""
    package, function, tag_packages = _GRAMMARS[language]
    try:
        import tree_sitter

        grammar = tree_sitter.Language(getattr(importlib.import_module(package), function)())
        queries = []
        for tags in tag_packages:
            module = importlib.import_module(tags)
            files = importlib.resources.files(module) / "queries" / "tags.scm"
            queries.append(files.read_text("utf-8"))
    except (ImportError, OSError, AttributeError):
        return None
    source = "\n".join([*queries, _EXTRA_QUERIES.get(language, "")])
    # Keep only definition patterns: the reference patterns are not needed here, and some
    # JavaScript ones do not compile against the TypeScript grammar.
    return grammar, tree_sitter.Query(grammar, _definitions_only(source))


def _definitions_only(source: str) -> str:
    """The top-level patterns of a query file that capture a ``@definition.*``."""
    patterns: list[str] = []
    depth, current = 0, []
    for line in source.splitlines():
        stripped = line.split(";", 1)[0] if line.lstrip().startswith(";") else line
        if depth == 0 and not stripped.strip():
            continue
        current.append(stripped)
        depth += _bracket_balance(stripped)
        if depth <= 0:
            pattern = "\n".join(current)
            if "@definition." in pattern:
                patterns.append(pattern)
            current, depth = [], 0
    return "\n\n".join(patterns)


def _bracket_balance(line: str) -> int:
    balance, in_string, escaped = 0, False, False
    for char in line:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "([":
            balance += 1
        elif char in ")]":
            balance -= 1
    return balance


def _tree_sitter(language: str, text: str) -> Outline:
    loaded = _grammar(language)
    if loaded is None:
        return _plain(
            text, language, note=f"no {language} parser is installed here; a plain listing"
        )
    import tree_sitter

    grammar, query = loaded
    tree = tree_sitter.Parser(grammar).parse(text.encode("utf-8"))
    if tree.root_node.has_error:
        bad = _first_error(tree.root_node)
        where = f" near line {bad.start_point.row + 1}" if bad is not None else ""
        return _plain(text, language, note=f"does not parse as {language}{where}; a plain listing")
    spans: dict[tuple[int, int, str], str] = {}
    for _, captures in tree_sitter.QueryCursor(query).matches(tree.root_node):
        kinds = [c for c in captures if c.startswith("definition.")]
        if not kinds or "name" not in captures:
            continue
        node, name = captures[kinds[0]][0], captures["name"][0]
        label = (name.text or b"").decode("utf-8", "replace")
        key = (node.start_point.row + 1, node.end_point.row + 1, label)
        # One node may match two patterns (a Rust method is also a function): the first wins.
        spans.setdefault(key, kinds[0].removeprefix("definition."))
    lines = text.splitlines()
    ordered = sorted(spans.items(), key=lambda item: (item[0][0], -item[0][1]))
    return Outline(language=language, parser="tree-sitter", symbols=_nest(ordered, lines))


def _first_error(node: Any) -> Any:
    if node.is_error or node.is_missing:
        return node
    for child in node.children:
        if child.has_error or child.is_missing:
            found = _first_error(child)
            if found is not None:
                return found
    return None


def _nest(
    ordered: Sequence[tuple[tuple[int, int, str], str]], lines: Sequence[str]
) -> tuple[Symbol, ...]:
    """Definitions sorted by start, qualified by the containers that enclose them; anything
    inside a non-container (a function in a function) is left out."""
    stack: list[Symbol] = []
    out: list[Symbol] = []
    for (start, end, label), kind in ordered:
        while stack and stack[-1].end < start:
            stack.pop()
        if stack and stack[-1].kind not in CONTAINERS:
            continue
        prefix = ".".join(s.name.rsplit(".", 1)[-1] for s in stack)
        symbol = Symbol(
            name=f"{prefix}.{label}" if prefix else label,
            kind=kind,
            start=start,
            end=end,
            line=start,
            signature=_signature(lines, start),
            depth=len(stack),
        )
        out.append(symbol)
        stack.append(symbol)
    return tuple(out)


_DEFINITION = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?:export|default|pub(?:\([^)]*\))?|public|private|protected|"
    r"static|abstract|async|unsafe|extern|final|override)\s+)*"
    r"(?P<kind>def|class|function|fn|func|struct|enum|trait|interface|impl|module|macro_rules!)"
    r"\s+(?P<name>[A-Za-z_$][\w$]*)"
)
_HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<name>\S.*?)\s*#*\s*$")
_CLOSING = re.compile(r"^[ \t]*(?:[}\])]+[;,]?|end)\s*$")
"""A line that only closes what the definition opened (a brace, Ruby's or Lua's ``end``)."""
_KINDS = {
    "def": "function",
    "fn": "function",
    "func": "function",
    "function": "function",
    "macro_rules!": "macro",
}


def _plain(text: str, language: str, *, note: str = "", markdown: bool = False) -> Outline:
    """Lines that look like definitions, each to where its indentation returns."""
    lines = text.splitlines()
    if not note:
        note = "no parser for this kind of file; a plain listing of lines that look like " + (
            "headings" if markdown else "definitions"
        )
    if markdown:
        return Outline(language=language, parser="plain", symbols=_headings(lines), note=note)
    found: list[tuple[tuple[int, int, str], str]] = []
    for index, line in enumerate(lines):
        match = _DEFINITION.match(line)
        if match is None:
            continue
        indent = len(match["indent"].expandtabs(4))
        end = index
        for later in range(index + 1, len(lines)):
            following = lines[later]
            if not following.strip():
                continue
            if len(following) - len(following.lstrip()) <= indent:
                if _CLOSING.match(following):
                    end = later
                break
            end = later
        found.append(
            ((index + 1, end + 1, match["name"]), _KINDS.get(match["kind"], match["kind"]))
        )
    return Outline(language=language, parser="plain", symbols=_nest(found, lines), note=note)


def _headings(lines: Sequence[str]) -> tuple[Symbol, ...]:
    heads = [
        (index, len(m["level"]), m["name"])
        for index, line in enumerate(lines)
        if (m := _HEADING.match(line))
    ]
    out = []
    for position, (index, level, name) in enumerate(heads):
        end = len(lines)
        for later, later_level, _ in heads[position + 1 :]:
            if later_level <= level:
                end = later
                break
        out.append(
            Symbol(
                name=name,
                kind="heading",
                start=index + 1,
                end=end,
                line=index + 1,
                signature=_signature(lines, index + 1),
                depth=level - 1,
            )
        )
    return tuple(out)
