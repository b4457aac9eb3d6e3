"""What an MCP result puts in front of the model: read with a cap while it arrives (a 50 MB
result ends the call at once with a true note, and the connection goes on), never twice (text
and structured content of the same file), and a cut note whose numbers are the real ones,
through the turn's own executor."""

from __future__ import annotations

import json
import re
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from foehn_lsp.agent.chain import steps
from foehn_lsp.agent.execution import MAX_RESULT_CHARS, TurnExecutor
from foehn_lsp.config.mcp import McpServerConfig, McpSettings
from foehn_lsp.events import TurnEvent
from foehn_lsp.mcp.cut import MAX_MESSAGE_BYTES
from foehn_lsp.mcp.naming import tool_name
from foehn_lsp.mcp.tools import MAX_OUTPUT_CHARS, McpCatalogue, connect_servers
from foehn_lsp.providers.messages import ToolCall
from foehn_lsp.tools.contract import ToolContext
from foehn_lsp.tools.registry import ToolRegistry


@pytest.fixture
def awkward_catalogue(
    root: Path, awkward: Callable[..., McpServerConfig]
) -> Iterator[McpCatalogue]:
    catalogue = connect_servers(
        McpSettings(servers={"awkward": awkward(call_timeout_seconds=60)}),
        ToolRegistry(),
        root=root,
        default_timeout=60,
    )
    assert catalogue is not None
    yield catalogue
    catalogue.close()


async def through_the_turn(catalogue: McpCatalogue, ctx: ToolContext, tool: str) -> str:
    """The call as a turn runs it: the registry's chain and the executor's own cap."""
    seen: list[TurnEvent] = []
    executor = TurnExecutor(catalogue.registry, ctx, seen.append)
    (message,) = await executor.run([ToolCall(id="1", name=tool, arguments="{}")])
    return message.content


async def test_a_fifty_megabyte_result_is_cut_as_it_arrives_and_said_truly(
    awkward_catalogue: McpCatalogue, ctx: ToolContext, state: Path
) -> None:
    told = await through_the_turn(awkward_catalogue, ctx, "mcp__awkward__flood")
    said = re.match(
        r"\[Foehn stopped reading this result at ([\d,]+) bytes: the server sent ([\d,]+) bytes "
        r"in all, more than Foehn reads from one MCP result, and the rest was not read\. The "
        r"start of its text follows\.\]\nstart of the flood xxx",
        told,
    )
    assert said is not None, told[:300]
    assert int(said[1].replace(",", "")) == MAX_MESSAGE_BYTES
    assert int(said[2].replace(",", "")) > 50_000_000  # the real size of the message
    assert len(told) <= MAX_RESULT_CHARS
    assert "characters cut" not in told
    after = await awkward_catalogue.registry.call(
        tool_name("awkward", "read.echo"), json.dumps({"text": "still here"}), ctx, steps=steps()
    )
    assert after.output == "still here"
    assert len((state / "started").read_text().splitlines()) == 1  # the same connection


async def test_a_fifty_megabyte_result_over_http_is_cut_as_it_arrives_in_bounded_memory(
    awkward_over_http_both: str, root: Path, ctx: ToolContext, state: Path
) -> None:
    catalogue = connect_servers(
        McpSettings(servers={"remote": McpServerConfig(url=awkward_over_http_both)}),
        ToolRegistry(),
        root=root,
        default_timeout=60,
    )
    assert catalogue is not None
    try:
        tracemalloc.start()
        told = await through_the_turn(catalogue, ctx, "mcp__remote__flood")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        said = re.match(
            r"\[Foehn stopped reading this result at ([\d,]+) bytes: the server was sending "
            r"more than Foehn reads from one MCP result, and the rest was not read\. The start of "
            r"its text follows\.\]\nstart of the flood xxx",
            told,
        )
        assert said is not None, told[:300]
        assert int(said[1].replace(",", "")) == MAX_MESSAGE_BYTES
        assert peak < 4 * MAX_MESSAGE_BYTES < 50_000_000  # never the whole result in memory
        after = await catalogue.registry.call(
            tool_name("remote", "read.echo"), json.dumps({"text": "still here"}), ctx, steps=steps()
        )
        assert after.output == "still here"
        assert lines_of(state / "started") == 1  # the same server, never restarted
    finally:
        catalogue.close()


def lines_of(path: Path) -> int:
    return len(path.read_text().splitlines())


async def test_text_and_structured_content_of_one_file_reach_the_model_once(
    awkward_catalogue: McpCatalogue, ctx: ToolContext
) -> None:
    told = await through_the_turn(awkward_catalogue, ctx, "mcp__awkward__file_like")
    assert told == "line one\nline two\n"


async def test_the_cut_note_gives_the_real_numbers(
    awkward_catalogue: McpCatalogue, ctx: ToolContext
) -> None:
    told = await through_the_turn(awkward_catalogue, ctx, "mcp__awkward__huge")
    note = re.search(
        r"the result was 1,000,000 characters; the first ([\d,]+) are shown and ([\d,]+) were "
        r"cut\.",
        told,
    )
    assert note is not None, told[-300:]
    shown, cut = (int(n.replace(",", "")) for n in note.groups())
    assert shown + cut == 1_000_000
    assert told.count("x") == shown
    assert len(told) <= MAX_OUTPUT_CHARS == MAX_RESULT_CHARS
    assert "characters cut" not in told  # the turn's cap did not cut it again
