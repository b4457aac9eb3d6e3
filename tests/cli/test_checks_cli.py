"""Checking after edits through the real ``foehn run``: an edit that breaks a type is checked by
the workspace's own mypy in the sandbox, and only the problem it added reaches the model."""

from __future__ import annotations

import os
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.harness import events, foehn
from foehn_lsp.sandbox.runner import system_sandbox
from foehn_lsp.testing import ModelServer, Turn

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(not system_sandbox().available, reason="needs the sandbox"),
]

SOURCE = 'def total(prices: list[int]) -> int:\n    return sum(prices)\n\n\nOLD: int = "old"\n'
READ = ("read_file", {"path": "app.py"})
BREAK = (
    "edit_file",
    {
        "path": "app.py",
        "edits": [{"old_text": "return sum(prices)", "new_text": "return str(sum(prices))"}],
    },
)
FIX = (
    "edit_file",
    {
        "path": "app.py",
        "edits": [{"old_text": "return str(sum(prices))", "new_text": "return int(sum(prices))"}],
    },
)
BROKEN = 'app.py:2: error: Incompatible return value type (got "str", expected "int")'


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def test_a_type_an_edit_broke_reaches_the_model_from_the_sandboxed_mypy(
    server: ModelServer, root: Path, tmp_path: Path
) -> None:
    (root / "pyproject.toml").write_text("[tool.mypy]\nstrict = false\n")
    (root / "app.py").write_text(SOURCE)
    server.script(
        Turn(tool_calls=[READ]),
        Turn(tool_calls=[BREAK]),
        Turn(text="total now returns its sum as text."),
        Turn(tool_calls=[FIX]),
        Turn(text="total returns an int again."),
    )
    # mypy is found as the person's toolchain: the folder of this interpreter's scripts.
    path = os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])
    done = foehn(
        "run", "Make total return text", "--approve", "all", "--json", "--workspace", str(root),
        server=server, state=tmp_path, env={"PATH": path}, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    checked = [e for e in events(done.stdout) if e["event"] == "checked"]
    assert checked == [
        {
            "event": "checked",
            "problems": [
                {
                    "path": "app.py",
                    "line": 2,
                    "message": BROKEN.removeprefix("app.py:2: ") + "  [return-value]",
                    "source": "mypy",
                }
            ],
            "skipped": [],
        }
    ]
    told = server.requests[3].body["messages"][-1]["content"]
    assert f"{BROKEN}  [return-value] (mypy)" in told
    assert "assignment" not in told  # OLD's problem was there before the edit
    assert events(done.stdout)[-1]["answer"] == "total returns an int again."
    assert "return int(sum(prices))" in (root / "app.py").read_text()
