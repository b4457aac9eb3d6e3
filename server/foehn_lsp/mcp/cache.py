"""The last lists each server gave (tools, prompts, resources), so a ``lazy`` server need not
start before it is used.

A listing is stored per server under the user cache folder, keyed by what starts the server
(command, arguments, URL, working folder, sandbox; never its secrets), so a changed entry in
the config never reuses an old list. A stale list costs little: the server starts at its first
call and its real list replaces the stored one at once.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import mcp_types as types
import pydantic

from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.mcp.client import Listing

log = logging.getLogger(__name__)


def listing_path(folder: Path, name: str, config: McpServerConfig) -> Path:
    identity = config.model_dump(mode="json", include={"command", "args", "url", "cwd", "sandbox"})
    digest = hashlib.sha256(json.dumps([name, identity]).encode()).hexdigest()[:16]
    return folder / "mcp" / f"tools-{digest}.json"


def load(path: Path) -> Listing | None:
    """The stored listing, or ``None`` if there is none or it cannot be read."""
    try:
        stored = json.loads(path.read_text("utf-8"))
        return Listing(
            tools=tuple(types.Tool.model_validate(t) for t in stored["tools"]),
            prompts=tuple(types.Prompt.model_validate(p) for p in stored.get("prompts", ())),
            resources=tuple(types.Resource.model_validate(r) for r in stored.get("resources", ())),
            templates=tuple(
                types.ResourceTemplate.model_validate(t) for t in stored.get("templates", ())
            ),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, pydantic.ValidationError) as exc:
        log.warning("ignoring the stored MCP tool list %s: %s", path, exc)
        return None


def store(path: Path, listing: Listing) -> None:
    def dumped(items: tuple[pydantic.BaseModel, ...]) -> list[Any]:
        return [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in items]

    document = {
        "tools": dumped(listing.tools),
        "prompts": dumped(listing.prompts),
        "resources": dumped(listing.resources),
        "templates": dumped(listing.templates),
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps(document), "utf-8")
        partial.replace(path)
    except OSError as exc:
        log.warning("cannot store the MCP tool list in %s: %s", path, exc)
