"""What an MCP server sends besides answers reaches the person, against ``servers/awkward.py``
over stdio and streamable HTTP: its questions (elicitation, form and URL) through the call's
front end, shown as coming from it and checked before anything is sent back; its progress as
the call's progress; its log messages in Foehn's log, scrubbed; a tool it changes afterwards
asked about on every call; its prompts as slash commands and its resources through one
read-only tool."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.agent.chain import Parts, steps
from foehn_lsp.agent.execution import Announcer
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.config.mcp import McpServerConfig, McpSettings
from foehn_lsp.events import ToolProgress, TurnEvent
from foehn_lsp.mcp.prompts import PromptUsageError
from foehn_lsp.mcp.tools import McpCatalogue, connect_servers
from foehn_lsp.policy.approval import ApprovalGate, Approved, FixedApprover
from foehn_lsp.tools.contract import ToolContext, ToolResult
from foehn_lsp.tools.elicitation import ElicitationAnswer, ElicitationRequest
from foehn_lsp.tools.registry import ToolRegistry

pytestmark = pytest.mark.process

Connect = Callable[..., McpCatalogue]
Awkward = Callable[..., McpServerConfig]


@pytest.fixture
def connect(root: Path) -> Iterator[Connect]:
    opened: list[McpCatalogue] = []

    def open_servers(servers: Mapping[str, McpServerConfig]) -> McpCatalogue:
        catalogue = connect_servers(
            McpSettings(servers=dict(servers)), ToolRegistry(), root=root, default_timeout=20
        )
        assert catalogue is not None
        opened.append(catalogue)
        return catalogue

    yield open_servers
    for catalogue in opened:
        catalogue.close()


class Person:
    """Answers a server's questions as scripted, and notes what it was shown."""

    def __init__(self, *answers: ElicitationAnswer) -> None:
        self.answers = list(answers)
        self.asked: list[ElicitationRequest] = []

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.asked.append(request)
        return self.answers.pop(0)


async def call(
    catalogue: McpCatalogue,
    name: str,
    ctx: ToolContext,
    parts: Parts | None = None,
    **args: Any,
) -> ToolResult:
    chain = steps(parts or Parts())
    return await catalogue.registry.call(name, json.dumps(args), ctx, steps=chain)


def named(catalogue: McpCatalogue, server_tool: str) -> str:
    """Foehn's name for the server's tool ``server_tool``."""
    (name,) = [n for n, o in catalogue.origins.items() if o.tool == server_tool]
    return name


@pytest.fixture(params=["stdio", "http"])
def awkward_either(
    request: pytest.FixtureRequest, awkward: Awkward, state: Path
) -> Iterator[McpServerConfig]:
    if request.param == "stdio":
        yield awkward()
        return
    http = request.getfixturevalue("awkward_over_http")
    yield McpServerConfig(url=http)


async def test_a_form_goes_to_the_person_named_as_the_servers_and_defaults_are_filled(
    connect: Connect, ctx: ToolContext, awkward_either: McpServerConfig
) -> None:
    catalogue = connect({"awkward": awkward_either})
    person = Person(ElicitationAnswer(action="accept", content={"title": "Crash on start"}))
    result = await call(catalogue, "mcp__awkward__ask", dataclasses.replace(ctx, elicit=person))
    (asked,) = person.asked
    assert asked.server == "awkward"
    assert asked.tool == "ask"
    assert asked.message == "Which issue?"
    assert [(f.name, f.kind, f.required) for f in asked.fields] == [
        ("project", "choice", False),
        ("title", "string", True),
        ("urgent", "boolean", False),
    ]
    assert json.loads(result.output) == {
        "action": "accept",
        "content": {"project": "core", "title": "Crash on start", "urgent": False},
    }


@pytest.mark.parametrize(
    "given",
    [
        {"title": "ok title", "project": "secret-project"},  # not a choice
        {"title": "no"},  # too short
        {"project": "docs"},  # the required field missing
        {"title": "ok title", "extra": "smuggled"},  # not in the form
        {"title": "ok title", "urgent": "maybe"},  # not a yes or no
    ],
)
async def test_an_answer_that_does_not_fit_the_form_is_not_sent(
    connect: Connect, ctx: ToolContext, awkward: Awkward, given: dict[str, Any]
) -> None:
    catalogue = connect({"awkward": awkward()})
    person = Person(ElicitationAnswer(action="accept", content=given))
    result = await call(catalogue, "mcp__awkward__ask", dataclasses.replace(ctx, elicit=person))
    assert json.loads(result.output) == {"action": "decline", "content": None}


async def test_without_anyone_to_ask_the_question_is_declined(
    connect: Connect, ctx: ToolContext, awkward: Awkward
) -> None:
    catalogue = connect({"awkward": awkward()})
    result = await call(catalogue, "mcp__awkward__ask", ctx)
    assert json.loads(result.output) == {"action": "decline", "content": None}


async def test_a_page_to_open_is_shown_and_the_answer_carries_no_content(
    connect: Connect, ctx: ToolContext, awkward: Awkward
) -> None:
    catalogue = connect({"awkward": awkward()})
    person = Person(ElicitationAnswer(action="accept", content={"ignored": True}))
    result = await call(catalogue, "mcp__awkward__ask_url", dataclasses.replace(ctx, elicit=person))
    (asked,) = person.asked
    assert asked.url == "https://example.com/confirm"
    assert asked.fields == ()
    assert json.loads(result.output) == {"action": "accept"}


