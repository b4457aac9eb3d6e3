"""The smallest replacement between two texts, and its LSP range in each position encoding."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import PositionCodec

from foehn_lsp.lsp.convert import minimal_edit
from foehn_lsp.workspace.textdiff import Region, changed_region

texts = st.text(alphabet="ab\n\r😀é ", max_size=30)


@given(texts, texts)
def test_replacing_the_region_gives_the_new_text(old: str, new: str) -> None:
    region = changed_region(old, new)
    assert old[: region.start] + region.text + old[region.end :] == new
    assert 0 <= region.start <= region.end <= len(old)


@given(texts, texts)
def test_the_region_keeps_the_common_prefix_and_suffix(old: str, new: str) -> None:
    region = changed_region(old, new)
    if region.start < len(old) and region.text:
        assert old[region.start] != region.text[0] or region.end == region.start
    if old == new:
        assert region == Region(start=len(old), end=len(old), text="")


def test_one_changed_line_is_one_small_edit() -> None:
    old = "def main():\n    return 1  # TODO\n"
    new = "def main():\n    return 2\n"
    assert changed_region(old, new) == Region(start=23, end=32, text="2")


def at(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def test_positions_follow_the_client_encoding() -> None:
    utf16 = PositionCodec(types.PositionEncodingKind.Utf16)
    utf32 = PositionCodec(types.PositionEncodingKind.Utf32)
    old, new = "x = '😀'\ny = 1\n", "x = '😀'\ny = 2\n"
    assert minimal_edit(old, new, utf16) == (types.Range(start=at(1, 4), end=at(1, 5)), "2")
    assert minimal_edit(old, new, utf32) == minimal_edit(old, new, utf16)
    assert minimal_edit("a😀b\n", "a😀c\n", utf16)[0].start == at(0, 3)
    assert minimal_edit("a😀b\n", "a😀c\n", utf32)[0].start == at(0, 2)
