"""Sessions in the core: turns with history, saving and loading, checkpoints and undo, with the
scripted provider, the real tools and real workspaces (state under a temporary folder)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.turns import calls, say
from foehn_lsp import RiskLevel, tool
from foehn_lsp.config import Settings
from foehn_lsp.events import (
    Done,
    FilesChanged,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
    TurnStarted,
    event_json,
)
from foehn_lsp.policy import Approved, FixedApprover
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalRequest
from foehn_lsp.providers.messages import ModelResponse, ToolResultMessage, UserMessage
from foehn_lsp.providers.scripted import ScriptedProvider
from foehn_lsp.sessions.builder import FrontEnd, build_session, open_saved
from foehn_lsp.sessions.session import Session
from foehn_lsp.sessions.store import SessionBusy, SessionStore
from foehn_lsp.sessions.transcript import read_transcript
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.tools.contract import CallScope, ToolContext
from foehn_lsp.tools.discovery import LoadedTools
from foehn_lsp.workspace.watch import Watch
from pytest_venv import pytest_venv


class Recorder(list[TurnEvent]):
    def __call__(self, event: TurnEvent) -> None:
        self.append(event)


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    return folder


def session(
    root: Path, turns: list[ModelResponse], *, session_id: str | None = None, **settings: Any
) -> tuple[Session, ScriptedProvider]:
    provider = ScriptedProvider(turns)
    built = build_session(
        Settings(**settings),
        root,
        FrontEnd(name="cli", approver=FixedApprover(Approved())),
        provider=provider,
        session_id=session_id,
    )
    return built, provider


async def test_three_turns_share_one_conversation(root: Path) -> None:
    chat, provider = session(
        root,
        [say("Noted: the codename is HELIX."), say("Fine."), say("The codename is HELIX.")],
    )
    events = Recorder()
    await chat.prompt("Remember the codename HELIX.", emit=events)
    await chat.prompt("Unrelated: say fine.", emit=events)
    outcome = await chat.prompt("What was the codename?", emit=events)
    assert outcome.answer == "The codename is HELIX."
    third = provider.requests[2][0]
    assert [m.content for m in third if isinstance(m, UserMessage)] == [
        "Remember the codename HELIX.",
        "Unrelated: say fine.",
        "What was the codename?",
    ]
    assert [e.turn for e in events if isinstance(e, TurnStarted)] == [1, 2, 3]
    assert [t.index for t in chat.turns] == [1, 2, 3]


async def test_a_saved_session_resumes_with_its_history(root: Path) -> None:
    first, _ = session(root, [say("Noted.")])
    await first.prompt("The codename is HELIX.", emit=Recorder())
    store = SessionStore(root)
    [summary] = store.list()
    assert (summary.id, summary.turns, summary.title) == (first.id, 1, "The codename is HELIX.")
    again, provider = session(root, [say("HELIX.")], session_id=first.id)
    await again.prompt("What was it?", emit=Recorder())
    sent = provider.requests[0][0]
    assert [m.content for m in sent if isinstance(m, UserMessage)] == [
        "The codename is HELIX.",
        "What was it?",
    ]
    recorded = read_transcript(store.path(first.id))
    assert recorded.tasks == ["The codename is HELIX.", "What was it?"]


async def test_a_crash_mid_turn_loses_only_that_turn(root: Path) -> None:
    chat, _ = session(root, [say("One.")])
    await chat.prompt("first", emit=Recorder())
    path = SessionStore(root).path(chat.id)
    started = json.dumps({"kind": "run", "task": "second", "workspace": "w"})
    path.write_text(path.read_text() + started + '\n{"kind": "response", "respo')
    loaded = SessionStore(root).load(chat.id)
    assert [t.task for t in loaded.turns] == ["first"]
    assert loaded.problems == []


async def test_a_damaged_file_is_reported_and_skipped(root: Path) -> None:
    chat, _ = session(root, [say("One.")])
    await chat.prompt("first", emit=Recorder())
    store = SessionStore(root)
    (store.folder / "broken.jsonl").write_text("not json\n")
    assert [s.id for s in store.list()] == [chat.id]
    assert len(store.problems) == 1
    assert "broken.jsonl" in store.problems[0]


async def test_two_prompts_at_once_get_busy(root: Path) -> None:
    gate, asked = asyncio.Event(), asyncio.Event()

    class Slow(ScriptedProvider):
        async def complete(self, *args: Any, **kwargs: Any) -> ModelResponse:
            asked.set()
            await gate.wait()
            return await super().complete(*args, **kwargs)

    chat = build_session(
        Settings(),
        root,
        FrontEnd(name="cli", approver=FixedApprover(Approved())),
        provider=Slow([say("done")]),
    )
    first = asyncio.create_task(chat.prompt("one", emit=Recorder()))
    await asyncio.wait_for(asked.wait(), 30)
    assert chat.busy
    with pytest.raises(SessionBusy):
        await chat.prompt("two", emit=Recorder())
    other = build_session(
        Settings(),
        root,
        FrontEnd(name="lsp", approver=FixedApprover(Approved())),
        provider=ScriptedProvider([]),
        session_id=chat.id,
    )
    with pytest.raises(SessionBusy):
        await other.prompt("three", emit=Recorder())
    gate.set()
    assert (await first).answer == "done"


@pytest.fixture
def project(root: Path) -> Path:
    (root / "app.py").write_text("def main():\n    return 1  # TODO\n")
    (root / "old.txt").write_text("old name\n")
    (root / "gone.txt").write_text("to be deleted\n")
    (root / "data.txt").write_text("before the program\n")
    return root


def changing_turn() -> list[ModelResponse]:
    return [
        calls(("read_file", {"path": "data.txt"}), ("read_file", {"path": "app.py"})),
        calls(
            (
                "edit_file",
                {
                    "path": "app.py",
                    "edits": [{"old_text": "return 1  # TODO", "new_text": "return 2"}],
                },
            ),
            ("write_file", {"path": "pkg/new.py", "content": "NEW = 1\n"}),
            ("move_path", {"source": "old.txt", "destination": "renamed.txt"}),
            ("delete_path", {"path": "gone.txt"}),
            prefix="e",
        ),
        calls(
            (
                "run_command",
                {
                    "command": [
                        sys.executable,
                        "-c",
                        "import os; open('data.txt','w').write('after\\n');"
                        "open('made.txt','w').write('x'); os.makedirs('gen/deep');"
                        "open('gen/deep/out.txt','w').write('y')",
                    ]
                },
            ),
            prefix="p",
        ),
        say("Changed everything."),
    ]


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".foehn" not in p.parts
    }


@pytest.mark.parametrize("inotify", [True, False], ids=["inotify", "snapshots"])
async def test_undo_puts_back_edits_creations_moves_deletions_and_program_changes(
    project: Path, inotify: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ways of finding what a program changed: an inotify watch, and, where that cannot
    be set up (no inotify, or its limit reached: seen on a busy machine running the suite),
    snapshots of the tree before and after, which must find the folders it made too."""
    if not inotify:
        monkeypatch.setattr(Watch, "start", classmethod(lambda cls, root: cls(root)))
    before = tree(project)
    chat, _ = session(project, [say("Looked."), *changing_turn()])
    await chat.prompt("look around", emit=Recorder())
    events = Recorder()
    await chat.prompt("change things", emit=events)
    [changed] = [e for e in events if isinstance(e, FilesChanged)]
    assert isinstance(events[-1], Done)
    kinds = {f.path: f.change for f in changed.files}
    assert kinds == {
        "app.py": "modified",
        "pkg/new.py": "created",
        "old.txt": "deleted",
        "renamed.txt": "moved",
        "gone.txt": "deleted",
        "data.txt": "modified",
        "made.txt": "created",
        "gen/deep/out.txt": "created",
    }
    assert tree(project) != before
    report = await chat.undo()
    assert report.applied, report
    assert report.undone == (2,)
    assert tree(project) == before
    assert not (project / "pkg").exists()
    assert not (project / "gen").exists()
    redo = await chat.redo()
    assert redo.undone == (3,)
    assert redo.redone == (2,)
    assert (project / "renamed.txt").read_text() == "old name\n"
    assert (project / "gen" / "deep" / "out.txt").read_text() == "y"
    assert (project / "data.txt").read_text() == "after\n"


