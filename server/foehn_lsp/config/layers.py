"""Settings, in layers: defaults < the user's config file < editor settings < environment <
command-line flags.

Editor settings use the ``foehn`` section's camelCase names (``maxToolIterations``); the user
file (``config.toml`` in the user config directory) may use either spelling.

The trust boundary: settings that decide where keys go, what runs and what is asked
(``SENSITIVE``: the provider, its URL and key, approval, plugins, workspace trust, the system
message file, MCP servers, the sandbox's view and limits, and the editor's own server and Python
paths) are honoured only from the user or machine level: the user file, the environment, flags,
and editor values that the client marks as user-level by sending them inside ``userLevel``. The
same keys at the top level of the editor's settings (where a workspace's
``.vscode/settings.json`` can put them) are ignored and logged: a hostile repository must not
send your key to its own server, load its own plugins or turn the prompts off.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, SecretStr, ValidationError
from pydantic.alias_generators import to_camel

from foehn_lsp.config.folders import user_config_file
from foehn_lsp.config.settings import (
    CHOSEN_PROVIDERS,
    PROVIDER_KEY_VARIABLES,
    Settings,
    warn_once,
)
from foehn_lsp.errors import ConfigError

SENSITIVE = frozenset(
    {
        "provider",
        "base_url",
        "api_key",
        "approval",
        "plugin_paths",
        "trust_workspace",
        "system_message_file",
        "mcp",
        "sandbox",
        "server_path",
        "python_path",
    }
)
"""Top-level keys (snake_case) honoured only from the user or machine level."""

USER_LEVEL = "userLevel"
"""The key of the editor settings' object holding values the client read at user level."""

CLIENT_ONLY = frozenset({"server_path", "python_path"})
"""Editor settings the client uses to start the server; the server reads nothing from them."""

OWN_TABLES = frozenset({"rules", "hooks"})
"""``[[rules]]`` and ``[[hooks]]`` in the user file: read, with their lines, by
``policy.guards``; never settings, and never from any other layer."""


@dataclass(frozen=True, kw_only=True)
class Layer:
    """One source of settings: its values (snake_case, nested as ``Settings`` nests them) and,
    per key path, where each came from in words (``config.toml line 3``, ``FOEHN_MODEL``)."""

    values: dict[str, Any]
    origins: dict[tuple[str, ...], str] = field(default_factory=dict)
    written: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)
    """Per key path, the key as a file wrote it (``memory_mb`` or ``memoryMb``), so that a
    message about it names it as the person will find it."""

    def origin(self, path: tuple[str, ...]) -> str | None:
        """Where this layer set ``path`` (or the section holding it), or ``None``."""
        for length in range(len(path), 0, -1):
            if (where := self.origins.get(path[:length])) is not None:
                return where
        return None


FLAGS = {
    "provider": "--provider",
    "model": "--model",
    "base_url": "--base-url",
    "max_tool_iterations": "--max-iterations",
}
"""Settings the command line sets, by their flag (others are named ``--setting-name``)."""

ENVIRONMENT = {
    "FOEHN_PROVIDER": "provider",
    "FOEHN_MODEL": "model",
    "FOEHN_BASE_URL": "base_url",
    "FOEHN_API_KEY": "api_key",
}


def settings_layers(
    *,
    editor: Mapping[str, Any] | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    user_file: Path | None = None,
) -> list[Layer]:
    """Every layer that sets something, lowest first. Unknown keys in the user file and
    workspace-level sensitive keys from the editor are logged (once each) and left out."""
    env = os.environ if env is None else env
    user_file = user_config_file() if user_file is None else user_file
    layers = []
    if user_file.is_file():
        layers.append(_file_layer(user_file))
    if editor:
        layers.append(_editor_layer(editor))
    layers.append(_environment_layer(env))
    flags = _normalise({k: v for k, v in (overrides or {}).items() if v is not None})
    origins: dict[tuple[str, ...], str] = {
        (key,): "flag " + FLAGS.get(key, "--" + key.replace("_", "-")) for key in flags
    }
    layers.append(Layer(values=flags, origins=origins))
    return [layer for layer in layers if layer.values]


