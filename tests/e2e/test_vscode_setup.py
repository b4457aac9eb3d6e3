"""The extension alone is enough: real VS Code (code-server) with a fresh profile and a fresh
home, nothing of Foehn's installed and no virtual environment, only Debian's own python3 on PATH
(which has no ensurepip) and the platform ``.vsix``. Two windows open the folder at once: the
managed environment is made once, from the wheels the .vsix carries, and the second window
uses it; Ask (the scripted model set in the settings) reads and edits a file with approval; the
MCP server list shows Foehn's definition, and another client's tool calls through VS Code's own
MCP client are confined to the workspace (scenario: vscode_setup_scenario.mjs)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import vscode_harness
from foehn_lsp.testing import ModelServer, Turn
from vscode_harness import SHOTS, installed, run_scenario

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        not installed() and not os.environ.get("FOEHN_E2E_REQUIRED"),
        reason="real VS Code is not installed; run scripts/setup-vscode-e2e",
    ),
]

PROBE = Path(__file__).with_name("mcp_probe")
PYTHON_ONLY = "/usr/bin:/bin"
"""PATH with the system's python3 and nothing of Foehn's."""


def _logs(data: Path, name: str) -> str:
    """Every line the extension wrote to its output channel ``name``, across windows."""
    return "\n".join(p.read_text() for p in sorted(data.glob(f"logs/**/*{name}.log")))


def test_the_vsix_alone_sets_up_its_server_once_and_offers_its_tools_over_mcp(
    tmp_path: Path,
    root: Path,
    packaged: Path,
    model: ModelServer,
    canary: Path,
    canary_untouched: Callable[[], None],
) -> None:
    assert shutil.which("foehn", path=PYTHON_ONLY) is None
    assert shutil.which("python3", path=PYTHON_ONLY)
    (root / "app.py").write_text("def main():\n    return 1  # TODO\n")
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
        Turn(text="Fixed the TODO: main() returns 2."),
    )
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": PYTHON_ONLY,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "PROBE_OUT": str(tmp_path / "probe.json"),
        "PROBE_CALLS": json.dumps(
            [
                {"tool": "read_file", "input": {"path": "app.py"}},
                {"tool": "read_file", "input": {"path": f"../{canary.name}/secret.txt"}},
                {"tool": "read_file", "input": {"path": str(canary / "secret.txt")}},
            ]
        ),
    }
    settings = {
        "foehn.provider": "openai",
        "foehn.baseUrl": model.openai_url,
        "chat.disableAIFeatures": False,
    }
    started = vscode_harness.code_server(
        tmp_path, packaged, trust=False, settings=settings, env=env, model=model, extensions=[PROBE]
    )
    with started as server:
        report = run_scenario(
            Path(__file__).with_name("vscode_setup_scenario.mjs"),
            "setup",
            server,
            root,
            tmp_path,
            timeout=900,
        )
        logs = _logs(server.data, "Foehn")

    # The environment was made once, from the bundle, and the other window used it.
    storage = server.data / "User" / "globalStorage" / "foehn.foehn" / "python"
    envs = [p for p in (storage / "envs").iterdir()]
    assert len(envs) == 1, envs
    assert (envs[0] / "foehn-ready.json").is_file()
    assert logs.count("Made Foehn's environment") == 1, logs[-3000:]
    assert "Using Foehn's environment" in logs, logs[-3000:]
    assert "python3 on PATH (/usr/bin/python3): Python 3.11" in logs
    assert "The Python extension is not installed." in logs
    assert not (home / ".cache" / "pip").exists()  # nothing fetched: the wheels came with it
    # The offline model: its size said before anything, and declined, nothing downloaded.
    assert "Use the offline model? Foehn downloads about 1.1 GB." in report["offlineAsked"]
    assert "pinned hash" in report["offlineAsked"]
    assert not (storage / "offline-model").exists()
    # Ask: the file was read, the edit approved in the chat and saved by the person.
    assert "edit_file" in report["approval"]
    assert "+    return 2" in report["approval"]
    assert "Fixed the TODO" in report["answer"]
    assert (root / "app.py").read_text() == "def main():\n    return 2\n"
    assert len(model.requests) == 3
    # MCP: the definition is listed, and another client's calls stay in the workspace.
    assert "Foehn" in report["mcpList"]
    probe = report["probe"]
    assert not probe.get("error"), probe
    assert {"mcp_foehn_read_file", "mcp_foehn_edit_file"} <= set(probe["tools"]), probe["tools"]
    inside, relative, absolute = probe["results"]
    assert "return 2" in inside["text"], inside
    assert "escapes the workspace" in relative["text"], relative
    assert "is outside the workspace" in absolute["text"], absolute
    assert "TOP-SECRET" not in json.dumps(probe)
    canary_untouched()
    for name in (
        "setup-done-chat-ready.png",
        "offline-model-size-first.png",
        "mcp-server-list.png",
        "store-approval-with-diff.png",
        "store-chat-with-changed-files.png",
    ):
        assert (SHOTS / name).stat().st_size > 10_000, name
