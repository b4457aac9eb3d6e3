"""``outline``, ``read_symbol`` and the edit guards that rest on them, through the registry on
real temporary workspaces. Guards are checked by their effect: the file's bytes afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from foehn_lsp import ToolContext
from foehn_lsp.agent.chain import steps
from foehn_lsp.tools import ToolRegistry

STORE = """\
from inventory.models import Item


class Store:
    def __init__(self) -> None:
        self.items: dict[str, Item] = {}

    @property
    def size(self) -> int:
        return len(self.items)

    def restock(self, name: str, count: int) -> None:
        self.items[name].quantity += count


def average(values):
    return sum(values) / len(values)
"""


async def call(registry: ToolRegistry, ctx: ToolContext, tool: str, **arguments: Any):  # type: ignore[no-untyped-def]
    return await registry.call(tool, arguments, ctx, steps=steps())


@pytest.fixture
def package(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "store.py").write_text(STORE)
    (root / "src" / "site.js").write_text(
        "class Page {\n  render() {\n    return '<p>'\n  }\n}\n\nfunction slugify(text) {\n"
        "  return text.toLowerCase()\n}\n"
    )
    (root / "src" / "broken.py").write_text("def ok():\n    return 1\n\ndef bad(:\n    pass\n")
    (root / "config.json").write_text('{\n  "name": "inventory",\n  "debug": true\n}\n')
    (root / "settings.toml").write_text("[server]\nport = 8080\ndebug = true\n")
    return root


async def test_outline_lists_definitions_with_line_ranges(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await call(registry, ctx, "outline", path="src/store.py")
    assert result.ok, result.output
    lines = result.output.splitlines()
    assert lines[0] == "src/store.py: 5 definitions (Python, parsed with ast), lines first-last:"
    assert " 4-13  class Store:" in lines
    assert " 8-10    def size(self) -> int:" in lines
    assert "12-13    def restock(self, name: str, count: int) -> None:" in lines
    assert "16-17  def average(values):" in lines
    assert "name='Store.__init__'" in lines[-1]


async def test_outline_of_a_folder_outlines_each_source_file(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await call(registry, ctx, "outline", path=".")
    assert result.ok, result.output
    assert result.output.startswith("3 source files under .")
    assert "src/site.js:" in result.output
    assert "function slugify(text) {" in result.output
    assert "src/broken.py:  (does not parse as Python" in result.output
    assert "config.json" not in result.output


async def test_a_file_that_does_not_parse_gets_a_plain_listing_that_says_so(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await call(registry, ctx, "outline", path="src/broken.py")
    assert result.ok
    header = result.output.splitlines()[0]
    assert "does not parse as Python (invalid syntax at line 4); a plain listing" in header
    assert "line ranges are guessed" in header
    assert "def ok():" in result.output
    (package / "src" / "half.js").write_text("function done() {\n  return 1\n}\nfunction (\n")
    js = await call(registry, ctx, "outline", path="src/half.js")
    assert "does not parse as JavaScript near line 4; a plain listing" in js.output
    assert "function done() {" in js.output


async def test_outline_of_an_unknown_kind_of_file_and_of_a_missing_one(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (package / "README.md").write_text("# Inventory\n\ntext\n## Install\npip\n")
    readme = await call(registry, ctx, "outline", path="README.md")
    assert "a plain listing of lines that look like headings" in readme.output
    assert "4-5    ## Install" in readme.output
    missing = await call(registry, ctx, "outline", path="src/stor.py")
    assert not missing.ok
    assert "names like it: src/store.py" in missing.output


async def test_read_symbol_gives_the_exact_text_that_edit_file_accepts(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    shown = await call(registry, ctx, "read_symbol", path="src/store.py", name="Store.restock")
    assert shown.ok, shown.output
    header, _, text = shown.output.partition("\n")
    assert header == ("src/store.py: Store.restock (method), lines 12-13 of 17; its exact text:")
    assert text == (
        "    def restock(self, name: str, count: int) -> None:\n"
        "        self.items[name].quantity += count\n"
    )
    edited = await call(
        registry,
        ctx,
        "edit_file",
        path="src/store.py",
        edits=[{"old_text": text, "new_text": text.replace("+= count", "+= max(count, 0)")}],
    )
    assert edited.ok, edited.output
    assert "+= max(count, 0)" in (package / "src" / "store.py").read_text()


async def test_read_symbol_counts_only_for_edits_inside_that_definition(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    await call(registry, ctx, "read_symbol", path="src/store.py", name="restock")
    outside = await call(
        registry,
        ctx,
        "edit_file",
        path="src/store.py",
        edits=[{"old_text": "return sum(values)", "new_text": "return 0 or sum(values)"}],
    )
    assert not outside.ok
    assert "block 1 (lines 17-17) lies outside what this session has read" in outside.output
    assert "Store.restock (lines 12-13)" in outside.output
    assert (package / "src" / "store.py").read_text() == STORE


async def test_read_symbol_takes_a_method_written_as_a_pytest_node_id_writes_it(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen (bench: nx-mi-first-true): asked for FirstTrueTests::test_default, the model was
    told it did not exist, nearest FirstTrueTests.test_default, and looked elsewhere."""
    found = await call(registry, ctx, "read_symbol", path="src/store.py", name="Store::restock")
    assert found.ok, found.output
    assert found.output.startswith("src/store.py: Store.restock (method), lines 12-13")


THREAD = """\
def thread_last(val, *forms):
    def evalform_back(val, form):
        if callable(form):
            return form(val)
        return form[0](*form[1:], val)

    return reduce(evalform_back, forms, val)


def other(x):
    def evalform_back(x):
        return x
"""


