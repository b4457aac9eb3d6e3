"""Real VS Code: code-server in Debian's chromium, driven by playwright-core, through a whole task
in Foehn's chat view (tests/e2e/vscode_scenario.mjs): set the API key and restart (one working
server); a refused key's card and Retry; ask and watch the streamed answer; approve an edit
inline and see it land unsaved; follow up in the same session; Ctrl+Z in the editor noticed;
restore (asked, said, redone) and undo with no tab left unsaved; ask from the lightbulb; at a
200 px side bar, an approval's answers in view and nothing sticking out; a command's approval
with its command line; code blocks copied, applied and run after showing what they do; reload
and find the chat open; the walkthrough ticked. Restricted Mode: a refusal says why, and
trusting the folder leaves a server that answers. Rules: an approval says why it asks, Always
allow saves its rule and the next such call runs unasked, Foehn: Rules… lists and removes it;
`/` completes a custom command; an MCP server's question is answered on its call's card.
Language tools: the model's definition, references and rename_symbol are answered by VS Code's
TypeScript features. Screenshots of each state are saved in
test-output/vscode/, named for what they show; the webview's buttons must all have names and
be reachable by keyboard.

The tools come from scripts/setup-vscode-e2e (scripts/test runs it and sets
FOEHN_E2E_REQUIRED=1, so a missing install fails rather than skips)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import vscode_harness
from foehn_lsp.testing import Fault, ModelServer, Turn
from vscode_harness import SHOTS, CodeServer, installed, run_scenario

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        not installed() and not os.environ.get("FOEHN_E2E_REQUIRED"),
        reason="real VS Code is not installed; run scripts/setup-vscode-e2e",
    ),
]

FIX = (
    "edit_file",
    {"path": "app.py", "edits": [{"old_text": "return 1  # TODO", "new_text": "return 2"}]},
)
RENAME = (
    "edit_file",
    {"path": "app.py", "edits": [{"old_text": "def main():", "new_text": "def run():"}]},
)
NOTES_LINES = [f"line {n}: " + "a long line of notes " * (6 if n == 3 else 1) for n in range(40)]
NOTES = ("write_file", {"path": "notes.md", "content": "\n".join(NOTES_LINES) + "\n"})
SCRIPT = ("run_command", {"command": ["python3", "-c", "print('hi there')"], "cwd": "."})
LONG_NAME = "a_really_long_identifier_name_that_goes_on_and_on_past_any_narrow_side_bar"
WIDE = "\n".join(
    [
        "Here is the table:",
        "",
        "| file | what it holds | lines |",
        "|---|---|---|",
        "| `tests/test_app.py` | the tests of the application, one per function | 120 |",
        "",
        f"The helper is `{LONG_NAME}`.",
        "",
        "```python app.py",
        "def run():",
        "    return 2  # a comment long enough that this line is far wider than a narrow side bar",
        "```",
        "",
        "```bash",
        "echo ran > ran.txt",
        "```",
    ]
)
FIX_MAIN = (
    "edit_file",
    {"path": "app.py", "edits": [{"old_text": "return 1", "new_text": "return 2"}]},
)
AWKWARD = Path(__file__).parents[1] / "mcp" / "servers" / "awkward.py"
REFUSED_KEY = '{"error": {"message": "Incorrect API key provided"}}'


@pytest.fixture
def code_server(tmp_path: Path, packaged: Path, model: ModelServer) -> Iterator[CodeServer]:
    with _code_server(tmp_path, packaged, model, trust=False) as started:
        yield started


@pytest.fixture
def trusting_code_server(
    tmp_path: Path, packaged: Path, model: ModelServer
) -> Iterator[CodeServer]:
    """code-server that asks whether to trust the folder (Restricted Mode if not)."""
    with _code_server(tmp_path, packaged, model, trust=True) as started:
        yield started


@contextlib.contextmanager
def _code_server(
    tmp_path: Path, vsix: Path, model: ModelServer, *, trust: bool
) -> Iterator[CodeServer]:
    """code-server running the repository's own foehn (foehn.serverPath), the model from the
    environment (FOEHN_PROVIDER, FOEHN_BASE_URL, OPENAI_API_KEY)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    env.update(
        {
            "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
            "XDG_DATA_HOME": str(tmp_path / "xdg"),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "FOEHN_PROVIDER": "openai",
            "FOEHN_BASE_URL": model.openai_url,
            "OPENAI_API_KEY": "sk-test-0123456789abcdef",
        }
    )
    foehn = Path(sys.executable).with_name("foehn")
    with vscode_harness.code_server(
        tmp_path, vsix, trust=trust, settings={"foehn.serverPath": str(foehn)}, env=env, model=model
    ) as started:
        yield started