def writes_itself(arguments: Any, ctx: ToolContext) -> CallScope:
    """An MCP server's tool: it changes files itself, and the checkpoint only hears it may."""
    return CallScope(writes=())


async def test_calls_that_change_files_themselves_at_once_are_the_turns_and_undone(
    root: Path,
) -> None:
    """Two calls of a turn that make a folder and write a file themselves, as an MCP server's
    ``create_directory`` and ``write_file`` do, run at once and end together: both changes are
    the turn's, and undo takes them away. A file the person changed between two calls is not
    the turn's, and stays."""
    made = asyncio.Event()

    @tool(risk=RiskLevel.DESTRUCTIVE, scope=writes_itself)
    async def make_folder(name: str) -> str:
        """Makes a folder."""
        (root / name).mkdir()
        made.set()
        return "made"

    @tool(risk=RiskLevel.DESTRUCTIVE, scope=writes_itself)
    async def write_file(name: str) -> str:
        """Writes a file, once the folder is made."""
        await asyncio.wait_for(made.wait(), 30)
        (root / name).write_text("new\n")
        return "written"

    @tool(risk=RiskLevel.READ_ONLY)
    async def look() -> str:
        """Looks, while the person edits a file."""
        (root / "mine.txt").write_text("the person's\n")
        return "looked"

    provider = ScriptedProvider(
        [
            calls(("make_folder", {"name": "docs"}), ("write_file", {"name": "docs/notes.txt"})),
            calls(("look", {})),
            calls(("write_file", {"name": "other.txt"})),
            say("Done."),
        ]
    )
    chat = build_session(
        Settings(),
        root,
        FrontEnd(name="cli", approver=FixedApprover(Approved())),
        provider=provider,
        tools=LoadedTools(registry=ToolRegistry([make_folder, write_file, look])),
    )
    events = Recorder()
    await chat.prompt("write", emit=events)
    [changed] = [e for e in events if isinstance(e, FilesChanged)]
    assert {f.path: f.change for f in changed.files} == {
        "docs/notes.txt": "created",
        "other.txt": "created",
    }
    report = await chat.undo()
    assert report.applied, report
    assert not (root / "docs").exists()
    assert not (root / "other.txt").exists()
    assert (root / "mine.txt").read_text() == "the person's\n"


