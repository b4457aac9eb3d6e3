"""Fixtures for the embedded model: a stand-in worker process for the logic."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.providers.local import LocalProvider
from providers.local.local_fakes import FAKE_WORKER, MakeProvider


@pytest.fixture
async def fake_provider(tmp_path: Path) -> AsyncIterator[MakeProvider]:
    """Makes providers whose worker is ``local_fake_worker.py`` playing ``replies``; every
    worker started is killed at the end."""
    made: list[LocalProvider] = []

    def make(*replies: dict[str, Any], busy: bool = False, **script: Any) -> LocalProvider:
        folder = tmp_path / f"fake{len(made)}"
        folder.mkdir()
        path = folder / "script.json"
        path.write_text(json.dumps({"replies": list(replies), "busy": busy, **script}))
        provider = LocalProvider(
            model_path=path,
            states=tmp_path / "states",
            command=(sys.executable, str(FAKE_WORKER)),
            model_sha256="0" * 64,
            runtime="fake",
        )
        made.append(provider)
        return provider

    yield make
    for provider in made:
        (await provider.engine()).close()