def _scenario(
    scenario: str,
    server: CodeServer,
    root: Path,
    tmp_path: Path,
    *,
    extra: dict[str, str] | None = None,
    timeout: int = 600,
) -> dict[str, Any]:
    """Runs ``vscode_scenario.mjs``'s ``scenario`` ("task": the whole task) in ``server``."""
    script = Path(__file__).with_name("vscode_scenario.mjs")
    return run_scenario(script, scenario, server, root, tmp_path, extra=extra, timeout=timeout)


def test_a_whole_task_in_the_chat_view(code_server: CodeServer, root: Path, tmp_path: Path) -> None:
    model = code_server.model
    source = root / "app.py"
    source.write_text("def main():\n    return 1  # TODO\n")
    model.script(
        Fault(status=401, body=REFUSED_KEY),
        Turn(tool_calls=[("read_file", {"path": "app.py"})]),
        Turn(tool_calls=[FIX]),
        Turn(text="Fixed the TODO in **app.py**: `main()` now returns 2."),
        Turn(tool_calls=[RENAME]),
        Turn(text="Renamed main to run."),
        Turn(tool_calls=[("delete_path", {"path": "app.py"})]),
        Turn(text="Left app.py alone."),
        Turn(
            text="It defines a function that returns 2. Call it with:\n```python\nprint(run())\n```"
        ),
        Turn(text="It prints what run() returns."),
        Turn(text="Yes, it is."),
        Turn(tool_calls=[NOTES]),
        Turn(tool_calls=[SCRIPT]),
        Turn(text=WIDE),
        Fault(delay=60, then=Turn(text="This answer comes too late.")),
    )
    foehn = Path(sys.executable).with_name("foehn")
    servers = {}
    for name, provider in (("SERVER_NO_KEY", "mistral"), ("SERVER_EMBEDDED", "local")):
        wrapper = tmp_path / f"foehn-{provider}"
        wrapper.write_text(
            "#!/bin/sh\nexec env -u FOEHN_API_KEY -u MISTRAL_API_KEY "
            f'FOEHN_PROVIDER={provider} "{foehn}" "$@"\n'
        )
        wrapper.chmod(0o755)
        servers[name] = str(wrapper)
    report = _scenario(
        "task",
        code_server,
        root,
        tmp_path,
        timeout=900,
        extra={
            **servers,
            "SETTINGS": os.pathsep.join(
                str(tmp_path / "data" / scope / "settings.json") for scope in ("User", "Machine")
            ),
        },
    )
    assert "return 1  # TODO" in report["before"]
    assert "app.py" in report["chips"]
    # The empty chat: the model that answers, questions to start from.
    assert "Answering: openai · gpt-4.1-mini" in report["emptyState"], report["emptyState"]
    assert "Write tests for the active file." in report["emptyState"]
    # The key picker marks the provider in use and where its key comes from.
    assert re.search(r"openai\s*current · key from OPENAI_API_KEY", report["keyPicker"]), report[
        "keyPicker"
    ]
    # Set API Key, then Restart: the one server that answers has the new key.
    assert model.requests[0].headers["authorization"] == "Bearer sk-set-in-vscode-0123456789"
    assert "already exists" not in report["notices"]
    assert "couldn't create" not in report["notices"]
    # A refused key: its own card, in VS Code's words, with the fixes; Retry asked again.
    assert "The provider refused the API key." in report["errorCard"]
    assert "Set API key…" in report["errorCard"]
    assert "Retry" in report["errorCard"]
    assert "FOEHN_" not in report["errorCard"]
    assert "--base-url" not in report["errorCard"]
    assert "Foehn: Set API Key" in report["errorCard"]
    # The inline card: the exact arguments' tool, the diff, and what "for this session" keeps.
    first, second = report["approvals"]
    assert "edit_file: edit app.py (1 block)" in first
    assert "+    return 2" in first
    assert "Allow for this run" in first
    assert "remembers: edit_file calls, at risk write, until this run ends" in first
    assert "+def run():" in second
    assert "Fixed the TODO in app.py" in report["answer"]
    assert "Changed files" in report["answer"]
    assert "return 2" in report["after"]
    assert "TODO" not in report["after"]
    assert report["dirty"] == 1  # in the editor, unsaved: visible and undoable
    # The follow-up went to the same session: the model saw the first turn.
    follow_up = json.dumps(model.requests[4].body["messages"])
    assert "Fix the TODO in app.py" in follow_up
    assert "Fixed the TODO in **app.py**" in follow_up
    assert "def run():" in report["afterRename"]
    # Ctrl+Z in the editor is noticed by the review.
    assert "undone in the editor" in report["editorUndo"]
    # Restore: offered only under the turn that changed files with changes after it, asked
    # first, said after, redone; the editor left exactly as on disk is not marked unsaved.
    assert report["restoreButtons"] == 1
    assert "Restore the workspace to how it was after turn 2?" in report["restoreAsked"]
    assert "app.py" in report["restoreAsked"]
    assert "put back app.py" in report["restoreSaid"]
    assert "def main():" in report["afterRestore"]
    assert "return 2" in report["afterRestore"]
    assert report["dirtyAfterRestore"] == 0
    assert "def run():" in report["afterRedo"]
    assert "def main():" in report["afterUndo"]
    assert "return 2" in report["afterUndo"]
    assert report["dirtyAfterUndo"] == 0
    assert "return 1  # TODO" in report["afterFileUndo"]
    assert report["draftKept"] == "Delete app.py"
    assert "keep it, please" in report["denied"]
    assert "keep it, please" in json.dumps(model.requests[7].body["messages"])
    assert "return 1  # TODO" in report["afterDenial"]
    assert "returns 2" in report["lightbulb"]
    assert report["highlighted"] > 0  # the python block is highlighted
    assert "print(run())" in report["afterInsert"]
    assert "What does app.py print?" in report["palette"]
    assert "Is this line right?" in report["contextMenu"]
    # At 200 px the approval's answers are in view, and nothing sticks out of the chat.
    assert 170 <= report["narrowWidth"] <= 230, report["narrowWidth"]
    for name in ("narrowApproval", "narrowLayout"):
        shape = report[name]
        assert shape["out"] == [], shape
        assert shape["scrollWidth"] <= shape["view"], shape
        assert all(box["right"] <= shape["view"] + 1 for box in shape["boxes"]), shape
        # Nothing hides its own text: no underscore covered or cut off.
        assert shape["covered"] == [], shape
        assert shape["cut"] == [], shape
    # Allow, Allow for this run, Always allow (a write_file rule for notes.md), Deny.
    assert [b["visible"] for b in report["narrowApproval"]["buttons"]] == [True] * 4
    assert any(b["tag"] == "PRE" and b["scrolls"] for b in report["narrowApproval"]["boxes"])
    assert any(b["tag"] == "TABLE" and b["scrolls"] for b in report["narrowLayout"]["boxes"])
    # run_command's approval: the whole command line, where it runs, the sandbox in words.
    command = report["commandApproval"]
    assert "python3 -c 'print('\\''hi there'\\'')'" in command, command
    assert "in the workspace folder" in command
    assert "sandbox" in command
    assert "`" not in command
    # Code blocks: Copy confirms in place; Apply and Run show what they do and ask first.
    assert report["copied"] == "Copied ✓"
    assert "Apply the code block to app.py?" in report["applyAsked"]
    assert "far wider than a narrow side bar" in report["afterApply"]
    assert "echo ran > ran.txt" in report["runAsked"]
    assert "outside Foehn's sandbox" in report["runAsked"]
    assert report["ran"] == "ran\n"
    assert "Stopped by you" in report["stopped"]
    assert "too late" not in report["stopped"]
    assert "Starting" not in report["statusBarWhileBusy"], report["statusBarWhileBusy"]
    # A reload opens the last chat; History counts the turns asked, not the undo turns.
    assert "Fix the TODO in app.py" in report["reopened"]
    assert "This turn failed." in report["reopened"]
    assert "FOEHN_" not in report["reopened"]
    assert f"{report['visibleTurns']} turns" in report["history"], report["history"]
    assert "Fix the TODO" in report["history"]
    assert "Fix the TODO in app.py" in report["resumed"]
    assert "TODO fix, renamed" in report["recent"]
    assert report["mention"] == "compare @app.py "
    assert "Choose a provider" in report["walkthrough"]
    assert "`" not in report["walkthrough"]
    assert report["walkthroughDone"] == 4  # server, provider, key and a first question: all done
    assert "Server not found" in report["notFound"]
    assert "Set API key" in report["noKey"]
    assert "embedded model (small, offline)" in report["embedded"]
    for check in ("a11yEmpty", "a11yApproval", "a11yTurn"):
        assert report[check]["unnamed"] == [], report[check]
        assert "input" in report[check]["reached"], report[check]
    assert "send" in report["a11yEmpty"]["reached"]
    assert "send" in report["a11yTurn"]["reached"]
    # While a turn runs, Send is disabled; the card's buttons and Stop are reachable.
    assert {"openDiff", "approve", "stop"} <= set(report["a11yApproval"]["reached"])
    # Only the person's own Ctrl+S reached the disk: Foehn saved nothing (an undo to what is on
    # disk reverts the editor, which writes nothing).
    assert source.read_text() == "def main():\n    return 2\n"
    for name in (
        "chat-empty-with-context-chips.png",
        "approval-inline-card.png",
        "error-card-refused-key.png",
        "restored-with-redo.png",
        "approval-narrow-sidebar.png",
        "approval-run-command.png",
        "answer-narrow-sidebar.png",
        "code-block-ran-in-terminal.png",
        "session-reopened-after-reload.png",
        "new-chat-with-recent-chats.png",
        "answer-streamed-with-changed-files.png",
        "approval-diff-in-editor.png",
        "turn-undone.png",
        "lightbulb-answer-in-chat.png",
        "context-menu-answer-in-chat.png",
        "turn-stopped.png",
        "history-picker.png",
        "session-resumed-after-reload.png",
        "mention-completion.png",
        "walkthrough.png",
        "state-server-not-found.png",
        "state-no-key.png",
        "state-embedded-model.png",
    ):
        assert (SHOTS / name).stat().st_size > 10_000, name


