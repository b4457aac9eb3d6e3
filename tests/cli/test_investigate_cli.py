"""``investigate`` in ``foehn run``: the sub-run is one call line and one result line on
stderr (its own calls are not shown), and the write it tried was refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.harness import foehn
from foehn_lsp.testing import ModelServer, Turn

pytestmark = pytest.mark.process


def test_an_investigation_is_one_line_and_its_result_in_the_terminal(
    model: ModelServer, app: Path, tmp_path: Path
) -> None:
    model.script(
        Turn(tool_calls=[("investigate", {"question": "Where is main defined?"})]),
        Turn(
            tool_calls=[
                ("read_file", {"path": "app.py"}),
                ("write_file", {"path": "notes.md", "content": "found it\n"}),
            ]
        ),
        Turn(text="main is defined in app.py, line 1.\nIt returns 1."),
        Turn(text="It is in app.py."),
    )
    done = foehn(
        "run", "Where is main?", "--approve", "all", "--workspace", str(app),
        server=model, state=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    calls = [line for line in done.stderr.splitlines() if line.startswith("▸ ")]
    assert calls == ['▸ investigate {"question": "Where is main defined?"} [read_only]']
    assert "  ✓ main is defined in app.py, line 1. (+3 lines)" in done.stderr.splitlines()
    assert done.stdout == "It is in app.py.\n"
    assert not (app / "notes.md").exists()
