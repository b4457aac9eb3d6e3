"""A real editor: Emacs with eglot, in batch mode, starts ``foehn serve``, lists the tools,
asks for code actions and runs a task whose approved edit lands in the buffer (unsaved)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from foehn_lsp.testing import ModelServer, Turn
from setup_steps import ready

pytestmark = pytest.mark.process

REQUIRED = os.environ.get("FOEHN_E2E_REQUIRED") == "1"
BEFORE = "def main():\n    return 1  # TODO\n"


def _eglot_installed() -> bool:
    emacs = shutil.which("emacs")
    if emacs is None:
        return False
    probe = subprocess.run(
        [emacs, "--batch", "--eval", "(require 'eglot)"], capture_output=True, timeout=60
    )
    return probe.returncode == 0


if not REQUIRED and not _eglot_installed():
    pytest.skip(
        "Emacs with eglot is not installed (apt: emacs-nox elpa-eglot, which "
        "scripts/setup-vscode-e2e installs)",
        allow_module_level=True,
    )


def test_tools_a_code_action_and_an_approved_edit_in_the_emacs_buffer(
    root: Path, tmp_path: Path
) -> None:
    ready("e2e")  # scripts/test installs Emacs beside the first tests
    emacs = shutil.which("emacs")
    assert emacs is not None, "FOEHN_E2E_REQUIRED=1 but emacs is not installed"
    source = root / "app.py"
    source.write_text(BEFORE)
    out = tmp_path / "report.json"
    with ModelServer() as model:
        model.script(
            Turn(tool_calls=[("read_file", {"path": "app.py"})]),
            Turn(
                tool_calls=[
                    (
                        "edit_file",
                        {
                            "path": "app.py",
                            "edits": [{"old_text": "return 1  # TODO", "new_text": "return 2"}],
                        },
                    )
                ]
            ),
            Turn(text="Replaced the TODO with return 2."),
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
        env.update(
            {
                "FOEHN_PROVIDER": "openai",
                "FOEHN_BASE_URL": model.openai_url,
                "OPENAI_API_KEY": "sk-test-0123456789abcdef",
                "HOME": str(tmp_path),
                "XDG_STATE_HOME": str(tmp_path / "state"),
                "XDG_CONFIG_HOME": str(tmp_path / "config"),
                "XDG_DATA_HOME": str(tmp_path / "data"),
                "FOEHN_TEST_ROOT": str(root),
                "FOEHN_TEST_FILE": str(source),
                "FOEHN_TEST_OUT": str(out),
                "FOEHN_TEST_PYTHON": sys.executable,
            }
        )
        script = Path(__file__).with_name("drive_emacs.el")
        done = subprocess.run(
            [emacs, "--batch", "-l", str(script)],
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
            cwd=root,
        )
    assert out.exists(), done.stderr[-4000:]
    report = json.loads(out.read_text())
    assert done.returncode == 0, (report, done.stderr[-4000:])
    assert {"scan", "read_file", "edit_file"} <= set(report["tools"])
    assert report["actions"] == ["Foehn: Explain selection", "Foehn: Refactor selection…"]
    assert report["result"]["stopReason"] == "answer"
    assert report["result"]["answer"] == "Replaced the TODO with return 2."
    [confirmation] = report["confirmations"]
    assert confirmation["tool"] == "edit_file"
    assert "+    return 2" in confirmation["preview"]["diff"]
    assert report["before"] == BEFORE
    assert report["after"] == "def main():\n    return 2\n"
    assert report["modified"] is True
    assert source.read_text() == BEFORE  # the buffer changed, not the disk
