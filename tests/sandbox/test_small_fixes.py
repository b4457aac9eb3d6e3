"""Small holes found on the way: a raising step in the call chain, and regular expressions
that would burn CPU until the tool's timeout."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.tools import Invocation, ToolRegistry
from foehn_lsp.tools.registry import Handler


async def test_a_step_that_raises_fails_the_call_and_never_the_registry(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "a.txt").write_text("a\n")

    async def racing(invocation: Invocation, next_step: Handler) -> ToolResult:
        raise FileNotFoundError(2, "No such file or directory", str(root / "a.txt"))

    result = await registry.call("read_file", {"path": "a.txt"}, ctx, steps=(*steps(), racing))
    assert not result.ok
    assert "read_file was not run: FileNotFoundError" in result.output


async def test_cancellation_still_propagates(ctx: ToolContext, registry: ToolRegistry) -> None:
    async def cancelled(invocation: Invocation, next_step: Handler) -> ToolResult:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await registry.call("scan", {}, ctx, steps=(*steps(), cancelled))


@pytest.fixture
def big_file(root: Path) -> Path:
    path = root / "big.txt"
    path.write_text(("a" * 999 + "b\n") * 20_000)  # 20 MB
    return path


async def test_a_regex_too_large_to_compile_is_refused(
    big_file: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await registry.call(
        "search", {"pattern": "a{1000}{1000}", "regex": True}, ctx, steps=steps()
    )
    assert not result.ok
    assert "exceeds size limit" in result.output


async def test_a_pattern_longer_than_the_cap_is_refused(
    ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await registry.call("search", {"pattern": "x" * 1001}, ctx, steps=steps())
    assert not result.ok
    assert "arguments/pattern: String should have at most 1000 characters" in result.output