def test_restricted_mode_is_said_in_the_chat_and_trusting_restarts_the_server(
    trusting_code_server: CodeServer, root: Path, tmp_path: Path
) -> None:
    model = trusting_code_server.model
    (root / "app.py").write_text("x = 1\n")
    edit = {"path": "app.py", "edits": [{"old_text": "x = 1", "new_text": "x = 2"}]}
    model.script(
        Turn(tool_calls=[("edit_file", edit)]),
        Turn(text="Sorry, I could not change it."),
        Turn(text="Trusted now: I can change files when you allow it."),
    )
    report = _scenario(
        "restricted",
        trusting_code_server,
        root,
        tmp_path,
    )
    assert "Restricted mode" in report["restricted"]
    assert "Manage workspace trust" in report["restricted"]
    assert (
        "Restricted Mode: only read-only tools run; trust the folder to allow changes"
        in (report["refused"])
    )
    assert (root / "app.py").read_text() == "x = 1\n"
    # Trusting the folder left a working server: the question after it was answered.
    assert "Trusted now" in report["trusted"]
    assert len(model.requests) == 3
    for name in ("state-restricted-mode.png", "restricted-refusal.png", "trusted-answers.png"):
        assert (SHOTS / name).stat().st_size > 10_000, name


def test_always_allow_rules_slash_commands_and_a_servers_question_in_the_chat_view(
    code_server: CodeServer, root: Path, tmp_path: Path
) -> None:
    env, model = code_server.env, code_server.model
    (root / "app.py").write_text("x = 1\n")
    config = Path(env["XDG_CONFIG_HOME"]) / "foehn" / "config.toml"
    commands = config.with_name("commands")
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a file with care\nargument-hint: FILE\n---\n"
        "Review $ARGUMENTS with care.\n"
    )
    # An MCP server whose read-only tool `ask` asks the person a form (elicitation).
    state = tmp_path / "awkward"
    state.mkdir()
    config.write_text(
        f"[mcp.servers.awkward]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps([str(AWKWARD), str(state)])}\n"
    )

    def touch(name: str) -> Turn:
        return Turn(tool_calls=[("run_command", {"command": ["touch", name], "cwd": "."})])

    model.script(
        touch("made.txt"),
        Turn(text="Made it."),
        touch("other.txt"),
        Turn(text="Made another."),
        touch("third.txt"),
        Turn(text="Left it."),
        Turn(text="Nothing next."),
        Turn(text="Reviewed app.py."),
        Turn(tool_calls=[("mcp__awkward__ask", {})]),
        Turn(text="Asked."),
    )
    report = _scenario(
        "rules",
        code_server,
        root,
        tmp_path,
        extra={"CONFIG_FILE": str(config)},
    )
    # The card says why it asks, in VS Code's words, and shows the rule Always allow saves.
    card = report["alwaysCard"]
    assert "counts as write" in card, card
    assert "foehn.approval.write" in card
    assert "Always allow" in card
    assert 'program="touch"' in card
    assert 'args=["?"]' in card
    # Chosen: the rule is in the user config, and the card says where it went.
    assert 'program = "touch"' in report["configAfterAlways"]
    assert str(config) in report["savedRule"]
    assert (root / "made.txt").exists()
    # The next touch ran with nobody asked.
    assert (root / "other.txt").exists()
    assert "Made another" in report["another"]
    # Foehn: Rules… listed it and, asked first, removed it from the file.
    assert "allow run_command touch ?" in report["rulesList"], report["rulesList"]
    assert "Remove the rule" in report["removeAsked"]
    assert "[[rules]]" not in report["configAfterRemove"]
    assert "touch" not in report["rulesAfter"], report["rulesAfter"]
    # Without the rule the call is asked again; denied, it did not run.
    assert "Always allow" in report["askedAgain"]
    assert not (root / "third.txt").exists()
    # Sent while that turn waited: queued, one removed, the other sent once the turn ended; Undo
    # turn on an earlier turn said why it waited, until then.
    assert "Queued" in report["queued"]
    assert "What next?" in report["queued"]
    assert "Never mind" in report["queued"]
    assert "Undo turn waits until the turn that is working ends" in report["notice"]
    assert "Left it" in report["third"]
    assert "Nothing next." in report["queuedAnswer"]
    assert report["queueAfter"] == ""
    assert report["noticeAfter"] == 0
    asked = [json.dumps(request.body["messages"][-1]) for request in model.requests]
    assert sum("What next?" in text for text in asked) == 1
    assert not any("Never mind" in text for text in asked)
    # `/` completed the custom command; the server expanded it for the model.
    assert "/review FILE" in report["slashList"], report["slashList"]
    assert "Review a file with care" in report["slashList"]
    assert report["slashPicked"] == "/review "
    assert "Review app.py with care." in json.dumps(model.requests[-3].body["messages"])
    # The server's question on its call's card, named as the server's; a required field left
    # empty is said and nothing is sent; then the person's answer reached the server.
    form = report["questionForm"]
    assert 'The MCP server "awkward" asks during ask:' in form, form
    assert "Which issue?" in form
    assert "Title (required)" in form
    assert report["questionRefused"] == "Title is required."
    result = [m for m in model.requests[-1].body["messages"] if m["role"] == "tool"][-1]
    answered = '{"action": "accept", "content": {"project": "core", "title": "From VS Code", '
    assert answered + '"urgent": true}}' in result["content"], result
    assert "you answered" in report["questionAnswered"]
    assert "Asked." in report["questionAnswered"]
    for name in (
        "mcp-question-on-card.png",
        "approval-always-allow.png",
        "rules-picker.png",
        "slash-command-completion.png",
        "message-queued-during-turn.png",
    ):
        assert (SHOTS / name).stat().st_size > 10_000, name


