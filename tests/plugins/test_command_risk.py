"""The command classifier as a table: invocation -> risk, including known bypasses."""

from __future__ import annotations

from pathlib import Path

import pytest

from foehn_lsp import RiskLevel
from foehn_lsp.workspace import Workspace
from foehn_plugins.command_risk import classify

R, W, D = "read_only", "write", "destructive"

TABLE: list[tuple[list[str], str]] = [
    (["git", "status"], R),
    (["git", "diff", "--stat"], R),
    (["git", "log", "--oneline", "-n", "5"], R),
    (["git", "show", "HEAD"], R),
    (["git", "blame", "src/app.py"], R),
    (["git", "branch"], R),
    (["git", "branch", "--list"], R),
    (["git", "rev-parse", "HEAD"], R),
    (["git", "ls-files"], R),
    (["git", "add", "src/app.py"], W),
    (["git", "commit", "-m", "msg"], W),
    (["git", "branch", "feature"], W),
    (["git", "branch", "-D", "feature"], D),
    (["git", "reset", "--hard"], D),
    (["git", "reset", "HEAD~1"], W),
    (["git", "clean", "-fdx"], D),
    (["git", "checkout", "--", "."], D),
    (["git", "push"], D),
    (["git", "pull"], D),
    (["git", "clone", "https://example.invalid/x.git"], D),
    (["git", "-c", "core.pager=sh", "log"], D),
    (["git", "diff", "--output=notes.txt"], D),
    (["git", "log", "--ext-diff"], D),
    (["git", "show", ">", "~/.ssh/id_rsa"], D),  # the prefix-allowlist bypass
    (["git", "stash", "drop"], D),
    (["ls"], R),
    (["ls", "-la", "src"], R),
    (["ls", "/etc"], D),
    (["cat", "../outside.txt"], D),
    (["cat", "src/app.py"], R),
    (["head", "-n", "5", "README.md"], R),
    (["wc", "-l", "src/app.py"], R),
    (["grep", "-rn", "TODO", "src"], R),
    (["rg", "TODO"], R),
    (["echo", "hello"], R),
    (["find", ".", "-name", "*.py"], R),
    (["find", ".", "-exec", "rm", "{}", ";"], D),
    (["find", ".", '-e"x"ec', "rm", "{}", ";"], D),  # the quoting bypass
    (["find", ".", "-delete"], D),
    (["sed", "s/a/b/", "file.txt"], R),
    (["sed", "-i", "s/a/b/", "file.txt"], W),
    (["sort", "-o", "out.txt", "in.txt"], W),
    (["python", "--version"], R),
    (["python3", "-V"], R),
    (["python", "-c", "import os"], D),
    (["python3", "-c", "print(1)"], D),
    (["python", "script.py"], D),
    (["python", "-m", "pytest", "-q"], W),
    (["python", "-m", "pip", "install", "requests"], D),
    (["python", "-m", "pip", "list"], R),
    (["node", "-e", "1"], D),
    (["node", "--version"], R),
    (["perl", "-pi", "-e", "s/a/b/", "f"], D),
    (["ruby", "-e", "puts 1"], D),
    (["pytest", "-q"], W),
    (["mypy", "src"], W),
    (["ruff", "check", "."], R),
    (["ruff", "check", "--fix", "."], W),
    (["ruff", "format", "."], W),
    (["ruff", "format", "--check", "."], R),
    (["black", "src"], W),
    (["black", "--check", "src"], R),
    (["prettier", "--write", "src"], W),
    (["prettier", "src/app.js"], R),
    (["pip", "install", "requests"], D),
    (["pip", "list"], R),
    (["npm", "install"], D),
    (["npm", "test"], W),
    (["npm", "ls"], R),
    (["cargo", "test"], W),
    (["cargo", "install", "ripgrep"], D),
    (["apt-get", "install", "curl"], D),
    (["rm", "-rf", "build"], D),
    (["rm", "file.txt"], D),
    (["mv", "a.txt", "b.txt"], D),
    (["cp", "a.txt", "b.txt"], W),
    (["touch", "new.txt"], W),
    (["mkdir", "-p", "a/b"], W),
    (["chmod", "+x", "run.sh"], W),
    (["chmod", "-R", "777", "."], D),
    (["curl", "https://example.invalid"], D),
    (["wget", "https://example.invalid/x"], D),
    (["sh", "-c", "ls"], D),
    (["bash", "script.sh"], D),
    (["sudo", "ls"], D),
    (["xargs", "rm"], D),
    (["env", "FOO=1", "rm", "x"], D),
    (["env"], R),
    (["timeout", "5", "ls"], R),
    (["timeout", "5", "rm", "x"], D),
    (["nice", "pytest"], W),
    (["make", "test"], D),
    (["tar", "-tf", "a.tar"], R),
    (["tar", "-xf", "a.tar"], W),
    (["ls", "|", "grep", "x"], D),
    (["echo", "x", ">>", "file"], D),
    (["echo", "$(whoami)"], D),
    (["totally-unknown-tool"], D),
    (["jq", ".", "data.json"], R),
    ([], D),
]


@pytest.mark.parametrize(
    ("argv", "expected"), TABLE, ids=[" ".join(a) or "empty" for a, _ in TABLE]
)
def test_classifier(tmp_path: Path, argv: list[str], expected: str) -> None:
    workspace = Workspace([tmp_path])
    assert classify(argv, workspace).value == expected


def test_the_table_is_large_enough() -> None:
    assert len(TABLE) >= 60


def test_paths_are_judged_from_the_working_folder(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    workspace = Workspace([tmp_path])
    assert classify(["cat", "../a.txt"], workspace, cwd="sub") is RiskLevel.READ_ONLY
    assert classify(["cat", "../../a.txt"], workspace, cwd="sub") is RiskLevel.DESTRUCTIVE


def test_overrides_are_configurable(tmp_path: Path) -> None:
    workspace = Workspace([tmp_path])
    assert (
        classify(["make", "test"], workspace, overrides={"make": RiskLevel.WRITE})
        is RiskLevel.WRITE
    )