async def test_read_symbol_finds_a_function_defined_inside_another(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """Seen (bench: nh-tz-thread-last): after reading thread_last, the model asked for the
    evalform_back it defines and was told no definition had that name."""
    (root / "f.py").write_text(THREAD)
    twice = await call(registry, ctx, "read_symbol", path="f.py", name="evalform_back")
    assert not twice.ok, "two functions define one: which one is not guessed"
    found = await call(registry, ctx, "read_symbol", path="f.py", name="thread_last.evalform_back")
    assert found.ok, found.output
    assert found.output.startswith(
        "f.py: thread_last.evalform_back (function), lines 2-5 of 12; its exact text:\n"
        "    def evalform_back(val, form):\n"
    )
    edit = {"old_text": "form[0](*form[1:], val)", "new_text": "form[0](*form[1:], val)  # back"}
    assert (await call(registry, ctx, "edit_file", path="f.py", edits=[edit])).ok, (
        "what read_symbol showed counts as read"
    )


@pytest.mark.parametrize(
    "given", ["restock(self, count)", "def restock(self, count):", "Store.restock(self, count)"]
)
async def test_read_symbol_finds_a_name_given_with_its_header(
    package: Path, ctx: ToolContext, registry: ToolRegistry, given: str
) -> None:
    """Seen (bench: nn-mi-sliced): the model asked for ``sliced(seq, n, strict=False)``."""
    found = await call(registry, ctx, "read_symbol", path="src/store.py", name=given)
    assert found.ok, found.output
    assert found.output.startswith("src/store.py: Store.restock (method)")


async def test_read_symbol_names_the_nearest_definitions_when_not_found(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    missing = await call(registry, ctx, "read_symbol", path="src/store.py", name="Store.restok")
    assert not missing.ok
    assert "no definition named 'Store.restok' in src/store.py; nearest: Store.restock" in (
        missing.output
    )
    (package / "two.py").write_text(
        "class A:\n    def go(self): ...\n\nclass B:\n    def go(self): ...\n"
    )
    several = await call(registry, ctx, "read_symbol", path="two.py", name="go")
    assert "'go' names 2 definitions in two.py: A.go, B.go; give the qualified name" in (
        several.output
    )
    js = await call(registry, ctx, "read_symbol", path="src/site.js", name="Page.render")
    assert js.ok
    assert js.output.endswith("  render() {\n    return '<p>'\n  }\n")


async def test_edit_file_refuses_a_file_not_read_in_the_session(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    refused = await call(
        registry,
        ctx,
        "edit_file",
        path="src/store.py",
        edits=[{"old_text": "def average(values):", "new_text": "def mean(values):"}],
    )
    assert not refused.ok
    assert "it has not been read in this session. read_file src/store.py" in refused.output
    assert (package / "src" / "store.py").read_text() == STORE
    await call(registry, ctx, "outline", path="src/store.py")
    still = await call(
        registry,
        ctx,
        "edit_file",
        path="src/store.py",
        edits=[{"old_text": "def average(values):", "new_text": "def mean(values):"}],
    )
    assert "has not been read" in still.output, "an outline shows names, not the text"
    missing = await call(
        registry, ctx, "edit_file", path="nope.py", edits=[{"old_text": "a", "new_text": "b"}]
    )
    assert "nope.py does not exist" in missing.output


async def test_an_edit_that_breaks_python_is_refused_naming_the_line(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    await call(registry, ctx, "read_file", path="src/store.py")
    refused = await call(
        registry,
        ctx,
        "edit_file",
        path="src/store.py",
        edits=[
            {
                "old_text": "def average(values):",
                "new_text": "def average(values): if not values: return 0.0",
            }
        ],
    )
    assert not refused.ok
    assert "no change was made to src/store.py: the result would not parse as Python" in (
        refused.output
    )
    assert "line 16: invalid syntax" in refused.output
    assert "    16\tdef average(values): if not values: return 0.0\nFix new_text" in refused.output
    assert (package / "src" / "store.py").read_text() == STORE


async def test_edits_that_break_json_or_toml_are_refused(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    await call(registry, ctx, "read_file", path="config.json")
    await call(registry, ctx, "read_file", path="settings.toml")
    json_edit = await call(
        registry,
        ctx,
        "edit_file",
        path="config.json",
        edits=[{"old_text": '"debug": true', "new_text": '"debug": true}]}usere'}],
    )
    assert "would not parse as JSON, line 3: Extra data" in json_edit.output
    toml_edit = await call(
        registry,
        ctx,
        "edit_file",
        path="settings.toml",
        edits=[{"old_text": "port = 8080", "new_text": "port = = 8080"}],
    )
    assert "would not parse as TOML, line 2: " in toml_edit.output
    replaced = await call(registry, ctx, "write_file", path="config.json", content="{oops\n")
    assert "would not parse as JSON" in replaced.output
    assert "\nFix content (its indentation" in replaced.output, "write_file has no new_text"
    assert (package / "config.json").read_text().endswith('"debug": true\n}\n')
    assert (package / "settings.toml").read_text() == "[server]\nport = 8080\ndebug = true\n"


async def test_a_file_that_did_not_parse_before_may_still_be_edited(
    package: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    await call(registry, ctx, "read_file", path="src/broken.py")
    fixed = await call(
        registry,
        ctx,
        "edit_file",
        path="src/broken.py",
        edits=[{"old_text": "def ok():", "new_text": "def fine():"}],
    )
    assert fixed.ok, fixed.output
    written = await call(registry, ctx, "write_file", path="new.json", content='{"a": 1}\n')
    assert written.ok
    after = await call(
        registry, ctx, "edit_file", path="new.json", edits=[{"old_text": "1", "new_text": "2"}]
    )
    assert after.ok, "a file the model wrote whole counts as read"
