"""Finding what a program changed: the stat snapshot and the inotify watch, on real trees."""

from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path

import pytest

from foehn_lsp.workspace.watch import Watch, compare, snapshot


class Changes:
    """Stands in for a checkpoint: what the watch reported."""

    def __init__(self) -> None:
        self.created: list[str] = []
        self.existing: list[str] = []
        self.folders: list[str] = []

    def watched_changes(self, created: list[str], existing: list[str], folders: list[str]) -> None:
        self.created += created
        self.existing += existing
        self.folders += folders


@pytest.fixture
def tree(root: Path) -> Path:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "a.py").write_text("a = 1\n")
    (root / "src" / "b.py").write_text("b = 1\n")
    (root / "docs").mkdir()
    (root / "docs" / "x.md").write_text("x\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref\n")
    return root


def change(root: Path) -> None:
    (root / "src" / "b.py").write_text("b = 2, a longer line\n")
    (root / "src" / "pkg" / "a.py").unlink()
    (root / "new.txt").write_text("new\n")
    (root / "docs").rename(root / "manual")
    (root / "made" / "deep").mkdir(parents=True)
    (root / "made" / "deep" / "c.py").write_text("c\n")
    (root / ".git" / "HEAD").write_text("changed\n")


def test_snapshots_compare_to_the_files_that_changed(tree: Path) -> None:
    before = snapshot(tree)
    assert ".git/HEAD" not in before
    change(tree)
    assert compare(before, snapshot(tree)) == [
        "docs/x.md",
        "made/deep/c.py",
        "manual/x.md",
        "new.txt",
        "src/b.py",
        "src/pkg/a.py",
    ]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_the_watch_sees_the_same_changes_without_walking_the_tree(tree: Path) -> None:
    watch = Watch.start(tree)
    try:
        assert watch.usable
        assert watch.known == {"src/pkg/a.py", "src/b.py", "docs/x.md"}
        changes = Changes()
        watch.drain(record=True, checkpoint=changes)
        assert (changes.created, changes.existing) == ([], [])
        change(tree)
        watch.drain(record=True, checkpoint=changes)
        assert sorted(changes.created) == ["made/deep/c.py", "manual/x.md", "new.txt"]
        assert sorted(changes.existing) == ["docs/x.md", "src/b.py", "src/pkg/a.py"]
        assert sorted(set(changes.folders)) == ["made", "made/deep", "manual"]
        shutil.rmtree(tree / "made")
        (tree / "manual" / "x.md").write_text("edited after the move\n")
        later = Changes()
        watch.drain(record=True, checkpoint=later)
        assert sorted(later.existing) == ["made/deep/c.py", "manual/x.md"]
        assert watch.known == {"src/b.py", "new.txt", "manual/x.md"}
    finally:
        watch.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_calls_that_end_together_lose_no_folder_between_their_drains(root: Path) -> None:
    """Two calls of a turn that end at once drain the watch from two threads; each folder
    made meanwhile reaches one of their checkpoints (as a race once lost an MCP server's
    ``create_directory``, so undo left the folder behind)."""
    watch = Watch.start(root)
    try:
        assert watch.usable
        changes = Changes()
        stop = threading.Event()

        def drain() -> None:
            while not stop.is_set():
                watch.drain(record=True, checkpoint=changes)

        drainers = [threading.Thread(target=drain) for _ in range(4)]
        for drainer in drainers:
            drainer.start()
        made = [f"made{number}" for number in range(2000)]
        for name in made:
            (root / name).mkdir()
        stop.set()
        for drainer in drainers:
            drainer.join(timeout=60)
        watch.drain(record=True, checkpoint=changes)
        assert sorted(set(made) - set(changes.folders)) == []
    finally:
        watch.close()
