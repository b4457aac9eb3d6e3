"""``foehn sandbox [--workspace DIR] [--json]``: what sandboxed programs see, may write, and
their limits (``sandbox.report`` describes it)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from foehn_lsp.sandbox import report
from foehn_lsp.sandbox.runner import SandboxViewError, system_sandbox
from foehn_lsp.workspace import Workspace


def add_parser(commands: Any) -> None:
    """``foehn sandbox`` on the CLI's subcommands."""
    parser = commands.add_parser(
        "sandbox", help="show what sandboxed programs see, may write, and their limits"
    )
    parser.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.set_defaults(handler=_command)


def _command(args: argparse.Namespace) -> int:
    root = Path(args.workspace or ".").resolve()
    if not root.is_dir():
        print(f"foehn sandbox: {root} is not a folder", file=sys.stderr)
        return 2
    sandbox = system_sandbox()
    try:
        if args.json:
            json.dump(report.describe(sandbox, Workspace([root])), sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            print("\n".join(report.lines(sandbox, Workspace([root]))))
    except SandboxViewError as exc:
        print(f"foehn sandbox: {exc}", file=sys.stderr)
        return 1
    return 0
