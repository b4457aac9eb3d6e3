"""``foehn mcp`` driven by the official SDK's client over stdio: what it lists, what it runs,
what it refuses, and that it refuses exactly as Foehn does."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.session import ClientRequestContext, ElicitationFnT

from cli.harness import foehn
from foehn_lsp.agent.chain import steps
from foehn_lsp.tools.contract import ToolContext
from foehn_lsp.tools.registry import ToolRegistry
from preloaded import foehn_argv

pytestmark = pytest.mark.process


@asynccontextmanager
async def foehn_mcp(
    root: Path, home: Path, *flags: str, elicit: ElicitationFnT | None = None
) -> AsyncIterator[ClientSession]:
    command, *args = foehn_argv("mcp", "--workspace", str(root), *flags)
    params = StdioServerParameters(
        command=command,
        args=args,
        env={
            "XDG_STATE_HOME": str(home / "state"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "PATH": os.environ["PATH"],
        },
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, elicitation_callback=elicit) as session,
    ):
        await session.initialize()
        yield session


def text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def test_read_only_tools_by_default_with_annotations_from_their_risk(
    root: Path, tmp_path: Path
) -> None:
    (root / "notes.txt").write_text("one\ntwo\n")
    async with foehn_mcp(root, tmp_path) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert {"read_file", "scan", "search", "git"} <= set(tools)
        assert not {"write_file", "edit_file", "delete_path", "run_tests"} & set(tools)
        hints = tools["read_file"].annotations
        assert hints is not None
        assert hints.read_only_hint is True
        assert hints.idempotent_hint is True
        run = tools["run_command"].annotations  # risk assessed per call: not promised read-only
        assert run is not None
        assert run.read_only_hint is True  # ...but this server runs read-only calls only
        result = await session.call_tool("read_file", {"path": "notes.txt"})
        assert not result.is_error
        assert "two" in text(result)
        listed = await session.call_tool("run_command", {"command": ["ls"]})  # in the sandbox
        assert not listed.is_error, text(listed)
        assert "notes.txt" in text(listed)
    (audit,) = (tmp_path / "state" / "foehn" / "audit").glob("*.jsonl")
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(r["tool"], r["ok"]) for r in records] == [("read_file", True), ("run_command", True)]


async def test_an_escape_is_refused_exactly_as_in_foehn(
    root: Path,
    tmp_path: Path,
    registry: ToolRegistry,
    ctx: ToolContext,
    canary_untouched: Callable[[], None],
) -> None:
    escape = {"path": "../canary/secret.txt"}
    in_foehn = await registry.call("read_file", json.dumps(escape), ctx, steps=steps())
    assert not in_foehn.ok
    async with foehn_mcp(root, tmp_path) as session:
        result = await session.call_tool("read_file", escape)
    assert result.is_error
    assert text(result) == in_foehn.output
    canary_untouched()


async def test_writes_are_refused_without_the_flag(root: Path, tmp_path: Path) -> None:
    async with foehn_mcp(root, tmp_path) as session:
        unlisted = await session.call_tool("write_file", {"path": "a.txt", "content": "x"})
        assert unlisted.is_error
        assert text(unlisted) == (
            "write_file is not offered: it makes write calls and this foehn mcp server allows "
            "read_only calls only. The person can offer it by starting the server with "
            "--allow-writes."
        )
        destructive = await session.call_tool("delete_path", {"path": "a.txt"})
        assert "--allow-destructive" in text(destructive)
        unknown = await session.call_tool("no_such_tool", {})
        assert "unknown tool 'no_such_tool'" in text(unknown)
        touched = await session.call_tool("run_command", {"command": ["touch", "made.txt"]})
        assert touched.is_error
        assert "--allow-writes" in text(touched)
    assert not (root / "a.txt").exists()
    assert not (root / "made.txt").exists()


async def test_with_the_flag_a_write_asks_through_elicitation(root: Path, tmp_path: Path) -> None:
    asked: list[str] = []

    async def allow_once(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": "allow once"})

    async with foehn_mcp(root, tmp_path, "--allow-writes", elicit=allow_once) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        hints = tools["write_file"].annotations
        assert hints is not None
        assert (hints.read_only_hint, hints.destructive_hint) == (False, False)
        assert "delete_path" not in tools
        result = await session.call_tool("write_file", {"path": "a.txt", "content": "hi\n"})
    assert not result.is_error, text(result)
    assert (root / "a.txt").read_text() == "hi\n"
    (question,) = asked
    assert "write_file (write)" in question
    assert "+hi" in question  # the diff is shown


async def test_a_declined_question_leaves_the_file_alone(root: Path, tmp_path: Path) -> None:
    async def decline(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async with foehn_mcp(root, tmp_path, "--allow-writes", elicit=decline) as session:
        result = await session.call_tool("write_file", {"path": "a.txt", "content": "hi\n"})
    assert result.is_error
    assert "denied" in text(result)
    assert not (root / "a.txt").exists()


async def test_without_elicitation_a_write_is_refused_with_how_to_allow_it(
    root: Path, tmp_path: Path
) -> None:
    async with foehn_mcp(root, tmp_path, "--allow-writes") as session:
        result = await session.call_tool("write_file", {"path": "a.txt", "content": "hi\n"})
    assert result.is_error
    assert "does not support elicitation" in text(result)
    assert 'approval.write = "allow"' in text(result)
    assert "the person denied" not in text(result)
    assert "nobody refused it" in text(result)
    assert not (root / "a.txt").exists()


async def test_allow_for_this_session_asks_once_for_the_same_scope(
    root: Path, tmp_path: Path
) -> None:
    asked: list[str] = []

    async def allow_session(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": "allow for this session"})

    async with foehn_mcp(root, tmp_path, "--allow-writes", elicit=allow_session) as session:
        for name in ("a.txt", "b.txt"):
            result = await session.call_tool("write_file", {"path": name, "content": "x\n"})
            assert not result.is_error, text(result)
    assert len(asked) == 1
    assert (root / "b.txt").read_text() == "x\n"


async def test_an_edit_needs_a_read_in_an_earlier_call_of_the_same_server(
    root: Path, tmp_path: Path
) -> None:
    async def allow_once(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"decision": "allow once"})

    (root / "app.py").write_text("X = 1\n")
    edit = {"path": "app.py", "edits": [{"old_text": "X = 1", "new_text": "X = 2"}]}
    async with foehn_mcp(root, tmp_path, "--allow-writes", elicit=allow_once) as session:
        refused = await session.call_tool("edit_file", edit)
        assert "has not been read in this session" in text(refused)
        assert (root / "app.py").read_text() == "X = 1\n"
        await session.call_tool("read_file", {"path": "app.py"})
        edited = await session.call_tool("edit_file", edit)
    assert not edited.is_error, text(edited)
    assert (root / "app.py").read_text() == "X = 2\n"


def allowing(asked: list[str]) -> ElicitationFnT:
    async def allow_once(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": "allow once"})

    return allow_once


def sessions(root: Path, home: Path) -> list[dict[str, Any]]:
    listed = foehn("sessions", "list", "--json", "--workspace", str(root), state=home / "state")
    assert listed.returncode == 0, listed.stderr
    found: list[dict[str, Any]] = json.loads(listed.stdout)["sessions"]
    return found


def turns(root: Path, home: Path, session: str) -> list[dict[str, Any]]:
    shown = foehn(
        "sessions", "show", session, "--json", "--workspace", str(root), state=home / "state"
    )
    assert shown.returncode == 0, shown.stderr
    found: list[dict[str, Any]] = json.loads(shown.stdout)["turns"]
    return found


async def test_each_call_is_a_turn_that_foehn_undo_puts_back(root: Path, tmp_path: Path) -> None:
    (root / "notes.txt").write_text("one\n")
    edit = {"path": "notes.txt", "edits": [{"old_text": "one", "new_text": "two"}]}
    async with foehn_mcp(root, tmp_path, "--allow-writes", elicit=allowing([])) as session:
        made = await session.call_tool("write_file", {"path": "a.txt", "content": "a\n"})
        assert not made.is_error, text(made)
        # The person undoes the client's last call while the client is still connected...
        undone = await asyncio.to_thread(
            foehn, "undo", "--workspace", str(root), state=tmp_path / "state"
        )
        assert undone.returncode == 0, undone.stderr
        assert not (root / "a.txt").exists()
        # ...and the client's next calls are the session's next turns, after the undo.
        await session.call_tool("read_file", {"path": "notes.txt"})
        edited = await session.call_tool("edit_file", edit)
        assert not edited.is_error, text(edited)
    assert (root / "notes.txt").read_text() == "two\n"
    (saved,) = sessions(root, tmp_path)
    assert saved["title"].startswith("tool calls from ")
    shown = turns(root, tmp_path, saved["id"])
    assert [(t["index"], t["undoOf"]) for t in shown] == [(1, []), (2, [1]), (3, []), (4, [])]
    assert [f["path"] for f in shown[3]["files"]] == ["notes.txt"]
    undone = foehn("undo", "--workspace", str(root), state=tmp_path / "state")
    assert undone.returncode == 0, undone.stderr
    assert (root / "notes.txt").read_text() == "one\n"


async def test_calls_that_overlap_share_one_turn(root: Path, tmp_path: Path) -> None:
    (root / "notes.txt").write_text("one\n")
    read_done = asyncio.Event()

    async def once_the_read_ran(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        with anyio.fail_after(300):  # the write waits, in flight, for the read sent beside it
            await read_done.wait()
        return types.ElicitResult(action="accept", content={"decision": "allow once"})

    async with foehn_mcp(root, tmp_path, "--allow-writes", elicit=once_the_read_ran) as session:

        async def read() -> types.CallToolResult:
            result = await session.call_tool("read_file", {"path": "notes.txt"})
            read_done.set()
            return result

        written, was_read = await asyncio.gather(
            session.call_tool("write_file", {"path": "a.txt", "content": "a\n"}), read()
        )
    assert not written.is_error, text(written)
    assert "one" in text(was_read)
    (saved,) = sessions(root, tmp_path)
    (turn,) = turns(root, tmp_path, saved["id"])
    assert [f["path"] for f in turn["files"]] == ["a.txt"]


async def test_the_question_names_the_network_a_call_may_reach(root: Path, tmp_path: Path) -> None:
    (tmp_path / "config" / "foehn").mkdir(parents=True)
    (tmp_path / "config" / "foehn" / "config.toml").write_text(
        '[sandbox]\nnetwork = ["registry.example"]\n'
    )
    asked: list[str] = []

    async def deny(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": "deny"})

    async with foehn_mcp(root, tmp_path, "--allow-writes", elicit=deny) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        fetch = tools["fetch"].annotations
        assert fetch is not None
        assert fetch.open_world_hint is True
        assert tools["write_file"].annotations.open_world_hint is False  # type: ignore[union-attr]
        await session.call_tool("run_command", {"command": ["touch", "made.txt"]})
    (question,) = asked
    assert "which may reach registry.example (and nothing else on the network)" in question
    assert not (root / "made.txt").exists()
