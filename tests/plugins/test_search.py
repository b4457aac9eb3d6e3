from __future__ import annotations

from pathlib import Path

import pytest

from foehn_lsp import ToolContext
from foehn_lsp.agent.chain import steps
from foehn_lsp.tools import ToolRegistry


@pytest.fixture
def tree(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("import os\n# TODO: tidy\nvalue = os.sep\n")
    (root / "src" / "b.txt").write_text("todo later\nNothing here\n")
    (root / "dist").mkdir()
    (root / "dist" / "c.py").write_text("# TODO generated\n")
    (root / ".gitignore").write_text("dist/\n")
    return root


async def test_literal_case_insensitive_grouped_by_file(
    tree: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await registry.call("search", {"pattern": "todo"}, ctx, steps=steps())
    assert result.ok
    assert result.output.splitlines()[0] == "2 matches for text 'todo' in 2 files:"
    assert "dist/c.py" not in result.output  # .gitignore honoured
    assert "src/a.py\n     2: # TODO: tidy" in result.output
    assert "src/b.txt\n     1: todo later" in result.output


async def test_case_sensitive_regex_and_glob(
    tree: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    sensitive = await registry.call(
        "search", {"pattern": "TODO", "case_sensitive": True}, ctx, steps=steps()
    )
    assert "src/b.txt" not in sensitive.output
    regex = await registry.call(
        "search", {"pattern": r"value\s*=", "regex": True}, ctx, steps=steps()
    )
    assert "     3: value = os.sep" in regex.output
    literal = await registry.call("search", {"pattern": r"value\s*="}, ctx, steps=steps())
    assert literal.output.startswith("no matches for text 'value\\\\s*=' in the workspace")
    globbed = await registry.call(
        "search", {"pattern": "todo", "glob": "*.txt"}, ctx, steps=steps()
    )
    assert "src/a.py" not in globbed.output
    assert "src/b.txt" in globbed.output


async def test_invalid_regex_is_a_clear_failure(
    tree: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await registry.call(
        "search", {"pattern": "(unclosed", "regex": True}, ctx, steps=steps()
    )
    assert not result.ok
    assert result.output.startswith("search failed: regex parse error")


async def test_results_are_capped_with_a_note(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "many.txt").write_text("needle\n" * 500)
    result = await registry.call("search", {"pattern": "needle"}, ctx, steps=steps())
    assert result.output.startswith("200+ matches")
    assert "stopped after 200 matches; narrow with path=" in result.output


async def test_a_search_that_finds_nothing_says_what_was_searched_and_nearby_names(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "CHANGELOG.md").write_text("# Changes\n")
    result = await registry.call(
        "search", {"pattern": "release", "glob": "Changelog"}, ctx, steps=steps()
    )
    assert result.ok
    assert result.output.startswith(
        "no matches for text 'release' in the workspace (files matching 'Changelog'), ignoring case"
    )
    assert "file names like it: CHANGELOG.md" in result.output
