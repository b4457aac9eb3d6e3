"""Reading within the window, through the real loop with the model server on 127.0.0.1: in a
small window a long file read without a range shows its definitions and the region asked for
(a line, a definition, the line a search found), and says how to read more; a range, or a large
window, reads as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.served import served_turn
from foehn_lsp.testing import ModelServer, Turn

SMALL = 16_384


@pytest.fixture
def long_file(root: Path) -> Path:
    """A 441-line module: forty functions, ``parse_date`` the thirty-first."""
    body = "".join(
        f"def {'parse_date' if i == 30 else f'helper_{i}'}(value):\n"
        + "".join(f"    value = value + {j}  # step {j}\n" for j in range(8))
        + "    return value\n\n"
        for i in range(40)
    )
    (root / "dates.py").write_text(f'"""Dates."""\n\n{body}'.rstrip("\n") + "\n")
    return root / "dates.py"


async def _read(model: ModelServer, root: Path, window: int | None, *calls: Turn) -> list[str]:
    served = await served_turn(
        model, root, "Where is the date parsed?", [*calls, Turn(text="ok")], window=window
    )
    return [r.output for r in served.results]


async def test_a_long_file_in_a_small_window_shows_its_outline_and_its_start(
    model: ModelServer, root: Path, long_file: Path
) -> None:
    [shown] = await _read(
        model, root, SMALL, Turn(tool_calls=[("read_file", {"path": "dates.py"})])
    )
    lines = shown.splitlines()
    assert lines[0] == "dates.py: lines 1-30 of 441"
    assert '     1\t"""Dates."""' in lines
    assert "(shown: dates.py has 441 lines, more than this model's window takes at once.)" in shown
    assert "\nIts definitions, lines first-last:\n" in shown
    assert "333-342  def parse_date(value):" in shown
    assert shown.endswith(
        "To read more: read_file with around= a name or line number, or with offset and limit "
        "for a range (offset=31 limit=40); read_symbol shows one definition."
    )
    assert len(shown) < SMALL * 4 // 16 + 3_000


async def test_around_a_definition_shows_it_whole(
    model: ModelServer, root: Path, long_file: Path
) -> None:
    [shown] = await _read(
        model,
        root,
        SMALL,
        Turn(tool_calls=[("read_file", {"path": "dates.py", "around": "parse_date"})]),
    )
    assert shown.startswith("dates.py: lines 333-342 of 441\n   333\tdef parse_date(value):")
    assert shown.endswith(
        "(shown: the lines around 'parse_date'.) To read more: read_file with around= a name or "
        "line number, or with offset and limit for a range (offset=343 limit=40); read_symbol "
        "shows one definition."
    )


async def test_a_read_after_a_search_opens_at_the_hit(
    model: ModelServer, root: Path, long_file: Path
) -> None:
    """The model searched, then read the whole file from its first line: in a small window
    the read now shows the definition the search found."""
    _, shown = await _read(
        model,
        root,
        SMALL,
        Turn(tool_calls=[("search", {"pattern": "def parse_date"})]),
        Turn(tool_calls=[("read_file", {"path": "dates.py"})]),
    )
    assert shown.startswith("dates.py: lines 333-342 of 441\n   333\tdef parse_date(value):")


async def test_a_read_after_an_edit_refused_for_its_syntax_opens_where_the_edit_was(
    model: ModelServer, root: Path, long_file: Path
) -> None:
    """Seen (bench: bo-indent, nx-inf-camelize): after such a refusal the model read the file
    again from its first line, its license, and did not come back to the edit."""
    broken = {
        "path": "dates.py",
        "edits": [{"old_text": "def parse_date(value):", "new_text": "def parse_date(value)"}],
    }
    _, refused, shown = await _read(
        model,
        root,
        SMALL,
        Turn(tool_calls=[("read_file", {"path": "dates.py", "around": "parse_date"})]),
        Turn(tool_calls=[("edit_file", broken)]),
        Turn(tool_calls=[("read_file", {"path": "dates.py"})]),
    )
    assert "would not parse as Python" in refused
    assert shown.startswith("dates.py: lines 333-342 of 441\n   333\tdef parse_date(value):")


async def test_a_limit_without_an_offset_opens_near_where_a_tool_pointed(
    model: ModelServer, root: Path, long_file: Path
) -> None:
    """Seen (bench: bo-indent): after a refused edit the model asked for forty lines without an
    offset and was shown the file's first forty, not the edit's. A point within the first
    ``limit`` lines, or no point, reads from the first line as asked."""
    _, pointed, top = await _read(
        model,
        root,
        None,
        Turn(tool_calls=[("search", {"pattern": "def parse_date"})]),
        Turn(tool_calls=[("read_file", {"path": "dates.py", "limit": 20})]),
        Turn(tool_calls=[("read_file", {"path": "dates.py", "offset": 1, "limit": 20})]),
    )
    assert pointed.startswith("dates.py: lines 323-342 of 441\n")
    assert "   333\tdef parse_date(value):" in pointed
    assert pointed.endswith(
        "(shown: from line 323, near where a search, a failing test or a refused edit last "
        "pointed in this file; offset=1 reads it from its first line.)"
    )
    assert top.startswith('dates.py: lines 1-20 of 441\n     1\t"""Dates."""')
    [unpointed] = await _read(
        model, root, None, Turn(tool_calls=[("read_file", {"path": "dates.py", "limit": 20})])
    )
    assert unpointed.startswith("dates.py: lines 1-20 of 441\n")


async def test_a_range_or_a_large_window_reads_what_was_asked(
    model: ModelServer, root: Path, long_file: Path
) -> None:
    [ranged] = await _read(
        model,
        root,
        SMALL,
        Turn(tool_calls=[("read_file", {"path": "dates.py", "offset": 1, "limit": 1000})]),
    )
    assert ranged.startswith("dates.py: lines 1-441 of 441")  # 13 kB: a quarter of the window
    assert "Its definitions" not in ranged
    [cut] = await _read(
        model,
        root,
        8_192,
        Turn(tool_calls=[("read_file", {"path": "dates.py", "offset": 1, "limit": 1000})]),
    )
    assert cut.startswith("dates.py: lines 1-")
    assert not cut.startswith("dates.py: lines 1-441 ")
    assert cut.endswith("to continue")
    [large] = await _read(model, root, None, Turn(tool_calls=[("read_file", {"path": "dates.py"})]))
    assert large.startswith("dates.py: lines 1-441 of 441")
    assert "Its definitions" not in large


async def test_an_offset_without_a_limit_reads_a_page_in_a_small_window(
    model: ModelServer, root: Path, long_file: Path
) -> None:
    """Seen (bench: nu-tz-excepts): offset=815 read the rest of a 1,049-line module."""
    read = Turn(tool_calls=[("read_file", {"path": "dates.py", "offset": 300})])
    [page] = await _read(model, root, SMALL, read)
    assert page.startswith("dates.py: lines 300-339 of 441\n")
    assert page.endswith("... 102 more lines; call read_file with offset=340 to continue")
    [rest] = await _read(model, root, None, read)
    assert rest.startswith("dates.py: lines 300-441 of 441\n")


async def test_around_what_the_file_does_not_have_says_what_it_has(
    model: ModelServer, root: Path, long_file: Path
) -> None:
    [shown] = await _read(
        model,
        root,
        SMALL,
        Turn(tool_calls=[("read_file", {"path": "dates.py", "around": "parse_time"})]),
    )
    assert shown == (
        "dates.py has no line, definition or text 'parse_time'; definitions named like it: "
        "parse_date. read_file without around shows its start; search finds text in every file"
    )


@pytest.mark.parametrize(
    ("path", "first"),
    [
        ("tests/test_dates.py::test_parse", "def test_parse():"),
        ("tests/test_dates.py::TestDates::test_one[2-3]", "    def test_one(self, a, b):"),
    ],
)
async def test_a_tests_node_id_reads_around_that_test(
    model: ModelServer, root: Path, path: str, first: str
) -> None:
    """Seen: read_file of toolz/tests/test_itertoolz.py::test_take, answered "not found", after
    which the model gave up."""
    (root / "tests").mkdir()
    (root / "tests" / "test_dates.py").write_text(
        "import pytest\n\n\ndef test_parse():\n    assert 1\n\n\nclass TestDates:\n"
        "    @pytest.mark.parametrize(('a', 'b'), [(2, 3)])\n"
        "    def test_one(self, a, b):\n        assert a < b\n"
    )
    [shown] = await _read(model, root, None, Turn(tool_calls=[("read_file", {"path": path})]))
    assert shown.startswith("tests/test_dates.py: lines ")
    assert f"\t{first}" in shown


async def test_a_file_named_in_the_wrong_folder_is_answered_with_where_it_is(
    model: ModelServer, root: Path, long_file: Path
) -> None:
    """Seen (bench: nf-inf-pluralize-empty): the model asked for ``tests/test_inflection.py``
    four times (the file is at the root) and answered that it did not exist."""
    by_file, by_symbol, nowhere = await _read(
        model,
        root,
        SMALL,
        Turn(tool_calls=[("read_file", {"path": "src/dates.py"})]),
        Turn(tool_calls=[("read_symbol", {"path": "src/dates.py", "name": "parse_date"})]),
        Turn(tool_calls=[("read_file", {"path": "src/calendar.py"})]),
    )
    assert by_file == "src/dates.py does not exist; names like it: dates.py"
    assert by_symbol == by_file
    assert nowhere == "src/calendar.py does not exist; use scan to see what is there"


async def test_a_module_asked_for_as_a_file_is_answered_with_its_package(
    model: ModelServer, root: Path
) -> None:
    """Seen (bench: nc-inf-humanize): for ``inflection.humanize`` the model read
    ``inflection.py`` three times; the module is ``inflection/__init__.py``."""
    (root / "shop").mkdir()
    (root / "shop" / "__init__.py").write_text("def total(xs):\n    return sum(xs)\n")
    by_file, by_symbol = await _read(
        model,
        root,
        SMALL,
        Turn(tool_calls=[("read_file", {"path": "shop.py"})]),
        Turn(tool_calls=[("read_symbol", {"path": "shop.py", "name": "total"})]),
    )
    assert by_file == "shop.py does not exist; shop is a package: its code is in shop/__init__.py"
    assert by_symbol == by_file


async def test_around_a_line_written_as_words_or_a_set_reads_that_line(
    model: ModelServer, root: Path, long_file: Path
) -> None:
    """Seen (bench: nq-inf-camelize, nq-bo-strip, ne-bo-subdict): told that a value "comes
    from line 166", the model asked for the lines around ``{line 166}``, and other times around
    ``{271, 272, …}`` and ``{line: 1049}``."""
    worded, braced, colon, listed, past = await _read(
        model,
        root,
        SMALL,
        Turn(tool_calls=[("read_file", {"path": "dates.py", "around": "line 333"})]),
        Turn(tool_calls=[("read_file", {"path": "dates.py", "around": "{line 333}"})]),
        Turn(tool_calls=[("read_file", {"path": "dates.py", "around": "{line: 333}"})]),
        Turn(tool_calls=[("read_file", {"path": "dates.py", "around": "{333, 334, 335}"})]),
        Turn(tool_calls=[("read_file", {"path": "dates.py", "around": "{line 9999}"})]),
    )
    for shown in (worded, braced, colon, listed):
        assert shown.startswith("dates.py: lines 333-342 of 441\n   333\tdef parse_date(value):")
    assert past.startswith("dates.py has no line, definition or text '{line 9999}'")


async def test_around_text_copied_out_of_a_result_reads_the_line_of_code_in_it(
    model: ModelServer, root: Path, long_file: Path
) -> None:
    """Seen (bench: nd-inf-underscore, nd-bo-remap-clone): the model gave around a whole traced
    call as run_tests showed it, and another time a line with ``>#`` in front."""
    traced = (
        "parse_date(value=1) (dates.py) ran these lines and returned 29 at line 342:\n"
        "   333\tdef parse_date(value):\n"
        "   342\t    return value   <- returned 29\n"
    )
    copied, quoted, neither = await _read(
        model,
        root,
        SMALL,
        Turn(tool_calls=[("read_file", {"path": "dates.py", "around": traced})]),
        Turn(tool_calls=[("read_file", {"path": "dates.py", "around": "># step 7"})]),
        Turn(tool_calls=[("read_file", {"path": "dates.py", "around": ">>> nowhere(at_all)"})]),
    )
    assert copied.startswith("dates.py: lines 333-342 of 441\n"), "its first line a file has"
    assert quoted.startswith("dates.py: lines 3-12 of 441\n     3\tdef helper_0(value):")
    assert neither.startswith("dates.py has no line, definition or text '>>> nowhere(at_all)'")
