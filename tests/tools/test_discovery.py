"""Plugin discovery through the real front doors: entry points of an installed distribution
(a dist-info folder on the path of a real ``foehn tools`` process) and plugin files."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.tools import discover
from preloaded import foehn_argv

pytestmark = pytest.mark.process

GOOD = """
from foehn_lsp import RiskLevel, tool

@tool(risk=RiskLevel.READ_ONLY)
async def shout(text: str) -> str:
    \"\"\"Return the text in upper case.\"\"\"
    return text.upper()

def tools():
    return [shout]
"""


def write_plugin(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return path


@pytest.fixture
def plugin_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "plugins"
    write_plugin(folder, "good", GOOD)
    write_plugin(folder, "syntax", "def tools(:\n")
    write_plugin(folder, "raises", "def tools():\n    raise RuntimeError('no config')\n")
    write_plugin(folder, "notools", "x = 1\n")
    write_plugin(
        folder,
        "invalid",
        """
        from foehn_lsp import Tool, ToolResult
        async def run(a, c):
            return ToolResult.success("")
        def tools():
            return [
                Tool.from_schema(name="Bad-Name", description="", parameters={"type": "object"},
                                 execute=run),
                "not a tool",
            ]
    """,
    )
    write_plugin(
        folder,
        "clash",
        """
        from foehn_lsp import RiskLevel, tool
        @tool(risk=RiskLevel.READ_ONLY)
        async def scan() -> str:
            \"\"\"A second scan.\"\"\"
            return ""
        def tools():
            return [scan]
    """,
    )
    write_plugin(folder, "_private", "raise SystemExit('helpers are not plugins')\n")
    return folder


def test_broken_plugins_are_reported_and_skipped(plugin_folder: Path) -> None:
    found = discover(folders=[plugin_folder])
    names = {tool.name for tool in found.registry}
    assert {"shout", "scan", "read_file", "edit_file", "search"} <= names
    problems = {Path(p.plugin).stem: p.problems for p in found.problems}
    assert set(problems) == {"syntax", "raises", "notools", "invalid", "clash"}
    assert "SyntaxError" in problems["syntax"][0]
    assert problems["raises"] == ("failed to load: RuntimeError: no config",)
    assert problems["notools"] == ("defines no module-level tools() function",)
    invalid = " ".join(problems["invalid"])
    assert "snake_case" in invalid
    assert "description" in invalid
    assert "expected a foehn_lsp.Tool, got str" in invalid
    assert "another plugin already provides" in problems["clash"][0]


def test_missing_plugin_folder_is_reported(tmp_path: Path) -> None:
    found = discover(folders=[tmp_path / "nowhere"])
    assert [p.problems for p in found.problems] == [("plugin folder does not exist",)]


def _installed_distribution(site: Path, entry_points: str, module: str, body: str) -> None:
    info = site / "thirdparty_demo-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: thirdparty-demo\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[foehn_lsp.plugins]\n{entry_points}\n")
    (site / f"{module}.py").write_text(textwrap.dedent(body))


def _foehn_tools_json(tmp_path: Path, extra_env: dict[str, str]) -> dict[str, Any]:
    """``foehn tools --json``; with ``PYTHONPATH`` in ``extra_env`` a new interpreter (see
    ``preloaded.STARTUP``), so the plugin installed there is found only if that holds."""
    env = {**os.environ, **extra_env}
    done = subprocess.run(
        foehn_argv("tools", "--json", "--workspace", str(tmp_path)),
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def test_foehn_tools_json_lists_scan_and_reports_a_broken_entry_point(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _installed_distribution(
        site,
        "good = thirdparty_good:tools\nbroken = thirdparty_missing_module:tools",
        "thirdparty_good",
        GOOD,
    )
    catalogue = _foehn_tools_json(tmp_path, {"PYTHONPATH": str(site)})
    tools = {t["name"]: t for t in catalogue["tools"]}
    assert tools["scan"]["risk"] == "read_only"
    assert set(tools["scan"]["parameters"]["properties"]) == {"path", "pattern", "recursive"}
    assert tools["shout"]["risk"] == "read_only"
    [problem] = catalogue["problems"]
    assert problem["plugin"] == "entry point broken (thirdparty_missing_module:tools)"
    assert "ModuleNotFoundError" in problem["problems"][0]


def test_foehn_tools_loads_plugin_files_from_the_environment(
    tmp_path: Path, plugin_folder: Path
) -> None:
    catalogue = _foehn_tools_json(tmp_path, {"FOEHN_PLUGIN_PATHS": str(plugin_folder)})
    names = [t["name"] for t in catalogue["tools"]]
    assert "shout" in names
    assert len(catalogue["problems"]) == 5
