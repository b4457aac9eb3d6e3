"""The real-editor tier's shared fixture: the platform ``.vsix``, packaged once per run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from locking import locked
from setup_steps import ready
from vscode_harness import installed, package


@pytest.fixture(scope="session")
def packaged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The platform ``.vsix`` packaged afresh once per run (a stale one would test old code):
    the VS Code tests' workers (``GROUPS``) take turns, so the first packages it and the others
    find it fresh. Under ``scripts/test`` it waits for the editors' install and the extension's
    package, which run beside the first tests."""
    ready("e2e")
    ready("extension")
    assert installed(), "run scripts/setup-vscode-e2e first"
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with locked(shared / "vsix.lock", within=1800):
        return package()
