"""Shared fixtures: real temporary workspaces with a canary folder beside them, an ``app`` in
one, and a real model server on 127.0.0.1 (``model``)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from foehn_lsp import ToolContext
from foehn_lsp.testing import ModelServer
from foehn_lsp.tools import ToolRegistry, discover
from foehn_lsp.workspace import FileAccess, Workspace


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    """A folder outside the workspace holding a secret; nothing may read or change it."""
    folder = tmp_path / "canary"
    folder.mkdir()
    (folder / "secret.txt").write_text("TOP-SECRET\n")
    return folder


@pytest.fixture
def root(tmp_path: Path, canary: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def app(root: Path) -> Path:
    """The workspace with one file, ``app.py``, holding a TODO (``agent.turns.EDIT`` fixes it)."""
    (root / "app.py").write_text("def main():\n    return 1  # TODO\n")
    return root


@pytest.fixture
def model() -> Iterator[ModelServer]:
    """A real model server on 127.0.0.1, scripted by the test."""
    with ModelServer() as server:
        yield server


@pytest.fixture
def workspace(root: Path) -> Workspace:
    return Workspace([root])


@pytest.fixture
def ctx(workspace: Workspace) -> ToolContext:
    return ToolContext(workspace=workspace, files=FileAccess(workspace))


@pytest.fixture(scope="session")
def registry() -> ToolRegistry:
    found = discover()
    assert not found.problems, found.problems
    return found.registry


def snapshot(folder: Path) -> dict[str, str]:
    """Every file below ``folder`` (links not followed) with a hash of its content and mode."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            if path.is_symlink():
                state[str(path)] = "link:" + os.readlink(path)
            elif path.is_file():
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                state[str(path)] = f"{digest}:{oct(path.stat().st_mode)}"
            else:
                state[str(path)] = "dir"
    return state


@pytest.fixture
def canary_untouched(canary: Path) -> Callable[[], None]:
    """Call at the end of a test: the canary is exactly as it was, and was not even read."""
    before = snapshot(canary)
    secret = canary / "secret.txt"
    atime = secret.stat().st_atime_ns
    os.utime(secret, ns=(atime - 10**9 * 3600, secret.stat().st_mtime_ns))
    marked = secret.stat().st_atime_ns

    def check() -> None:
        assert secret.stat().st_atime_ns == marked, "the canary was read"
        assert snapshot(canary) == before

    return check
