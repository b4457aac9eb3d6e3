"""MCP servers' tools in Foehn's registry, against real servers: the published time, git and
everything servers over stdio (everything also over streamable HTTP), and ``servers/awkward.py``
for what published servers do not do (crash, hang, send garbage, lie in their schema)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from foehn_lsp.agent.chain import steps
from foehn_lsp.config import Settings
from foehn_lsp.config.mcp import McpServerConfig, McpSettings
from foehn_lsp.mcp.tools import MAX_OUTPUT_CHARS, McpCatalogue, add_servers, connect_servers
from foehn_lsp.risk import RiskLevel
from foehn_lsp.tools.contract import Tool, ToolContext, ToolResult
from foehn_lsp.tools.discovery import discover
from foehn_lsp.tools.registry import ToolRegistry

pytestmark = pytest.mark.process

Connect = Callable[..., McpCatalogue]


@pytest.fixture
def connect(root: Path) -> Iterator[Connect]:
    opened: list[McpCatalogue] = []

    def open_servers(
        servers: Mapping[str, McpServerConfig], registry: ToolRegistry | None = None
    ) -> McpCatalogue:
        catalogue = connect_servers(
            McpSettings(servers=dict(servers)),
            registry or ToolRegistry(),
            root=root,
            default_timeout=20,
        )
        assert catalogue is not None
        opened.append(catalogue)
        return catalogue

    yield open_servers
    for catalogue in opened:
        catalogue.close()


async def call(catalogue: McpCatalogue, name: str, ctx: ToolContext, **args: object) -> ToolResult:
    return await catalogue.registry.call(name, json.dumps(args), ctx, steps=steps())


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


async def eventually(condition: Callable[[], bool], *, within: float = 10.0) -> None:
    """Wait until ``condition()`` holds (evidence written by another process), or fail."""
    for _ in range(int(within / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    assert condition()


Awkward = Callable[..., McpServerConfig]


async def test_time_and_git_tools_run_with_the_risk_their_annotations_give(
    connect: Connect,
    ctx: ToolContext,
    root: Path,
    time_server: McpServerConfig,
    git_server: McpServerConfig,
) -> None:
    catalogue = connect({"time": time_server, "git": git_server})
    assert catalogue.problems == []
    now = catalogue.registry.get("mcp__time__get_current_time")
    assert now is not None
    assert now.risk is RiskLevel.READ_ONLY
    result = await call(catalogue, "mcp__time__get_current_time", ctx, timezone="Europe/Zurich")
    assert result.ok, result.output
    assert json.loads(result.output)["timezone"] == "Europe/Zurich"
    assert catalogue.origins["mcp__git__git_status"].risk is RiskLevel.READ_ONLY
    assert catalogue.origins["mcp__git__git_commit"].risk is RiskLevel.WRITE
    assert catalogue.origins["mcp__git__git_reset"].risk is RiskLevel.DESTRUCTIVE
    status = await call(catalogue, "mcp__git__git_status", ctx, repo_path=str(root))
    assert status.ok, status.output
    assert "branch" in status.output.lower()


async def test_arguments_are_validated_by_foehn_before_anything_is_sent(
    connect: Connect, ctx: ToolContext, awkward: Awkward, state: Path
) -> None:
    catalogue = connect({"awkward": awkward()})
    result = await call(catalogue, "mcp__awkward__plain_echo", ctx, txt="hello")
    assert not result.ok
    assert "arguments/text: required property is missing" in result.output
    assert lines(state / "calls") == []


async def test_everything_text_structured_content_images_and_errors(
    connect: Connect, ctx: ToolContext, everything: McpServerConfig
) -> None:
    catalogue = connect({"everything": everything})
    echo = await call(catalogue, "mcp__everything__echo", ctx, message="grüezi")
    assert echo.ok
    assert "grüezi" in echo.output
    weather = await call(
        catalogue, "mcp__everything__get-structured-content", ctx, location="New York"
    )
    assert weather.ok, weather.output
    assert weather.data is not None
    assert set(weather.data["structured"]) >= {"temperature", "conditions"}
    image = await call(catalogue, "mcp__everything__get-tiny-image", ctx)
    assert image.ok
    assert "[image image/png, " in image.output
    assert "bytes]" in image.output
    assert "iVBOR" not in image.output  # the base64 itself never reaches the model
    gzip = catalogue.registry.get("mcp__everything__gzip-file-as-resource")
    assert gzip is not None
    assert gzip.risk is RiskLevel.WRITE
    assert "outside this computer" in gzip.description  # openWorldHint


async def test_a_stdio_server_sees_only_the_allowlist_and_its_own_env(
    connect: Connect,
    ctx: ToolContext,
    everything: McpServerConfig,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Neither secret-named nor token-shaped: only the allowlist keeps it from the server.
    monkeypatch.setenv("FOEHN_TEST_LEAK", "plain-leak-marker")
    config = everything.model_copy(update={"env": {}})
    with_env = McpServerConfig.model_validate(
        config.model_dump() | {"env": {"GIVEN_TO_SERVER": "yes", "SERVER_KEY": "given-key-0123"}}
    )
    catalogue = connect({"everything": with_env})
    result = await call(catalogue, "mcp__everything__get-env", ctx)
    assert result.ok
    assert "GIVEN_TO_SERVER" in result.output
    assert "PATH" in result.output
    assert "FOEHN_TEST_LEAK" not in result.output
    assert "plain-leak-marker" not in result.output
    assert "SERVER_KEY" in result.output
    assert "given-key-0123" not in result.output  # its own secret, echoed back, is hidden


async def test_streamable_http_with_headers_that_never_reach_the_log(
    connect: Connect,
    ctx: ToolContext,
    everything_over_http: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = "Bearer http-secret-0123456789abcdef"
    config = McpServerConfig.model_validate(
        {"url": everything_over_http, "headers": {"Authorization": secret}}
    )
    catalogue = connect({"remote": config})
    assert catalogue.problems == []
    result = await call(catalogue, "mcp__remote__get-sum", ctx, a=2, b=3)
    assert result.ok, result.output
    assert "5" in result.output
    catalogue.close()
    assert "http-secret" not in caplog.text


async def test_a_server_that_does_not_start_is_reported_and_the_others_work(
    connect: Connect, ctx: ToolContext, time_server: McpServerConfig
) -> None:
    catalogue = connect(
        {
            "missing": McpServerConfig(command="no-such-program-foehn"),
            "closed": McpServerConfig(url="http://127.0.0.1:9/mcp", startup_timeout_seconds=10),
            "time": time_server,
        }
    )
    problems = {p.server: p.problem for p in catalogue.problems}
    assert "program not found: no-such-program-foehn" in problems["missing"]
    assert "did not start" in problems["closed"]
    result = await call(catalogue, "mcp__time__get_current_time", ctx, timezone="UTC")
    assert result.ok


async def test_bad_schema_and_name_clash_leave_out_one_tool_each(
    connect: Connect, ctx: ToolContext, awkward: Awkward, state: Path
) -> None:
    async def nothing(arguments: object, ctx: ToolContext) -> ToolResult:
        return ToolResult.success("mine")

    squatter = Tool.from_schema(
        name="mcp__awkward__plain_echo",
        description="A plugin's tool that took the name first.",
        parameters={"type": "object"},
        execute=nothing,
        risk=RiskLevel.READ_ONLY,
    )
    catalogue = connect({"awkward": awkward()}, ToolRegistry([squatter]))
    problems = " | ".join(p.problem for p in catalogue.problems)
    assert "'bad_schema' left out" in problems
    assert "not a valid JSON Schema" in problems
    assert "'plain_echo' left out" in problems
    assert "already taken" in problems
    kept = await call(catalogue, "mcp__awkward__plain_echo", ctx, text="x")
    assert kept.output == "mine"
    assert "mcp__awkward_" in " ".join(t.name for t in catalogue.registry)


async def test_is_error_huge_and_garbage_results(
    connect: Connect, ctx: ToolContext, awkward: Awkward, state: Path
) -> None:
    catalogue = connect({"awkward": awkward(call_timeout_seconds=3)})
    failed = await call(catalogue, "mcp__awkward__fail", ctx)
    assert not failed.ok
    assert "reported an error: the disk is on fire" in failed.output
    huge = await call(catalogue, "mcp__awkward__huge", ctx)
    assert huge.ok
    assert len(huge.output) < MAX_OUTPUT_CHARS + 300
    assert "the result was 1,000,000 characters" in huge.output
    garbage = await call(catalogue, "mcp__awkward__garbage", ctx)
    assert not garbage.ok
    assert "not JSON-RPC" in garbage.output
    after = await call(catalogue, "mcp__awkward__plain_echo", ctx, text="still here")
    assert after.output == "still here"


async def test_a_hanging_call_times_out_the_server_is_told_and_others_go_on(
    connect: Connect, ctx: ToolContext, awkward: Awkward, state: Path
) -> None:
    catalogue = connect({"awkward": awkward(call_timeout_seconds=2)})
    hung = await call(catalogue, "mcp__awkward__slow", ctx)
    assert not hung.ok
    assert "no answer within 2 s" in hung.output
    assert "not retried" in hung.output
    await eventually(
        lambda: lines(state / "cancelled") == ["slow"]
    )  # notifications/cancelled reached it
    echo = await call(catalogue, "mcp__awkward__plain_echo", ctx, text="next")
    assert echo.output == "next"


async def test_a_call_over_http_is_bounded_in_time_as_it_arrives_and_the_server_is_told(
    connect: Connect, ctx: ToolContext, awkward_over_http_both: str, state: Path
) -> None:
    catalogue = connect(
        {"remote": McpServerConfig(url=awkward_over_http_both, call_timeout_seconds=2)}
    )
    hung = await call(catalogue, "mcp__remote__slow", ctx)
    assert not hung.ok
    assert "no answer within 2 s" in hung.output
    # Its request's POST is closed (or the server told to cancel, at older versions).
    await eventually(lambda: lines(state / "cancelled") == ["slow"], within=60)
    echo = await call(catalogue, "mcp__remote__plain_echo", ctx, text="next")
    assert echo.output == "next"


async def test_cancelling_the_caller_cancels_the_call_on_the_server(
    connect: Connect, ctx: ToolContext, awkward: Awkward, state: Path
) -> None:
    catalogue = connect({"awkward": awkward()})
    task = asyncio.create_task(call(catalogue, "mcp__awkward__slow", ctx))
    await eventually(lambda: "slow" in lines(state / "calls"))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await eventually(lambda: lines(state / "cancelled") == ["slow"])


async def test_a_crash_mid_call_is_reported_not_retried_and_the_server_restarts(
    connect: Connect, ctx: ToolContext, awkward: Awkward, state: Path
) -> None:
    catalogue = connect({"awkward": awkward()})
    crashed = await call(catalogue, "mcp__awkward__crash", ctx)
    assert not crashed.ok
    assert "stopped during the call" in crashed.output
    assert "not retried" in crashed.output
    echo = await call(catalogue, "mcp__awkward__plain_echo", ctx, text="back")
    assert echo.output == "back"
    assert len(lines(state / "started")) == 2
    assert lines(state / "calls").count("crash") == 1
    (status,) = catalogue.statuses()
    assert status.restarts == 1
    assert status.state == "running"


async def test_a_read_only_call_is_retried_after_a_crash(
    connect: Connect, ctx: ToolContext, awkward: Awkward, state: Path
) -> None:
    catalogue = connect({"awkward": awkward()})
    result = await call(catalogue, "mcp__awkward__crash_once", ctx)
    assert result.ok, result.output
    assert result.output == "survived"
    assert lines(state / "calls").count("crash_once") == 2


async def test_list_changed_brings_new_tools_into_the_registry(
    connect: Connect, ctx: ToolContext, awkward: Awkward, state: Path
) -> None:
    catalogue = connect({"awkward": awkward(risk="write")})
    assert "mcp__awkward__added" not in catalogue.registry
    grown = await call(catalogue, "mcp__awkward__grow", ctx)
    assert grown.ok
    await eventually(lambda: "mcp__awkward__added" in catalogue.registry)
    added = await call(catalogue, "mcp__awkward__added", ctx, text="new")
    assert added.output == "new"
    assert catalogue.origins["mcp__awkward__added"].risk_source == "config: server"


def test_the_hub_stops_its_servers(connect: Connect, awkward: Awkward, state: Path) -> None:
    catalogue = connect({"awkward": awkward()})
    (pid,) = lines(state / "started")
    catalogue.close()
    deadline = time.monotonic() + 10
    while _alive(int(pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(int(pid))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return (
        Path(f"/proc/{pid}").exists()
        and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    )


async def test_a_sandboxed_server_reads_the_workspace_but_cannot_write_it(
    connect: Connect, ctx: ToolContext, root: Path, git_server: McpServerConfig
) -> None:
    (root / "new.txt").write_text("x\n")
    sandboxed = git_server.model_copy(update={"sandbox": "read-only"})
    catalogue = connect({"git": sandboxed})
    assert catalogue.problems == []
    status = await call(catalogue, "mcp__git__git_status", ctx, repo_path=str(root))
    assert status.ok, status.output
    assert "new.txt" in status.output
    added = await call(catalogue, "mcp__git__git_add", ctx, repo_path=str(root), files=["new.txt"])
    assert not added.ok
    assert not (root / ".git" / "index").exists()


async def test_a_lazy_server_starts_at_its_first_call_once_its_tools_are_known(
    root: Path, ctx: ToolContext, awkward: Awkward, state: Path, tmp_path: Path
) -> None:
    settings = McpSettings(servers={"awkward": awkward()}, start="lazy")
    first = connect_servers(
        settings, ToolRegistry(), root=root, default_timeout=20, cache=tmp_path / "cache"
    )
    assert first is not None
    first.close()  # it had to start once: nothing was known about its tools
    assert len(lines(state / "started")) == 1
    again = connect_servers(
        settings, ToolRegistry(), root=root, default_timeout=20, cache=tmp_path / "cache"
    )
    assert again is not None
    try:
        assert "mcp__awkward__plain_echo" in again.registry
        assert len(lines(state / "started")) == 1  # known from the stored list: not started
        echo = await call(again, "mcp__awkward__plain_echo", ctx, text="now")
        assert echo.output == "now"
        assert len(lines(state / "started")) == 2
    finally:
        again.close()
    eager = McpSettings(servers={"awkward": awkward()}, start="startup")
    started = connect_servers(
        eager, ToolRegistry(), root=root, default_timeout=20, cache=tmp_path / "cache"
    )
    assert started is not None
    started.close()
    assert len(lines(state / "started")) == 3


async def test_an_http_503_on_a_read_only_call_is_retried(
    connect: Connect, ctx: ToolContext, awkward_over_http: str, state: Path
) -> None:
    catalogue = connect({"remote": McpServerConfig(url=awkward_over_http)})
    result = await call(catalogue, "mcp__remote__flaky", ctx)
    assert result.ok, result.output
    assert result.output == "steady"
    assert lines(state / "calls") == ["flaky (503)", "flaky"]


async def test_progress_from_a_long_call_reaches_the_tools_progress_sink(
    connect: Connect, ctx: ToolContext, everything: McpServerConfig
) -> None:
    catalogue = connect({"everything": everything})
    seen: list[str] = []
    watched = dataclasses.replace(ctx, progress=seen.append)
    result = await call(
        catalogue, "mcp__everything__trigger-long-running-operation", watched, duration=1, steps=3
    )
    assert result.ok, result.output
    assert seen
    assert seen[-1].startswith("3 of 3")


@pytest.mark.parametrize("trusted", [True, False])
def test_a_workspaces_mcp_json_counts_only_in_a_trusted_workspace(
    root: Path, time_server: McpServerConfig, trusted: bool, approve_all: Callable[[Path], None]
) -> None:
    (root / ".vscode").mkdir()
    (root / ".vscode" / "mcp.json").write_text(
        json.dumps(
            {
                "servers": {
                    "clock": {"type": "stdio", "command": time_server.command},
                    "time": {"command": "the-workspace-would-run-this"},
                    "broken": {"url": "ftp://nope"},
                }
            }
        )
    )
    approve_all(root)
    settings = Settings(trust_workspace=trusted, mcp=McpSettings(servers={"time": time_server}))
    found = discover(entry_points=False)
    add_servers(found, settings, root)
    assert found.servers is not None
    try:
        names = {tool.name for tool in found.registry}
        assert "mcp__time__get_current_time" in names
        assert ("mcp__clock__get_current_time" in names) is trusted
        problems = " | ".join(str(p) for p in found.problems)
        if trusted:
            assert "your own config wins" in problems
            assert "'broken'" in problems
        else:
            assert problems == ""
    finally:
        found.servers.close()


async def test_a_server_that_never_answers_at_start_times_out_and_the_others_work(
    connect: Connect, ctx: ToolContext, time_server: McpServerConfig
) -> None:
    silent = McpServerConfig(
        command=sys.executable,
        args=("-c", "import time; time.sleep(120)"),
        startup_timeout_seconds=2,
    )
    started = time.monotonic()
    catalogue = connect({"silent": silent, "time": time_server})
    assert time.monotonic() - started < 60  # bounded by the start timeout, not the sleep
    (problem,) = catalogue.problems
    assert problem.server == "silent"
    assert "no answer to initialize and tools/list within 2 s" in problem.problem
    result = await call(catalogue, "mcp__time__get_current_time", ctx, timezone="UTC")
    assert result.ok
