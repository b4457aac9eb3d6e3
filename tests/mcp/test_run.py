"""MCP tools through ``foehn run``: a real process, the scripted model server on 127.0.0.1, MCP
servers from the user's config.toml. They are tools like any other: policy allows the read-only
ones, asks about the rest, a denied call never reaches the server, and the audit log has them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli.harness import foehn
from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.testing import ModelServer, Turn
from preloaded import foehn_argv

pytestmark = pytest.mark.process


def write_config(home: Path, servers: dict[str, McpServerConfig]) -> None:
    lines = []
    for name, config in servers.items():
        lines.append(f"[mcp.servers.{name}]")
        lines.append(f"command = {json.dumps(config.command)}")
        lines.append(f"args = {json.dumps(list(config.args))}")
    (home / "config" / "foehn").mkdir(parents=True)
    (home / "config" / "foehn" / "config.toml").write_text("\n".join(lines) + "\n")


def foehn_run(
    model: ModelServer, home: Path, root: Path, approve: str, *extra: str
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    environment |= {
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "OPENAI_API_KEY": "sk-test-key-0123456789abcdef",
        "FOEHN_PROVIDER": "openai",
        "FOEHN_BASE_URL": model.openai_url,
    }
    command = foehn_argv("run", "use the tools")
    done = subprocess.run(
        [*command, "--workspace", str(root), "--json", "--approve", approve, *extra],
        capture_output=True,
        text=True,
        env=environment,
        timeout=180,
    )
    return done, [json.loads(line) for line in done.stdout.splitlines()]


def of(stream: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [event for event in stream if event["event"] == kind]


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_a_read_only_mcp_call_runs_by_policy_and_is_audited(
    model: ModelServer, tmp_path: Path, root: Path, time_server: McpServerConfig
) -> None:
    write_config(tmp_path, {"time": time_server})
    model.script(
        Turn(tool_calls=[("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"})]),
        Turn(text="It is late in Tokyo."),
    )
    transcript = tmp_path / "run.jsonl"
    done, stream = foehn_run(model, tmp_path, root, "never", "--transcript", str(transcript))
    assert done.returncode == 0, done.stderr
    (call,) = of(stream, "tool_call")
    assert call["risk"] == "read_only"
    recorded = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert any(r.get("tool") == "mcp__time__get_current_time" for r in recorded)
    (approval,) = of(stream, "approval")
    assert (approval["decision"], approval["reason"]) == ("allow", "policy")
    (result,) = of(stream, "tool_result")
    assert result["ok"], result["output"]
    assert "Asia/Tokyo" in result["output"]
    (audit,) = (tmp_path / "state" / "foehn" / "audit").glob("*.jsonl")
    record = json.loads(audit.read_text().splitlines()[-1])
    assert record["tool"] == "mcp__time__get_current_time"
    assert record["arguments"] == {"timezone": "Asia/Tokyo"}
    assert record["ok"] is True


def test_an_unannotated_call_asks_and_a_denied_one_is_never_sent(
    model: ModelServer, tmp_path: Path, root: Path, awkward: Any, state: Path
) -> None:
    write_config(tmp_path, {"awkward": awkward()})
    model.script(
        Turn(tool_calls=[("mcp__awkward__plain_echo", {"text": "hello"})]),
        Turn(text="It was denied."),
    )
    done, stream = foehn_run(model, tmp_path, root, "never")
    assert done.returncode == 0, done.stderr
    (call,) = of(stream, "tool_call")
    assert call["risk"] == "destructive"  # no annotations: the worst
    (approval,) = of(stream, "approval")
    assert approval["decision"] == "deny"
    assert approval["reason"] == "--approve never"  # it asked; the answer was no
    (result,) = of(stream, "tool_result")
    assert not result["ok"]
    assert "plain_echo" not in lines(state / "calls")


def test_an_approved_unannotated_call_is_sent(
    model: ModelServer, tmp_path: Path, root: Path, awkward: Any, state: Path
) -> None:
    write_config(tmp_path, {"awkward": awkward()})
    model.script(
        Turn(tool_calls=[("mcp__awkward__plain_echo", {"text": "hello"})]),
        Turn(text="Echoed."),
    )
    done, stream = foehn_run(model, tmp_path, root, "all")
    assert done.returncode == 0, done.stderr
    (approval,) = of(stream, "approval")
    assert approval["decision"] == "allow"
    assert approval["reason"] != "policy"  # asked, then approved
    (result,) = of(stream, "tool_result")
    assert result["output"] == "hello"
    assert lines(state / "calls") == ["plain_echo"]


def test_a_crash_mid_call_is_reported_and_the_server_restarts(
    model: ModelServer, tmp_path: Path, root: Path, awkward: Any, state: Path
) -> None:
    write_config(tmp_path, {"awkward": awkward()})
    model.script(
        Turn(tool_calls=[("mcp__awkward__crash", {})]),
        Turn(tool_calls=[("mcp__awkward__plain_echo", {"text": "after the crash"})]),
        Turn(text="Recovered."),
    )
    done, stream = foehn_run(model, tmp_path, root, "all")
    assert done.returncode == 0, done.stderr
    crashed, echoed = of(stream, "tool_result")
    assert not crashed["ok"]
    assert "stopped during the call" in crashed["output"]
    assert "not retried" in crashed["output"]
    assert echoed["ok"]
    assert echoed["output"] == "after the crash"
    assert len(lines(state / "started")) == 2
    assert of(stream, "done")[0]["answer"] == "Recovered."
    assert "Traceback" not in done.stderr


def test_a_server_that_fails_to_start_is_reported_and_the_run_goes_on(
    model: ModelServer, tmp_path: Path, root: Path
) -> None:
    write_config(tmp_path, {"gone": McpServerConfig(command="no-such-mcp-server-here")})
    model.script(Turn(tool_calls=[("scan", {})]), Turn(text="Done without it."))
    done, stream = foehn_run(model, tmp_path, root, "never")
    assert done.returncode == 0, done.stderr
    assert "MCP server gone" in done.stderr
    assert "program not found: no-such-mcp-server-here" in done.stderr
    assert of(stream, "done")[0]["answer"] == "Done without it."


def test_foehn_tools_shows_servers_risks_and_where_they_came_from(
    tmp_path: Path, root: Path, time_server: McpServerConfig, awkward: Any
) -> None:
    write_config(
        tmp_path,
        {
            "time": time_server,
            "awkward": awkward(),
            "gone": McpServerConfig(command="no-such-mcp-server-here"),
        },
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    environment |= {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    listed = subprocess.run(
        foehn_argv("tools", "--json", "--workspace", str(root)),
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    catalogue = json.loads(listed.stdout)
    tools = {tool["name"]: tool for tool in catalogue["tools"]}
    now = tools["mcp__time__get_current_time"]
    assert now["risk"] == "read_only"
    assert now["mcp"] == {
        "server": "time",
        "tool": "get_current_time",
        "risk_source": "readOnlyHint",
        "open_world": False,
        "asks_each_call": False,
    }
    assert tools["mcp__awkward__plain_echo"]["risk"] == "destructive"
    assert tools["mcp__awkward__plain_echo"]["mcp"]["risk_source"] == "no annotations"
    assert "mcp" not in tools["read_file"]
    problems = {p["plugin"]: p["problems"] for p in catalogue["problems"]}
    assert "program not found: no-such-mcp-server-here" in problems["MCP server gone"][0]
    assert "'bad_schema' left out" in problems["MCP server awkward"][0]
    text = subprocess.run(
        foehn_argv("tools", "--workspace", str(root)),
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    assert "MCP server time; risk from readOnlyHint" in text.stdout
    assert "MCP server gone: did not start" in text.stderr


def test_a_servers_question_is_asked_in_the_terminal_and_the_answer_sent(
    model: ModelServer, tmp_path: Path, root: Path, awkward: Any
) -> None:
    write_config(tmp_path, {"awkward": awkward()})
    model.script(Turn(tool_calls=[("mcp__awkward__ask", {})]), Turn(text="Filed."))
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    environment |= {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "OPENAI_API_KEY": "sk-test-key-0123456789abcdef",
        "FOEHN_PROVIDER": "openai",
        "FOEHN_BASE_URL": model.openai_url,
    }
    # Project: the second choice; Title: too short, then right; Urgent: the default; send.
    typed = "2\nno\nCrash on start\n\ny\n"
    done = subprocess.run(
        [*foehn_argv("run", "file it"), "--workspace", str(root), "--json", "--approve", "ask"],
        input=typed,
        capture_output=True,
        text=True,
        env=environment,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert "The MCP server 'awkward' asks during ask:" in done.stderr
    assert "Which issue?" in done.stderr
    assert "Title: length at least 3" in done.stderr
    stream = [json.loads(line) for line in done.stdout.splitlines()]
    (result,) = of(stream, "tool_result")
    assert json.loads(result["output"]) == {
        "action": "accept",
        "content": {"project": "docs", "title": "Crash on start", "urgent": False},
    }


def test_a_prompt_of_a_server_is_a_chat_command_listed_in_help(
    model: ModelServer, tmp_path: Path, root: Path, awkward: Any
) -> None:
    (tmp_path / "config" / "foehn").mkdir(parents=True)
    config = awkward()
    (tmp_path / "config" / "foehn" / "config.toml").write_text(
        f"[mcp.servers.awkward]\ncommand = {json.dumps(config.command)}\n"
        f"args = {json.dumps(list(config.args))}\n"
    )
    model.script(Turn(text="Reviewed."))
    typed = "/help\n/mcp__awkward__review\n/mcp__awkward__review app.py speed\n"
    done = foehn(
        "chat",
        "--workspace",
        str(root),
        server=model,
        state=tmp_path,
        stdin=typed,
        env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr
    assert "/mcp__awkward__review path [focus]" in done.stderr
    assert "path missing; usage: /mcp__awkward__review path [focus]" in done.stderr
    assert "Reviewed." in done.stdout
    (request,) = model.requests
    assert "Review app.py with an eye on speed." in json.dumps(request.body["messages"])
