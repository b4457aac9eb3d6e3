"""Tool names every provider accepts, and risk from annotations read with distrust."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp_types import ToolAnnotations

from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.mcp.naming import ALLOWED, tool_name
from foehn_lsp.mcp.risk import assess
from foehn_lsp.risk import RiskLevel
from foehn_lsp.tools.registry import MCP_NAME_PATTERN

SERVER = McpServerConfig(command="server")


def test_a_plain_name_keeps_the_servers_spelling() -> None:
    assert tool_name("everything", "get-env") == "mcp__everything__get-env"
    assert tool_name("git", "git_status") == "mcp__git__git_status"


def test_a_name_that_had_to_change_still_ends_with_the_tool_and_is_marked() -> None:
    name = tool_name("my server", "read.file")
    assert name.startswith("mcp__my_server_")
    assert name.endswith("__read_file")
    assert name != tool_name("my_server", "read_file")
    assert name == tool_name("my server", "read.file")  # deterministic


def test_a_server_name_with_a_double_underscore_cannot_pose_as_another_pair() -> None:
    assert tool_name("a__b", "c") != tool_name("a", "b__c")


@given(st.text(min_size=1, max_size=80), st.text(min_size=1, max_size=200))
def test_every_name_fits_every_provider_and_the_registry(server: str, tool: str) -> None:
    name = tool_name(server, tool)
    assert ALLOWED.match(name), name
    assert MCP_NAME_PATTERN.match(name), name


@given(
    st.tuples(st.text(min_size=1, max_size=30), st.text(min_size=1, max_size=90)),
    st.tuples(st.text(min_size=1, max_size=30), st.text(min_size=1, max_size=90)),
)
def test_different_pairs_get_different_names(
    first: tuple[str, str], second: tuple[str, str]
) -> None:
    if first != second:
        assert tool_name(*first) != tool_name(*second)


@pytest.mark.parametrize(
    ("annotations", "risk", "source"),
    [
        (ToolAnnotations(read_only_hint=True), RiskLevel.READ_ONLY, "readOnlyHint"),
        (
            ToolAnnotations(read_only_hint=False, destructive_hint=False),
            RiskLevel.WRITE,
            "destructiveHint=false",
        ),
        (ToolAnnotations(destructive_hint=True), RiskLevel.DESTRUCTIVE, "annotations"),
        (ToolAnnotations(read_only_hint=False), RiskLevel.DESTRUCTIVE, "annotations"),
        (ToolAnnotations(title="Nice"), RiskLevel.DESTRUCTIVE, "annotations"),
        (None, RiskLevel.DESTRUCTIVE, "no annotations"),
    ],
)
def test_only_hints_that_say_it_is_safe_lower_the_risk(
    annotations: ToolAnnotations | None, risk: RiskLevel, source: str
) -> None:
    assessed = assess("t", annotations, SERVER)
    assert assessed.risk is risk
    assert assessed.source.startswith(source)


def test_the_persons_pins_win_over_the_hints_tool_over_server() -> None:
    config = McpServerConfig(command="s", risk="destructive", tools={"status": "read_only"})
    hinted = ToolAnnotations(read_only_hint=True)
    assert assess("push", hinted, config).risk is RiskLevel.DESTRUCTIVE
    assert assess("push", hinted, config).source == "config: server"
    assert assess("status", None, config).risk is RiskLevel.READ_ONLY
    assert assess("status", None, config).source == "config: tool"


def test_open_world_unless_the_server_says_otherwise_and_idempotence() -> None:
    assert assess("t", None, SERVER).open_world
    assert not assess("t", ToolAnnotations(open_world_hint=False), SERVER).open_world
    assert assess("t", ToolAnnotations(read_only_hint=True), SERVER).idempotent
    assert assess("t", ToolAnnotations(idempotent_hint=True), SERVER).idempotent
    assert not assess("t", ToolAnnotations(destructive_hint=False), SERVER).idempotent


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"command": "x", "url": "http://127.0.0.1:1/mcp"},
        {"url": "ftp://example/mcp"},
        {"command": "x", "headers": {"A": "b"}},
        {"url": "http://127.0.0.1:1/mcp", "args": ["x"]},
        {"command": "x", "unknown": 1},
    ],
)
def test_a_server_entry_that_does_not_fit_is_refused(fields: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="validation error"):
        McpServerConfig.model_validate(fields)


def test_header_and_env_values_never_show_in_a_repr() -> None:
    config = McpServerConfig.model_validate(
        {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer s3cr3t-value"}}
    )
    assert "s3cr3t" not in repr(config)
    assert "s3cr3t" not in str(config.model_dump())
    assert config.secrets() == ["Bearer s3cr3t-value"]