class ApprovesLater(FixedApprover):
    """Approves every call; ``later`` only once ``ready`` is set (the person answers late)."""

    def __init__(self, ready: asyncio.Event) -> None:
        super().__init__(Approved())
        self.ready = ready

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        if request.tool == "later":
            await asyncio.wait_for(self.ready.wait(), 30)
        return await super().ask(request)


async def test_a_file_one_call_changed_before_the_next_was_approved_is_put_back(
    root: Path,
) -> None:
    """Two calls of a turn at once, the second approved while the first, which rewrote a file
    the turn had read, still runs: undo puts back the file as it was before the turn, not as
    the second call found it when it was prepared."""
    (root / "data.txt").write_text("before\n")
    rewritten, later_ran = asyncio.Event(), asyncio.Event()

    @tool(risk=RiskLevel.READ_ONLY)
    async def look(ctx: ToolContext) -> str:
        """Reads the data."""
        return (await ctx.files.read(root / "data.txt")).text

    @tool(risk=RiskLevel.DESTRUCTIVE, scope=writes_itself)
    async def rewrite() -> str:
        """Rewrites the data, and ends after ``later``."""
        (root / "data.txt").write_text("after\n")
        rewritten.set()
        await asyncio.wait_for(later_ran.wait(), 30)
        return "rewritten"

    @tool(risk=RiskLevel.DESTRUCTIVE, scope=writes_itself)
    async def later() -> str:
        """Changes nothing."""
        later_ran.set()
        return "done"

    provider = ScriptedProvider(
        [calls(("look", {})), calls(("rewrite", {}), ("later", {})), say("Done.")]
    )
    chat = build_session(
        Settings(),
        root,
        FrontEnd(name="cli", approver=ApprovesLater(rewritten)),
        provider=provider,
        tools=LoadedTools(registry=ToolRegistry([look, rewrite, later])),
    )
    events = Recorder()
    await chat.prompt("rewrite", emit=events)
    [changed] = [e for e in events if isinstance(e, FilesChanged)]
    assert {f.path: f.change for f in changed.files} == {"data.txt": "modified"}
    report = await chat.undo()
    assert report.applied, report
    assert (root / "data.txt").read_text() == "before\n"


