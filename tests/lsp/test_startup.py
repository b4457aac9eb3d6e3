"""Start-up: what the language server imports before it can answer ``initialize``. The time is
measured in ``bench/bench_server.py``; these tests count modules, so that a front end, MCP, ACP,
rich, sessions or pydantic pulled back into the server's import fails here, on any machine."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from foehn_lsp.cli.main import SUBCOMMANDS, build_parser, named_command

pytestmark = pytest.mark.process

NOT_AT_START = (
    "rich",
    "acp",
    "mcp",
    "pydantic",
    "foehn_lsp.acp",
    "foehn_lsp.mcp",
    "foehn_lsp.mcp_server",
    "foehn_lsp.cli.chat",
    "foehn_lsp.cli.replay",
    "foehn_lsp.cli.terminal",
    "foehn_lsp.sessions",
    "foehn_lsp.providers",
    "foehn_lsp.sandbox",
)
"""Packages (and everything under them) that ``foehn serve`` must not import before it serves."""

SERVE = """
from foehn_lsp.cli.main import build_parser, named_command
build_parser(named_command(["serve"])).parse_args(["serve"])
from foehn_lsp.lsp import create_server
create_server()
"""


def _loaded_after(code: str) -> list[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


def _unwanted(loaded: list[str]) -> list[str]:
    return [m for m in loaded if any(m == p or m.startswith(p + ".") for p in NOT_AT_START)]


@pytest.mark.parametrize(
    "code", ["import foehn_lsp.lsp.server", SERVE], ids=["lsp.server", "foehn serve"]
)
def test_the_server_starts_without_front_ends_sessions_or_pydantic(code: str) -> None:
    loaded = _loaded_after(code)
    assert "foehn_lsp.lsp.server" in loaded
    assert _unwanted(loaded) == []


def test_the_count_sees_a_module_that_is_loaded() -> None:
    # The check above would pass on an empty list; this shows it reads the real sys.modules.
    loaded = _loaded_after("import foehn_lsp.cli.chat")
    assert {"rich", "foehn_lsp.cli.chat", "foehn_lsp.sessions"} <= set(_unwanted(loaded))


def _subcommand_help(parser: object, name: str) -> str:
    subparsers = next(a for a in parser._actions if a.dest == "command")  # type: ignore[attr-defined]
    return str(subparsers.choices[name].format_help())


@pytest.mark.parametrize("name", sorted(n for names, _ in SUBCOMMANDS for n in names))
def test_one_subcommand_parser_is_the_whole_parsers_part(name: str) -> None:
    assert named_command([name, "--json"]) == name
    assert _subcommand_help(build_parser(name), name) == _subcommand_help(build_parser(), name)


@pytest.mark.parametrize("argv", [[], ["--help"], ["--version"], ["bogus"], ["-x", "serve"]])
def test_anything_but_a_subcommand_first_gets_the_whole_parser(argv: list[str]) -> None:
    assert named_command(argv) is None
