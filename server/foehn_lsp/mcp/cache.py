"""The last tool list each server gave, so a ``lazy`` server need not start before it is used.

A listing is stored per server under the user cache folder, keyed by what starts the server
(command, arguments, URL, working folder, sandbox; never its secrets), so a changed entry in
the config never reuses an old list. A stale list costs little: the server starts at its first
call and its real list replaces the stored one at once.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path

import mcp_types as types
import pydantic

from foehn_lsp.config.mcp import McpServerConfig

log = logging.getLogger(__name__)


def listing_path(folder: Path, name: str, config: McpServerConfig) -> Path:
    identity = config.model_dump(mode="json", include={"command", "args", "url", "cwd", "sandbox"})
    digest = hashlib.sha256(json.dumps([name, identity]).encode()).hexdigest()[:16]
    return folder / "mcp" / f"tools-{digest}.json"


def load(path: Path) -> list[types.Tool] | None:
    """The stored listing, or ``None`` if there is none or it cannot be read."""
    try:
        stored = json.loads(path.read_text("utf-8"))
        return [types.Tool.model_validate(tool) for tool in stored["tools"]]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, pydantic.ValidationError) as exc:
        log.warning("ignoring the stored MCP tool list %s: %s", path, exc)
        return None


def store(path: Path, tools: Sequence[types.Tool]) -> None:
    listing = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps({"tools": listing}), "utf-8")
        partial.replace(path)
    except OSError as exc:
        log.warning("cannot store the MCP tool list in %s: %s", path, exc)
