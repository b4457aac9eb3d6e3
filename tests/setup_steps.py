"""The set-up steps ``scripts/test`` runs beside the tests: a test that needs one waits for it.

``scripts/test`` starts the tests once the Python set-up and its quality gates are done; the
extension's gates and package (``extension``), the real editors' install (``e2e``: chromium,
Emacs, Node 24, code-server, whose native modules take minutes to build on a fresh machine) and
the embedded model's first run (``model``) may still be going on. Each step writes
``$FOEHN_TEST_SETUP/NAME.status`` (its exit status) when it ends. ``ready(NAME)`` waits for
that file and fails with the step's own output if the step failed. Without
``FOEHN_TEST_SETUP`` (pytest run by hand after the set-up) there is nothing to wait for.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

WITHIN = 1800.0
"""Seconds a step may still take once a test waits for it: minutes on a busy fresh machine."""
TAIL = 3000
"""Characters of a failed step's output shown."""


def ready(name: str, within: float = WITHIN) -> None:
    """Return once ``scripts/test``'s step ``name`` has ended well; fail the test otherwise."""
    folder = os.environ.get("FOEHN_TEST_SETUP")
    if not folder:
        return
    status = Path(folder) / f"{name}.status"
    deadline = time.monotonic() + within
    while not status.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"scripts/test's set-up step {name!r} did not end within {within:.0f} s")
        time.sleep(0.5)
    code = status.read_text().strip()
    if code != "0":
        output = "".join(
            path.read_text(errors="replace")
            for path in (Path(folder) / f"{name}.out", Path(folder) / f"{name}.err")
            if path.exists()
        )
        pytest.fail(f"scripts/test's set-up step {name!r} failed (exit {code}):\n{output[-TAIL:]}")