def test_plan_mode_from_the_picker_asks_about_the_plan_and_shows_the_task_list(
    code_server: CodeServer, root: Path, tmp_path: Path
) -> None:
    model = code_server.model
    (root / "app.py").write_text("def main():\n    return 1\n")

    def todo(status: str) -> tuple[str, dict[str, object]]:
        return ("todo", {"items": [{"id": "1", "text": "Edit `app.py`", "status": status}]})

    model.script(
        Turn(tool_calls=[todo("pending")]),
        Turn(text="1. Edit app.py to return 2."),
        # Foehn edits only a file the model has read in the session.
        Turn(tool_calls=[todo("in_progress"), ("read_file", {"path": "app.py"}), FIX_MAIN]),
        Turn(tool_calls=[todo("done")]),
        Turn(text="I changed app.py."),
    )
    report = _scenario(
        "planning",
        code_server,
        root,
        tmp_path,
    )
    # Plan mode reached the server: while planning, the model was offered no file tool that
    # writes (run_command stays: a program assessed as writing is refused when called).
    planning_tools = {t["function"]["name"] for t in model.requests[0].body["tools"]}
    assert "todo" in planning_tools
    assert not planning_tools & {"edit_file", "write_file", "delete_path"}, planning_tools
    acting_tools = {t["function"]["name"] for t in model.requests[2].body["tools"]}
    assert "edit_file" in acting_tools
    assert "Carry out this plan?" in report["planCard"]
    assert "Edit app.py" in report["planCard"]
    assert "Tasks (0 of 1 done)" in report["todoWhilePlanning"]
    assert "Tasks (1 of 1 done)" in report["todo"]
    assert "`" not in report["todo"]
    assert "Plan" in report["planned"]
    assert "return 2" in report["afterPlan"]
    for name in ("plan-mode-plan-to-approve.png", "plan-mode-carried-out-with-task-list.png"):
        assert (SHOTS / name).stat().st_size > 10_000, name


