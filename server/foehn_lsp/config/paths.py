"""Where the person's own configuration lives; below every other config module, so that a
module the settings import (the sandbox's settings) can find the file without a loop."""

from __future__ import annotations

from pathlib import Path

import platformdirs


def user_config_file() -> Path:
    return Path(platformdirs.user_config_dir("foehn")) / "config.toml"
