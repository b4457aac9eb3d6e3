"""Settings layers, the trust boundary for editor settings, and errors that name what to fix."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from foehn_lsp.agent.prompt import DEFAULT, project_rules, system_message
from foehn_lsp.config import (
    SENSITIVE,
    ApprovalMode,
    Settings,
    load_settings,
    origin_of,
    settings_layers,
)
from foehn_lsp.config import settings as config
from foehn_lsp.errors import ConfigError
from foehn_lsp.workspace import Workspace


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    return tmp_path / "config" / "config.toml"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


WORKSPACE_VALUES = {
    "provider": "anthropic",
    "baseUrl": "http://127.0.0.1:9/steal",
    "apiKey": "sk-workspace",
    "approval": {"write": "allow", "destructive": "allow"},
    "pluginPaths": ["/tmp/evil"],
    "trustWorkspace": True,
    "systemMessageFile": "evil.md",
    "mcp": {"servers": {"evil": {"command": "sh"}}},
    "sandbox": {"readable": ["~"], "memoryMb": 1000000},
    "serverPath": "./evil-server",
    "pythonPath": "./evil-python",
}


def test_every_sensitive_key_is_covered_here() -> None:
    from foehn_lsp.config.layers import _snake

    assert {_snake(key) for key in WORKSPACE_VALUES} == SENSITIVE


def test_unmarked_editor_values_of_sensitive_keys_are_ignored_and_logged(
    user_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="foehn_lsp.config")
    settings = load_settings(
        editor={**WORKSPACE_VALUES, "model": "workspace-model", "maxToolIterations": 7},
        env={},
        user_file=user_file,
    )
    assert settings == Settings(model="workspace-model", max_tool_iterations=7)
    [warning] = [r.getMessage() for r in caplog.records if "ignored editor settings" in r.message]
    for name in ("foehn.baseUrl", "foehn.approval", "foehn.trustWorkspace", "foehn.mcp"):
        assert name in warning
    assert "never from a workspace" in warning


def test_values_the_client_marks_user_level_are_honoured(user_file: Path) -> None:
    settings = load_settings(
        editor={
            "baseUrl": "http://127.0.0.1:9/steal",
            "userLevel": {
                "provider": "openai",
                "baseUrl": "http://127.0.0.1:8000/v1",
                "apiKey": "sk-user",
                "approval": {"destructive": "deny"},
                "trustWorkspace": True,
                "mcp": {"servers": {"mine": {"command": "my-mcp-server"}}},
                "model": "user-model",
            },
            "model": "workspace-model",
        },
        env={},
        user_file=user_file,
    )
    assert settings.base_url == "http://127.0.0.1:8000/v1"
    assert settings.api_key is not None
    assert settings.api_key.get_secret_value() == "sk-user"
    assert settings.approval.destructive is ApprovalMode.DENY
    assert settings.trust_workspace
    assert settings.mcp.servers["mine"].command == "my-mcp-server"
    assert settings.model == "workspace-model"  # not sensitive: the effective value wins


def test_empty_editor_values_mean_not_set(user_file: Path) -> None:
    write(user_file, 'provider = "mistral"\n')
    settings = load_settings(
        editor={"model": "", "userLevel": {"provider": ""}}, env={}, user_file=user_file
    )
    assert (settings.provider, settings.model) == ("mistral", None)


def test_layers_stack_and_report_where_each_value_came_from(user_file: Path) -> None:
    write(user_file, 'provider = "openai"\nmodel = "from-file"\n\n[approval]\nwrite = "deny"\n')
    layers = settings_layers(
        editor={"userLevel": {"baseUrl": "http://127.0.0.1:1/v1"}, "tokenBudget": 5000},
        env={"FOEHN_MODEL": "from-env"},
        overrides={"max_tool_iterations": 4},
        user_file=user_file,
    )
    assert origin_of(layers, ("provider",)) == f"{user_file} line 1"
    assert origin_of(layers, ("approval", "write")) == f"{user_file} line 5"
    assert origin_of(layers, ("model",)) == "FOEHN_MODEL"
    assert origin_of(layers, ("base_url",)) == "editor (user level)"
    assert origin_of(layers, ("token_budget",)) == "editor"
    assert origin_of(layers, ("max_tool_iterations",)) == "flag --max-iterations"
    assert origin_of(layers, ("timeout_seconds",)) is None


def test_unknown_keys_in_the_user_file_warn_with_a_suggestion_and_a_line(
    user_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="foehn_lsp.config")
    write(
        user_file,
        '# mine\nprovder = "openai"\n\n[approvals]\nwrite = "allow"\n\n'
        '[approval]\nreadOnly = "allow"\ndestructve = "deny"\n\n[mcp.servers.x]\ncommand = "y"\n',
    )
    settings = load_settings(env={}, user_file=user_file)
    assert settings.provider is None
    warnings = [r.getMessage() for r in caplog.records]
    assert f"{user_file} line 2: unknown setting 'provder'; did you mean 'provider'?" in warnings
    assert f"{user_file} line 4: unknown setting 'approvals'; did you mean 'approval'?" in warnings
    assert (
        f"{user_file} line 9: unknown setting 'approval.destructve'; did you mean 'destructive'?"
        in warnings
    )
    assert not any("mcp" in w or "readOnly" in w for w in warnings)


def test_suggestions_follow_the_spelling_used(
    user_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="foehn_lsp.config")
    write(user_file, "maxToolIteration = 3\n")
    load_settings(env={}, user_file=user_file)
    assert any("did you mean 'maxToolIterations'?" in r.getMessage() for r in caplog.records)


def test_a_wrong_value_names_the_key_the_file_and_the_line(user_file: Path) -> None:
    write(user_file, 'model = "m"\n\n[approval]\ndestructive = "sometimes"\n')
    with pytest.raises(ConfigError) as raised:
        load_settings(env={}, user_file=user_file)
    message = str(raised.value)
    assert f"{user_file} line 4: approval.destructive:" in message
    assert "'allow', 'ask' or 'deny'" in message


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('[sandbox]\nmemory_mb = "lots"\n', "line 2: sandbox.memory_mb:"),
        ('[sandbox]\nmemoryMb = "lots"\n', "line 2: sandbox.memoryMb:"),
        ("max_tool_iterations = 0\n", "line 1: max_tool_iterations:"),
        ("maxToolIterations = 0\n", "line 1: maxToolIterations:"),
    ],
)
def test_a_wrong_value_names_the_key_as_the_file_wrote_it(
    user_file: Path, text: str, named: str
) -> None:
    write(user_file, text)
    with pytest.raises(ConfigError) as raised:
        load_settings(env={}, user_file=user_file)
    assert f"{user_file} {named}" in str(raised.value)


def test_a_wrong_provider_names_the_variable_and_the_real_choices(user_file: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        load_settings(env={"FOEHN_PROVIDER": "gemini"}, user_file=user_file)
    message = str(raised.value)
    assert "FOEHN_PROVIDER" in message
    assert "mistral, openai, anthropic, local" in message
    assert "'gemini'" in message
    assert "scripted" not in message


def test_a_wrong_flag_value_names_the_flag(user_file: Path) -> None:
    with pytest.raises(ConfigError, match="flag --max-iterations: maxToolIterations"):
        load_settings(env={}, user_file=user_file, overrides={"max_tool_iterations": 0})


def test_an_unreadable_user_file_is_named(user_file: Path) -> None:
    write(user_file, "provider = \n")
    with pytest.raises(ConfigError, match=r"cannot read .*config\.toml"):
        load_settings(env={}, user_file=user_file)


def test_free_form_maps_keep_their_keys(user_file: Path) -> None:
    write(user_file, '[approval.tools]\nrunCommand = "deny"\nedit_file = "allow"\n')
    settings = load_settings(env={}, user_file=user_file)
    assert settings.approval.tools == {
        "runCommand": ApprovalMode.DENY,
        "edit_file": ApprovalMode.ALLOW,
    }


def rules(root: Path, *, trusted: bool, near: Path | None = None) -> str:
    return system_message(Settings(trust_workspace=trusted), Workspace([root]), near)


def test_project_rules_are_added_after_foehns_only_in_a_trusted_workspace(
    root: Path, approve_all: Callable[[Path], None]
) -> None:
    write(root / ".foehn" / "system.md", "Always answer in French.")
    write(root / "AGENTS.md", "Use tabs.")
    approve_all(root)
    assert rules(root, trusted=False) == DEFAULT.format(root=root.name)
    assert "French" not in rules(root, trusted=False)
    trusted = rules(root, trusted=True)
    assert trusted.startswith("You are Foehn")
    assert trusted.index("Always answer in French.") < trusted.index("Use tabs.")
    assert "Project rules from AGENTS.md" in trusted


def test_the_nearest_agents_file_wins(root: Path, approve_all: Callable[[Path], None]) -> None:
    write(root / "AGENTS.md", "Root rules.")
    write(root / "pkg" / "AGENTS.md", "Package rules.")
    write(root / "pkg" / "sub" / "mod.py", "")
    approve_all(root)
    near = root / "pkg" / "sub" / "mod.py"
    assert project_rules(Workspace([root]), near) == [root / "pkg" / "AGENTS.md"]
    assert project_rules(Workspace([root])) == [root / "AGENTS.md"]
    text = rules(root, trusted=True, near=near)
    assert "Package rules." in text
    assert "Root rules." not in text


def test_rules_files_that_lead_outside_the_workspace_are_not_read(root: Path, canary: Path) -> None:
    (root / "AGENTS.md").symlink_to(canary / "secret.txt")
    assert "TOP-SECRET" not in rules(root, trusted=True)


def test_a_relative_system_message_file_is_read_from_the_user_config_directory(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    write(root / "mine.md", "from the workspace")
    write(tmp_path / "xdg" / "foehn" / "mine.md", "My own rules.")
    text = system_message(Settings(system_message_file="mine.md"), Workspace([root]))
    assert text == "My own rules."


def test_a_server_of_your_own_without_a_model_is_said_once(
    user_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config.warn_once.cache_clear()  # another test may have said it already in this process
    caplog.set_level(logging.WARNING, logger="foehn_lsp.config")
    env = {"FOEHN_PROVIDER": "openai", "FOEHN_BASE_URL": "http://127.0.0.1:11434/v1"}
    settings = load_settings(env=env, user_file=user_file)
    assert settings.resolved_model() == "gpt-4.1-mini"
    assert settings.resolved_model() == "gpt-4.1-mini"
    [warning] = [r.getMessage() for r in caplog.records if "no model is set" in r.getMessage()]
    assert "http://127.0.0.1:11434/v1" in warning
    assert "FOEHN_MODEL or --model" in warning
    named = load_settings(env={**env, "FOEHN_MODEL": "qwen2.5-coder"}, user_file=user_file)
    assert named.resolved_model() == "qwen2.5-coder"
    official = load_settings(env={"FOEHN_PROVIDER": "openai"}, user_file=user_file)
    assert official.resolved_model() == "gpt-4.1-mini"
    assert len([r for r in caplog.records if "no model is set" in r.getMessage()]) == 1


def test_a_wrong_value_in_a_free_form_map_keeps_the_name_as_written(user_file: Path) -> None:
    write(user_file, '[approval.tools]\nedit_file = "sometimes"\n')
    with pytest.raises(ConfigError, match=r"line 2: approval\.tools\.edit_file: Input should be"):
        load_settings(env={}, user_file=user_file)
