"""``foehn config`` through the real command line."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from foehn_lsp.cli.config_report import report
from foehn_lsp.config import Settings, settings_layers
from preloaded import foehn_argv

pytestmark = pytest.mark.process

KEY = "sk-report-0123456789abcdef"


def foehn(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    for name in ("MISTRAL_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        environment.pop(name, None)
    environment.update({"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "NO_COLOR": "1", **env})
    return subprocess.run(
        foehn_argv("config", *args),
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def user_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "xdg" / "foehn" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def test_each_setting_says_where_it_came_from(tmp_path: Path) -> None:
    path = user_file(tmp_path, 'provider = "mistral"\n\n[approval]\ndestructive = "deny"\n')
    done = foehn(tmp_path, "--json", FOEHN_MODEL="devstral-small", MISTRAL_API_KEY=KEY)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["userFile"] == str(path)
    found = {e["key"]: (e["value"], e["source"]) for e in document["settings"]}
    assert found["provider"] == ('"mistral"', f"{path} line 1")
    assert found["approval.destructive"] == ('"deny"', f"{path} line 4")
    assert found["model"] == ('"devstral-small"', "FOEHN_MODEL")
    assert found["apiKey"] == ("set (hidden)", "MISTRAL_API_KEY")
    assert found["maxToolIterations"] == ("30", "default")
    assert found["baseUrl"] == (
        "not set (https://api.mistral.ai/v1, the provider's default)",
        "default",
    )
    assert KEY not in done.stdout + done.stderr


def test_the_table_is_readable_text(tmp_path: Path) -> None:
    path = user_file(tmp_path, "maxToolIterations = 12\n")
    done = foehn(tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"user file: {path}"
    [row] = [line for line in lines if line.startswith("maxToolIterations")]
    assert row.split() == ["maxToolIterations", "12", str(path), "line", "1"]


def test_a_wrong_variable_is_named_with_the_real_choices(tmp_path: Path) -> None:
    done = foehn(tmp_path, FOEHN_PROVIDER="gemini")
    assert done.returncode != 0
    assert "FOEHN_PROVIDER" in done.stderr
    assert "mistral, openai, anthropic, local" in done.stderr
    assert "Traceback" not in done.stderr


def test_unknown_keys_are_warned_about_on_stderr(tmp_path: Path) -> None:
    user_file(tmp_path, 'provder = "openai"\n')
    done = foehn(tmp_path)
    assert done.returncode == 0
    assert "line 1: unknown setting 'provder'; did you mean 'provider'?" in done.stderr
    assert "provder" not in done.stdout


def test_flags_and_the_editor_user_level_are_named(tmp_path: Path) -> None:
    layers = settings_layers(
        editor={"userLevel": {"provider": "openai", "baseUrl": "http://127.0.0.1:1/v1"}},
        overrides={"model": "m"},
        env={},
        user_file=tmp_path / "none.toml",
    )
    settings = Settings(provider="openai", base_url="http://127.0.0.1:1/v1", model="m")
    found = {e.key: e.source for e in report(layers, settings, env={})}
    assert found["provider"] == "editor (user level)"
    assert found["model"] == "flag --model"
