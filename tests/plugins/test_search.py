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
        "no matches for text 'release' in the workspace (no file's name matches glob "
        "'Changelog', so every file was searched), ignoring case"
    )
    assert "file names like it: CHANGELOG.md" in result.output
    (root / "notes.txt").write_text("no release yet\n")  # a file the glob leaves out
    result = await registry.call(
        "search", {"pattern": "release", "glob": "*.md"}, ctx, steps=steps()
    )
    assert result.output.startswith(
        "no matches for text 'release' in the workspace (files matching '*.md')"
    )


async def test_a_glob_that_names_no_file_is_left_out_and_every_file_searched(
    tree: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model (bench: ri-callers): asked which module calls c_to_f, it
    searched with ``glob='*/c_to_f.py'``, read "no matches", and answered that none does."""
    result = await registry.call(
        "search", {"pattern": "os.sep", "glob": "*/os.sep.py"}, ctx, steps=steps()
    )
    assert result.ok
    assert result.output.splitlines()[:3] == [
        "(no file's name matches glob '*/os.sep.py', so every file was searched)",
        "1 matches for text 'os.sep' in 1 files:",
        "src/a.py",
    ]


async def test_a_glob_with_a_path_is_judged_where_the_search_looks(
    tree: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (tree / "notes.md").write_text("os.sep is not here\n")
    in_src = await registry.call(
        "search", {"pattern": "os.sep", "path": "src", "glob": "*.md"}, ctx, steps=steps()
    )
    assert in_src.output.splitlines()[:3] == [
        "(no file's name matches glob '*.md', so every file was searched)",
        "1 matches for text 'os.sep' in 1 files:",
        "src/a.py",
    ]
    assert "notes.md" not in in_src.output  # the path still bounds the search
    a_file = await registry.call(
        "search", {"pattern": "os.sep", "path": "src/a.py", "glob": "*.md"}, ctx, steps=steps()
    )
    assert a_file.output.splitlines()[0] == "1 matches for text 'os.sep' in 1 files:"
    absent = await registry.call(
        "search", {"pattern": "absent", "path": "src/a.py", "glob": "*.md"}, ctx, steps=steps()
    )
    assert absent.output.startswith("no matches for text 'absent' in src/a.py, ignoring case")


async def test_a_pattern_of_several_lines_looks_for_the_first_of_them_a_file_has(
    tree: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen (bench: nd-inf-underscore): the model searched for a traced call copied whole out
    of run_tests' result, as a regex; ripgrep refused it three times."""
    copied = (
        "f(x=1) (src/a.py) ran these lines and returned '/':\n"
        "     3\tvalue = os.sep   <- returned '/'\n"
    )
    found = await registry.call("search", {"pattern": copied, "regex": True}, ctx, steps=steps())
    assert found.ok
    assert found.output.splitlines() == [
        "(search finds text within one line; of the lines given it looked for 'value = os.sep'.)",
        "1 matches for text 'value = os.sep' in 1 files:",
        "src/a.py",
        "     3: value = os.sep",
    ]
    nowhere = await registry.call("search", {"pattern": "ab\ncd\n"}, ctx, steps=steps())
    assert not nowhere.ok
    assert nowhere.output == "search finds text within one line; the pattern has several"
