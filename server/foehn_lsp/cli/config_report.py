"""``foehn config``: every effective setting, its value, and where it came from (the default,
the user file and line, the editor's user level, an environment variable, a flag). Secrets are
shown only as set or not set."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from pydantic import BaseModel, SecretStr
from pydantic_core import to_jsonable_python

from foehn_lsp.config import (
    PROVIDER_DEFAULTS,
    PROVIDER_KEY_VARIABLES,
    Layer,
    Settings,
    display_key,
    merge_layers,
    origin_of,
    settings_layers,
    user_config_file,
)


@dataclass(frozen=True, kw_only=True)
class Entry:
    """One setting as ``foehn config`` shows it."""

    key: str
    """As a person writes it: ``approval.readOnly``."""
    value: str
    source: str
    """``default``, ``<file> line N``, ``editor (user level)``, a variable, or ``flag --x``."""


def report(
    layers: list[Layer], settings: Settings, env: Mapping[str, str] | None = None
) -> list[Entry]:
    """Every setting of ``settings`` with the layer that decided it."""
    env = os.environ if env is None else env
    entries = []
    for path, value in _leaves(settings):
        source = origin_of(layers, path)
        if source is None and path == ("api_key",) and value is not None:
            source = PROVIDER_KEY_VARIABLES.get(settings.provider or "", "environment")
        entries.append(
            Entry(
                key=display_key(path),
                value=_shown(path, value, settings),
                source=source or "default",
            )
        )
    return entries


def _leaves(model: BaseModel, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Each setting's value as the model serializes it (a network entry as written); a field
    the model keeps out of its dumps is left out here too."""
    found = []
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            found.extend(_leaves(value, (*prefix, name)))
        elif not field.exclude:
            found.append(((*prefix, name), model.model_dump(include={name})[name]))
    return found


def _shown(path: tuple[str, ...], value: Any, settings: Settings) -> str:
    if isinstance(value, SecretStr):
        return "set (hidden)"
    if value is None:
        defaults = PROVIDER_DEFAULTS.get(settings.provider or "")
        if defaults and path == ("model",):
            if settings.base_url and settings.base_url.rstrip("/") != defaults[0]:
                return f"not set (asks your server for {defaults[1]}: name its model)"
            return f"not set ({defaults[1]}, the provider's default)"
        if defaults and path == ("base_url",):
            return f"not set ({defaults[0]}, the provider's default)"
        if path == ("provider",):
            return "not set (the embedded model, if installed)"
        return "not set"
    return json.dumps(to_jsonable_python(value), ensure_ascii=False)


def add_parser(commands: Any) -> None:
    """``foehn config`` on the CLI's subcommands."""
    parser = commands.add_parser(
        "config", help="show each effective setting and where it came from"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object: file and settings")
    parser.set_defaults(handler=_config_command)


def _config_command(args: argparse.Namespace) -> int:
    layers = settings_layers()
    settings = merge_layers(layers, os.environ)
    entries = report(layers, settings)
    path = user_config_file()
    if args.json:
        document = {"userFile": str(path), "settings": [asdict(e) for e in entries]}
        json.dump(document, sys.stdout, indent=2)
        print()
        return 0
    print(f"user file: {path}{'' if path.is_file() else ' (none)'}")
    key_width = max(len(e.key) for e in entries)
    value_width = min(48, max(len(e.value) for e in entries))
    for entry in entries:
        print(f"{entry.key:<{key_width}}  {entry.value:<{value_width}}  {entry.source}")
    return 0
