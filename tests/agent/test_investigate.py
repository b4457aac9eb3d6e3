"""``investigate`` in a real session: the real tools in a real workspace, the OpenAI provider
over the scripted model server on 127.0.0.1. What the parent gets back, what the sub-run may
do (counted on the files and on who was asked), its budget, and the parent's cancel."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.agent.investigate import TOKEN_BUDGET
from foehn_lsp.config import Settings
from foehn_lsp.events import Done, TextDelta, Thinking, ToolCallEvent, ToolResultEvent, TurnEvent
from foehn_lsp.policy import Approved
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalRequest
from foehn_lsp.providers.messages import AssistantMessage
from foehn_lsp.sessions.builder import FrontEnd, build_session
from foehn_lsp.sessions.session import Session
from foehn_lsp.testing import Fault, ModelServer, Turn

READ = ("read_file", {"path": "app.py"})
SUMMARY = "main in app.py:1 returns 1; nothing else calls it."
WAIT_S = 120


class Events(list[TurnEvent]):
    def __call__(self, event: TurnEvent) -> None:
        self.append(event)

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self if isinstance(e, kind)]


class Person:
    """Approves every call it is asked about, and counts them."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return Approved()


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    return folder


@pytest.fixture
def app(root: Path) -> Path:
    (root / "app.py").write_text("def main():\n    return 1\n")
    return root


def session(root: Path, model: ModelServer, person: Person | None = None) -> Session:
    settings = Settings(
        provider="openai",
        base_url=model.openai_url,
        model="test-model",
        api_key="sk-test-key-0123456789abcdef",
    )
    return build_session(settings, root, FrontEnd(name="cli", approver=person or Person()))


def ask(question: str, **more: Any) -> Turn:
    return Turn(tool_calls=[("investigate", {"question": question, **more})])


def tool_names(model: ModelServer, request: int) -> set[str]:
    return {t["function"]["name"] for t in model.requests[request].body.get("tools", [])}


def last_tool_message(model: ModelServer, request: int) -> str:
    messages = model.requests[request].body["messages"]
    content: str = [m for m in messages if m["role"] == "tool"][-1]["content"]
    return content


async def test_the_parent_gets_only_the_summary_and_the_files_it_cites(
    app: Path, model: ModelServer
) -> None:
    model.script(
        ask("What does main return?"),
        Turn(tool_calls=[READ]),
        Turn(text=SUMMARY),
        Turn(text="It returns 1."),
    )
    events = Events()
    built = session(app, model)
    outcome = await built.prompt("What does main return?", emit=events)
    assert outcome.reason == "answer"
    assert outcome.answer == "It returns 1."
    expected = f"{SUMMARY}\n\nFiles cited: app.py"
    assert last_tool_message(model, 3) == expected
    [call] = events.of(ToolCallEvent)
    [result] = events.of(ToolResultEvent)
    assert (call.tool, result.tool, result.ok, result.output) == (
        "investigate",
        "investigate",
        True,
        expected,
    )
    assert result.data["files"] == ["app.py"]
    assert result.data["reason"] == "answer"
    assert "".join(e.text for e in events.of(TextDelta)) == "It returns 1."
    assert len(events.of(Thinking)) == 2, "the sub-run's requests are not the parent's"
    [done] = events.of(Done)
    assert done.iterations == 1
    sub_tools = tool_names(model, 1)
    assert "read_file" in sub_tools
    assert sub_tools.isdisjoint({"write_file", "edit_file", "delete_path", "investigate", "todo"})
    assert "investigate" in tool_names(model, 0)
    kept = [m for m in built.messages if isinstance(m, AssistantMessage)]
    assert [c.name for m in kept for c in m.tool_calls] == ["investigate"]
    await built.aclose()


