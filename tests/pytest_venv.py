"""A real virtual environment for tests whose workspace runs its tests with its own
interpreter (``run_tests`` never uses Foehn's): it sees Foehn's pytest through a .pth file, so
nothing is downloaded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def pytest_venv(folder: Path) -> Path:
    """Make the environment at ``folder`` and return it."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(folder)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    site = next((folder / "lib").glob("python*/site-packages"))
    foehn_site = next(p for p in sys.path if p.endswith("site-packages"))
    (site / "foehn-test.pth").write_text(foehn_site + "\n")
    return folder
