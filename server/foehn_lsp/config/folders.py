"""The person's own folders for Foehn: configuration, state and cache, each in one place, for
the settings, the sandbox, sessions, trust, MCP and the embedded model."""

from __future__ import annotations

from pathlib import Path

import platformdirs


def user_config_file() -> Path:
    """The person's ``config.toml``; whether it exists is the reader's business."""
    return Path(platformdirs.user_config_dir("foehn")) / "config.toml"


def user_commands_folder() -> Path:
    """The person's custom commands, ``NAME.md`` each."""
    return Path(platformdirs.user_config_dir("foehn")) / "commands"


def state_dir() -> Path:
    """What Foehn keeps between runs: sessions, audit logs, trust, MCP servers' logs."""
    return Path(platformdirs.user_state_dir("foehn"))


def cache_folder() -> Path:
    """What Foehn can make again: the embedded model, its prompt states, MCP tool lists."""
    return Path(platformdirs.user_cache_dir("foehn"))
