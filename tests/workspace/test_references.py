"""Renames read from a file's definitions before and after an edit, and where their old names
still appear in a real workspace (real ripgrep)."""

from __future__ import annotations

from pathlib import Path

from foehn_lsp.workspace import Workspace
from foehn_lsp.workspace.references import (
    Removed,
    Rename,
    appearances,
    changed,
    leftovers,
    note,
    removed_note,
    statement,
    still_used,
)

UNITS = "def c_to_f(celsius):\n    return celsius * 9 / 5 + 32\n\n\ndef f_to_c(f):\n    return 0\n"


def renamed(path: str, before: str, after: str) -> list[Rename]:
    return list(changed(path, before, after).renames)


def test_a_definition_whose_name_changed_is_a_rename() -> None:
    after = UNITS.replace("def c_to_f(", "def celsius_to_fahrenheit(")
    assert renamed("units.py", UNITS, after) == [
        Rename(path="units.py", old="c_to_f", new="celsius_to_fahrenheit")
    ]


def test_an_added_or_removed_definition_or_a_new_body_is_no_rename() -> None:
    assert renamed("units.py", UNITS, UNITS + "\n\ndef k_to_c(k):\n    return k\n") == []
    assert renamed("units.py", UNITS, "def f_to_c(f):\n    return 0\n") == []
    assert renamed("units.py", UNITS, UNITS.replace("+ 32", "+ 33")) == []


def test_a_definition_whose_place_one_with_other_lines_took_was_replaced_not_renamed() -> None:
    """Seen (bench: mt-median): asked to add median, the model replaced ``def mean`` and its
    body with the median's, and was told to rename mean's uses."""
    stats = (
        "def mean(values):\n    return sum(values) / len(values)\n\n\ndef spread(v):\n    pass\n"
    )
    median = (
        "def median(values):\n    ordered = sorted(values)\n    middle = len(ordered) // 2\n"
        "    return ordered[middle]\n"
    )
    after = changed("stats.py", stats, stats.replace(stats.split("\n\n\n")[0] + "\n", median))
    assert after.renames == ()
    assert after.removed == (Removed(path="stats.py", name="mean", replaced_by="median"),)
    # Renamed with a parameter and a line changed, it is still a rename.
    moved = "def average(items):\n    return sum(items) / len(values)\n"
    after = changed("stats.py", stats, stats.replace(stats.split("\n\n\n")[0] + "\n", moved))
    assert after.renames == (Rename(path="stats.py", old="mean", new="average"),)
    assert after.removed == ()


def test_a_top_level_definition_taken_out_is_removed_and_a_method_is_not_listed() -> None:
    assert changed("units.py", UNITS, "def f_to_c(f):\n    return 0\n").removed == (
        Removed(path="units.py", name="c_to_f", replaced_by=""),
    )
    shop = (
        "class Store:\n    def restock(self):\n        pass\n\n    def empty(self):\n        pass\n"
    )
    assert changed("shop.py", shop, shop.split("\n\n")[0] + "\n") == changed("shop.py", "", "")


async def test_where_a_definition_taken_out_is_still_used(root: Path) -> None:
    (root / "test_stats.py").write_text("from stats import mean\n\nassert mean([1]) == 1\n")
    gone = Removed(path="stats.py", name="mean", replaced_by="median")
    told = removed_note(await still_used(Workspace([root]), [gone]))
    assert told == (
        "`mean` is no longer defined in stats.py (`median` took its place), but `mean` still "
        "appears in 2 places:\n  test_stats.py:1: from stats import mean\n"
        "  test_stats.py:3: assert mean([1]) == 1\nThose uses fail now. Unless the task is to "
        "take `mean` out, put it back (the diff above shows its lines) and add `median` beside it."
    )


