"""Settings: the models (``settings``), how the layers merge (``layers``), the MCP servers'
settings (``mcp``), and where the person's file lives (``user_config_file``, re-exported from
``foehn_lsp.folders``). The names below are the ones the rest of Foehn imports."""

from foehn_lsp.config.layers import (
    SENSITIVE,
    Layer,
    display_key,
    load_settings,
    merge_layers,
    origin_of,
    settings_layers,
)
from foehn_lsp.config.settings import (
    PROVIDER_DEFAULTS,
    PROVIDER_KEY_VARIABLES,
    ApprovalMode,
    ApprovalSettings,
    Settings,
)
from foehn_lsp.folders import user_config_file

__all__ = [
    "PROVIDER_DEFAULTS",
    "PROVIDER_KEY_VARIABLES",
    "SENSITIVE",
    "ApprovalMode",
    "ApprovalSettings",
    "Layer",
    "Settings",
    "display_key",
    "load_settings",
    "merge_layers",
    "origin_of",
    "settings_layers",
    "user_config_file",
]
