"""``rename`` through the registry on real temporary workspaces: every whole-word use in every
file in one change, and a clear refusal that changes nothing wherever a rename by name could
change something else of the same name."""

from __future__ import annotations

from pathlib import Path

import pytest

from foehn_lsp import ToolContext
from foehn_lsp.agent.chain import steps
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.tools.contract import ToolResult


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


async def rename(registry: ToolRegistry, ctx: ToolContext, name: str, new: str) -> ToolResult:
    return await registry.call("rename", {"name": name, "new_name": new}, ctx, steps=steps())


@pytest.fixture
def project(root: Path) -> Path:
    (root / "units.py").write_text(
        "def c_to_f(celsius):\n    return celsius * 9 / 5 + 32\n\n\nc_to_f_table = {}\n"
    )
    (root / "report.py").write_text(
        "from units import c_to_f\n\n\ndef line(c):\n    # c_to_f rounds nothing\n"
        "    return c_to_f(c)\n"
    )
    (root / "README.md").write_text("Call `c_to_f` with degrees.\n")
    return root


async def test_every_whole_word_use_changes_in_one_call(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await rename(registry, ctx, "c_to_f", "celsius_to_fahrenheit")
    assert result.ok, result.output
    assert result.output.startswith("rename c_to_f to celsius_to_fahrenheit (5 places in 3 files)")
    assert (project / "units.py").read_text().startswith("def celsius_to_fahrenheit(celsius):")
    assert "c_to_f_table = {}" in (project / "units.py").read_text()
    assert (project / "report.py").read_text() == (
        "from units import celsius_to_fahrenheit\n\n\ndef line(c):\n"
        "    # celsius_to_fahrenheit rounds nothing\n    return celsius_to_fahrenheit(c)\n"
    )
    assert (project / "README.md").read_text() == "Call `celsius_to_fahrenheit` with degrees.\n"
    assert "[Foehn]" not in result.output, "nothing of the old name is left to report"


async def test_a_modules_constant_is_renamed_where_it_is_used(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen (bench: ta-warmup): the rename of ``SETTLE_SECONDS = 2.0`` was refused as a name
    defined nowhere. An attribute set on a name (``units.OFFSET = 1``) defines nothing."""
    (project / "units.py").write_text("FREEZING: float = 32\nSCALE, OFFSET = 9 / 5, 0\n")
    (project / "report.py").write_text(
        "import units\nfrom units import FREEZING\n\nunits.OFFSET = 1\nprint(FREEZING)\n"
    )
    result = await rename(registry, ctx, "FREEZING", "WATER_FREEZES")
    assert result.ok, result.output
    assert (project / "units.py").read_text().startswith("WATER_FREEZES: float = 32\n")
    assert "FREEZING" not in (project / "report.py").read_text().replace("WATER_FREEZES", "")
    assert (await rename(registry, ctx, "OFFSET", "SHIFT")).ok
    assert (project / "report.py").read_text().endswith("units.SHIFT = 1\nprint(WATER_FREEZES)\n")
    (project / "legacy.py").write_text("SCALE = 1.8\n")
    twice = await rename(registry, ctx, "SCALE", "FACTOR")
    assert "SCALE is defined 2 times (legacy.py, units.py)" in twice.output


async def test_a_module_named_by_its_dotted_name_is_told_how_to_rename_it(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen (bench: um-conversions): rename of weatherlog.units to weatherlog.conversions was
    refused as "not a name", and the model answered that nothing changed."""
    package = project / "src" / "weatherlog"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "units.py").write_text("def c_to_f(c):\n    return c\n")
    before = snapshot(project)
    result = await rename(registry, ctx, "weatherlog.units", "weatherlog.conversions")
    assert not result.ok
    assert result.output == (
        "weatherlog.units is a module (src/weatherlog/units.py); rename changes names defined "
        "in code. To rename the module: move_path src/weatherlog/units.py to "
        "src/weatherlog/conversions.py, then change each import of it (search for "
        "'weatherlog.units') with edit_file."
    )
    whole = await rename(registry, ctx, "weatherlog", "weatherdata.x")
    assert "'weatherdata.x' is not a name" in whole.output  # no dot: not a module path
    assert snapshot(project) == before


async def test_it_finishes_a_rename_begun_at_the_definition(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    units = project / "units.py"
    units.write_text(units.read_text().replace("def c_to_f(", "def celsius_to_fahrenheit("))
    result = await rename(registry, ctx, "c_to_f", "celsius_to_fahrenheit")
    assert result.ok, result.output
    assert "c_to_f(" not in (project / "report.py").read_text()


@pytest.mark.parametrize(
    ("name", "new", "said"),
    [
        ("c_to_f", "line", "line is already defined (report.py); choose another new_name"),
        ("c_to_f", "c_to_f", "new_name is 'c_to_f' already; nothing to rename"),
        ("c_to_f", "two words", "'two words' is not a name"),
        ("f_to_c", "fahrenheit_to_celsius", "f_to_c appears nowhere in the workspace"),
        ("celsius", "degrees", "celsius is used but defined nowhere in the workspace"),
    ],
)
async def test_what_it_cannot_rename_is_said_and_nothing_changes(
    project: Path, ctx: ToolContext, registry: ToolRegistry, name: str, new: str, said: str
) -> None:
    before = snapshot(project)
    result = await rename(registry, ctx, name, new)
    assert not result.ok
    assert said in result.output
    assert snapshot(project) == before


async def test_a_name_defined_twice_is_refused(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (project / "legacy.py").write_text("def c_to_f(value):\n    return value\n")
    before = snapshot(project)
    result = await rename(registry, ctx, "c_to_f", "celsius_to_fahrenheit")
    assert not result.ok
    assert "c_to_f is defined 2 times (legacy.py, units.py)" in result.output
    assert snapshot(project) == before


async def test_a_name_in_a_file_no_tool_may_write_refuses_the_whole_rename(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """ripgrep leaves out ``.git`` but not ``.GIT``, which the resolver refuses as a repository
    folder: the rename changes nothing rather than every file but that one."""
    (project / ".GIT").mkdir()
    (project / ".GIT" / "notes").write_text("c_to_f\n")
    before = snapshot(project)
    result = await rename(registry, ctx, "c_to_f", "celsius_to_fahrenheit")
    assert not result.ok
    assert "c_to_f appears in .GIT/notes, which cannot change" in result.output
    assert snapshot(project) == before
