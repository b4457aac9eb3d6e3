"""edit_file, for any text and any edits: it applies exactly what was asked, or changes nothing."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from foehn_lsp import ToolContext
from foehn_lsp.agent.chain import steps
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.workspace import FileAccess, Workspace

lines = st.lists(st.sampled_from(["a", "b", "ab", "  a", "b\t", "", "x = 1", "y"]), max_size=12)
texts = lines.map(lambda parts: "\n".join(parts) + "\n")
fragments = st.text(alphabet="abxy =1\n\t", max_size=8)


def expected_result(text: str, edits: list[tuple[str, str]]) -> str | None:
    """The oracle: every old_text occurs once (overlaps included), blocks are disjoint or
    overlap on text both keep (then they are one block), and something changes; otherwise
    nothing happens."""
    spans = []
    for old, new in edits:
        if not old:
            return None
        starts = [i for i in range(len(text)) if text.startswith(old, i)]
        if len(starts) != 1:
            return None
        spans.append((starts[0], starts[0] + len(old), new))
    spans.sort()
    blocks: list[tuple[int, int, str]] = []
    for start, end, new in spans:
        if blocks and start < blocks[-1][1]:
            first_start, first_end, first_new = blocks[-1]
            shared = text[start:first_end]
            if end <= first_end or not (first_new.endswith(shared) and new.startswith(shared)):
                return None
            blocks[-1] = (first_start, end, first_new + new[len(shared) :])
        else:
            blocks.append((start, end, new))
    out, cursor = "", 0
    for start, end, new in blocks:
        out += text[cursor:start] + new
        cursor = end
    out += text[cursor:]
    return None if out == text else out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, edits=st.lists(st.tuples(fragments, fragments), min_size=1, max_size=4))
def test_edit_file_applies_exactly_or_changes_nothing(
    registry: ToolRegistry, text: str, edits: list[tuple[str, str]]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "f.txt")
        path.write_text(text)
        workspace = Workspace([folder])
        ctx = ToolContext(workspace=workspace, files=FileAccess(workspace))
        ctx.files.shown.saw_file(workspace.resolve("f.txt"))  # the model has read it
        blocks = [{"old_text": old, "new_text": new} for old, new in edits]
        result = asyncio.run(
            registry.call("edit_file", {"path": "f.txt", "edits": blocks}, ctx, steps=steps())
        )
        expected = expected_result(text, edits)
        after = path.read_text()
        if expected is None:
            assert not result.ok
            assert after == text
        else:
            assert result.ok, result.output
            assert after == expected
