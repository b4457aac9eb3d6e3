"""Real VS Code for the tests: code-server (scripts/setup-vscode-e2e installs it, with Node 24,
Debian's chromium and playwright-core) started on 127.0.0.1 with its own profile, extensions
folder and XDG folders, the platform ``.vsix`` installed, and a scenario script driving it in
chromium (``run_scenario``: a ``.mjs`` that prints a JSON report as its last line)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from foehn_lsp.testing import ModelServer

REPO = Path(__file__).resolve().parents[1]
E2E_HOME = Path(
    os.environ.get("FOEHN_E2E_HOME")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "foehn-e2e"
)
NODE24 = E2E_HOME / "node24" / "package" / "bin"
CODE_SERVER = E2E_HOME / "cs" / "node_modules" / ".bin" / "code-server"
EXTENSION = REPO / "vscode-extension"
SHOTS = REPO / "test-output" / "vscode"


def installed() -> bool:
    """Whether code-server, its Node and chromium are there (``scripts/setup-vscode-e2e``)."""
    return all(p.exists() for p in (CODE_SERVER, NODE24 / "node", Path("/usr/bin/chromium")))


QUIET = {
    "workbench.startupEditor": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "telemetry.telemetryLevel": "off",
    "files.autoSave": "off",
    "workbench.reduceMotion": "on",
}
"""Settings that keep code-server from doing anything the tests did not ask for. Without
animations the chromium that draws it used 14% less CPU over ``tests/e2e/test_vscode.py``
(191 against 164 CPU-seconds, one run each on idle cores)."""


def vsix_path() -> Path:
    """The platform ``.vsix`` ``npm run package`` builds on this machine."""
    version = json.loads((EXTENSION / "package.json").read_text())["version"]
    return EXTENSION / f"foehn-linux-x64-{version}.vsix"


PACKAGED_FROM = (
    "vscode-extension/src",
    "vscode-extension/scripts",
    "vscode-extension/media",
    "vscode-extension/package.json",
    "vscode-extension/.vscodeignore",
    "vscode-extension/README.md",
    "vscode-extension/CHANGELOG.md",
    "server",
    "plugins",
    "pyproject.toml",
    "requirements/local.txt",
)
"""What the .vsix is made of: a package older than any of these is stale."""


def _newest(paths: Sequence[str]) -> float:
    newest = 0.0
    for name in paths:
        path = REPO / name
        files = path.rglob("*") if path.is_dir() else [path]
        newest = max([newest, *(f.stat().st_mtime for f in files if f.is_file())])
    return newest


def package() -> Path:
    """The platform .vsix, packaged again unless the one there is newer than everything it is
    made of (scripts/test packages it just before the tests run): a stale package would test
    old code."""
    vsix = vsix_path()
    if not vsix.exists() or vsix.stat().st_mtime <= _newest(PACKAGED_FROM):
        subprocess.run(
            ["npm", "run", "--silent", "package"], cwd=EXTENSION, check=True, timeout=900
        )
    return vsix


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True, kw_only=True)
class CodeServer:
    """A running code-server: its URL, the environment it (and a scenario) runs with, the model
    server the settings point at, and its profile's folder."""

    url: str
    env: dict[str, str]
    model: ModelServer
    data: Path


@contextlib.contextmanager
def code_server(
    tmp_path: Path,
    vsix: Path,
    *,
    trust: bool,
    settings: Mapping[str, object],
    env: Mapping[str, str],
    model: ModelServer,
    extensions: Sequence[Path] = (),
) -> Iterator[CodeServer]:
    """code-server with ``vsix`` installed and ``extensions`` (folders) beside it, ``settings``
    as the user's and the machine's settings (code-server is a remote: machine-scoped settings
    such as foehn.serverPath are read from the machine's, the rest from the user's), and
    ``env`` as its whole environment (plus Node 24 first on PATH, and a ``TMPDIR`` of its own,
    removed afterwards)."""
    # A short path: a socket's path is limited to about 100 characters.
    with tempfile.TemporaryDirectory(prefix="foehn-cs-", ignore_cleanup_errors=True) as scratch:
        data, folder = tmp_path / "data", tmp_path / "extensions"
        (data / "User").mkdir(parents=True)
        (data / "Machine").mkdir()
        text = json.dumps(
            {**QUIET, "security.workspace.trust.enabled": trust, "chat.disableAIFeatures": True}
            | dict(settings)
        )
        for scope in ("User", "Machine"):
            (data / scope / "settings.json").write_text(text)
        folder.mkdir()
        for extension in extensions:
            name = json.loads((extension / "package.json").read_text())
            target = folder / f"{name['publisher']}.{name['name']}-{name['version']}"
            subprocess.run(["cp", "-r", str(extension), str(target)], check=True)
        port = free_port()
        config = tmp_path / "config.yaml"
        config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
        path = f"{NODE24}{os.pathsep}{env.get('PATH', '')}"
        environment = {**env, "PATH": path, "TMPDIR": scratch}
        common = ["--config", str(config), "--user-data-dir", str(data)]
        common += ["--extensions-dir", str(folder)]
        subprocess.run(
            [str(CODE_SERVER), *common, "--install-extension", str(vsix)],
            env=environment,
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
                *([] if trust else ["--disable-workspace-trust"]),
                "--disable-getting-started-override",
                "--reconnection-grace-time",
                "5",
            ],
            env=environment,
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
            yield CodeServer(url=url, env=environment, model=model, data=data)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
            log.close()


def run_scenario(
    script: Path,
    scenario: str,
    server: CodeServer,
    root: Path,
    tmp_path: Path,
    *,
    extra: Mapping[str, str] | None = None,
    timeout: int = 600,
) -> dict[str, Any]:
    """Runs ``script``'s ``scenario`` in ``server`` on the folder ``root``; its report, also kept
    as ``SHOTS/report-<scenario>.json``. A failed run fails with the step's error, the open tabs,
    the chat's text and the last step passed (first, so that a shortened message keeps them),
    the end of stderr, what the model was sent and the end of Foehn's log."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "failure.png").unlink(missing_ok=True)  # from an earlier run
    done = subprocess.run(
        [str(NODE24 / "node"), str(script)],
        env={
            **server.env,
            "FOEHN_E2E_HOME": str(E2E_HOME),
            "CS_URL": server.url,
            "WORKSPACE": str(root),
            "SHOTS": str(SHOTS),
            "PROFILE": str(tmp_path / "chromium"),
            "SCENARIO": scenario,
            **(extra or {}),
        },
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    report: dict[str, Any] = (
        json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
    )
    (SHOTS / f"report-{scenario}.json").write_text(json.dumps(report, indent=2))
    sent = [str(request.body["messages"][-1]["content"])[:300] for request in server.model.requests]
    failed = {key: report.get(key) for key in ("error", "tabs", "chatText")}
    assert done.returncode == 0, (
        failed,
        report.get("steps", [])[-1:],
        done.stderr[-2000:],
        sent,
        foehn_log(server.data),
    )
    return report


def foehn_log(data: Path) -> list[str]:
    """The end of Foehn's output channel in each window code-server opened on the profile
    ``data``, oldest first."""
    logs = sorted(data.glob("logs/**/Foehn.log"), key=lambda path: path.stat().st_mtime)
    return [path.read_text(errors="replace")[-1500:] for path in logs]
