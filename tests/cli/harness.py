"""The ``foehn`` command as a test runs it: a real process (or a pseudo-terminal) with an
environment of its own, pointed at a model server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from foehn_lsp.testing import ModelServer
from preloaded import foehn_argv


def foehn_environment(
    server: ModelServer | None, state: Path, env: dict[str, str] | None = None
) -> dict[str, str]:
    """This process's environment without Foehn's variables, pointed at ``server``."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FOEHN_")}
    environment.update(
        {
            "XDG_STATE_HOME": str(state),
            "XDG_CONFIG_HOME": str(state / "config"),
            "OPENAI_API_KEY": "sk-test-key-0123456789abcdef",
        }
    )
    if server is not None:
        environment.update(
            {
                "FOEHN_PROVIDER": "openai",
                "FOEHN_BASE_URL": server.openai_url,
                "FOEHN_MODEL": "test-model",
            }
        )
    environment.update(env or {})
    return environment


def foehn(
    *args: str,
    server: ModelServer | None = None,
    state: Path,
    stdin: str = "",
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    environment = foehn_environment(server, state, env)
    return subprocess.run(
        foehn_argv(*args),
        input=stdin,
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
    )


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def spawn(args: list[str], server: ModelServer, state: Path, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """``foehn`` on a pseudo-terminal, as a person runs it."""
    import pexpect

    environment = foehn_environment(server, state, {"TERM": "xterm-256color", **(env or {})})
    environment.pop("NO_COLOR", None) if "NO_COLOR" not in (env or {}) else None
    return pexpect.spawn(
        sys.executable,
        ["-m", "foehn_lsp", *args],
        env=environment,
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 160),
    )
