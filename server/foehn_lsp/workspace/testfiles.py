"""Which files of a workspace are tests: the names pytest collects by default (``test_*.py``,
``*_test.py``, ``conftest.py``) and the files under a ``tests``/``test`` folder. The failure
digest of ``run_tests`` reads the code under test from the other files, and the test-driven
guard keeps a turn that is to fix the code from changing these. ``NODE_ID`` is how a test is
named in pytest's reports, and ``SHORT_SUMMARY`` a line of their short summary, for every
reader of them."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

TEST_FOLDERS = frozenset({"tests", "test"})
NODE_ID = r"[^\s\[]+(?:\[.*?\])?"
"""A pytest node id in a regular expression: its file and names hold no space, but a
parametrized test's parameters, in brackets after its name, may (``test_x.py::test_y[a b]``,
seen as inflection's ``test_humanize[employee_salary-Employee salary]``). The brackets end at
the first ``]`` the rest of the pattern can follow, so the pattern must say what comes next."""


SHORT_SUMMARY = re.compile(rf"^(FAILED|ERROR) ({NODE_ID})(?: - (.*))?$", re.MULTILINE)
"""A line of pytest's short summary: its outcome, the node id and what follows ``-``."""


def is_test_file(path: str) -> bool:
    """Whether the workspace-relative ``path`` is a test file."""
    pure = PurePosixPath(path.replace("\\", "/"))
    name = pure.name
    if name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py"):
        return True
    return any(part in TEST_FOLDERS for part in pure.parts[:-1])
