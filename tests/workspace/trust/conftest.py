"""Fixtures for trust by content: the person's folders (config, approvals) under the test's own
folder, a trusted workspace, and a plugin that counts its imports outside the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The person's XDG folders (config.toml, approvals, logs), for this process and for the
    ``foehn`` processes the tests start (``cli.harness`` points them here too)."""
    folder = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
    return folder


@pytest.fixture
def trusted(state: Path) -> Path:
    """The person's config.toml, trusting workspaces."""
    path = state / "config" / "foehn" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("trust_workspace = true\n")
    return path


@pytest.fixture
def counter(tmp_path: Path) -> Path:
    """One line per import of a planted plugin (outside the workspace)."""
    return tmp_path / "imports"
