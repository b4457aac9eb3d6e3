"""Which changed files the workspace ignores (``foehn_lsp.workspace.ignored``): nested
``.gitignore`` files with git's precedence, ``.git/info/exclude`` and ``.foehnignore``, in a
git repository or not."""

from __future__ import annotations

from pathlib import Path

from foehn_lsp.workspace.ignored import ignored


def test_nested_ignore_files_decide_as_git_does(root: Path) -> None:
    (root / ".gitignore").write_text("__pycache__/\n*.log\n")
    (root / "sub").mkdir()
    (root / "sub" / ".gitignore").write_text("!keep.log\n")
    (root / ".foehnignore").write_text("build/\n")
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("secret-notes.md\n")
    paths = [
        "__pycache__/x.pyc",
        "a/__pycache__/y.pyc",
        "x.log",
        "sub/keep.log",
        "sub/x.log",
        "build/out.txt",
        "secret-notes.md",
        "app.py",
    ]
    assert ignored(root, paths) == {
        "__pycache__/x.pyc",
        "a/__pycache__/y.pyc",
        "x.log",
        "sub/x.log",
        "build/out.txt",
        "secret-notes.md",
    }


def test_an_ignore_file_read_again_when_it_changes(root: Path) -> None:
    (root / ".gitignore").write_text("*.tmp\n")
    assert ignored(root, ["a.tmp"]) == {"a.tmp"}
    (root / ".gitignore").write_text("# nothing ignored now\n")
    assert ignored(root, ["a.tmp"]) == set()


def test_a_symlinked_ignore_file_is_not_read(root: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").write_text("*\n")
    (root / ".gitignore").symlink_to(tmp_path / "elsewhere")
    assert ignored(root, ["app.py"]) == set()