def load_settings(
    *,
    editor: Mapping[str, Any] | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    user_file: Path | None = None,
) -> Settings:
    """Merge the layers; ``overrides`` (command-line flags) sit on top of everything.
    ``editor`` is the ``foehn`` settings object as the client sends it, ``userLevel`` and all.
    A value that does not fit raises ``ConfigError`` naming the key and where it was set."""
    env = os.environ if env is None else env
    layers = settings_layers(editor=editor, overrides=overrides, env=env, user_file=user_file)
    return merge_layers(layers, env)


def merge_layers(layers: list[Layer], env: Mapping[str, str]) -> Settings:
    """The settings the layers make, higher layers winning key by key; then the provider's own
    key variable (``MISTRAL_API_KEY``…) if no layer gave a key."""
    merged: dict[str, Any] = {}
    for layer in layers:
        merged = _merge(merged, layer.values)
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as exc:
        problems = [_problem(layers, error) for error in exc.errors()]
        raise ConfigError("invalid settings: " + "; ".join(problems)) from None
    if settings.api_key is None and settings.provider in PROVIDER_KEY_VARIABLES:
        key = env.get(PROVIDER_KEY_VARIABLES[settings.provider])
        if key:
            settings = settings.model_copy(update={"api_key": SecretStr(key)})
    return settings


def origin_of(layers: list[Layer], path: tuple[str, ...]) -> str | None:
    """Where the effective value of ``path`` came from: the highest layer that set it."""
    setter = _setter(layers, path)
    return setter.origin(path) if setter is not None else None


def _setter(layers: list[Layer], path: tuple[str, ...]) -> Layer | None:
    """The highest layer that set ``path`` (or the section holding it)."""
    return next((layer for layer in reversed(layers) if layer.origin(path) is not None), None)


def display_key(path: tuple[str, ...]) -> str:
    """``('approval', 'read_only')`` as a person writes it: ``approval.readOnly``. Keys of
    free-form maps (tool and server names) stay as written."""
    shown = []
    model: type[BaseModel] | None = Settings
    for part in path:
        if model is not None and part in model.model_fields:
            shown.append(to_camel(part))
            model = _section(model, part)
        else:
            shown.append(part)
            model = None
    return ".".join(shown)


def _problem(layers: list[Layer], error: Any) -> str:
    path = tuple(str(part) for part in error["loc"])
    setter = _setter(layers, path)
    where = setter.origin(path) if setter is not None else "settings"
    # As the layer whose value is in force wrote it, if a file did.
    written = setter.written.get(path) if setter is not None else None
    key = ".".join(written) if written else display_key(path)
    message = error["msg"]
    if path == ("provider",):
        message = f"must be one of {', '.join(CHOSEN_PROVIDERS)}, got {error['input']!r}"
    return f"{where}: {key}: {message}"


def _file_layer(path: Path) -> Layer:
    try:
        text = path.read_text("utf-8")
        raw = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    lines = _key_lines(text)
    raw = {key: value for key, value in raw.items() if key not in OWN_TABLES}
    values = _normalise(raw)
    for key_path, raw_path in _unknown_keys(raw, Settings):
        line = lines.get(raw_path)
        where = f"{path} line {line}" if line else str(path)
        warn_once(f"{where}: unknown setting {'.'.join(raw_path)!r}{_suggest(key_path)}")
    origins = {}
    written = {}
    for key_path, raw_path in _leaf_paths(raw, Settings):
        line = lines.get(raw_path)
        origins[key_path] = f"{path} line {line}" if line else str(path)
        written[key_path] = raw_path
    return Layer(values=values, origins=origins, written=written)


def _editor_layer(editor: Mapping[str, Any]) -> Layer:
    marked = editor.get(USER_LEVEL)
    user_level = _normalise(_set_values(marked if isinstance(marked, Mapping) else {}))
    top = _normalise(_set_values({k: v for k, v in editor.items() if k != USER_LEVEL}))
    for key in CLIENT_ONLY:
        user_level.pop(key, None)
        top.pop(key, None)
    if ignored := sorted(key for key in top if key in SENSITIVE):
        for key in ignored:
            del top[key]
        names = ", ".join(f"foehn.{display_key((key,))}" for key in ignored)
        warn_once(
            f"ignored editor settings {names}: they decide where keys go, what runs and what is "
            f"asked, so Foehn takes them only from user level (config.toml, the environment, "
            f"or user settings the editor sends in {USER_LEVEL}), never from a workspace"
        )
    origins: dict[tuple[str, ...], str] = {(key,): "editor (user level)" for key in user_level}
    origins.update({(key,): "editor" for key in top})
    return Layer(values=_merge(user_level, top), origins=origins)


