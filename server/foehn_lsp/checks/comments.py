"""Whether a file's change touched only its comments (and blank lines): the code runs as
before. Read from the diff's lines, for the languages whose line comments start with ``#`` or
``//``; a file of another kind never counts as changed only in its comments."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

_HASH = (".py", ".pyi", ".sh", ".bash", ".rb", ".toml", ".yaml", ".yml")
_SLASHES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".go", ".rs", ".java", ".kt", ".c", ".h")
_MARKS = {
    **dict.fromkeys(_HASH, "#"),
    **dict.fromkeys((*_SLASHES, ".cc", ".cpp", ".hpp", ".cs", ".swift"), "//"),
}


def only_comments(path: str, lines: Sequence[str]) -> bool:
    """Whether the diff ``lines`` (``-`` taken away, ``+`` added, their marks kept) of ``path``
    leave its code as it was: the lines taken away and those added hold the same code, in the
    same order and indentation, once comments and blank lines are set aside."""
    mark = _MARKS.get(PurePosixPath(path).suffix)
    if mark is None or not lines:
        return False
    before = [code for line in lines if line[:1] == "-" and (code := _code(line[1:], mark))]
    after = [code for line in lines if line[:1] == "+" and (code := _code(line[1:], mark))]
    return before == after


def _code(line: str, mark: str) -> str:
    """``line`` without its comment: the text before ``mark`` when no quote comes before it (a
    mark inside a string is code)."""
    at = line.find(mark)
    if at >= 0 and not any(quote in line[:at] for quote in "'\"`"):
        line = line[:at]
    return line.rstrip()