async def test_undo_refuses_after_hand_edits_and_lists_them(project: Path) -> None:
    chat, _ = session(project, changing_turn())
    await chat.prompt("change things", emit=Recorder())
    (project / "app.py").write_text("edited by hand\n")
    report = await chat.undo()
    assert not report.applied
    assert report.conflicts == ("app.py",)
    assert "app.py" in report.reason
    assert (project / "pkg" / "new.py").exists()
    forced = await chat.undo(force=True)
    assert forced.applied
    assert (project / "app.py").read_text() == "def main():\n    return 1  # TODO\n"


async def test_a_cancelled_turn_leaves_a_history_the_next_turn_can_send(root: Path) -> None:
    started = asyncio.Event()

    @tool(risk=RiskLevel.READ_ONLY)
    async def wait_forever() -> str:
        """Never finishes."""
        started.set()
        await asyncio.Event().wait()
        return "unreachable"

    provider = ScriptedProvider([calls(("wait_forever", {})), say("Fresh start.")])
    chat = build_session(
        Settings(),
        root,
        FrontEnd(name="cli", approver=FixedApprover(Approved())),
        provider=provider,
        tools=LoadedTools(registry=ToolRegistry([wait_forever])),
    )
    stop = asyncio.Event()
    turn = asyncio.create_task(chat.prompt("wait", emit=Recorder(), stop=stop))
    await asyncio.wait_for(started.wait(), 30)
    stop.set()
    assert (await turn).reason == "cancelled"
    await chat.prompt("again", emit=Recorder())
    sent = provider.requests[-1][0]
    [result] = [m for m in sent if isinstance(m, ToolResultMessage)]
    assert (result.call_id, result.content) == ("c0", "not run: cancelled")
    assert [m.content for m in sent if isinstance(m, UserMessage)] == ["wait", "again"]
    assert [t.reason for t in SessionStore(root).load(chat.id).turns] == ["cancelled", "answer"]


async def test_compacting_on_demand_is_saved_and_loaded(root: Path) -> None:
    answers = [say(f"Answer {n}: " + "detail " * 200) for n in range(6)]
    chat, provider = session(root, [*answers, say("- asked six things; nothing decided")])
    for number in range(6):
        await chat.prompt(f"question {number}", emit=Recorder())
    meter = await chat.compact()
    result = chat.compacted
    assert result is not None
    assert meter.used == result.after_tokens
    assert result.after_tokens < result.before_tokens
    assert provider.requests[-1][1] == []  # the summary was asked for without tools
    loaded = SessionStore(root).load(chat.id)
    assert loaded.messages == list(chat.messages)
    first = loaded.messages[1]
    assert isinstance(first, UserMessage)
    assert first.content.startswith("question 0")
    assert "question 1" in first.content
    assert "asked six things" in first.content


