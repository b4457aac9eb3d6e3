"""Settings, in layers: defaults < the user's config file < editor settings < environment.

Editor settings use the ``foehn`` section's camelCase names (``maxToolIterations``); the user
file (``config.toml`` in the user config directory) may use either spelling. API keys come only
from the user file or the environment (the VS Code extension passes its secret storage through
the environment), never from editor settings, which a workspace can set: a hostile repository
must not be able to send your key to its own server.
"""

from __future__ import annotations

import enum
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError
from pydantic.alias_generators import to_camel

from foehn_lsp.errors import ConfigError
from foehn_lsp.mcp.config import McpSettings
from foehn_lsp.tools.contract import RiskLevel

ProviderName = Literal["mistral", "openai", "anthropic", "local", "scripted"]

PROVIDER_DEFAULTS: dict[str, tuple[str, str]] = {
    # name: (base URL, model)
    "mistral": ("https://api.mistral.ai/v1", "devstral-latest"),
    "openai": ("https://api.openai.com/v1", "gpt-4.1-mini"),
    "anthropic": ("https://api.anthropic.com", "claude-sonnet-4-5"),
}
PROVIDER_KEY_VARIABLES = {
    "mistral": "MISTRAL_API_KEY",
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}


class ApprovalMode(enum.Enum):
    """What policy does with a call: run it, ask the person, or refuse it."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


class _Section(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )


class ApprovalSettings(_Section):
    """Risk level to mode, plus per-tool overrides (which win)."""

    read_only: ApprovalMode = ApprovalMode.ALLOW
    write: ApprovalMode = ApprovalMode.ASK
    destructive: ApprovalMode = ApprovalMode.ASK
    undefined: ApprovalMode = ApprovalMode.ASK
    tools: dict[str, ApprovalMode] = Field(default_factory=dict)

    def mode_for(self, tool: str, risk: RiskLevel) -> ApprovalMode:
        if tool in self.tools:
            return self.tools[tool]
        return {
            RiskLevel.READ_ONLY: self.read_only,
            RiskLevel.WRITE: self.write,
            RiskLevel.DESTRUCTIVE: self.destructive,
            RiskLevel.UNDEFINED: self.undefined,
        }[risk]


class Settings(_Section):
    """Everything Foehn can be configured with."""

    provider: ProviderName | None = None
    """``None``: the embedded local model if installed, else a clear error."""
    model: str | None = None
    """``None``: the provider's default model."""
    base_url: str | None = None
    api_key: SecretStr | None = None
    timeout_seconds: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    enable_streaming: bool = True
    max_tool_iterations: int = Field(default=30, ge=1)
    token_budget: int = Field(default=500_000, ge=1000)
    """Input plus output tokens a run may spend."""
    repeat_limit: int = Field(default=3, ge=2)
    """The same call with the same arguments this many times in a row stops the run."""
    tool_timeout_seconds: float = Field(default=120.0, gt=0)
    approval: ApprovalSettings = Field(default_factory=ApprovalSettings)
    plugin_paths: tuple[str, ...] = ()
    system_message_file: str | None = None
    """Default: ``.foehn/system.md`` in the workspace, if present."""
    trust_workspace: bool = False
    """Load plugins from the workspace's ``.foehn/plugins/``."""
    mcp: McpSettings = Field(default_factory=McpSettings)
    """MCP servers whose tools Foehn offers the model (``[mcp.servers.NAME]``)."""

    def plugin_folders(self, workspace: Path | None) -> list[Path]:
        """Folders to load plugin files from: ``pluginPaths``, and the workspace's own
        ``.foehn/plugins/`` if the workspace is trusted."""
        folders = [Path(p).expanduser() for p in self.plugin_paths]
        if workspace is not None and self.trust_workspace:
            local = workspace / ".foehn" / "plugins"
            if local.is_dir():
                folders.append(local)
        return folders

    def resolved_base_url(self) -> str:
        if self.base_url:
            return self.base_url.rstrip("/")
        if self.provider in PROVIDER_DEFAULTS:
            return PROVIDER_DEFAULTS[self.provider][0]
        raise ConfigError(f"provider {self.provider!r} needs a base URL (FOEHN_BASE_URL)")

    def resolved_model(self) -> str:
        if self.model:
            return self.model
        if self.provider in PROVIDER_DEFAULTS:
            return PROVIDER_DEFAULTS[self.provider][1]
        return "default"


def user_config_file() -> Path:
    return Path(platformdirs.user_config_dir("foehn")) / "config.toml"


def _from_environment(env: Mapping[str, str]) -> dict[str, Any]:
    layer: dict[str, Any] = {}
    simple = {
        "FOEHN_PROVIDER": "provider",
        "FOEHN_MODEL": "model",
        "FOEHN_BASE_URL": "base_url",
        "FOEHN_API_KEY": "api_key",
    }
    for variable, key in simple.items():
        if env.get(variable):
            layer[key] = env[variable]
    if "FOEHN_STREAMING" in env:
        value = env["FOEHN_STREAMING"].strip().lower()
        if value not in {"1", "0", "true", "false"}:
            raise ConfigError(f"FOEHN_STREAMING must be 1 or 0, got {env['FOEHN_STREAMING']!r}")
        layer["enable_streaming"] = value in {"1", "true"}
    if env.get("FOEHN_PLUGIN_PATHS"):
        layer["plugin_paths"] = [p for p in env["FOEHN_PLUGIN_PATHS"].split(os.pathsep) if p]
    return layer


def _merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(dict(merged[key]), value)
        elif value is not None:
            merged[key] = value
    return merged


def _normalise(layer: Mapping[str, Any]) -> dict[str, Any]:
    """Snake_case keys, so layers written in either spelling merge."""
    out: dict[str, Any] = {}
    for key, value in layer.items():
        snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
        out[snake] = _normalise(value) if isinstance(value, Mapping) and snake != "tools" else value
    return out


def load_settings(
    *,
    editor: Mapping[str, Any] | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    user_file: Path | None = None,
) -> Settings:
    """Merge the layers; ``overrides`` (command-line flags) sit on top of everything."""
    env = os.environ if env is None else env
    user_file = user_config_file() if user_file is None else user_file
    merged: dict[str, Any] = {}
    if user_file.is_file():
        try:
            merged = _normalise(tomllib.loads(user_file.read_text("utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read {user_file}: {exc}") from None
    if editor:
        # Editors send "" for a setting left empty; that means "not set", not an empty value.
        from_editor = _normalise({k: v for k, v in editor.items() if v != ""})
        from_editor.pop("api_key", None)
        merged = _merge(merged, from_editor)
    merged = _merge(merged, _from_environment(env))
    merged = _merge(merged, _normalise(overrides or {}))
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}" for error in exc.errors()
        )
        raise ConfigError(f"invalid settings: {details}") from None
    if settings.api_key is None and settings.provider in PROVIDER_KEY_VARIABLES:
        key = env.get(PROVIDER_KEY_VARIABLES[settings.provider])
        if key:
            settings = settings.model_copy(update={"api_key": SecretStr(key)})
    return settings
