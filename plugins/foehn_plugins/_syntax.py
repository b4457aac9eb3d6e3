"""Does a text still parse? For the file kinds whose parser is cheap and already here: Python
(``ast``), JSON, TOML, and YAML when PyYAML is installed. The edit tools refuse a change that
turns a file that parsed into one that does not, naming the line, and change nothing."""

from __future__ import annotations

import ast
import importlib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any


@dataclass(frozen=True, kw_only=True)
class SyntaxProblem:
    kind: str
    """What the file should be: Python, JSON, TOML, YAML."""
    line: int | None
    message: str

    def describe(self, text: str) -> str:
        """'line 3: invalid syntax', with that line of ``text`` shown."""
        if self.line is None:
            return self.message
        lines = text.splitlines()
        shown = lines[self.line - 1] if 0 < self.line <= len(lines) else ""
        return f"line {self.line}: {self.message}\n{self.line:>6}\t{shown}"


_AT_LINE = re.compile(r"\s*\(at line (\d+), column \d+\)")


def _yaml() -> Any:
    try:
        return importlib.import_module("yaml")
    except ImportError:
        return None


def kind_of(name: str) -> str | None:
    """The kind of file whose syntax Foehn checks, from its name, or ``None``."""
    suffix = PurePosixPath(name).suffix.lower()
    if suffix in (".py", ".pyi"):
        return "Python"
    if suffix == ".json":
        return "JSON"
    if suffix == ".toml":
        return "TOML"
    if suffix in (".yaml", ".yml") and _yaml() is not None:
        return "YAML"
    return None


def problem(name: str, text: str) -> SyntaxProblem | None:
    """Why ``text`` (the content of ``name``) does not parse, or ``None``: it parses, or Foehn
    has no cheap parser for that kind of file."""
    kind = kind_of(name)
    try:
        if kind == "Python":
            ast.parse(text)
        elif kind == "JSON":
            json.loads(text)
        elif kind == "TOML":
            tomllib.loads(text)
        elif kind == "YAML":
            yaml = _yaml()
            try:
                for _ in yaml.safe_load_all(text):
                    pass
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                line = mark.line + 1 if mark is not None else None
                return SyntaxProblem(
                    kind=kind, line=line, message=str(getattr(exc, "problem", None) or exc)
                )
    except SyntaxError as exc:
        return SyntaxProblem(kind="Python", line=exc.lineno, message=exc.msg)
    except ValueError as exc:  # an ast NUL byte, a JSONDecodeError, a TOMLDecodeError
        line = getattr(exc, "lineno", None)
        message = getattr(exc, "msg", None) or str(exc)
        if line is None and (at := _AT_LINE.search(message)):  # tomllib before 3.14
            line, message = int(at[1]), message[: at.start()].rstrip()
        return SyntaxProblem(kind=kind or "text", line=line, message=message)
    return None


def breaks(name: str, before: str, after: str) -> SyntaxProblem | None:
    """The problem ``after`` has, when ``before`` parsed and ``after`` does not; ``None`` when
    the change keeps it parsing, or the file did not parse before (the model may be fixing
    it), or there is no parser for it."""
    found = problem(name, after)
    if found is None or problem(name, before) is not None:
        return None
    return found