async def test_events_carry_the_sandbox_policy_and_the_diff(project: Path) -> None:
    chat, _ = session(project, changing_turn())
    events = Recorder()
    await chat.prompt("change things", emit=events)
    calls_made = {e.tool: e for e in events if isinstance(e, ToolCallEvent)}
    assert calls_made["run_command"].policy == "workspace-write"
    assert calls_made["read_file"].policy is None
    results = {e.tool: e for e in events if isinstance(e, ToolResultEvent)}
    assert results["edit_file"].data is not None
    assert "+    return 2" in results["edit_file"].data["diff"]
    assert event_json(calls_made["read_file"]).keys() == {
        "event",
        "id",
        "tool",
        "arguments",
        "risk",
        "tool_kind",
    }
    assert (calls_made["read_file"].tool_kind, calls_made["edit_file"].tool_kind) == (
        "read",
        "edit",
    )


async def test_restore_to_before_a_turn_undoes_it_and_every_later_one(project: Path) -> None:
    before = tree(project)
    chat, _ = session(
        project,
        [
            calls(("write_file", {"path": "one.txt", "content": "1\n"})),
            say("one"),
            say("nothing changed"),
            calls(("delete_path", {"path": "gone.txt"}), prefix="d"),
            say("two"),
        ],
    )
    for task in ("first", "second", "third"):
        await chat.prompt(task, emit=Recorder())
    assert (project / "one.txt").exists()
    assert not (project / "gone.txt").exists()
    missing = await chat.undo(to_turn=9)
    assert not missing.applied
    assert "there is no turn 9" in missing.reason
    report = await chat.undo(to_turn=1)
    assert report.applied
    assert report.undone == (1, 3)
    assert tree(project) == before


async def test_undo_of_one_file_puts_it_back_alone_and_the_turn_stays_in_effect(
    project: Path,
) -> None:
    chat, provider = session(
        project,
        [
            calls(
                ("write_file", {"path": "one.txt", "content": "1\n"}),
                ("delete_path", {"path": "gone.txt"}),
            ),
            say("made one, deleted gone"),
            say("noted"),
        ],
    )
    await chat.prompt("change things", emit=Recorder())
    wrong = await chat.undo(paths=["app.py"])
    assert not wrong.applied
    assert wrong.reason == "turn 1 did not change app.py"
    (project / "one.txt").write_text("by hand\n")
    refused = await chat.undo(paths=["one.txt"])
    assert not refused.applied
    assert refused.conflicts == ("one.txt",)  # the same conflict check as a turn's undo
    (project / "one.txt").write_text("1\n")
    report = await chat.undo(paths=["gone.txt"])
    assert report.applied
    assert (report.undone, report.restored) == ((1,), ("gone.txt",))
    assert (project / "gone.txt").read_text() == "to be deleted\n"
    assert (project / "one.txt").read_text() == "1\n"
    assert chat.turns[-1].paths == ("gone.txt",)
    await chat.prompt("go on", emit=Recorder())
    told = provider.requests[-1][0][-1].content
    assert "undid gone.txt of turn 1" in told
    rest = await chat.undo()  # the rest of turn 1 is still in effect: the next undo takes it
    assert rest.applied
    assert rest.undone == (1,)
    assert not (project / "one.txt").exists()


async def test_a_saved_session_opened_for_undo_loads_no_model_and_no_tools(project: Path) -> None:
    chat, _ = session(
        project, [calls(("write_file", {"path": "one.txt", "content": "1\n"})), say("made one")]
    )
    await chat.prompt("make one", emit=Recorder())
    opened = open_saved(
        Settings(provider="mistral"),  # no key: a model could not even be made
        project,
        FrontEnd(name="cli", approver=FixedApprover(Approved())),
        chat.id,
    )
    assert len(opened.tools.registry) == 0
    report = await opened.undo()
    assert (report.applied, report.undone) == (True, (1,))
    assert not (project / "one.txt").exists()
    assert [t.undo_of for t in opened.turns] == [(), (1,)]


