"""Adding and removing ``[[rules]]`` tables in the user's ``config.toml``, atomically and without
touching the rest of the file: its other settings, tables and comments stay as they were.

A change is made under a lock on the config folder, checked (the new text must parse, with the
rules it had plus or minus the one), written to a temporary file beside it and moved over the
old one, so a reader sees the old file or the new one and never half of either.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from foehn_lsp.errors import ConfigError
from foehn_lsp.policy.rules.ruleset import Rule, RuleSet, parse_rules
from foehn_lsp.policy.rules.tables import array_tables, where

_COMMENT_OR_BLANK = re.compile(r"^\s*(#.*)?$")


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` (two Foehn processes saving at once take turns)."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def _read(file: Path) -> str:
    try:
        return file.read_text("utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {file}: {exc}") from None


def _write(file: Path, text: str) -> None:
    mode = file.stat().st_mode & 0o777 if file.exists() else 0o600
    handle, temporary = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, file)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _checked(text: str, file: Path) -> list[Rule]:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{file} would not parse after the change ({exc}); nothing was written"
        ) from None
    return parse_rules(text, str(file))[0]


def append_rule(file: Path, rule: Rule, *, note: str | None = None) -> Rule:
    """Add ``rule`` at the end of ``file`` (created if need be) and return it with its
    ``FILE:LINE``. ``note`` becomes a comment on the table's header line."""
    file.parent.mkdir(parents=True, exist_ok=True)
    with _locked(file.parent):
        text = _read(file)
        if text:
            try:
                tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(
                    f"{file} does not parse ({exc}); fix it before adding rules"
                ) from None
        before = len(parse_rules(text, str(file))[0])
        table = rule.toml()
        if note:
            table = table.replace("[[rules]]", f"[[rules]]  # {_one_line(note)}", 1)
        separator = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        new_text = text + separator + table
        rules = _checked(new_text, file)
        if len(rules) != before + 1:
            raise ConfigError(f"the rule would not read back from {file}; nothing was written")
        _write(file, new_text)
    line = array_tables(new_text, "rules")[-1].line
    return replace(rule, source=where(str(file), line), workspace=False)


def remove_rule(file: Path, number: int) -> str:
    """Remove the ``number``-th ``[[rules]]`` table of ``file`` (1-based, in file order) and
    return its text. Comments and blank lines after its last key are left for what follows."""
    with _locked(file.parent):
        text = _read(file)
        tables = array_tables(text, "rules")
        if not 1 <= number <= len(tables):
            count = len(tables)
            raise ConfigError(
                f"{file} has {count} rule{'s' if count != 1 else ''}; there is no rule {number}"
            )
        lines = text.splitlines(keepends=True)
        table = tables[number - 1]
        last = table.end
        while last > table.line and _COMMENT_OR_BLANK.match(lines[last - 1]):
            last -= 1
        removed = "".join(lines[table.line - 1 : last])
        new_text = "".join(lines[: table.line - 1] + lines[last:])
        rules_before = len(parse_rules(text, str(file))[0])
        rules_after = _checked(new_text, file)
        if (
            len(array_tables(new_text, "rules")) != len(tables) - 1
            or len(rules_after) > rules_before
        ):
            raise ConfigError(f"removing rule {number} would change more of {file}; nothing done")
        _write(file, new_text)
    return removed


def _one_line(text: str) -> str:
    return " ".join(text.split())


def listed(ruleset: RuleSet, user_file: Path) -> list[dict[str, Any]]:
    """Each rule as JSON, with its origin and, for the user file's, its number there (the
    position of its table, which ``foehn rules remove`` takes)."""
    try:
        text = user_file.read_text("utf-8")
    except OSError:
        text = ""
    numbers = {
        where(str(user_file), table.line): number
        for number, table in enumerate(array_tables(text, "rules"), start=1)
    }
    return [
        {
            **rule.json(),
            "number": None if rule.workspace else numbers.get(rule.source),
            "origin": "workspace" if rule.workspace else "user",
        }
        for rule in ruleset.rules
    ]
