"""The real-editor tier's shared fixture: the platform ``.vsix``, packaged once per run."""

from __future__ import annotations

from pathlib import Path

import pytest

from setup_steps import ready
from vscode_harness import installed, package


@pytest.fixture(scope="session")
def packaged() -> Path:
    """The platform ``.vsix`` packaged afresh once per run (a stale one would test old code);
    the VS Code tests share one worker (``GROUPS``), so they share the package too. Under
    ``scripts/test`` it waits for the extension's gates and package and for the editors' install,
    which run beside the first tests."""
    ready("extension")
    ready("e2e")
    assert installed(), "run scripts/setup-vscode-e2e first"
    return package()
