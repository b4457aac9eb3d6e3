"""The throwaway writable layer of read-only calls, attacked: a read-only program that writes,
renames, deletes, links and changes modes everywhere it can reach in the workspace (through
symbolic links, hard links, ``.git`` and the protected names too) leaves every file of the
workspace, and every file outside it, exactly as it was. Effects are counted from outside."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from foehn_lsp.sandbox import Finished, system_sandbox
from foehn_lsp.workspace import Workspace

PY = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable

pytestmark = pytest.mark.skipif(
    not system_sandbox().layer, reason=f"needs the throwaway layer: {system_sandbox().note}"
)

VANDAL = r"""
import os, sys
done = []
def attempt(what, action):
    try:
        action()
        done.append(what)
    except OSError as exc:
        pass
for dirpath, dirnames, filenames in os.walk('.', followlinks=True):
    for name in filenames:
        path = os.path.join(dirpath, name)
        attempt('append ' + path, lambda: open(path, 'a').write('vandal'))
        attempt('truncate ' + path, lambda: os.truncate(path, 0))
        attempt('chmod ' + path, lambda: os.chmod(path, 0o777))
        attempt('utime ' + path, lambda: os.utime(path, (0, 0)))
        attempt('link ' + path, lambda: os.link(path, path + '.hard'))
for target in ('inside-link', 'outside-link', 'hard-outside', 'hard-a'):
    attempt('through ' + target, lambda: open(target, 'w').write('vandal'))
attempt('rename a', lambda: os.rename('a.txt', 'renamed.txt'))
attempt('rename dir', lambda: os.rename('pkg', 'pkg2'))
attempt('delete', lambda: os.unlink('b.txt'))
attempt('rmtree', lambda: os.rmdir('empty'))
attempt('.git', lambda: open('.git/config', 'a').write('[core]\n\tfsmonitor = evil\n'))
attempt('.git hook', lambda: open('.git/hooks/post-commit', 'w').write('#!/bin/sh\n'))
attempt('.envrc', lambda: open('.envrc', 'w').write('evil'))
attempt('.vscode', lambda: os.mkdir('.vscode'))
attempt('cache', lambda: (os.mkdir('.ruff_cache'), open('.ruff_cache/x', 'w').write('x')))
attempt('symlink', lambda: os.symlink('/etc/passwd', 'new-link'))
attempt('fifo', lambda: os.mkfifo('fifo'))
print(len(done), 'writes succeeded inside the call')
print(sorted(os.listdir('.')))
"""


def state(folder: Path) -> dict[str, tuple[str, int, int, int, bytes | str]]:
    """Every entry below ``folder``, links not followed: kind, mode, mtime, link count and
    content (or a link's target)."""
    found: dict[str, tuple[str, int, int, int, bytes | str]] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            info = path.lstat()
            if path.is_symlink():
                found[str(path)] = ("link", info.st_mode, 0, 0, os.readlink(path))
            elif path.is_file():
                found[str(path)] = (
                    "file",
                    info.st_mode,
                    info.st_mtime_ns,
                    info.st_nlink,
                    path.read_bytes(),
                )
            else:
                found[str(path)] = ("dir", info.st_mode, info.st_mtime_ns, 0, "")
    return found


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """A workspace of every kind of entry, and files outside it that it links to."""
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside\n")
    (outside / "linked.txt").write_text("hard-linked from the workspace\n")
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "empty").mkdir()
    (root / "inside-link").symlink_to("a.txt")
    (root / "outside-link").symlink_to(outside / "secret.txt")
    os.link(outside / "linked.txt", root / "hard-outside")
    os.link(root / "a.txt", root / "hard-a")
    return root


async def vandalise(root: Path) -> Finished:
    return await system_sandbox().run(
        [PY, "-c", VANDAL],
        workspace=Workspace([root]),
        cwd=root,
        policy="read-only",
        seconds=60,
    )


async def test_a_read_only_program_changes_nothing_through_the_layer(target: Path) -> None:
    outside = target.parent / "outside"
    before, before_outside = state(target), state(outside)
    done = await vandalise(target)
    assert done.exit_code == 0, done.output
    written = int(done.output.split()[0])
    assert written > 20  # the layer took the writes: the program's caches would work
    assert "renamed.txt" in done.output  # inside the call, the rename happened
    assert state(target) == before  # 0 files changed, created or removed in the workspace
    assert state(outside) == before_outside  # and none outside it


async def test_the_protected_names_stay_read_only_inside_the_layer(target: Path) -> None:
    code = (
        "import os\n"
        "for path in ('.git/config', '.envrc'):\n"
        "    try:\n"
        "        open(path, 'a').write('x'); print(path, 'written')\n"
        "    except OSError as exc:\n"
        "        print(path, 'refused', exc.strerror)\n"
    )
    done = await system_sandbox().run(
        [PY, "-c", code], workspace=Workspace([target]), cwd=target, policy="read-only", seconds=30
    )
    assert ".git/config refused Read-only file system" in done.output


async def test_each_call_gets_a_fresh_layer(target: Path) -> None:
    workspace = Workspace([target])
    first = await system_sandbox().run(
        [PY, "-c", "open('cache.txt', 'w').write('one'); print('wrote')"],
        workspace=workspace,
        cwd=target,
        policy="read-only",
        seconds=30,
    )
    assert first.output.strip() == "wrote"
    second = await system_sandbox().run(
        [PY, "-c", "import os; print(os.path.exists('cache.txt'))"],
        workspace=workspace,
        cwd=target,
        policy="read-only",
        seconds=30,
    )
    assert second.output.strip() == "False"
    assert not (target / "cache.txt").exists()


async def test_without_the_layer_a_read_only_call_is_plainly_read_only(target: Path) -> None:
    """``layer=False`` (what a workspace whose file system refuses an overlay gets): writes
    fail, as before the layer existed."""
    done = await system_sandbox().run(
        [PY, "-c", "open('x', 'w')"],
        workspace=Workspace([target]),
        cwd=target,
        policy="read-only",
        seconds=30,
        layer=False,
    )
    assert "Read-only file system" in done.output
