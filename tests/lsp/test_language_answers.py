"""The shapes of the client's language answers, and a rename provider's edits made to a text
(positions in UTF-16, as VS Code counts them)."""

from __future__ import annotations

from typing import Any

import pytest
from pygls.workspace import PositionCodec

from foehn_lsp.lsp import language_answers as answers
from foehn_lsp.lsp.language_tools import renamed
from foehn_lsp.lsp.lines import lsp_lines

CODEC = PositionCodec()


def at(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def change(line: int, start: int, end: int, text: str) -> answers.TextChange:
    return answers.TextChange(
        start=answers.Spot(line=line, character=start),
        end=answers.Spot(line=line, character=end),
        new_text=text,
    )


@pytest.mark.parametrize(
    "value",
    [
        None,
        [],
        {"locations": None},
        {"locations": [{"uri": 1, "range": at(0, 0, 1)}]},
        {"locations": [{"uri": "file:///a", "range": at(0, 5, 1)}]},
        {"locations": [{"uri": "file:///a", "range": {"start": {"line": -1, "character": 0}}}]},
        {"locations": [{"uri": "file:///a", "range": at(True, 0, 1)}]},
    ],
)
def test_locations_of_another_shape_are_refused(value: Any) -> None:
    assert answers.locations(value) is None


def test_symbols_name_their_kind_in_words() -> None:
    where = {"uri": "file:///a", "range": at(0, 4, 10)}
    found = answers.symbols(
        {
            "symbols": [
                {"name": "helper", "kind": 12, "containerName": "lib", "location": where},
                {"name": "odd", "kind": 99, "location": where},
            ]
        }
    )
    assert found is not None
    assert [(s.name, s.kind, s.container) for s in found] == [
        ("helper", "function", "lib"),
        ("odd", "symbol", None),
    ]
    assert answers.symbols({"symbols": [{"name": "x", "kind": 1}]}) is None


def test_a_rename_edit_reads_document_changes_over_changes() -> None:
    """LSP: when ``documentChanges`` is there, ``changes`` is ignored (a client may send both,
    the same edits twice)."""
    same = [{"range": at(0, 0, 1), "newText": "b"}]
    edit = {
        "changes": {"file:///a": same, "file:///z": [{"range": at(2, 0, 1), "newText": "z"}]},
        "documentChanges": [
            {"textDocument": {"uri": "file:///a", "version": 1}, "edits": same},
            {
                "textDocument": {"uri": "file:///a", "version": 1},
                "edits": [{"range": at(1, 0, 1), "newText": "c"}],
            },
            {"kind": "create", "uri": "file:///new"},
        ],
    }
    found = answers.rename_edit({"edit": edit})
    assert found is not None
    assert found.files == {"file:///a": (change(0, 0, 1, "b"), change(1, 0, 1, "c"))}
    assert found.resource_operations == ("file:///new",)
    only_changes = answers.rename_edit({"edit": {"changes": edit["changes"]}})
    assert only_changes is not None
    assert list(only_changes.files) == ["file:///a", "file:///z"]
    assert (
        answers.rename_edit({"edit": {"changes": {"file:///a": [{"range": at(0, 0, 1)}]}}}) is None
    )


def test_a_rename_counts_utf16_columns_and_refuses_overlapping_edits() -> None:
    text = 'a = "😋"; helper()\nhelper = 1\n'
    column = len('a = "😋"; ') + 1  # the emoji is two UTF-16 units
    edits = [change(1, 0, 6, "assist"), change(0, column, column + 6, "assist")]
    assert renamed(text, edits, CODEC) == 'a = "😋"; assist()\nassist = 1\n'
    assert renamed(text, [change(1, 0, 6, "x"), change(1, 2, 4, "y")], CODEC) is None
    assert renamed(text, [change(2, 0, 0, "# end\n")], CODEC) == text + "# end\n"


def test_lines_end_only_at_cr_lf_cr_and_lf() -> None:
    text = "a\fb\u2028c\x85d\r\ne\rf\n\vg"
    assert lsp_lines(text) == ["a\fb\u2028c\x85d", "e", "f", "\vg"]
    assert lsp_lines(text, keepends=True) == ["a\fb\u2028c\x85d\r\n", "e\r", "f\n", "\vg"]
    assert lsp_lines("x\n") == ["x"]
    assert lsp_lines("") == []


def test_inserts_at_one_position_keep_the_providers_order() -> None:
    # LSP: the order of the edits in the array is the order of the inserted strings.
    edits = [change(0, 0, 0, "z_"), change(0, 0, 0, "a_"), change(0, 0, 3, "b")]
    assert renamed("old = 1\n", edits, CODEC) == "z_a_b = 1\n"