def _set_values(layer: Mapping[str, Any]) -> dict[str, Any]:
    """Editors send "" for a setting left empty; that means "not set", not an empty value."""
    return {key: value for key, value in layer.items() if value != ""}


def _environment_layer(env: Mapping[str, str]) -> Layer:
    layer: dict[str, Any] = {}
    origins: dict[tuple[str, ...], str] = {}
    for variable, key in ENVIRONMENT.items():
        if env.get(variable):
            layer[key] = env[variable]
            origins[(key,)] = variable
    if "FOEHN_STREAMING" in env:
        value = env["FOEHN_STREAMING"].strip().lower()
        if value not in {"1", "0", "true", "false"}:
            raise ConfigError(f"FOEHN_STREAMING must be 1 or 0, got {env['FOEHN_STREAMING']!r}")
        layer["enable_streaming"] = value in {"1", "true"}
        origins[("enable_streaming",)] = "FOEHN_STREAMING"
    if env.get("FOEHN_PLUGIN_PATHS"):
        layer["plugin_paths"] = [p for p in env["FOEHN_PLUGIN_PATHS"].split(os.pathsep) if p]
        origins[("plugin_paths",)] = "FOEHN_PLUGIN_PATHS"
    return Layer(values=layer, origins=origins)


def _merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(dict(merged[key]), value)
        elif value is not None:
            merged[key] = value
    return merged


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


def _section(model: type[BaseModel] | None, name: str) -> type[BaseModel] | None:
    """The settings model of the section ``name`` of ``model``, if it is one."""
    if model is None or name not in model.model_fields:
        return None
    annotation = model.model_fields[name].annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _name(model: type[BaseModel] | None, key: str) -> str:
    """``key`` as the field name it spells (either spelling), else unchanged: free-form maps
    such as ``approval.tools`` keep their keys."""
    if model is not None and _snake(key) in model.model_fields:
        return _snake(key)
    return key


def _normalise(
    layer: Mapping[str, Any], model: type[BaseModel] | None = Settings
) -> dict[str, Any]:
    """Snake_case field names, so layers written in either spelling merge."""
    out: dict[str, Any] = {}
    for key, value in layer.items():
        name = _name(model, key)
        section = _section(model, name)
        out[name] = _normalise(value, section) if section and isinstance(value, Mapping) else value
    return out


def _leaf_paths(
    layer: Mapping[str, Any],
    model: type[BaseModel] | None,
    prefix: tuple[str, ...] = (),
    raw_prefix: tuple[str, ...] = (),
) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every key path the layer sets, normalised and as written."""
    paths = []
    for key, value in layer.items():
        name = _name(model, key)
        path, raw = (*prefix, name), (*raw_prefix, key)
        paths.append((path, raw))
        if isinstance(value, Mapping):
            paths.extend(_leaf_paths(value, _section(model, name), path, raw))
    return paths


def _unknown_keys(
    layer: Mapping[str, Any],
    model: type[BaseModel],
    prefix: tuple[str, ...] = (),
    raw_prefix: tuple[str, ...] = (),
) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    unknown = []
    for key, value in layer.items():
        name = _name(model, key)
        path, raw = (*prefix, name), (*raw_prefix, key)
        if name not in model.model_fields:
            unknown.append((path, raw))
        elif (section := _section(model, name)) and isinstance(value, Mapping):
            unknown.extend(_unknown_keys(value, section, path, raw))
    return unknown


def _suggest(path: tuple[str, ...]) -> str:
    model: type[BaseModel] | None = Settings
    for name in path[:-1]:
        model = _section(model, name)
    if model is None:
        return ""
    key = path[-1]
    names = list(model.model_fields)
    camel = any(c.isupper() for c in key)
    choices = {to_camel(n) if camel else n: n for n in names}
    close = difflib.get_close_matches(key, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


_TABLE = re.compile(r"^\s*\[\[?([^\[\]]+)\]\]?\s*(#.*)?$")
_KEY = re.compile(
    r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*="""
)


def _key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The line of each key and table header in a TOML text, by its path as written (a small
    scanner: tomllib keeps no positions)."""
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        if match := _TABLE.match(line):
            table = _dotted(match[1])
            lines.setdefault(table, number)
        elif match := _KEY.match(line):
            lines.setdefault((*table, *_dotted(match[1])), number)
    return lines


def _dotted(key: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in key.split("."))
