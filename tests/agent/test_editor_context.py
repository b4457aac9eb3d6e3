"""What the editor adds to a turn, in words for the model."""

from __future__ import annotations

from foehn_lsp.agent.editor_context import editor_context


def test_the_file_the_selected_lines_and_the_diagnostic() -> None:
    text = "a = 1\nb = 2\nc = 3\n"
    assert editor_context(
        "src/app.py", text, lines=(1, 2), diagnostic={"message": "unused b", "source": "ruff"}
    ) == (
        "The person is looking at src/app.py.\n\n"
        "Selected lines 2-3:\n     2\tb = 2\n     3\tc = 3\n\n"
        "Diagnostic from ruff: unused b"
    )
    assert editor_context("app.py", text) == "The person is looking at app.py."