async def test_progress_becomes_the_calls_progress_events(
    connect: Connect, ctx: ToolContext, awkward_either: McpServerConfig
) -> None:
    catalogue = connect({"awkward": awkward_either})
    events: list[TurnEvent] = []
    result = await call(
        catalogue, "mcp__awkward__steps", ctx, Parts(announce=Announcer(events.append))
    )
    assert result.ok
    said = [e for e in events if isinstance(e, ToolProgress)]
    assert [e.message for e in said] == ["1 of 3: step 1", "2 of 3: step 2", "3 of 3: step 3"]
    assert {e.tool for e in said} == {"mcp__awkward__steps"}


async def test_log_messages_go_to_foehns_log_with_secrets_scrubbed(
    connect: Connect,
    ctx: ToolContext,
    awkward: Awkward,
    state: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = "sk-awkward-0123456789abcdef"
    catalogue = connect({"awkward": awkward(env={"AWKWARD_SECRET": secret})})
    with caplog.at_level(logging.INFO, logger="foehn_lsp.mcp.server"):
        assert (await call(catalogue, "mcp__awkward__chatty", ctx)).ok
        await eventually(lambda: len(caplog.records) >= 2)
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name.endswith("awkward")]
    assert (logging.WARNING, "MCP server awkward [store]: disk almost full") in lines
    assert any(level == logging.ERROR and "leaked" in text for level, text in lines)
    assert secret not in caplog.text
    assert (state / "log_level").read_text().split() == ["info"]


async def eventually(condition: Callable[[], bool]) -> None:
    import asyncio

    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0.05)
    assert condition()


async def test_a_tool_the_server_changes_afterwards_is_asked_about_each_call(
    connect: Connect, ctx: ToolContext, awkward: Awkward
) -> None:
    catalogue = connect({"awkward": awkward(allow_open_world=True)})
    person = FixedApprover(Approved(scope="run"))
    gate = ApprovalGate(ApprovalSettings(), person, lambda event: None)
    parts = Parts(approval=gate)
    echo = named(catalogue, "read.echo")
    assert (await call(catalogue, echo, ctx, parts, text="a")).ok
    assert person.asked == []  # read-only, closed to the outside by the person: not asked
    assert (await call(catalogue, "mcp__awkward__morph", ctx, parts)).ok
    await eventually(lambda: echo in catalogue.origins and bool(catalogue.origins[echo].changed))
    tool = catalogue.registry.get(echo)
    assert tool is not None
    assert "send the user's files" in tool.description
    origin = catalogue.catalogue_fields(echo)["mcp"]
    assert origin["changed"] == "its description, schema or annotations changed"
    for _ in range(2):  # "for this run" does not cover it: each call asks
        assert (await call(catalogue, echo, ctx, parts, text="b")).ok
    assert [r.tool for r in person.asked] == [echo] * 2
    assert "changed this tool since it first listed it" in (person.asked[0].summary or "")


async def test_prompts_are_slash_commands_whose_text_becomes_the_task(
    connect: Connect, awkward_either: McpServerConfig, state: Path
) -> None:
    catalogue = connect({"awkward": awkward_either})
    commands = {c.name: c for c in catalogue.prompt_commands()}
    assert set(commands) == {"mcp__awkward__review", "mcp__awkward__greeting"}
    review = commands["mcp__awkward__review"]
    assert review.hint == "path [focus]"
    assert review.description == "Review a file. (MCP server awkward)"
    task = await catalogue.expand('/mcp__awkward__review src/app.py "error handling"')
    assert task == "Review src/app.py with an eye on error handling."
    named = await catalogue.expand("/mcp__awkward__review focus=tests path=a.py")
    assert named == "Review a.py with an eye on tests."
    assert await catalogue.expand("/mcp__awkward__greeting") == "Say hello to the team."
    assert await catalogue.expand("/undo") is None
    assert await catalogue.expand("plain text") is None
    with pytest.raises(PromptUsageError, match=r"path missing; usage: /mcp__awkward__review"):
        await catalogue.expand("/mcp__awkward__review")
    with pytest.raises(PromptUsageError, match="too many words"):
        await catalogue.expand("/mcp__awkward__greeting now please")
    sent = [json.loads(line) for line in (state / "prompts").read_text().splitlines()]
    assert len(sent) == 3  # what did not fit was never sent


async def test_resources_are_read_through_one_read_only_tool_asked_about_like_the_servers(
    connect: Connect, ctx: ToolContext, awkward: Awkward, state: Path
) -> None:
    catalogue = connect({"awkward": awkward()})
    tool = catalogue.registry.get("mcp__awkward__read_resource")
    assert tool is not None
    assert "notes://today" in tool.description
    assert "notes://{day}" in tool.description
    person = FixedApprover(Approved())
    gate = ApprovalGate(ApprovalSettings(), person, lambda event: None)
    read = await call(catalogue, tool.name, ctx, Parts(approval=gate), uri="notes://monday")
    assert read.ok
    assert read.output == "monday: buy milk"
    (asked,) = person.asked  # the URI goes to the server: asked, as its open-world tools are
    assert asked.outside is not None
    assert (state / "reads").read_text().split() == ["notes://monday"]
