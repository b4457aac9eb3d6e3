"""The one slash grammar, and custom command files with every way one can be wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from foehn_lsp.sessions.commands import load_commands
from foehn_lsp.slash import Slash, parse


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("/undo", Slash(name="undo")),
        ("  /undo 2  ", Slash(name="undo", arguments="2")),
        (
            "/review src/app.py and\nthe tests",
            Slash(name="review", arguments="src/app.py and\nthe tests"),
        ),
        ("/my-cmd_2 x", Slash(name="my-cmd_2", arguments="x")),
        ("/etc/hosts is wrong", None),
        ("/", None),
        ("/ undo", None),
        ("undo", None),
        ("look at /undo", None),
        ("/-x", None),
    ],
)
def test_the_grammar(text: str, parsed: Slash | None) -> None:
    assert parse(text) == parsed


def test_commands_are_read_and_bad_files_reported(tmp_path: Path) -> None:
    folder = tmp_path / "commands"
    folder.mkdir()
    (folder / "fix.md").write_text("Fix the failing test.\nThen run them all.\n")
    (folder / "review.md").write_text(
        "---\ndescription: Review\nargument-hint: FILE\n---\n"
        "Look at $ARGUMENTS, twice: $ARGUMENTS\n"
    )
    (folder / "bad name.md").write_text("x")
    (folder / "binary.md").write_bytes(b"\xff\xfe")
    (folder / "empty.md").write_text("---\ndescription: nothing\n---\n\n")
    (folder / "undo.md").write_text("mine")
    (folder / "notes.txt").write_text("not a command")
    found = load_commands(None, trusted=False, built_in={"undo"}, user_folder=folder)
    assert [c.name for c in found.commands] == ["fix", "review"]
    fix, review = found.commands
    assert fix.description == "Fix the failing test."
    assert fix.prompt("") == "Fix the failing test.\nThen run them all."
    assert (
        fix.prompt("in tests/x.py") == "Fix the failing test.\nThen run them all.\n\nin tests/x.py"
    )
    assert (review.description, review.hint) == ("Review", "FILE")
    assert review.prompt("a.py") == "Look at a.py, twice: a.py"
    assert found.expand("/review b.py") == "Look at b.py, twice: b.py"
    assert found.expand("/nothing") is None
    assert [p.split(": ", 1)[1] for p in found.problems] == [
        "'bad name' is not a command name (letters, digits, - and _)",
        "not UTF-8 text",
        "the command has no text",
        "/undo is a built-in command; rename the file",
    ]


def test_workspace_commands_wait_for_approval_by_content(tmp_path: Path) -> None:
    (tmp_path / ".foehn" / "commands").mkdir(parents=True)
    (tmp_path / ".foehn" / "commands" / "deploy.md").write_text("Deploy everything.")
    found = load_commands(tmp_path, trusted=True, user_folder=tmp_path / "none")
    assert found.commands == ()


def test_every_front_end_keeps_the_sessions_own_commands(tmp_path: Path) -> None:
    from foehn_lsp.acp.convert import COMMANDS as ACP_COMMANDS
    from foehn_lsp.cli.chat import BUILT_IN as CHAT_BUILT_IN
    from foehn_lsp.slash import SESSION_COMMANDS

    assert {command.name for command in ACP_COMMANDS} == SESSION_COMMANDS
    assert SESSION_COMMANDS <= CHAT_BUILT_IN
    folder = tmp_path / "commands"
    folder.mkdir()
    for name in ("undo", "redo", "compact", "mine"):
        (folder / f"{name}.md").write_text("text")
    found = load_commands(None, trusted=False, built_in=SESSION_COMMANDS, user_folder=folder)
    assert [c.name for c in found.commands] == ["mine"]  # the editor refuses redo.md too