def test_the_models_language_tools_are_answered_by_vscodes_typescript_features(
    code_server: CodeServer, root: Path, tmp_path: Path
) -> None:
    model = code_server.model
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true}, "files": ["app.ts"]}'
    )
    (root / "lib.ts").write_text("export function helper(x: number): number {\n  return x;\n}\n")
    (root / "app.ts").write_text('import { helper } from "./lib";\n\nconsole.log(helper(1));\n')
    at = {"path": "app.ts", "line": 3, "name": "helper"}
    model.script(
        Turn(tool_calls=[("definition", at)]),
        Turn(tool_calls=[("references", at)]),
        # Renamed where it is declared: TypeScript renames an imported name at a use as an
        # alias (`import { helper as assist }`).
        Turn(
            tool_calls=[
                (
                    "rename_symbol",
                    {"path": "lib.ts", "line": 1, "name": "helper", "new_name": "assist"},
                )
            ]
        ),
        Turn(text="Renamed helper to assist."),
        Turn(tool_calls=[("read_file", {"path": "app.ts"})]),
        Turn(
            tool_calls=[
                (
                    "edit_file",
                    {
                        "path": "app.ts",
                        "edits": [{"old_text": "assist(1)", "new_text": 'assist("one")'}],
                    },
                )
            ]
        ),
        Turn(text="Changed the call."),
        Turn(
            tool_calls=[
                (
                    "edit_file",
                    {
                        "path": "app.ts",
                        "edits": [{"old_text": 'assist("one")', "new_text": "assist(1 + 1)"}],
                    },
                )
            ]
        ),
        Turn(text="Changed the call to assist(1 + 1)."),
    )
    report = _scenario(
        "language",
        code_server,
        root,
        tmp_path,
    )
    offered = {t["function"]["name"] for t in model.requests[0].body["tools"]}
    assert {"definition", "references", "workspace_symbols", "rename_symbol"} <= offered
    told = [r.body["messages"][-1]["content"] for r in model.requests[1:]]
    assert "lib.ts:1:17: export function helper(x: number): number {" in told[0]
    assert "app.ts:1:10: import { helper } from" in told[1]
    assert "app.ts:3:13: console.log(helper(1));" in told[1]
    assert "+export function assist(x: number): number {" in told[2]
    assert "+console.log(assist(1));" in told[2]
    approval, _edit, _mend = report["approvals"]
    assert "rename helper to assist (2 files)" in approval
    assert 'import { assist } from "./lib";' in report["afterRename"]
    assert "console.log(assist(1));" in report["afterRename"]
    assert "not checked" not in report["renamed"]
    # The edit's new problem, from VS Code's own TypeScript, goes back with the first answer;
    # once mended, nothing new is found and the answer stands.
    sent_back = model.requests[7].body["messages"][-1]["content"]
    assert "not assignable to parameter of type 'number'" in sent_back
    assert "app.ts" in sent_back
    assert len(model.requests) == 9
    assert "console.log(assist(1 + 1));" in report["afterMend"]
    assert "Changed the call to assist(1 + 1)." in report["broken"]
