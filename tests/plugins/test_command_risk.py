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
    (["git", "grep", "-O./evil.sh", "x"], D),
    (["git", "grep", "--open-files-in-pager=vi", "x"], D),
    (["git", "grep", "-n", "x"], R),
    (["git", "reflog"], R),
    (["git", "reflog", "show"], R),
    (["git", "reflog", "expire", "--expire=now", "--all"], D),
    (["git", "branch", "--set-upstream-to=origin/main"], W),
    (["git", "branch", "-u", "origin/main"], W),
    (["git", "branch", "-vv"], R),
    (["git", "cat-file", "--textconv", "HEAD:a"], D),
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
    (["sed", "-n", "1,5p", "file.txt"], R),
    (["sed", "-e", "s/a/b/g", "-e", "3d", "file.txt"], R),
    (["sed", "-i", "s/a/b/", "file.txt"], W),
    (["sed", "1e id", "file.txt"], D),
    (["sed", "-n", "1e cat key", "file.txt"], D),
    (["sed", "r key", "file.txt"], D),
    (["sed", "w out", "file.txt"], D),
    (["sed", "s/a/id/e", "file.txt"], D),
    (["sed", "s/a/b/w out", "file.txt"], D),
    (["sed", "--expression=1r key", "file.txt"], D),
    (["sed", "-f", "script.sed", "file.txt"], D),
    (["sort", "-o", "out.txt", "in.txt"], W),
    (["sort", "-uo", "out.txt", "in.txt"], W),
    (["sort", "-uo/etc/x", "in.txt"], D),
    (["sort", "-o/tmp/x", "in.txt"], D),
    (["sort", "--compress-program=sh", "in.txt"], D),
    (["sort", "--files0-from=list", "in.txt"], D),
    (["sort", "-u", "in.txt"], R),
    (["ruff", "check", "-o/tmp/x", "."], D),
    (["ruff", "check", "-oreport.txt", "."], W),
    (["ruff", "check", "--fix-only", "."], W),
    (["ruff", "check", "--output-file=report.txt", "."], W),
    (["uniq", "in.txt"], R),
    (["uniq", "in.txt", "out.txt"], W),
    (["xxd", "file.bin"], R),
    (["xxd", "-r", "dump.hex", "out.bin"], W),
    (["rg", "--pre", "sh", "x"], D),
    (["rg", "--pre=./x.sh", "x"], D),
    (["ps", "aux"], R),
    (["file", "a.txt"], R),
    (["file", "-f", "names.txt"], D),
    (["wc", "--files0-from=names", "a.txt"], D),
    (["ps", "axeww"], D),
    (["ps", "e"], D),
    (["env", "-S", "rm -rf x"], D),
    (["env", "--split-string=rm x"], D),
    (["env", "-u", "PATH", "x"], D),
    (["tar", "-tf", "a.tar", "--to-command=sh"], D),
    (["tar", "-tvf", "a.tar", "--checkpoint-action=exec=sh"], D),
    (["tar", "-tf", "a.tar", "-I", "sh"], D),
    (["tar", "-tf", "a.tar", "--use-compress-program=sh"], D),
    (["time", "-o", "out.txt", "ls"], W),
    (["time", "-o", "/tmp/x", "ls"], D),
    (["time", "-o", "ls", "rm", "x"], D),
    (["time", "ls"], R),
    (["timeout", "-s", "KILL", "5", "ls"], R),
    (["timeout", "-k", "1", "5", "rm", "x"], D),
    (["nice", "-n", "5", "ls"], R),
    (["nice", "./x.sh"], D),
    (["./script.sh"], D),
    (["bin/ls"], D),
    (["/usr/bin/cat", "a.txt"], D),
    (["cat", "http://example.invalid/x"], D),
    (["cat", "x://../../etc/passwd"], D),
    (["make", "help"], D),
    (["make", "--version"], R),
    (["python", "help"], D),
    (["python", "-v"], D),
    (["npm", "version"], D),
    (["python", "--version"], R),
    (["python3", "-V"], R),
    (["python", "-c", "import os"], D),
    (["python3", "-c", "print(1)"], D),
    (["python", "script.py"], D),
    (["python", "-m", "pytest", "-q"], W),
    (["python", "-m", "pip", "install", "requests"], D),
    (["python", "-m", "pip", "list"], R),
    (["python", "-m", "pip", "list", "--log", "log.txt"], D),
    (["python", "-m", "pip", "list", "--outdated"], D),
    (["python", "-m", "json.tool", "a.json", "out.json"], D),
    (["pip", "index", "versions", "x"], D),
    (["pip", "list", "--format=json"], R),
    (["pip", "list", "--index-url", "http://127.0.0.1/"], D),
    (["npm", "view", "x", "--registry=http://127.0.0.1/"], D),
    (["npm", "view", "x"], D),
    (["cargo", "search", "x"], D),
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


def test_the_tables_fixed_classes(tmp_path: Path) -> None:
    """Bare names that are symbolic links out, hostile repository config, and cargo config."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "key").write_text("secret")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "key-link").symlink_to(outside / "key")
    (root / "inside-link").symlink_to(root / "a.txt")
    (root / "a.txt").write_text("a")
    workspace = Workspace([root])
    assert classify(["cat", "key-link"], workspace) is RiskLevel.DESTRUCTIVE
    assert classify(["sort", "-okey-link", "a.txt"], workspace) is RiskLevel.DESTRUCTIVE
    assert classify(["cat", "inside-link"], workspace) is RiskLevel.READ_ONLY
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n\tbare = false\n")
    assert classify(["git", "status"], workspace) is RiskLevel.READ_ONLY
    (root / ".git" / "config").write_text('[diff "x"]\n\ttextconv = ./evil.sh\n')
    assert classify(["git", "diff"], workspace) is RiskLevel.DESTRUCTIVE
    (root / ".git" / "config").write_text("[core]\n\tfsmonitor = ./evil.sh\n")
    assert classify(["git", "status"], workspace) is RiskLevel.DESTRUCTIVE
    assert classify(["git", "--version"], workspace) is RiskLevel.READ_ONLY
    assert classify(["cargo", "metadata"], workspace) is RiskLevel.READ_ONLY
    (root / ".cargo").mkdir()
    assert classify(["cargo", "metadata"], workspace) is RiskLevel.DESTRUCTIVE


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
