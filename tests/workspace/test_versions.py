"""Versions read from the lines an edit changed, and where the old version is still given: in a
real workspace (real ripgrep), and in an edit's result with the scripted provider and the real
tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.test_loop import Recorder, agent
from agent.turns import calls, say
from foehn_lsp import ToolContext
from foehn_lsp.agent import TurnRequest
from foehn_lsp.events import ToolResultEvent
from foehn_lsp.workspace import Workspace
from foehn_lsp.workspace.versions import Bump, bumped, still_given

PYPROJECT = '[project]\nname = "weatherlog"\nversion = "2.1.0"\ndependencies = ["rich==2.1.0"]\n'


@pytest.mark.parametrize(
    ("before", "after", "bump"),
    [
        ('version = "2.1.0"\n', 'version = "2.2.0"\n', ("2.1.0", "2.2.0")),
        ("__version__ = '1.4'\n", "__version__ = '1.5'\n", ("1.4", "1.5")),
        ('  "version": "3.0.0rc1",\n', '  "version": "3.0.0",\n', ("3.0.0rc1", "3.0.0")),
        ('VERSION = "0.9.dev1"\n', 'VERSION = "1.0"\n', ("0.9.dev1", "1.0")),
        # A number on a line that does not speak of a version is no bump: a dependency's pin.
        ('rich = "2.1.0"\n', 'rich = "2.2.0"\n', None),
        # The same number before and after, or a version line added or taken out, is none.
        ('version = "2.1.0"  # old\n', 'version = "2.1.0"  # new\n', None),
        ("", 'version = "2.2.0"\n', None),
    ],
)
def test_a_version_line_whose_number_changed_is_a_bump(
    before: str, after: str, bump: tuple[str, str] | None
) -> None:
    text = "[project]\n"
    found = bumped("pyproject.toml", text + before + "x\n", text + after + "x\n")
    assert found == ([Bump(path="pyproject.toml", old=bump[0], new=bump[1])] if bump else [])


async def test_the_old_version_is_still_given_only_on_lines_that_speak_of_a_version(
    root: Path,
) -> None:
    (root / "pyproject.toml").write_text(
        PYPROJECT.replace('version = "2.1.0"', 'version = "2.2.0"')
    )
    (root / "src" / "weatherlog").mkdir(parents=True)
    (root / "src" / "weatherlog" / "__init__.py").write_text(
        '"""Weather."""\n__version__ = "2.1.0"\n'
    )
    (root / "requirements.txt").write_text("rich==2.1.0\n")
    (root / "CHANGES.md").write_text("## 2.1.0\n\n- 12.1.0 of nothing\n")
    bump = Bump(path="pyproject.toml", old="2.1.0", new="2.2.0")
    found = await still_given(Workspace([root]), [bump])
    assert [(f.bump, [(p.path, p.line) for p in f.places]) for f in found] == [
        (bump, [("src/weatherlog/__init__.py", 2)])
    ]
    assert await still_given(Workspace([root]), [Bump(path="a", old="9.9", new="10.0")]) == []


async def test_an_edit_that_bumps_a_version_says_where_the_old_one_is_still_given(
    root: Path, ctx: ToolContext
) -> None:
    """Seen (bench: mt-version): asked to bump the version in pyproject.toml and in the
    package's __init__.py, the embedded model bumped pyproject.toml, changed something else,
    and answered."""
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "src" / "weatherlog").mkdir(parents=True)
    (root / "src" / "weatherlog" / "__init__.py").write_text('__version__ = "2.1.0"\n')
    bump = {"old_text": 'version = "2.1.0"', "new_text": 'version = "2.2.0"'}
    runner, _ = agent(
        [
            calls(("read_file", {"path": "pyproject.toml"})),
            calls(("edit_file", {"path": "pyproject.toml", "edits": [bump]})),
            calls(("read_file", {"path": "src/weatherlog/__init__.py"})),
            calls(("edit_file", {"path": "src/weatherlog/__init__.py", "edits": [bump]})),
            say("Bumped to 2.2.0 in pyproject.toml and src/weatherlog/__init__.py."),
        ]
    )
    events = Recorder()
    await runner.run_turn(TurnRequest(task="Bump the version to 2.2.0"), ctx, events)
    first, second = [e.output for e in events.of(ToolResultEvent) if e.tool == "edit_file"]
    assert (
        "[Foehn] The version 2.1.0 became 2.2.0 in pyproject.toml, but 2.1.0 is still given in "
        '1 place:\n  src/weatherlog/__init__.py:1: __version__ = "2.1.0"\n'
        "Where that is the same version, change it to 2.2.0 there too: edit_file with path "
        "'src/weatherlog/__init__.py' and old_text '__version__ = \"2.1.0\"', new_text "
        "'__version__ = \"2.2.0\"'."
    ) in first
    assert "[Foehn]" not in second
    assert (root / "pyproject.toml").read_text() == PYPROJECT.replace("2.1.0", "2.2.0", 1)