def test_a_method_renamed_in_one_class_pairs_within_that_class_only() -> None:
    before = (
        "class Store:\n    def restock(self):\n        pass\n\n"
        "class Cart:\n    def restock(self):\n        pass\n    def empty(self):\n        pass\n"
    )
    one = before.replace("class Store:\n    def restock", "class Store:\n    def refill")
    # Cart still defines restock: its uses are no leftover of the rename.
    assert renamed("shop.py", before, one) == []
    both = before.replace("def empty", "def clear")
    assert renamed("shop.py", before, both) == [Rename(path="shop.py", old="empty", new="clear")]


def test_renames_are_read_in_other_languages_too() -> None:
    before = "function total(a) {\n  return a;\n}\n"
    after = before.replace("total", "sum")
    assert renamed("lib.js", before, after) == [Rename(path="lib.js", old="total", new="sum")]


async def test_where_an_old_name_still_appears_as_a_whole_word(root: Path) -> None:
    (root / "units.py").write_text(UNITS.replace("c_to_f", "celsius_to_fahrenheit"))
    (root / "report.py").write_text(
        "from units import c_to_f\n\n\ndef line(c):\n    return c_to_f(c)  # c_to_fx is not it\n"
    )
    (root / "other.py").write_text("c_to_fx = 1\nC_TO_F = 2\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "report.py").write_text("c_to_f\n")
    places = await appearances(Workspace([root]), "c_to_f")
    assert [(p.path, p.line) for p in places] == [("report.py", 1), ("report.py", 5)]
    assert places[1].text.strip() == "return c_to_f(c)  # c_to_fx is not it"


async def test_leftovers_leave_out_renames_whose_old_name_is_gone(root: Path) -> None:
    (root / "a.py").write_text("def new_name():\n    pass\n\nnew_name()\n")
    (root / "b.py").write_text("from a import old_name\n")
    workspace = Workspace([root])
    gone = Rename(path="a.py", old="gone_name", new="new_name")
    left = Rename(path="a.py", old="old_name", new="new_name")
    found = await leftovers(workspace, [gone, left, left])
    assert [(f.rename, f.count) for f in found] == [(left, 1)]
    told = note(found)
    assert "`old_name` was renamed to `new_name` in a.py" in told
    assert "b.py:1: from a import old_name" in told
    assert "rename with name `old_name` and new_name `new_name`" in told
    assert statement(found) == (
        "[Foehn] `old_name` (renamed to `new_name` in a.py) still appears in 1 place: b.py:1."
    )


async def test_many_places_are_listed_up_to_a_limit_and_counted(root: Path) -> None:
    (root / "uses.py").write_text("".join(f"old_name({n})\n" for n in range(30)))
    found = await leftovers(Workspace([root]), [Rename(path="a.py", old="old_name", new="x")])
    assert found[0].count == 30
    assert len(found[0].places) == 12
    assert "… and 18 more" in note(found)
    assert statement(found).endswith("uses.py:12 ….")


async def test_an_open_buffer_is_read_in_place_of_the_disk(root: Path) -> None:
    """An editor applies a rename to its buffers before it saves them (VS Code's tests saw the
    old name "still" on disk)."""
    (root / "report.py").write_text("from units import c_to_f\n")
    (root / "cli.py").write_text("from units import c_to_f\n")
    buffers = {root / "report.py": "from units import celsius_to_fahrenheit\n"}
    rename = Rename(path="units.py", old="c_to_f", new="celsius_to_fahrenheit")
    [found] = await leftovers(Workspace([root]), [rename], buffers.get)
    assert [(p.path, p.line) for p in found.places] == [("cli.py", 1)]
    assert found.count == 1
    buffers[root / "cli.py"] = "import units\n\nprint(units.c_to_f(3))\n"
    [found] = await leftovers(Workspace([root]), [rename], buffers.get)
    assert [(p.path, p.line, p.text) for p in found.places] == [
        ("cli.py", 3, "print(units.c_to_f(3))")
    ]
    buffers[root / "cli.py"] = "import units\n"
    assert await leftovers(Workspace([root]), [rename], buffers.get) == []
