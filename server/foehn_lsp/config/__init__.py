"""Settings: the models (``settings``), how the layers merge (``layers``), the MCP servers'
settings (``mcp``), the sandbox's (``sandbox``, from the person's own file only), the network
a person grants as written (``network``), the headers they let carry a key to it
(``headers``) and the person's folders (``folders``: config, state, cache). Nothing here
imports the rest of Foehn but its errors and risk levels, so every layer may read its
settings."""

from foehn_lsp.config.folders import user_config_file
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
