"""The file tools through the registry, on real temporary workspaces."""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp import ToolContext
from foehn_lsp.agent.chain import steps
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.workspace import EditPlan, FileAccess, Workspace
from foehn_plugins._calls import new_mismatches
from foehn_plugins._code_checks import parsed
from foehn_plugins._matching import noted_lines, numbered_copies
from foehn_plugins._names import new_undefined
from foehn_plugins._shadowing import hidden_imports, redefined
from foehn_plugins._unrun import lifted, new_unrun


async def call(registry: ToolRegistry, ctx: ToolContext, tool: str, **arguments: object):  # type: ignore[no-untyped-def]
    return await registry.call(tool, arguments, ctx, steps=steps())


@pytest.fixture
def project(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def main():\n    return 1\n")
    (root / "src" / "util.py").write_text("X = 1\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("generated\n")
    (root / "notes.md").write_text("# notes\n")
    (root / "noise.log").write_text("log\n")
    (root / ".gitignore").write_text("build/\n")
    (root / ".foehnignore").write_text("*.log\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref\n")
    return root


# scan


async def test_scan_honours_gitignore_and_foehnignore(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await call(registry, ctx, "scan")
    assert result.ok
    listed = result.output.splitlines()[1:]
    assert listed == [".foehnignore", ".gitignore", "notes.md", "src/app.py", "src/util.py"]


async def test_scan_pattern_subfolder_and_flat_listing(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await call(registry, ctx, "scan", pattern="*.py")
    assert result.output.splitlines()[1:] == ["src/app.py", "src/util.py"]
    result = await call(registry, ctx, "scan", path="src", pattern="app*")
    assert result.output.splitlines()[1:] == ["src/app.py"]
    flat = await call(registry, ctx, "scan", recursive=False)
    assert flat.output.splitlines()[1:] == [".foehnignore", ".gitignore", "notes.md", "src/"]


async def test_scan_caps_entries_and_says_how_to_narrow(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    for i in range(620):
        (root / f"f{i:04}.txt").write_text("")
    result = await call(registry, ctx, "scan")
    assert result.output.startswith("620 entries under .")
    assert "... 120 more not shown; narrow the listing with path=" in result.output
    assert len(result.output.splitlines()) == 502


async def test_scan_of_a_file_or_missing_folder_fails_clearly(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    assert "is a file; use read_file" in (await call(registry, ctx, "scan", path="notes.md")).output
    assert "not there" in (await call(registry, ctx, "scan", path="nope")).output
    near = await call(registry, ctx, "scan", path="source")
    assert "names like it: src/" in near.output


async def test_a_scan_that_finds_nothing_names_the_nearest_files(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (project / "README.md").write_text("# hello\n")
    result = await call(registry, ctx, "scan", pattern="README")
    assert result.output.startswith("no entries under . (recursive, pattern 'README'")
    assert "names like it: README.md" in result.output
    typo = await call(registry, ctx, "scan", pattern="notse.md")
    assert "notes.md" in typo.output
    assert "names like it" not in (await call(registry, ctx, "scan", pattern="*.xyz")).output


async def test_a_scan_for_a_word_that_names_no_file_points_to_search(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model: asked which file has a TODO, it scanned for 'TODO' (file
    names), found nothing, and went on to look for a symbol named TODO."""
    (project / "app.py").write_text("# TODO: fix\n")
    found = await call(registry, ctx, "scan", pattern="TODO")
    assert found.output.startswith("no entries under . (recursive, pattern 'TODO'")
    assert "to find 'TODO' inside files, use search" in found.output
    globbed = await call(registry, ctx, "scan", pattern="*.xyz")
    assert "use search" not in globbed.output, "a glob is plainly about names"


# read_file


async def test_read_file_numbers_lines_and_pages(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 1501)))
    first = await call(registry, ctx, "read_file", path="long.txt")
    assert first.output.splitlines()[0] == "long.txt: lines 1-1000 of 1500"
    assert first.output.splitlines()[1] == "     1\tline 1"
    assert "500 more lines; call read_file with offset=1001 to continue" in first.output
    page = await call(registry, ctx, "read_file", path="long.txt", offset=1499, limit=5)
    assert page.output.splitlines() == [
        "long.txt: lines 1499-1500 of 1500",
        "  1499\tline 1499",
        "  1500\tline 1500",
    ]
    past = await call(registry, ctx, "read_file", path="long.txt", offset=2000)
    assert not past.ok
    assert "has 1500 lines" in past.output


async def test_read_file_caps_characters_and_long_lines(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "wide.txt").write_text(("x" * 5000 + "\n") * 100)
    result = await call(registry, ctx, "read_file", path="wide.txt")
    assert "(3000 more characters)" in result.output
    assert len(result.output) < 70_000
    assert "call read_file with offset=" in result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "is a binary file"),
        (b"caf\xe9\n", "is not UTF-8 text (invalid byte at offset 3)"),
    ],
)
async def test_read_file_refuses_binary_and_undecodable(
    root: Path, ctx: ToolContext, registry: ToolRegistry, content: bytes, message: str
) -> None:
    (root / "data.bin").write_bytes(content)
    result = await call(registry, ctx, "read_file", path="data.bin")
    assert not result.ok
    assert message in result.output


async def test_read_file_refuses_huge_files_and_directories(
    root: Path, registry: ToolRegistry, workspace: Workspace
) -> None:
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace, max_file_bytes=1000))
    (root / "big.txt").write_text("x" * 2000)
    (root / "folder").mkdir()
    big = await call(registry, ctx, "read_file", path="big.txt")
    assert "over the 1,000-byte limit; use search" in big.output
    folder = await call(registry, ctx, "read_file", path="folder")
    assert "is a directory; use scan" in folder.output
    missing = await call(registry, ctx, "read_file", path="nope.txt")
    assert "does not exist" in missing.output


async def test_read_file_sees_the_unsaved_buffer(
    root: Path, registry: ToolRegistry, workspace: Workspace
) -> None:
    (root / "open.py").write_text("on disk\n")
    buffers = {root / "open.py": "in the editor\n"}
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace, buffers=buffers.get))
    result = await call(registry, ctx, "read_file", path="open.py")
    assert "(unsaved editor buffer)" in result.output
    assert "in the editor" in result.output


# write_file


async def test_write_file_creates_with_parents_and_reports_the_diff(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await call(registry, ctx, "write_file", path="new/deep/a.txt", content="one\ntwo\n")
    assert result.ok
    assert (root / "new" / "deep" / "a.txt").read_text() == "one\ntwo\n"
    assert "+++ b/new/deep/a.txt" in result.output
    assert "+two" in result.output


async def test_write_file_refuses_to_replace_a_file_not_read_in_this_session(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await call(registry, ctx, "write_file", path="notes.md", content="new\n")
    assert not result.ok
    assert "read_file notes.md first" in result.output
    assert "edit_file" in result.output
    assert (project / "notes.md").read_text() == "# notes\n"
    await call(registry, ctx, "read_file", path="notes.md")
    again = await call(registry, ctx, "write_file", path="notes.md", content="new\n")
    assert again.ok, again.output
    assert (project / "notes.md").read_text() == "new\n"


async def test_write_file_keeps_crlf_and_permissions(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    path = root / "run.sh"
    path.write_bytes(b"echo a\r\necho b\r\n")
    path.chmod(0o750)
    await call(registry, ctx, "read_file", path="run.sh")
    result = await call(registry, ctx, "write_file", path="run.sh", content="echo c\necho d\n")
    assert result.ok
    assert path.read_bytes() == b"echo c\r\necho d\r\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o750


async def test_write_file_with_identical_content_changes_nothing(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    before = (project / "notes.md").stat().st_mtime_ns
    await call(registry, ctx, "read_file", path="notes.md")
    result = await call(registry, ctx, "write_file", path="notes.md", content="# notes\n")
    assert "nothing changed" in result.output
    assert (project / "notes.md").stat().st_mtime_ns == before


# edit_file


async def test_edit_file_applies_every_block_and_shows_the_diff(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    await call(registry, ctx, "read_file", path="src/app.py")
    result = await call(
        registry,
        ctx,
        "edit_file",
        path="src/app.py",
        edits=[
            {"old_text": "def main():", "new_text": "def main() -> int:"},
            {"old_text": "return 1", "new_text": "return 2"},
        ],
    )
    assert result.ok, result.output
    assert (project / "src" / "app.py").read_text() == "def main() -> int:\n    return 2\n"
    assert result.output.startswith("edit src/app.py (2 blocks)")
    assert "\n-    return 1\n" in result.output
    assert "\n+    return 2" in result.output


async def test_edit_file_is_all_or_nothing_and_names_the_failing_block(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    before = (project / "src" / "app.py").read_bytes()
    await call(registry, ctx, "read_file", path="src/app.py")
    result = await call(
        registry,
        ctx,
        "edit_file",
        path="src/app.py",
        edits=[
            {"old_text": "return 1", "new_text": "return 2"},
            {"old_text": "def mian():", "new_text": "x"},
        ],
    )
    assert not result.ok
    assert "no change was made to src/app.py" in result.output
    assert "block 2: old_text not found" in result.output
    assert "closest text" in result.output
    assert "     1\tdef main():" in result.output
    assert (project / "src" / "app.py").read_bytes() == before


async def test_edit_file_reports_whitespace_only_differences(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    await call(registry, ctx, "read_file", path="src/app.py")
    result = await call(
        registry,
        ctx,
        "edit_file",
        path="src/app.py",
        edits=[{"old_text": "def main():\n  return 1", "new_text": "x"}],
    )
    assert "lines 1-2 match except for whitespace" in result.output


async def test_an_ambiguous_edit_names_the_definition_each_match_is_in(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """A small model edited one line of ``first`` that nine functions of the file have, and
    then read the whole file to tell them apart: the refusal says which function each is in."""
    (root / "m.py").write_text(
        "def first(items, default=None):\n    for item in items:\n        return default\n"
        "    return default\n\n\nclass Last:\n    def pick(self, items, default=None):\n"
        "        for item in items:\n            pass\n        return default\n"
    )
    await call(registry, ctx, "read_file", path="m.py")
    result = await call(
        registry,
        ctx,
        "edit_file",
        path="m.py",
        edits=[{"old_text": "return default", "new_text": "return item"}],
    )
    assert not result.ok
    assert "matches 3 times (at lines 3 in first, 4 in first, 11 in Last.pick)" in result.output
    assert "the line before or after it" in result.output
    assert "return item" not in (root / "m.py").read_text()


TWO_SCALES = (
    "def celsius(value, unit=None):\n    if unit is None:\n        return value\n"
    "    return value - 273.15\n\n\ndef fahrenheit(value, unit=None):\n"
    "    if unit is None:\n        return value\n    return value * 9 / 5 - 459.67\n"
)


async def test_an_ambiguous_edit_changes_the_one_in_the_definition_a_tool_pointed_to(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Right after a failing run that pointed into ``floor``, a small model's edit named a line
    ``floor`` shares with ``ceil``, was refused, and never found its way back: the match inside
    the definition a tool last pointed to is the one changed, and the result says so."""
    (root / "m.py").write_text(TWO_SCALES)
    await call(registry, ctx, "read_file", path="m.py")
    edit = {"old_text": "    if unit is None:", "new_text": "    if not unit:"}
    refused = await call(registry, ctx, "edit_file", path="m.py", edits=[edit])
    assert "matches 2 times (at lines 2 in celsius, 8 in fahrenheit)" in refused.output
    assert (root / "m.py").read_text() == TWO_SCALES
    await call(registry, ctx, "search", pattern="459.67")  # a hit on line 10, in fahrenheit
    result = await call(registry, ctx, "edit_file", path="m.py", edits=[edit])
    assert result.ok, result.output
    assert (
        "block 1's old_text is in 2 places; the one changed is in fahrenheit (line 8), where a "
        "tool last pointed (line 10)" in result.output
    )
    assert (root / "m.py").read_text() == TWO_SCALES.replace(
        "unit=None):\n    if unit is None:\n        return value\n    return value * 9",
        "unit=None):\n    if not unit:\n        return value\n    return value * 9",
    )


async def test_an_edit_found_twice_where_a_tool_pointed_or_with_no_definition_there_is_refused(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    text = "LIMIT = 1\n\n\ndef first(items):\n    x = 1\n    x = 1\n    return x\n\n\nx = 1\n"
    (root / "m.py").write_text(text)
    await call(registry, ctx, "read_file", path="m.py")
    for pattern, edit in [
        ("return x", {"old_text": "    x = 1", "new_text": "    x = 2"}),  # twice in first
        ("LIMIT", {"old_text": "x = 1", "new_text": "x = 2"}),  # no definition holds line 1
    ]:
        await call(registry, ctx, "search", pattern=pattern)
        result = await call(registry, ctx, "edit_file", path="m.py", edits=[edit])
        assert not result.ok
        assert "include more surrounding lines" in result.output
    assert (root / "m.py").read_text() == text


def trees(path: str, before: str, after: str) -> tuple[ast.Module, ast.Module]:
    both = parsed(path, before, after)
    assert both is not None, "both texts parse"
    return both


REPORT = (
    "from weatherlog.units import c_to_f\n\n\ndef line(celsius):\n"
    '    return f"{c_to_f(celsius)} F"\n'
)
SECOND_C_TO_F = "def c_to_f(celsius):\n    return celsius * 9 / 5 + 32\n\n\ndef line(celsius):"


async def test_an_edit_that_defines_a_name_the_file_imports_is_refused(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model (the held-out task mt-report): the bug was in ``units.py``;
    it wrote a second ``c_to_f`` into ``report.py``, which imports it, so the test of
    ``report.py`` passed and ``units.py`` stayed wrong."""
    package = root / "src" / "weatherlog"
    package.mkdir(parents=True)
    units = "def c_to_f(celsius):\n    return celsius * 5 / 9 + 32\n"
    (package / "units.py").write_text(units)
    (package / "report.py").write_text(REPORT)
    await call(registry, ctx, "read_file", path="src/weatherlog/report.py")
    edit = {"old_text": "def line(celsius):", "new_text": SECOND_C_TO_F}
    result = await call(registry, ctx, "edit_file", path="src/weatherlog/report.py", edits=[edit])
    assert not result.ok
    assert result.output == (
        "no change was made to src/weatherlog/report.py: the edit defines c_to_f (line 4), which "
        "src/weatherlog/report.py imports from weatherlog.units (line 1). The new definition "
        "would hide the imported one, and code that imports c_to_f from weatherlog.units would "
        "still get the old one. Change c_to_f in src/weatherlog/units.py, where it is defined; if "
        "src/weatherlog/report.py is to have its own c_to_f, take c_to_f out of the import in "
        "the same edit."
    )
    whole = REPORT.replace("def line(celsius):", SECOND_C_TO_F)
    replaced = await call(
        registry, ctx, "write_file", path="src/weatherlog/report.py", content=whole
    )
    assert not replaced.ok
    assert "Change c_to_f in src/weatherlog/units.py, where it is defined" in replaced.output
    assert (package / "report.py").read_text() == REPORT
    moved = await call(
        registry,
        ctx,
        "write_file",
        path="src/weatherlog/report.py",
        content=whole.replace("from weatherlog.units import c_to_f\n", ""),
    )
    assert moved.ok, "taken out of the import, the definition is the module's own"


async def test_an_edit_that_defines_a_name_twice_is_refused(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model (mt-report, after the refusal above): it wrote the fixed
    ``c_to_f`` into ``units.py`` with the wrong one again below it, which replaced it."""
    wrong = "def c_to_f(celsius):\n    return celsius * 5 / 9 + 32\n"
    (root / "units.py").write_text(wrong)
    await call(registry, ctx, "read_file", path="units.py")
    right = wrong.replace("5 / 9", "9 / 5")
    edit = {"old_text": wrong, "new_text": f"{right}\n\n{wrong}"}
    result = await call(registry, ctx, "edit_file", path="units.py", edits=[edit])
    assert result.output == (
        "no change was made to units.py: the edit defines c_to_f twice at the top level (lines 1 "
        "and 5), and the later one replaces the earlier as the module loads. Change the c_to_f "
        "that is there instead of adding another."
    )
    assert (root / "units.py").read_text() == wrong
    overloads = "@overload\ndef f(x: int) -> int: ...\n@overload\ndef f(x: str) -> str: ...\n"
    assert redefined(*trees("m.py", "", overloads + "def f(x):\n    return x\n")) == []


@pytest.mark.parametrize(
    ("before", "after", "hidden"),
    [
        ("from .units import c_to_f\n", "from .units import c_to_f\n\nclass c_to_f: ...\n", 1),
        ("from m import a as b\n", "from m import a as b\n\ndef b(): ...\n", 1),
        ("from m import a\n", "from m import a\n\ndef run():\n    def a(): ...\n", 0),
        ("from m import a\n\ndef a(): ...\n", "from m import a\n\ndef a(): return 1\n", 0),
        (
            "try:\n    from m import a\nexcept ImportError:\n    pass\n",
            "try:\n    from m import a\nexcept ImportError:\n    def a(): ...\n",
            0,
        ),
    ],
)
def test_which_definitions_hide_an_import(before: str, after: str, hidden: int) -> None:
    assert len(hidden_imports(*trees("m.py", before, after))) == hidden
    assert parsed("m.txt", before, after) is None, "only Python is read"


SUB = "import re\n\n\ndef strip(rule, word):\n    return re.sub(rule, '', word)\n"


async def test_an_edit_that_uses_a_name_defined_nowhere_is_refused(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model (bench: nh-inf-transliterate): it wrote ``re.sub(ruule,
    …)`` for ``rule``; the edit parsed, and the line would have raised NameError."""
    (root / "m.py").write_text(SUB)
    await call(registry, ctx, "read_file", path="m.py")
    typo = {"old_text": "re.sub(rule,", "new_text": "re.sub(ruule,"}
    result = await call(registry, ctx, "edit_file", path="m.py", edits=[typo])
    assert not result.ok
    assert result.output == (
        "no change was made to m.py: the edit uses names defined nowhere in m.py and not among "
        "Python's builtins, which would raise NameError when they run: ruule (line 5; did you "
        "mean rule?). Use names the file has, or define or import them in the same edit."
    )
    assert (root / "m.py").read_text() == SUB
    imported = [
        {"old_text": "import re\n", "new_text": "import re\nimport string\n"},
        {"old_text": "'', word)", "new_text": "string.whitespace, word)"},
    ]
    assert (await call(registry, ctx, "edit_file", path="m.py", edits=imported)).ok


async def test_a_standard_module_used_without_its_import_is_refused_with_the_block_to_add(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model (bench: ri-station-env): it wrote
    ``default=os.getenv('WEATHERLOG_STATION', 'home')`` in a file without ``import os``, was
    refused, and answered without trying again."""
    text = 'import argparse\n\n\ndef parser():\n    return argparse.ArgumentParser("home")\n'
    (root / "cli.py").write_text(text)
    await call(registry, ctx, "read_file", path="cli.py")
    env = {"old_text": '("home")', "new_text": '(os.getenv("STATION", "home"))'}
    result = await call(registry, ctx, "edit_file", path="cli.py", edits=[env])
    assert result.output.endswith(
        "or define or import them in the same edit. os: Python's standard library; import it "
        "in the same edit, with one more block: old_text 'import argparse', new_text "
        "'import argparse\\nimport os'."
    )
    block = {"old_text": "import argparse", "new_text": "import argparse\nimport os"}
    assert (await call(registry, ctx, "edit_file", path="cli.py", edits=[block, env])).ok
    assert (root / "cli.py").read_text().startswith("import argparse\nimport os\n")
    (root / "plain.py").write_text("def f():\n    return 1\n")
    await call(registry, ctx, "read_file", path="plain.py")
    dumps = {"old_text": "return 1", "new_text": "return json.dumps(1)"}
    result = await call(registry, ctx, "edit_file", path="plain.py", edits=[dumps])
    assert result.output.endswith(
        "json: Python's standard library; import it at the top of the file ('import json') in "
        "the same edit."
    )


CLI = (
    "from weatherlog.report import line\n\n\ndef main(args):\n"
    "    print(line(args.station, args.celsius))\n"
)


async def test_an_edit_that_calls_a_workspace_function_as_it_is_not_defined_is_refused(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model (bench: pa-kelvin): asked for a ``--kelvin`` flag, it wrote
    ``line(args.station, args.celsius, '--kelvin')`` for ``def line(station, celsius)`` in
    another module, and answered that the flag worked."""
    (root / "src" / "weatherlog").mkdir(parents=True)
    report = "def line(station, celsius):\n    return f'{station}: {celsius}'\n"
    (root / "src" / "weatherlog" / "report.py").write_text(report)
    (root / "src" / "weatherlog" / "cli.py").write_text(CLI)
    await call(registry, ctx, "read_file", path="src/weatherlog/cli.py")
    flag = {"old_text": "args.celsius))", "new_text": "args.celsius, '--kelvin'))"}
    result = await call(registry, ctx, "edit_file", path="src/weatherlog/cli.py", edits=[flag])
    assert result.output == (
        "no change was made to src/weatherlog/cli.py: the call of line on line 5 gives 3 "
        "positional arguments; it takes 2: it is defined in src/weatherlog/report.py as "
        "line(station, celsius), and the call would raise TypeError when it runs. Call line as "
        "it is defined; if it is to take more, change its definition first."
    )
    assert (root / "src" / "weatherlog" / "cli.py").read_text() == CLI
    # Its definition changed first (in the editor's buffer, not yet saved), the call is taken.
    wider = report.replace("celsius):", "celsius, unit='C'):")
    buffers = {root / "src" / "weatherlog" / "report.py": wider}
    ctx.files.buffers = buffers.get
    result = await call(registry, ctx, "edit_file", path="src/weatherlog/cli.py", edits=[flag])
    assert result.ok, result.output


@pytest.mark.parametrize(
    ("after", "found"),
    [
        ("def f(a, b=1):\n    pass\n\n\nf(1)\nf(1, 2)\nf(a=1, b=2)\n", []),
        ("def f(a, b=1):\n    pass\n\n\nf()\n", [(5, "leaves out a, which it needs")]),
        (
            "def f(a):\n    pass\n\n\nf(1, c=2)\n",
            [(5, "gives the keyword c, which it has no parameter for")],
        ),
        ("def f(x, *, y):\n    pass\n\n\nf(1)\n", [(5, "leaves out y, which it needs")]),
        ("def f(*args, **kw):\n    pass\n\n\nf(1, 2, c=3)\n", []),
        ("def f(a):\n    pass\n\n\nxs = [1, 2]\nf(*xs)\n", []),
        ("import functools\n\n\n@functools.cache\ndef f(a):\n    pass\n\n\nf(1, 2)\n", []),
        ("def f(a):\n    pass\n\n\ndef g(f):\n    return f(1, 2)\n", []),  # f rebound
        ("print(len([1], 2))\n", []),  # not the workspace's
    ],
)
def test_which_calls_their_function_does_not_take(
    after: str, found: list[tuple[int, str]], root: Path
) -> None:
    mismatches = new_mismatches(*trees("m.py", "", after), root / "m.py", [root])
    assert [(m.line, m.why) for m in mismatches] == found
    assert new_mismatches(*trees("m.py", after, after + "\n"), root / "m.py", [root]) == [], (
        "only the calls an edit brings in"
    )


def test_only_the_modules_a_new_call_is_imported_from_are_read(root: Path) -> None:
    """Every edit of a Python file is checked: the modules it imports are not all read again."""
    (root / "units.py").write_text("def c_to_f(c):\n    return c * 9 / 5 + 32\n")
    (root / "report.py").write_text("def line(station, celsius):\n    return station\n")
    before = "from units import c_to_f\nfrom report import line\n\nline('a', c_to_f(1))\n"
    read: list[str] = []

    def buffers(path: Path) -> str | None:
        read.append(path.name)
        return None

    after = before + "c_to_f(1, 2)\n"
    [mismatch] = new_mismatches(*trees("m.py", before, after), root / "m.py", [root], buffers)
    assert (mismatch.name, read) == ("c_to_f", ["units.py"])
    read.clear()
    assert (
        new_mismatches(*trees("m.py", before, before + "x = 1\n"), root / "m.py", [root], buffers)
        == []
    )
    assert read == [], "an edit that brings in no call reads no module"


@pytest.mark.parametrize(
    ("after", "undefined"),
    [
        ("def f(xs):\n    return [x for x in xs if (n := x)] and n\n", []),
        ("try:\n    pass\nexcept OSError as e:\n    print(e, __file__)\n", []),
        ("def f():\n    return later()\n\n\ndef later():\n    return len([])\n", []),
        (
            "def f(p):\n    match p:\n        case {'a': a, **rest}:\n            return a, rest\n",
            [],
        ),
        ("def f():\n    global G\n    G = 1\n\n\ndef g():\n    return G\n", []),
        ("from os.path import *\n\nprint(joined)\n", []),
        ("print(lenght([]))\n", [("lenght", 1, "len")]),
        ("x = 1\nprint(y, y)\nprint(z)\n", [("y", 2, None), ("z", 3, None)]),
    ],
)
def test_which_names_an_edit_uses_but_defines_nowhere(
    after: str, undefined: list[tuple[str, int, str | None]]
) -> None:
    found = new_undefined(*trees("m.py", "", after))
    assert [(u.name, u.line, u.like) for u in found] == undefined
    assert new_undefined(*trees("m.py", after, after + "\n")) == [], (
        "only the names an edit brings in"
    )


async def test_an_edit_that_writes_read_files_line_numbers_is_refused(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model (bench: nh-tz-partitionby): new_text began with ``46`` and
    the spaces read_file shows before line 46; it landed in a docstring, where it parsed."""
    text = 'def partitionby(func, seq):\n    """Groups."""\n    return pluck(0, groupby(seq))\n'
    (root / "m.py").write_text(text)
    await call(registry, ctx, "read_file", path="m.py")
    edit = {
        "old_text": '    """Groups."""',
        "new_text": "     3        return pluck(1, groupby(seq))",
    }
    result = await call(registry, ctx, "edit_file", path="m.py", edits=[edit])
    assert not result.ok
    assert result.output == (
        "no change was made to m.py:\n- block 1: new_text has read_file's line numbers in front "
        "of its lines (3); write the lines as the file has them, without the numbers"
    )
    assert (root / "m.py").read_text() == text


@pytest.mark.parametrize(
    ("new", "numbers"),
    [
        ("     2\tb = 2", [2]),
        ("2  b = 3\n    3        c = 3", [2, 3]),
        ("2  one", []),  # not line 2
        ("9  b = 2", []),  # the file has no line 9
        ("b = 2", []),
    ],
)
def test_which_lines_carry_read_files_numbers(new: str, numbers: list[int]) -> None:
    assert numbered_copies(new, "a = 1\nb = 2\nc = 3\n") == numbers


async def test_an_edit_that_writes_a_note_after_its_code_as_the_trace_does_is_refused(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model (bench: ni-mi-mark-ends): after a traced run, which marks
    lines with ``   <- x = …``, it wrote ``    for a in it:   <- added a return statement``.
    Where such a note parses (``return a   <- a`` compares), it would change what the code
    does."""
    text = "def last(a):\n    return a\n"
    (root / "m.py").write_text(text)
    await call(registry, ctx, "read_file", path="m.py")
    edit = {"old_text": "    return a", "new_text": "    return a   <- a = 1"}
    result = await call(registry, ctx, "edit_file", path="m.py", edits=[edit])
    assert result.output == (
        "no change was made to m.py:\n- block 1: new_text has a note after its code ('return a "
        "  <- a = 1'), as the traced run marks lines; write the code alone, without the note"
    )
    assert (root / "m.py").read_text() == text


async def test_a_write_or_an_edit_that_copies_a_tools_diff_or_note_is_refused(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model (bench: mo-version): it wrote the previous edit's result,
    its diff and Foehn's note, as the whole of pyproject.toml. In a Markdown file no parser
    refuses that; the file keeps its text."""
    text = "# Changes\n\n## 2.1.0\n- CSV export\n"
    (root / "CHANGES.md").write_text(text)
    await call(registry, ctx, "read_file", path="CHANGES.md")
    copied = (
        "--- a/CHANGES.md\n+++ b/CHANGES.md\n@@ -1,3 +1,4 @@\n # Changes\n+## 2.2.0\n"
        "[Foehn] The version 2.1.0 became 2.2.0 in CHANGES.md"
    )
    result = await call(registry, ctx, "write_file", path="CHANGES.md", content=copied)
    assert result.output == (
        "no change was made to CHANGES.md: content has a [Foehn] note, which a tool's result "
        "showed, not the file's text. Give the file's whole text as it is to be, or change a "
        "part of it with edit_file."
    )
    diff_only = copied.rsplit("\n", 1)[0]
    result = await call(registry, ctx, "write_file", path="NEW.md", content=diff_only)
    assert "content has a diff's header (--- a/CHANGES.md)" in result.output
    edit = {
        "old_text": "- CSV export",
        "new_text": "- CSV export\n[Foehn] That edit changes nothing",
    }
    result = await call(registry, ctx, "edit_file", path="CHANGES.md", edits=[edit])
    assert "block 1: new_text has a [Foehn] note, which a tool's result showed" in result.output
    assert (root / "CHANGES.md").read_text() == text
    assert not (root / "NEW.md").exists()


async def test_a_write_that_copies_read_files_result_is_refused(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model (bench: mt-version): read_file's result, its header and
    numbered lines, written back as the whole of a file."""
    text = '[project]\nname = "weatherlog"\nversion = "2.1.0"\n'
    (root / "pyproject.toml").write_text(text)
    (root / "NOTES.md").write_text("# Notes\n\nversion 2.1.0 ships CSV export\n")
    read = await call(registry, ctx, "read_file", path="pyproject.toml")
    await call(registry, ctx, "read_file", path="NOTES.md")
    assert read.output.startswith("pyproject.toml: lines 1-3 of 3\n")
    copied = read.output.replace("2.1.0", "3.0.0")
    result = await call(registry, ctx, "write_file", path="pyproject.toml", content=copied)
    assert result.output == (
        "no change was made to pyproject.toml: content has read_file's header (pyproject.toml: "
        "lines 1-3 of 3), which a tool's result showed, not the file's text. Give the file's "
        "whole text as it is to be, or change a part of it with edit_file."
    )
    numbered = "     1\t# Notes\n     2\t\n     3\tversion 3.0.0 ships CSV export\n"
    result = await call(registry, ctx, "write_file", path="NOTES.md", content=numbered)
    assert result.output == (
        "no change was made to NOTES.md: content has read_file's line numbers in front of its "
        "lines (1, 3); write the lines as the file is to have them, without the numbers"
    )
    assert (root / "pyproject.toml").read_text() == text
    assert (root / "NOTES.md").read_text() == "# Notes\n\nversion 2.1.0 ships CSV export\n"


@pytest.mark.parametrize(
    ("new", "noted"),
    [
        ("    for a in it:   <- added a return statement", True),
        ("x = 1   <- x = 1", True),
        ("if a <- b:", False),  # code, not a note
        ("old   <- kept", False),  # the file has it
        ("y = 2", False),
    ],
)
def test_which_lines_carry_a_note_as_the_trace_does(new: str, noted: bool) -> None:
    assert noted_lines(new, "old   <- kept\n") == ([new] if noted else [])


MEAN = "def mean(values):\n    return sum(values) / len(values)\n"
MEDIAN = "    def median(values):\n        return sorted(values)[len(values) // 2]\n"


async def test_a_definition_indented_after_a_functions_end_is_put_beside_it(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen with the embedded model (bench: mt-median, mo-count-above): asked for a median with
    its test, it indented ``def median`` under ``mean``'s return, and its tests under
    ``test_mean``; refused for it, it wrote the same edit again seven times in a row. edit_file
    puts such a definition beside the function; other code that never runs is still refused,
    and write_file, which replaces a whole file, refuses it too."""
    (root / "stats.py").write_text(MEAN)
    (root / "tests").mkdir()
    (root / "tests" / "test_stats.py").write_text("def test_mean():\n    assert mean([2]) == 2\n")
    await call(registry, ctx, "read_file", path="stats.py")
    await call(registry, ctx, "read_file", path="tests/test_stats.py")
    replaced = await call(registry, ctx, "write_file", path="stats.py", content=MEAN + MEDIAN)
    assert replaced.output == (
        "no change was made to stats.py: the edit adds code that never runs (line 3: it follows "
        "the return on line 2). A new function goes at the file's top level, not indented under "
        "the function before it."
    )
    nested = {"old_text": "== 2\n", "new_text": "== 2\n\n    def test_median():\n        pass\n"}
    result = await call(registry, ctx, "edit_file", path="tests/test_stats.py", edits=[nested])
    assert "line 4: test_median is defined inside test_mean, and pytest collects" in result.output
    assert (
        root / "tests" / "test_stats.py"
    ).read_text() == "def test_mean():\n    assert mean([2]) == 2\n"
    after = {"old_text": "len(values)\n", "new_text": "len(values)\n\n" + MEDIAN}
    result = await call(registry, ctx, "edit_file", path="stats.py", edits=[after])
    assert result.output.startswith(
        "edit stats.py (1 block); median was indented under mean, after its end, where it would "
        "never run: it is put beside mean\n"
    )
    assert (root / "stats.py").read_text() == MEAN + "\n" + MEDIAN.replace("\n    ", "\n")[4:]


@pytest.mark.parametrize(
    ("after", "lifted_to"),
    [
        (  # a method indented under the method before it, with its decorator
            "class A:\n    def f(self):\n        return 1\n\n        @staticmethod\n"
            "        def g():\n            return 2\n",
            "class A:\n    def f(self):\n        return 1\n\n    @staticmethod\n"
            "    def g():\n        return 2\n",
        ),
        # Anything but definitions after the end is left to the refusal.
        ("def f():\n    return 1\n    x = 2\n    def g():\n        pass\n", None),
        ("def f():\n    return 1\n", None),
    ],
)
def test_which_definitions_after_a_functions_end_are_put_beside_it(
    after: str, lifted_to: str | None
) -> None:
    found = lifted("m.py", "", after)
    assert (found.text if found else None) == lifted_to
    if found is not None:
        assert not new_unrun("m.py", *trees("m.py", "", found.text))


@pytest.mark.parametrize(
    ("path", "after", "lines"),
    [
        ("m.py", "def f():\n    raise ValueError\n    x = 1\n", [3]),
        ("m.py", "for x in y:\n    continue\n    print(x)\n", [3]),
        ("m.py", "def gen():\n    raise RuntimeError\n    yield 1\n", []),
        ("tests/test_m.py", "def test_a():\n    def test():\n        pass\n    test()\n", []),
        ("m.py", "def f():\n    def test_a():\n        pass\n", []),  # not a test file
        ("tests/test_m.py", "class TestA:\n    def test_a(self):\n        pass\n", []),
    ],
)
def test_which_code_never_runs(path: str, after: str, lines: list[int]) -> None:
    assert [u.line for u in new_unrun(path, *trees(path, "", after))] == lines
    assert new_unrun(path, *trees(path, after, after + "\n")) == [], "only what an edit brings in"


@pytest.mark.parametrize(
    ("path", "after", "fix"),
    [
        ("m.py", "def f():\n    return 1\n    def g():\n        pass\n", "A new function goes"),
        ("m.py", "def f():\n    return 1\n    class G:\n        pass\n", "A new function goes"),
        ("m.py", "def f():\n    return 1\n    x = 2\n", "Put it before the return, or"),
        ("m.py", "while y:\n    break\n    y()\n", "Put it before the break, or leave it"),
        ("tests/test_m.py", "def test_a():\n    def test_b():\n        pass\n", "A new function"),
    ],
)
def test_what_to_do_with_code_that_never_runs_fits_the_code(
    path: str, after: str, fix: str
) -> None:
    (unrun,) = new_unrun(path, *trees(path, "", after))
    assert unrun.fix.startswith(fix)


async def test_edit_file_refuses_ambiguous_overlapping_and_empty_blocks(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "r.txt").write_text("a = 1\nb = 1\na = 1\n")
    await call(registry, ctx, "read_file", path="r.txt")
    result = await call(
        registry, ctx, "edit_file", path="r.txt", edits=[{"old_text": "a = 1", "new_text": "a = 2"}]
    )
    assert "matches 2 times (at lines 1, 3); include more surrounding lines" in result.output
    assert (root / "r.txt").read_text() == "a = 1\nb = 1\na = 1\n"
    overlap = await call(
        registry,
        ctx,
        "edit_file",
        path="r.txt",
        edits=[
            {"old_text": "a = 1\nb", "new_text": "x"},
            {"old_text": "b = 1\na", "new_text": "y"},
        ],
    )
    assert "blocks 1 and 2 overlap; merge them into one block" in overlap.output
    empty = await call(
        registry, ctx, "edit_file", path="r.txt", edits=[{"old_text": "", "new_text": "y"}]
    )
    assert "old_text is empty" in empty.output
    none = await call(registry, ctx, "edit_file", path="r.txt", edits=[])
    assert "arguments/edits" in none.output
    assert (root / "r.txt").read_text() == "a = 1\nb = 1\na = 1\n"


async def test_blocks_that_share_a_line_both_keep_are_one_edit(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """A model gives the line between two changes as the end of one block and the start of the
    next (as the embedded model did in toolz's ``groupby``): both keep it, so the edit is one
    block; blocks that change the text they share stay refused."""
    before = "def f(seq):\n    d = {}\n    for x in seq:\n        d[x] = 1\n    return d\n"
    (root / "g.py").write_text(before)
    await call(registry, ctx, "read_file", path="g.py")
    changed = await call(
        registry,
        ctx,
        "edit_file",
        path="g.py",
        edits=[
            {
                "old_text": "    d = {}\n    for x in seq:",
                "new_text": "    d = []\n    for x in seq:",
            },
            {
                "old_text": "    for x in seq:\n        d[x] = 1",
                "new_text": "    for x in seq:\n        d.append(x)",
            },
        ],
    )
    assert changed.ok, changed.output
    assert "blocks 1 and 2 share line 3, which both keep: joined" in changed.output
    after = "def f(seq):\n    d = []\n    for x in seq:\n        d.append(x)\n    return d\n"
    assert (root / "g.py").read_text() == after
    refused = await call(
        registry,
        ctx,
        "edit_file",
        path="g.py",
        edits=[
            {
                "old_text": "    d = []\n    for x in seq:",
                "new_text": "    d = []\n    for y in seq:",
            },
            {
                "old_text": "    for x in seq:\n        d.append(x)",
                "new_text": "    for x in seq:\n        d.append(2)",
            },
        ],
    )
    assert "blocks 1 and 2 overlap; merge them into one block" in refused.output
    assert (root / "g.py").read_text() == after


async def test_edit_file_matches_lf_blocks_in_crlf_files(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await call(registry, ctx, "read_file", path="w.txt")
    result = await call(
        registry,
        ctx,
        "edit_file",
        path="w.txt",
        edits=[{"old_text": "one\ntwo", "new_text": "1\n2"}],
    )
    assert result.ok, result.output
    assert (root / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_a_file_changed_between_planning_and_applying_is_not_overwritten(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    await call(registry, ctx, "read_file", path="src/app.py")
    tool = registry.get("edit_file")
    assert tool is not None
    assert tool.plan is not None
    arguments = tool.validate(
        {"path": "src/app.py", "edits": [{"old_text": "return 1", "new_text": "return 2"}]}
    )
    plan = await tool.plan(arguments, ctx)
    assert isinstance(plan, EditPlan)
    (project / "src" / "app.py").write_text("someone else's change\n")
    outcome = await ctx.files.apply(plan)
    assert not outcome.applied
    assert "changed on disk since it was read" in outcome.reason
    assert (project / "src" / "app.py").read_text() == "someone else's change\n"


async def test_plans_preview_without_applying(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    cases: list[tuple[str, dict[str, Any]]] = [
        ("write_file", {"path": "notes.md", "content": "changed\n"}),
        ("edit_file", {"path": "src/util.py", "edits": [{"old_text": "1", "new_text": "2"}]}),
        ("delete_path", {"path": "src", "recursive": True}),
        ("move_path", {"source": "notes.md", "destination": "docs/notes.md"}),
        ("make_directory", {"path": "docs"}),
    ]
    await call(registry, ctx, "read_file", path="notes.md")
    await call(registry, ctx, "read_file", path="src/util.py")
    for name, arguments in cases:
        tool = registry.get(name)
        assert tool is not None
        assert tool.plan is not None
        plan = await tool.plan(tool.validate(arguments), ctx)
        assert isinstance(plan, EditPlan), name
        assert plan.diff(ctx.workspace)
    assert (project / "notes.md").read_text() == "# notes\n"
    assert (project / "src" / "util.py").exists()
    assert not (project / "docs").exists()


# move, make_directory, delete


async def test_move_path_and_its_risk(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    tool = registry.get("move_path")
    assert tool is not None
    replace = tool.validate({"source": "notes.md", "destination": "src/util.py"})
    fresh = tool.validate({"source": "notes.md", "destination": "docs/notes.md"})
    assert tool.risk_of(replace, ctx).value == "destructive"
    assert tool.risk_of(fresh, ctx).value == "write"
    result = await call(registry, ctx, "move_path", source="notes.md", destination="docs/notes.md")
    assert result.ok, result.output
    assert (project / "docs" / "notes.md").read_text() == "# notes\n"
    assert not (project / "notes.md").exists()
    into_self = await call(registry, ctx, "move_path", source="src", destination="src/inner")
    assert "into itself" in into_self.output


async def test_make_directory(root: Path, ctx: ToolContext, registry: ToolRegistry) -> None:
    result = await call(registry, ctx, "make_directory", path="a/b/c")
    assert result.ok
    assert (root / "a" / "b" / "c").is_dir()
    again = await call(registry, ctx, "make_directory", path="a/b/c")
    assert "already exists" in again.output


async def test_delete_path_needs_recursive_for_folders(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    refused = await call(registry, ctx, "delete_path", path="src")
    assert "pass recursive=true" in refused.output
    assert (project / "src").exists()
    result = await call(registry, ctx, "delete_path", path="src", recursive=True)
    assert result.ok
    assert not (project / "src").exists()
    file_result = await call(registry, ctx, "delete_path", path="notes.md")
    assert "-# notes" in file_result.output
    assert not (project / "notes.md").exists()


def test_a_killed_writer_leaves_the_old_file_or_the_new_one(root: Path) -> None:
    """A real crash: a child process rewrites a 4 MB file in a loop and is SIGKILLed."""
    import signal
    import subprocess
    import sys
    import time

    target = root / "data.txt"
    size = 4 * 1024 * 1024
    target.write_text("A" * size)
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"""
import itertools, sys
from pathlib import Path
from typing import Any
from foehn_lsp.workspace import Workspace
from foehn_lsp.workspace.edits import atomic_write
ws = Workspace([{str(root)!r}])
print("ready", flush=True)
for letter in itertools.cycle(b"BA"):
    atomic_write(ws, Path({str(target)!r}), bytes([letter]) * {size})
""",
        ],
        stdout=subprocess.PIPE,
    )
    assert child.stdout is not None
    assert child.stdout.readline() == b"ready\n"
    time.sleep(0.3)
    child.send_signal(signal.SIGKILL)
    child.wait()
    data = target.read_bytes()
    assert len(data) == size
    assert data in (b"A" * size, b"B" * size)
    leftovers = [name for name in os.listdir(root) if name.endswith(".foehn-tmp")]
    assert len(leftovers) <= 1  # at most the one being written when killed; never the target


@pytest.mark.parametrize(
    "path",
    [
        "../canary/secret.txt::test_x",
        "src/app.py::../../canary/secret.txt",
        "/etc/passwd::root",
        "::../canary/secret.txt",
    ],
)
async def test_a_node_id_path_reads_nothing_outside_the_workspace(
    registry: ToolRegistry, ctx: ToolContext, project: Path, canary: Path, path: str
) -> None:
    result = await call(registry, ctx, "read_file", path=path)
    assert "TOP-SECRET" not in result.output
    assert "root:" not in result.output
    assert (canary / "secret.txt").read_text() == "TOP-SECRET\n"
