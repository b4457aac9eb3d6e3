"""Command-line usage: the parser's one-line errors, flag checks that run before anything
else, and the exit codes.

Every check names the flag (or argument) to fix and ends the process with ``EXIT_USAGE``
before a model is asked or a file is touched.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path
from typing import NoReturn

from foehn_lsp.errors import FoehnError

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_LIMIT, EXIT_CANCELLED = 0, 1, 2, 3, 130

EXIT_CODES = """\
exit codes:
  0    answered
  1    provider, configuration or runtime error
  2    usage error (a flag or argument to fix)
  3    stopped by a limit (iterations, token budget, repeated call)
  130  cancelled (Ctrl-C)
  141  stdout's reader went away (e.g. piped into head); the turn was stopped"""


class UsageError(FoehnError):
    """A flag or argument that cannot work; the message names it."""


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr and exit 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(
            f"{self.prog}: {message}{did_you_mean(message)} (see {self.prog} --help)\n"
        )
        sys.exit(EXIT_USAGE)


INVALID_CHOICE = re.compile(
    r"invalid choice: '?(?P<given>[^'\s]*)'? \(choose from (?P<choices>.*)\)"
)
"""argparse's message for a word that is none of the choices (3.11 quotes them, 3.12 not)."""


def did_you_mean(message: str) -> str:
    """``; did you mean 'run'?`` for an argparse ``invalid choice`` close to one of them."""
    found = INVALID_CHOICE.search(message)
    if found is None:
        return ""
    choices = [c.strip().strip("'") for c in found["choices"].split(",")]
    close = difflib.get_close_matches(found["given"], choices, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def positive_int(text: str) -> int:
    """An ``argparse`` type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def folder(value: str | None, flag: str = "--workspace") -> Path:
    """The existing folder ``value`` names (default: the current one), resolved."""
    path = Path(value or ".").expanduser()
    if not path.is_dir():
        what = "is a file" if path.exists() else "does not exist"
        raise UsageError(f"{flag} {value!r} {what}; give an existing folder")
    return path.resolve()


def task_text(task: str) -> str:
    """The task, refused when it is empty or only spaces."""
    if not task.strip():
        raise UsageError('the task is empty; say what to do, e.g. foehn run "list the TODOs"')
    return task


def writable_file(value: str, flag: str) -> Path:
    """A file path whose folder exists, so that writing it later cannot fail on that."""
    path = Path(value).expanduser()
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise UsageError(f"{flag} {value!r} is a folder; give a file name")
    if not parent.is_dir():
        raise UsageError(f"{flag} {value!r}: the folder {str(parent)!r} does not exist")
    return path


def base_url(value: str, flag: str = "--base-url") -> str:
    """A base URL with http:// or https:// and a host."""
    scheme, _, rest = value.partition("://")
    if not rest or scheme not in ("http", "https") or not rest.split("/")[0]:
        raise UsageError(
            f"{flag} {value!r} needs http:// or https:// and a host, e.g. "
            f"http://{value.split('://')[-1]}"
        )
    return value
