"""The ``[sandbox]`` table of the user's config file: folders programs may also read, paths to
mask, and the limits every sandboxed program runs under.

Read from the user's own config file only, never from a workspace or the editor: a repository
must not widen what its programs see or lift their limits. A file that cannot be read or does
not fit stops every sandboxed call with the reason (fail closed), rather than silently falling
back to defaults that may show more than the person asked for.
"""

from __future__ import annotations

import os
import tomllib
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from foehn_lsp.config.folders import user_config_file
from foehn_lsp.errors import ConfigError


class SandboxSettings(BaseModel):
    """``[sandbox]`` in ``config.toml``."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )

    readable: tuple[str, ...] = ()
    """More folders programs may read (``~`` is the home folder)."""
    hidden: tuple[str, ...] = ()
    """More paths masked wherever the view would show them."""
    memory_mb: int = Field(default=4096, ge=64)
    """Data memory per program (``RLIMIT_DATA``) and the size of each scratch folder."""
    processes: int = Field(default=256, ge=8)
    """Processes and threads of one call, together."""
    file_size_mb: int = Field(default=4096, ge=1)
    """The largest file a program may write."""
    cpu_seconds: int = Field(default=600, ge=1)
    """CPU time per program."""


def user_sandbox_settings() -> SandboxSettings:
    """The person's ``[sandbox]`` settings (defaults without a file or a table). Raises
    ``ConfigError`` naming the file when it cannot be read or the table does not fit."""
    path = user_config_file()
    try:
        stat = os.stat(path)
        stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
    except FileNotFoundError:
        stamp = None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    settings = _read(path, stamp) if stamp else SandboxSettings()
    if isinstance(settings, str):
        raise ConfigError(settings)
    return settings


@lru_cache(maxsize=8)
def _read(path: Path, stamp: tuple[int, int]) -> SandboxSettings | str:
    """One parse per version of the file (``stamp``: its modification time and size)."""
    try:
        table = tomllib.loads(path.read_text("utf-8")).get("sandbox", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        return f"cannot read {path} for the sandbox settings: {exc}"
    if not isinstance(table, dict):
        return f"{path}: [sandbox] must be a table"
    try:
        return SandboxSettings.model_validate(table)
    except ValidationError as exc:
        problems = "; ".join(
            f"sandbox.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        return f"{path}: {problems}"