async def test_changes_between_turns_are_not_the_next_turns(project: Path) -> None:
    def program(code: str, prefix: str) -> ModelResponse:
        return calls(("run_command", {"command": [sys.executable, "-c", code]}), prefix=prefix)

    chat, _ = session(
        project,
        [
            program("open('a.txt','w').write('1')", "p"),
            say("made a"),
            program("open('a.txt','w').write('2')", "q"),
            say("changed a"),
        ],
    )
    await chat.prompt("make a", emit=Recorder())
    (project / "data.txt").write_text("edited by hand between turns\n")
    events = Recorder()
    await chat.prompt("change a", emit=events)
    [changed] = [e for e in events if isinstance(e, FilesChanged)]
    assert [(f.path, f.change) for f in changed.files] == [("a.txt", "modified")]
    assert not any(f.lost for f in chat.turns[-1].files)
    assert (await chat.undo()).restored == ("a.txt",)
    assert (project / "a.txt").read_text() == "1"
    assert (project / "data.txt").read_text() == "edited by hand between turns\n"
    await chat.aclose()


async def test_code_a_failing_run_showed_may_be_edited_in_the_next_turn(root: Path) -> None:
    """The digest of a failing run counts as a read of the definitions it shows whole, in
    later turns too (read back from the conversation), and the session's window reaches the
    tools: in a small one the digest comes without pytest's report."""
    (root / "listing.py").write_text("def last_n(items, n):\n    return items[-n - 1 :]\n")
    (root / "test_listing.py").write_text(
        "from listing import last_n\n\n\ndef test_last_two():\n"
        "    assert last_n([1, 2, 3], 2) == [2, 3]\n"
    )
    pytest_venv(root / ".venv")
    fix = {
        "path": "listing.py",
        "edits": [{"old_text": "items[-n - 1 :]", "new_text": "items[-n:]"}],
    }
    chat, _ = session(
        root,
        [
            calls(("run_tests", {})),
            say("last_n in listing.py returns one item too many. Shall I fix it?"),
            calls(("edit_file", fix)),
            say("I fixed last_n in listing.py."),
        ],
        context_window=16_384,
    )
    events = Recorder()
    await chat.prompt("Why does test_last_two fail?", emit=events)
    [run] = [e for e in events if isinstance(e, ToolResultEvent)]
    assert "last_n, which the test calls:\nlisting.py: lines 1-2 of 2" in run.output
    assert "pytest's own report is left out to fit the model's window" in run.output
    await chat.prompt("Yes, fix it.", emit=events)
    edit = [e for e in events if isinstance(e, ToolResultEvent)][-1]
    assert edit.ok, edit.output
    assert (root / "listing.py").read_text() == "def last_n(items, n):\n    return items[-n:]\n"


async def test_caches_a_test_run_wrote_are_no_change_an_answer_may_claim(root: Path) -> None:
    """Seen on boltons (no .gitignore): after run_tests, "The warning is fixed by changing
    the argument" stood with no file changed; pytest's cache (which it marks ignored) counted
    as the turn's change."""
    (root / "test_app.py").write_text("def test_one():\n    assert True\n")
    pytest_venv(root / ".venv")
    claim = "The warning is fixed by changing the argument in conftest.py."
    chat, provider = session(
        root,
        [calls(("run_tests", {"paths": ["test_app.py"]})), say(claim), say(claim)],
    )
    events = Recorder()
    outcome = await chat.prompt("Fix the warning in the tests", emit=events)
    assert (root / ".pytest_cache").is_dir(), "the run wrote its cache"
    [note] = [
        m.content
        for m in provider.requests[2][0]
        if isinstance(m, UserMessage) and m.content.startswith("[Foehn]")
    ]
    assert "this turn changed no file" in note
    assert outcome.answer.startswith("[Foehn] The model's answer said it had changed files")
