"""A real virtual environment for tests whose workspace runs its tests with its own
interpreter (``run_tests`` never uses Foehn's): it sees Foehn's copy of pytest and of what
pytest needs through links, so nothing is downloaded, and none of the pytest plugins Foehn's
own tests use (pytest-lsp, pytest-asyncio, xdist, hypothesis'), which every pytest the
workspace starts would load: a person's project has its own."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import distribution
from pathlib import Path

PYTEST = ("pytest", "pluggy", "iniconfig", "packaging", "pygments")
"""pytest and the distributions it needs on Python 3.11 and later (its ``Requires-Dist``)."""


def pytest_venv(folder: Path) -> Path:
    """Make the environment at ``folder`` and return it."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(folder)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    site = next((folder / "lib").glob("python*/site-packages"))
    for name in PYTEST:
        found = distribution(name)
        tops = {f.parts[0] for f in found.files or ()} - {"..", "__pycache__"}
        for top in tops:
            (site / top).symlink_to(Path(str(found.locate_file(top))))
    return folder
