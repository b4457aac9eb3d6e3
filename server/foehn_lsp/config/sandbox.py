"""The ``[sandbox]`` table of the user's config file: folders programs may also read, paths to
mask, the limits every sandboxed program runs under, and the network the person grants
(``network``, ``network_local``; see ``config.network``) and the headers that may carry a key
to a granted domain (``network_headers``; see ``config.headers``).

Read from the user's own config file only, never from a workspace or the editor: a repository
must not widen what its programs see or reach, or lift their limits. A file that cannot be read
or does not fit stops every sandboxed call with the reason (fail closed), rather than silently
falling back to defaults that may show more than the person asked for. A malformed network
entry is the exception that proves the rule: it is named (file, line, key) and left out, which
grants less, never more.
"""

from __future__ import annotations

import logging
import os
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from foehn_lsp.config.folders import user_config_file
from foehn_lsp.config.headers import HeaderAllowance, parse_headers
from foehn_lsp.config.network import Domain, LineFinder, parse_domains
from foehn_lsp.errors import ConfigError

log = logging.getLogger(__name__)
NETWORK_KEYS = ("network", "network_local")
HEADERS_KEY = "network_headers"
_NO_LINES = LineFinder("", "sandbox")


def _parsed(value: object) -> bool:
    """Whether ``value`` is entries already read (``Domain``s), not text to read."""
    return isinstance(value, tuple | list) and all(isinstance(v, Domain) for v in value)


def _allowances(value: object) -> bool:
    """Whether ``value`` is allowances already read, not a table to read."""
    return isinstance(value, tuple) and all(isinstance(v, HeaderAllowance) for v in value)


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
    network: tuple[Domain, ...] = ()
    """Domains approved programs, sandboxed MCP servers and ``fetch`` may reach (default:
    none)."""
    network_local: tuple[Domain, ...] = ()
    """Granted names that may resolve to this machine's or a private network's addresses."""
    network_headers: tuple[HeaderAllowance, ...] = ()
    """Per granted domain, the headers a request to it may carry one of the person's keys in
    (the proxy refuses a key anywhere else)."""
    network_problems: tuple[str, ...] = Field(default=(), exclude=True)
    """The malformed network entries, each with file, line and key (they grant nothing);
    ``foehn sandbox`` shows them, ``foehn config`` does not."""

    @field_serializer("network", "network_local")
    def _shown(self, domains: tuple[Domain, ...]) -> list[str]:
        return [d.shown() for d in domains]

    @field_serializer("network_headers")
    def _shown_headers(self, allowed: tuple[HeaderAllowance, ...]) -> dict[str, list[str]]:
        return {a.domain.shown(): list(a.headers) for a in allowed}

    @model_validator(mode="before")
    @classmethod
    def _entries(cls, data: Any) -> Any:
        """Entries written as text (the settings' own reading of the file, which knows no
        lines): each parsed, a malformed one left out with a problem, never an error."""
        if not isinstance(data, dict):
            return data
        found = dict(data)
        problems = list(found.get("network_problems", ()))
        for key in NETWORK_KEYS:
            for name in (key, to_camel(key)):
                value = found.get(name)
                if value is None or _parsed(value):
                    continue
                found[name], wrong = parse_domains(
                    value, key=name, shown=f"sandbox.{key}", file="config", lines=_NO_LINES
                )
                problems += wrong
        for name in (HEADERS_KEY, to_camel(HEADERS_KEY)):
            value = found.get(name)
            if value is None or _allowances(value):
                continue
            granted = found.get("network", ())
            found[name], wrong = parse_headers(
                value, granted=tuple(granted) if _parsed(granted) else (), file="config"
            )
            problems += wrong
        found["network_problems"] = tuple(problems)
        return found


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
        text = path.read_text("utf-8")
        table = tomllib.loads(text).get("sandbox", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        return f"cannot read {path} for the sandbox settings: {exc}"
    if not isinstance(table, dict):
        return f"{path}: [sandbox] must be a table"
    try:
        settings = SandboxSettings.model_validate(
            {k: v for k, v in table.items() if k not in (*NETWORK_KEYS, HEADERS_KEY)}
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"sandbox.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        return f"{path}: {problems}"
    return _with_network(settings, table, text, str(path))


def _with_network(
    settings: SandboxSettings, table: dict[str, object], text: str, file: str
) -> SandboxSettings:
    """``settings`` with the network entries of ``table`` (read from ``text``, the file
    ``file``); the malformed ones are logged and kept as problems, and grant nothing."""
    if not any(key in table for key in (*NETWORK_KEYS, HEADERS_KEY)):
        return settings
    lines = LineFinder(text, "sandbox")
    found: dict[str, tuple[Domain, ...]] = {}
    problems: list[str] = []
    for key in NETWORK_KEYS:
        if key in table:
            found[key], wrong = parse_domains(
                table[key], key=key, shown=f"sandbox.{key}", file=file, lines=lines
            )
            problems += wrong
    headers: tuple[HeaderAllowance, ...] = ()
    if HEADERS_KEY in table:
        headers, wrong = parse_headers(
            table[HEADERS_KEY], granted=found.get("network", ()), file=file, text=text
        )
        problems += wrong
    for problem in problems:
        log.warning("%s", problem)
    return settings.model_copy(
        update={
            "network": found.get("network", ()),
            "network_local": found.get("network_local", ()),
            "network_headers": headers,
            "network_problems": tuple(problems),
        }
    )
