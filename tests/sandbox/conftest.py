"""Fixtures of the sandbox tier: a fake home and a user config of the test's own, so that no
test reads the person's real settings or depends on where their home is."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from foehn_lsp.sandbox import system_sandbox

needs_sandbox = pytest.mark.skipif(
    not system_sandbox().available, reason=f"needs the sandbox: {system_sandbox().note}"
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home folder outside /tmp's view and the workspace, as ``HOME``; the user
    config lives in its ``.config``."""
    folder = Path(os.path.realpath(tmp_path / "home"))
    (folder / ".config" / "foehn").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / ".config"))
    return folder


@pytest.fixture
def sandbox_config(home: Path) -> Callable[[str], None]:
    """Write the ``[sandbox]`` table of the user config."""

    def write(table: str) -> None:
        (home / ".config" / "foehn" / "config.toml").write_text(f"[sandbox]\n{table}\n")

    return write
