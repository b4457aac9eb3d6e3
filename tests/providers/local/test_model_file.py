"""The embedded model's file: assembled from its wheels, verified, verified again once changed.

No model runs here, so these tests stay out of the group that runs it (``GROUPS``); they read
and write the 1.1 GB file, so they are not in the unit tier either (marked ``process``)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from foehn_lsp.errors import ConfigError
from foehn_lsp.providers.local import (
    MODEL_NAME,
    MODEL_SHA256,
    MODEL_SIZE,
    PARTS,
    ensure_model,
    is_available,
)

pytestmark = [
    pytest.mark.process,
    pytest.mark.model,
    pytest.mark.skipif(not is_available(), reason="foehn-lsp[local] is not installed"),
]


def test_the_assembled_model_is_verified(model_cache: Path) -> None:
    digest = hashlib.sha256()
    with open(model_cache / "foehn" / "models" / f"{MODEL_NAME}.gguf", "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    assert digest.hexdigest() == MODEL_SHA256


def test_anything_but_the_expected_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="refusing to load them"):
        ensure_model(tmp_path, parts=PARTS[:1])
    assert list(tmp_path.iterdir()) == []  # nothing half-assembled is left behind


def test_a_file_changed_after_it_was_verified_is_verified_again(
    model_cache: Path, tmp_path: Path
) -> None:
    """The stamp spares later processes the hashing, but only while the file is unchanged.
    The model starts as a copy of the run's one assembly, which this process verifies."""
    name = f"{MODEL_NAME}.gguf"
    shutil.copyfile(model_cache / "foehn" / "models" / name, tmp_path / name)
    target = ensure_model(tmp_path)
    assert (tmp_path / f"{MODEL_NAME}.verified").is_file()
    with open(target, "r+b") as handle:  # same size, one byte different
        handle.seek(MODEL_SIZE // 2)
        byte = handle.read(1)
        handle.seek(MODEL_SIZE // 2)
        handle.write(bytes([byte[0] ^ 0xFF]))
    rebuilt = ensure_model(tmp_path)
    with open(rebuilt, "rb") as handle:
        handle.seek(MODEL_SIZE // 2)
        assert handle.read(1) == byte
