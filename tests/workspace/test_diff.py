"""The diffs shown to people and models are real unified diffs: applying one to the old text
gives the new text exactly."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from foehn_lsp.workspace.edits import _unified

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")


def apply_unified(old: list[str], diff: list[str]) -> list[str]:
    out: list[str] = []
    cursor = 0
    for line in diff[2:]:
        if match := HUNK.match(line):
            start, length = int(match[1]), int(match[2] or 1)
            begin = start - 1 if length else start
            out += old[cursor:begin]
            cursor = begin
        elif line.startswith(" "):
            assert old[cursor] == line[1:]
            out.append(line[1:])
            cursor += 1
        elif line.startswith("-"):
            assert old[cursor] == line[1:]
            cursor += 1
        else:
            out.append(line[1:])
    return out + old[cursor:]


lines = st.lists(st.sampled_from(list("abcdxy")), max_size=30)


@given(old=lines, new=lines)
def test_diff_applies_back(old: list[str], new: list[str]) -> None:
    diff = _unified("\n".join(old), "\n".join(new), "a/f", "b/f")
    if old == new:
        assert diff == []
    else:
        assert diff[:2] == ["--- a/f", "+++ b/f"]
        assert apply_unified(old, diff) == new


def test_one_line_change_in_a_large_file_shows_only_that_region() -> None:
    old = [f"line {i}" for i in range(100_000)]
    new = list(old)
    new[70_000] = "changed"
    diff = _unified("\n".join(old), "\n".join(new), "a/f", "b/f")
    assert diff == [
        "--- a/f",
        "+++ b/f",
        "@@ -69999,5 +69999,5 @@",
        " line 69998",
        " line 69999",
        "-line 70000",
        "+changed",
        " line 70001",
        " line 70002",
    ]