async def test_a_write_in_the_sub_run_is_refused_before_anyone_is_asked(
    app: Path, model: ModelServer
) -> None:
    write = ("write_file", {"path": "NOTES.md", "content": "notes\n"})
    edit = ("edit_file", {"path": "app.py", "edits": [{"old_text": "1", "new_text": "2"}]})
    touch = ("run_command", {"command": ["touch", "made.txt"]})
    model.script(
        ask("Fix main"),
        Turn(tool_calls=[READ]),
        Turn(tool_calls=[write, edit, touch]),
        Turn(text="I could not change anything; app.py returns 1."),
        Turn(text="Nothing changed."),
    )
    person = Person()
    built = session(app, model, person)
    events = Events()
    await built.prompt("Fix main", emit=events)
    refusals = model.requests[3].body["messages"][-3:]
    assert [m["content"] for m in refusals] == [
        "investigate is read-only: write_file was not run (not offered here). "
        "Answer with what you found.",
        "investigate is read-only: edit_file was not run (not offered here). "
        "Answer with what you found.",
        "investigate is read-only: run_command was not run (write). Answer with what you found.",
    ]
    assert len(model.requests) == 5, "the refusals are not failures to act on"
    assert not (app / "NOTES.md").exists()
    assert not (app / "made.txt").exists()
    assert (app / "app.py").read_text() == "def main():\n    return 1\n"
    assert [r.tool for r in person.asked] == [], "refused before approval"
    assert built.turns[-1].files == ()
    await built.aclose()


async def test_what_the_sub_run_read_does_not_let_the_parent_edit_unread(
    app: Path, model: ModelServer
) -> None:
    edit = ("edit_file", {"path": "app.py", "edits": [{"old_text": "1", "new_text": "2"}]})
    model.script(
        ask("What does main return?"),
        Turn(tool_calls=[READ]),
        Turn(text=SUMMARY),
        Turn(tool_calls=[edit]),
        Turn(text="I could not edit app.py."),
    )
    events = Events()
    built = session(app, model)
    await built.prompt("What does main return?", emit=events)
    refused = events.of(ToolResultEvent)[-1]
    assert (refused.tool, refused.ok) == ("edit_file", False)
    assert (app / "app.py").read_text() == "def main():\n    return 1\n"
    await built.aclose()


async def test_the_sub_run_budget_ends_it_with_a_reason(app: Path, model: ModelServer) -> None:
    model.script(
        ask("What does main return?", max_steps=1),
        Turn(tool_calls=[READ]),
        Turn(tool_calls=[("outline", {"path": "app.py"})]),
        Turn(text="app.py defines main, which returns 1."),
        Turn(text="It returns 1."),
    )
    events = Events()
    built = session(app, model)
    await built.prompt("What does main return?", emit=events)
    [result] = events.of(ToolResultEvent)
    assert result.output.startswith("Stopped: the run reached its limit of 1 tool iteration.")
    assert result.output.endswith("app.py defines main, which returns 1.\n\nFiles cited: app.py")
    assert (result.data["reason"], result.data["steps"]) == ("max_iterations", 1)
    assert tool_names(model, 3) == set(), "the wrap-up offers no tools"
    assert len(model.requests) == 5
    await built.aclose()


async def test_cancel_of_the_parent_stops_the_sub_run(app: Path, model: ModelServer) -> None:
    model.script(
        ask("What does main return?"),
        Fault(delay=WAIT_S * 2, then=Turn(tool_calls=[READ])),
        Turn(text="never asked"),
    )
    events = Events()
    stop = asyncio.Event()
    built = session(app, model)
    turn = asyncio.create_task(built.prompt("What does main return?", emit=events, stop=stop))
    assert await asyncio.to_thread(model.wait_for_requests, 2, WAIT_S)
    stop.set()
    outcome = await asyncio.wait_for(turn, WAIT_S)
    assert outcome.reason == "cancelled"
    assert len(model.requests) == 2
    assert events.of(ToolResultEvent) == []
    await built.aclose()


async def test_the_sub_run_token_budget_ends_it_with_a_reason(
    app: Path, model: ModelServer
) -> None:
    model.script(
        ask("What does main return?"),
        Turn(tool_calls=[READ], input_tokens=TOKEN_BUDGET),
        Turn(text="I read nothing yet."),
        Turn(text="Unknown."),
    )
    events = Events()
    built = session(app, model)
    await built.prompt("What does main return?", emit=events)
    [result] = events.of(ToolResultEvent)
    assert result.output == (
        f"Stopped: the run spent its token budget ({TOKEN_BUDGET:,}).\n\nI read nothing yet."
    )
    assert (result.data["reason"], result.data["steps"]) == ("budget", 0)
    assert len(model.requests) == 4
    await built.aclose()
