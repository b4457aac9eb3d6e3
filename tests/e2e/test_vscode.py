"""Real VS Code: code-server in Debian's chromium, driven by playwright-core. "Foehn: Ask…" runs
a task the scripted model answers with a read and an edit; the modal is approved and the edit
and answer must show; a second run is denied and must change nothing. Screenshots of the
confirmation and the answer are saved in test-output/vscode/.

The tools come from scripts/setup-vscode-e2e (scripts/test runs it and sets
FOEHN_E2E_REQUIRED=1, so a missing install fails rather than skips)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from foehn_lsp.testing import ModelServer, Turn

REPO = Path(__file__).resolve().parents[2]
E2E_HOME = Path(
    os.environ.get("FOEHN_E2E_HOME")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "foehn-e2e"
)
NODE24 = E2E_HOME / "node24" / "package" / "bin"
CODE_SERVER = E2E_HOME / "cs" / "node_modules" / ".bin" / "code-server"
VSIX = REPO / "vscode-extension" / "foehn.vsix"
SHOTS = REPO / "test-output" / "vscode"
INSTALLED = all(p.exists() for p in (CODE_SERVER, NODE24 / "node", Path("/usr/bin/chromium")))

pytestmark = pytest.mark.skipif(
    not INSTALLED and not os.environ.get("FOEHN_E2E_REQUIRED"),
    reason="real VS Code is not installed; run scripts/setup-vscode-e2e",
)

EDIT_TO = (
    "edit_file",
    {"path": "app.py", "edits": [{"old_text": "return 1  # TODO", "new_text": "return 2"}]},
)
EDIT_AGAIN = (
    "edit_file",
    {"path": "app.py", "edits": [{"old_text": "return 2", "new_text": "return 3"}]},
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def code_server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str], ModelServer]]:
    assert INSTALLED, "run scripts/setup-vscode-e2e first"
    if not VSIX.exists():
        subprocess.run(["npm", "run", "--silent", "package"], cwd=VSIX.parent, check=True)
    data, extensions = tmp_path / "data", tmp_path / "extensions"
    (data / "User").mkdir(parents=True)
    foehn = Path(sys.executable).with_name("foehn")
    settings = json.dumps(
        {
            "foehn.serverPath": str(foehn),
            "chat.disableAIFeatures": True,
            "workbench.startupEditor": "none",
            "extensions.autoCheckUpdates": False,
            "extensions.autoUpdate": False,
            "security.workspace.trust.enabled": False,
            "telemetry.telemetryLevel": "off",
            "files.autoSave": "off",
        }
    )
    # code-server is a remote: machine-scoped settings such as foehn.serverPath are read from
    # the machine's settings, the rest from the user's.
    (data / "Machine").mkdir()
    for scope in ("User", "Machine"):
        (data / scope / "settings.json").write_text(settings)
    port = _free_port()
    config = tmp_path / "config.yaml"
    config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
    model = ModelServer()
    model.__enter__()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    env.update(
        {
            "PATH": f"{NODE24}{os.pathsep}{env.get('PATH', '')}",
            "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
            "XDG_DATA_HOME": str(tmp_path / "xdg"),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "FOEHN_PROVIDER": "openai",
            "FOEHN_BASE_URL": model.openai_url,
            "OPENAI_API_KEY": "sk-test-0123456789abcdef",
        }
    )
    common = [
        "--config",
        str(config),
        "--user-data-dir",
        str(data),
        "--extensions-dir",
        str(extensions),
    ]
    subprocess.run(
        [str(CODE_SERVER), *common, "--install-extension", str(VSIX)],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    log = open(tmp_path / "code-server.log", "w")  # noqa: SIM115
    server = subprocess.Popen(
        [
            str(CODE_SERVER),
            *common,
            "--disable-telemetry",
            "--disable-update-check",
            "--disable-workspace-trust",
            "--disable-getting-started-override",
            "--reconnection-grace-time",
            "5",
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/healthz", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    log_text = (tmp_path / "code-server.log").read_text()[-3000:]
                    raise RuntimeError(f"code-server did not start:\n{log_text}") from None
                time.sleep(0.5)
        yield url, env, model
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()
        model.__exit__()


def test_ask_approve_edit_then_deny_in_real_vscode(
    code_server: tuple[str, dict[str, str], ModelServer], root: Path, tmp_path: Path
) -> None:
    url, env, model = code_server
    source = root / "app.py"
    source.write_text("def main():\n    return 1  # TODO\n")
    model.script(
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(tool_calls=[EDIT_TO]),
        Turn(text="Fixed the TODO in app.py: main() now returns 2."),
        Turn(tool_calls=[EDIT_AGAIN]),
        Turn(text="The change was denied, so app.py is unchanged."),
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [str(NODE24 / "node"), str(Path(__file__).with_name("vscode_scenario.mjs"))],
        env={
            **env,
            "FOEHN_E2E_HOME": str(E2E_HOME),
            "CS_URL": url,
            "WORKSPACE": str(root),
            "SHOTS": str(SHOTS),
            "PROFILE": str(tmp_path / "chromium"),
        },
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
    assert done.returncode == 0, (report, done.stderr[-2000:])
    assert "return 1  # TODO" in report["before"]
    assert "Foehn wants to run edit_file (write): edit app.py (1 block)" in report["dialog"]
    assert report["diffTab"] == 1  # the proposed change opened as a diff beside the dialog
    assert "return 1  # TODO" in report["diff"]
    assert "Fixed the TODO in app.py" in report["answer"]
    assert "return 2" in report["after"]
    assert "TODO" not in report["after"]
    assert report["dirty"] == 1  # in the editor, unsaved: visible and undoable
    assert "return 2" in report["afterDenial"]
    assert "return 3" not in report["afterDenial"]
    assert source.read_text() == "def main():\n    return 1  # TODO\n"
    assert (SHOTS / "confirmation.png").stat().st_size > 10_000
    assert (SHOTS / "answer.png").stat().st_size > 10_000
