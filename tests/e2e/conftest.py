"""The real-editor tier's shared fixture: the platform ``.vsix``, packaged once per run."""

from __future__ import annotations

from pathlib import Path

import pytest

from vscode_harness import INSTALLED, package


@pytest.fixture(scope="session")
def packaged() -> Path:
    """The platform ``.vsix`` packaged afresh once per run (a stale one would test old code);
    the VS Code tests share one worker (``GROUPS``), so they share the package too."""
    assert INSTALLED, "run scripts/setup-vscode-e2e first"
    return package()
