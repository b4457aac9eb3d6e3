"""A third-party MCP server's file writes through ``foehn run``: the real
``@modelcontextprotocol/server-filesystem``, the scripted model on 127.0.0.1, the approval asked
on stdin. The person sees the diff the write would make and, plainly, a path outside the
workspace; the preview is read-only, and a denied write never reaches the file."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from acp import schema, text_block

from acp_harness import EditorClient, acp_agent
from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.testing import ModelServer, Turn
from preloaded import foehn_argv

pytestmark = pytest.mark.process


def write_config(home: Path, server: McpServerConfig) -> None:
    folder = home / "config" / "foehn"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(
        "[mcp.servers.fs]\n"
        f"command = {json.dumps(server.command)}\n"
        f"args = {json.dumps(list(server.args))}\n"
    )


def foehn_environment(model: ModelServer, home: Path) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    environment |= {
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "OPENAI_API_KEY": "sk-test-key-0123456789abcdef",
        "FOEHN_PROVIDER": "openai",
        "FOEHN_BASE_URL": model.openai_url,
        "NO_COLOR": "1",
        "COLUMNS": "200",
    }
    return environment


def run_asked(
    model: ModelServer, home: Path, root: Path, answers: str, *extra: str
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """``foehn run --json --approve ask`` with ``answers`` on stdin."""
    done = subprocess.run(
        foehn_argv(
            "run", "write it", "--workspace", str(root), "--json", "--approve", "ask", *extra
        ),
        input=answers,
        capture_output=True,
        text=True,
        env=foehn_environment(model, home),
        timeout=180,
    )
    return done, [json.loads(line) for line in done.stdout.splitlines()]


def approvals(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for event in stream if event["event"] == "approval"]


def test_a_denied_write_outside_the_workspace_is_shown_as_such_and_changes_nothing(
    model: ModelServer, tmp_path: Path, root: Path, filesystem: Callable[..., McpServerConfig]
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    target = outside / "notes.txt"
    target.write_text("keep me\n")
    write_config(tmp_path, filesystem(root, outside))
    model.script(
        Turn(
            tool_calls=[("mcp__fs__write_file", {"path": str(target), "content": "overwritten\n"})]
        ),
        Turn(text="It was denied."),
    )
    done, stream = run_asked(model, tmp_path, root, "n\n")
    assert done.returncode == 0, done.stderr
    (approval,) = approvals(stream)
    assert approval["decision"] == "deny"
    assert target.read_text() == "keep me\n"
    assert f"writes {target.resolve()}, which is OUTSIDE the workspace" in done.stderr
    assert "-keep me\n+overwritten\n" in done.stderr


def test_an_approved_edit_in_the_workspace_shows_the_diff_the_server_then_makes(
    model: ModelServer, tmp_path: Path, root: Path, filesystem: Callable[..., McpServerConfig]
) -> None:
    source = root / "app.py"
    source.write_text("def greet():\n    return 'hi'\n")
    write_config(tmp_path, filesystem(root))
    edits = [{"oldText": "'hi'", "newText": "'hello'"}]
    model.script(
        Turn(tool_calls=[("mcp__fs__edit_file", {"path": str(source), "edits": edits})]),
        Turn(text="The server has the edit."),
    )
    done, stream = run_asked(model, tmp_path, root, "y\n")
    assert done.returncode == 0, done.stderr
    (approval,) = approvals(stream)
    assert approval["decision"] == "allow"
    assert source.read_text() == "def greet():\n    return 'hello'\n"  # the server wrote it
    assert "writes app.py in the workspace" in done.stderr
    assert "OUTSIDE" not in done.stderr
    assert "-    return 'hi'\n+    return 'hello'\n" in done.stderr


def test_a_preview_that_cannot_be_made_says_why_and_still_asks(
    model: ModelServer, tmp_path: Path, root: Path, filesystem: Callable[..., McpServerConfig]
) -> None:
    source = root / "app.py"
    source.write_text("x = 1\n")
    write_config(tmp_path, filesystem(root))
    edits = [{"oldText": "y = 2", "newText": "y = 3"}]
    model.script(
        Turn(tool_calls=[("mcp__fs__edit_file", {"path": str(source), "edits": edits})]),
        Turn(text="Denied."),
    )
    done, stream = run_asked(model, tmp_path, root, "n\n")
    assert done.returncode == 0, done.stderr
    assert approvals(stream)[0]["decision"] == "deny"
    assert "no preview: edit 1's oldText is not found exactly in the file" in done.stderr
    assert source.read_text() == "x = 1\n"


async def test_acp_permission_request_shows_the_diff_and_the_outside_path(
    model: ModelServer, tmp_path: Path, root: Path, filesystem: Callable[..., McpServerConfig]
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    target = outside / "notes.txt"
    target.write_text("keep me\n")
    server = filesystem(root, outside)
    stdio = schema.McpServerStdio(name="fs", command=server.command, args=list(server.args), env=[])
    model.script(
        Turn(
            tool_calls=[("mcp__fs__write_file", {"path": str(target), "content": "overwritten\n"})]
        ),
        Turn(text="It was rejected."),
    )
    client = EditorClient(answers=["reject_once"])
    async with acp_agent(root, model, client) as conn:
        session = await conn.new_session(cwd=str(root), mcp_servers=[stdio])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Write it")])
    (asked,) = client.permissions
    shown = [c["content"]["text"] for c in asked["toolCall"]["content"]]
    assert f"writes {target.resolve()}, which is OUTSIDE the workspace" in shown
    assert any("-keep me\n+overwritten\n" in text for text in shown)
    assert target.read_text() == "keep me\n"


def test_an_approved_write_is_in_the_checkpoint_its_claim_stands_and_foehn_undo_reverts_it(
    model: ModelServer, tmp_path: Path, root: Path, filesystem: Callable[..., McpServerConfig]
) -> None:
    source = root / "app.py"
    source.write_text("def greet():\n    return 'hi'\n")
    created = root / "docs" / "notes.txt"
    write_config(tmp_path, filesystem(root))
    edits = [{"oldText": "'hi'", "newText": "'hello'"}]
    answer = "I updated app.py and created docs/notes.txt."
    model.script(
        Turn(
            tool_calls=[
                ("mcp__fs__edit_file", {"path": str(source), "edits": edits}),
                ("mcp__fs__create_directory", {"path": str(created.parent)}),
            ]
        ),
        Turn(tool_calls=[("mcp__fs__write_file", {"path": str(created), "content": "new\n"})]),
        Turn(text=answer),
        Turn(text="(a false claim was sent back)"),
    )
    done, stream = run_asked(model, tmp_path, root, "y\ny\ny\n")
    assert done.returncode == 0, done.stderr
    assert [a["decision"] for a in approvals(stream)] == ["allow", "allow", "allow"]
    assert source.read_text() == "def greet():\n    return 'hello'\n"  # the server wrote it
    assert created.read_text() == "new\n", [e for e in stream if e["event"] == "tool_result"]
    assert stream[-1]["event"] == "done"
    assert stream[-1]["answer"] == answer  # a true claim: not sent back, not withheld
    assert len(model.requests) == 3
    undo = subprocess.run(
        foehn_argv("undo", "--workspace", str(root)),
        capture_output=True,
        text=True,
        env=foehn_environment(model, tmp_path),
        timeout=120,
    )
    assert undo.returncode == 0, undo.stderr
    assert source.read_text() == "def greet():\n    return 'hi'\n"
    assert not created.exists()
    assert not created.parent.exists()  # the folder the server made for it goes too
