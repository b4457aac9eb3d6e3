"""The ``foehn`` command: ``serve``, ``run``, ``tools``, ``replay``.

Exit codes: 0 answered · 1 provider/config/runtime error · 2 usage error · 3 stopped by a limit ·
130 cancelled. Errors meant for the person are one line on stderr; no traceback reaches the
terminal (``FOEHN_DEBUG=1`` logs them).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from foehn_lsp.config import Settings, load_settings
from foehn_lsp.errors import FoehnError
from foehn_lsp.tools.discovery import Discovery, discover

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_LIMIT, EXIT_CANCELLED = 0, 1, 2, 3, 130


def plugin_folders(settings: Settings, workspace: Path | None) -> list[Path]:
    """Folders to load plugin files from: settings, and the workspace's own if trusted."""
    folders = [Path(p).expanduser() for p in settings.plugin_paths]
    if workspace is not None and settings.trust_workspace:
        local = workspace / ".foehn" / "plugins"
        if local.is_dir():
            folders.append(local)
    return folders


def load_tools(settings: Settings, workspace: Path | None) -> Discovery:
    return discover(
        folders=plugin_folders(settings, workspace),
        default_timeout=settings.tool_timeout_seconds,
    )


def _tools_command(args: argparse.Namespace) -> int:
    settings = load_settings()
    workspace = Path(args.workspace).resolve() if args.workspace else Path.cwd()
    found = load_tools(settings, workspace)
    catalogue: list[dict[str, Any]] = [
        {
            "name": tool.name,
            "risk": tool.risk.value,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        for tool in found.registry
    ]
    problems = [{"plugin": p.plugin, "problems": list(p.problems)} for p in found.problems]
    if args.json:
        json.dump({"tools": catalogue, "problems": problems}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for entry in catalogue:
            params = ", ".join(tool_parameters(entry["parameters"]))
            print(f"{entry['name']:<16} {entry['risk']:<12} ({params})")
            print(f"    {entry['description']}")
        for problem in found.problems:
            print(f"skipped plugin {problem}", file=sys.stderr)
    return EXIT_OK


def tool_parameters(schema: Any) -> list[str]:
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return list(properties)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="foehn", description="A tool-using LLM agent for editors, as a language server."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tools = commands.add_parser("tools", help="print the tool catalogue")
    tools.add_argument("--json", action="store_true", help="machine-readable output")
    tools.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    tools.set_defaults(handler=_tools_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(
        level=logging.DEBUG if os.environ.get("FOEHN_DEBUG") else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except FoehnError as exc:
        print(f"foehn: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_CANCELLED
    return code
