"""The attack list: every way out of the workspace we know of, through the real tools.

Each case calls a tool through the registry with the model's raw arguments and must come back
as a failed result, with nothing outside the workspace read or written (the canary folder keeps
its content, modes and access time).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp import ToolContext
from foehn_lsp.agent.chain import steps
from foehn_lsp.errors import PathRefusedError
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.workspace import DiskApplier, EditPlan, Workspace, WriteFile
from foehn_lsp.workspace.paths import open_confined


@pytest.fixture
def booby_trapped(root: Path, canary: Path) -> Iterator[Path]:
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_text("inside\n")
    (root / "a.txt").write_text("hello\n")
    (root / "docs").mkdir()
    (root / "docs" / "link").symlink_to(canary)
    (root / "secret_link").symlink_to(canary / "secret.txt")
    (root / "chain2").symlink_to(canary)
    (root / "chain1").symlink_to(root / "chain2")
    (root / "rel_link").symlink_to("../canary")
    (root / "loop").symlink_to(root / "loop")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    os.mkfifo(root / "fifo")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock"))
    yield root
    server.close()


def _abs(canary: Path, name: str) -> str:
    return str(canary / name)


ATTACKS: list[tuple[str, str, dict[str, Any]]] = [
    # (id, tool, arguments); "{canary}" is replaced by the canary's absolute path.
    ("dotdot", "read_file", {"path": "../canary/secret.txt"}),
    ("dotdot-dot", "read_file", {"path": "./../canary/secret.txt"}),
    ("dotdot-deep", "read_file", {"path": "sub/../../canary/secret.txt"}),
    ("dotdot-dotslash", "read_file", {"path": "sub/./../../canary/secret.txt"}),
    ("absolute", "read_file", {"path": "{canary}/secret.txt"}),
    ("absolute-etc", "read_file", {"path": "/etc/passwd"}),
    ("home", "read_file", {"path": "~/.ssh/id_rsa"}),
    ("home-user", "read_file", {"path": "~root/.bashrc"}),
    ("dir-symlink", "read_file", {"path": "docs/link/secret.txt"}),
    ("file-symlink", "read_file", {"path": "secret_link"}),
    ("symlink-chain", "read_file", {"path": "chain1/secret.txt"}),
    ("relative-symlink", "read_file", {"path": "rel_link/secret.txt"}),
    ("symlink-dotdot", "read_file", {"path": "docs/link/../link/secret.txt"}),
    ("symlink-loop", "read_file", {"path": "loop"}),
    ("nul", "read_file", {"path": "a.txt\x00../../canary/secret.txt"}),
    ("overlong", "read_file", {"path": "a/" * 2100}),
    ("long-name", "read_file", {"path": "x" * 300}),
    ("fifo", "read_file", {"path": "fifo"}),
    ("socket", "read_file", {"path": "sock"}),
    ("device", "read_file", {"path": "/dev/zero"}),
    ("proc", "read_file", {"path": "/proc/self/environ"}),
    ("empty", "read_file", {"path": ""}),
    ("case-trick", "read_file", {"path": "DOCS/LINK/secret.txt"}),
    ("write-dotdot", "write_file", {"path": "../canary/new.txt", "content": "x"}),
    ("write-dir-symlink", "write_file", {"path": "docs/link/new.txt", "content": "x"}),
    ("write-file-symlink", "write_file", {"path": "secret_link", "content": "x"}),
    ("write-chain", "write_file", {"path": "chain1/secret.txt", "content": "x"}),
    ("write-absolute", "write_file", {"path": "{canary}/pwn.txt", "content": "x"}),
    ("write-git", "write_file", {"path": ".git/config", "content": "x"}),
    ("write-git-case", "write_file", {"path": ".GIT/hooks/pre-commit", "content": "x"}),
    ("write-git-nested", "write_file", {"path": "sub/.git/hooks/post-checkout", "content": "x"}),
    ("write-fifo", "write_file", {"path": "fifo", "content": "x"}),
    (
        "edit-file-symlink",
        "edit_file",
        {"path": "secret_link", "edits": [{"old_text": "TOP", "new_text": "x"}]},
    ),
    (
        "edit-dir-symlink",
        "edit_file",
        {"path": "docs/link/secret.txt", "edits": [{"old_text": "TOP", "new_text": "x"}]},
    ),
    ("delete-outside", "delete_path", {"path": "../canary", "recursive": True}),
    ("delete-through-link", "delete_path", {"path": "docs/link/secret.txt"}),
    ("delete-root", "delete_path", {"path": ".", "recursive": True}),
    ("delete-slash", "delete_path", {"path": "/", "recursive": True}),
    ("move-out", "move_path", {"source": "a.txt", "destination": "../canary/a.txt"}),
    ("move-into-link", "move_path", {"source": "a.txt", "destination": "docs/link/a.txt"}),
    ("move-link-target", "move_path", {"source": "secret_link", "destination": "stolen.txt"}),
    ("move-in", "move_path", {"source": "{canary}/secret.txt", "destination": "stolen.txt"}),
    ("mkdir-outside", "make_directory", {"path": "../canary/newdir"}),
    ("mkdir-through-link", "make_directory", {"path": "docs/link/newdir"}),
    ("scan-parent", "scan", {"path": ".."}),
    ("scan-link", "scan", {"path": "docs/link"}),
    ("scan-glob-dotdot", "scan", {"path": ".", "pattern": "../canary/*"}),
    ("scan-glob-absolute", "scan", {"path": ".", "pattern": "/etc/*"}),
    ("scan-absolute", "scan", {"path": "/"}),
    ("search-parent", "search", {"pattern": "SECRET", "path": "../canary"}),
    ("search-link", "search", {"pattern": "SECRET", "path": "docs/link"}),
    ("search-glob-dotdot", "search", {"pattern": "SECRET", "glob": "../**"}),
    ("search-file-link", "search", {"pattern": "SECRET", "path": "secret_link"}),
    ("rename-through-links", "rename", {"name": "SECRET", "new_name": "PWNED"}),
]


@pytest.mark.parametrize(
    ("tool", "arguments"), [a[1:] for a in ATTACKS], ids=[a[0] for a in ATTACKS]
)
async def test_attack_is_refused_and_nothing_outside_is_touched(
    booby_trapped: Path,
    canary: Path,
    ctx: ToolContext,
    registry: ToolRegistry,
    canary_untouched: Callable[[], None],
    tool: str,
    arguments: dict[str, Any],
) -> None:
    arguments = {
        key: value.replace("{canary}", str(canary)) if isinstance(value, str) else value
        for key, value in arguments.items()
    }
    plan_only = registry.get(tool)
    assert plan_only is not None
    result = await registry.call(tool, arguments, ctx, steps=steps())
    assert not result.ok, result.output
    assert "TOP-SECRET" not in result.output
    assert "internal error" not in result.output
    canary_untouched()


def test_at_least_forty_attacks() -> None:
    assert len(ATTACKS) >= 40


async def test_symlink_refusal_names_the_link_and_its_target(
    booby_trapped: Path, canary: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    result = await registry.call("read_file", {"path": "docs/link/secret.txt"}, ctx, steps=steps())
    assert f"escapes the workspace via symlink docs/link -> {canary}" in result.output


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../x", "escapes the workspace via '..'"),
        ("/etc/passwd", "outside the workspace"),
        ("~/x", "home-directory paths are not allowed"),
        ("a\x00b", "NUL byte"),
        ("fifo", "is a FIFO"),
        ("sock", "is a socket"),
        ("/dev/null", "outside the workspace"),
    ],
)
def test_refusals_say_why(
    booby_trapped: Path, workspace: Workspace, path: str, reason: str
) -> None:
    with pytest.raises(PathRefusedError, match=reason):
        workspace.resolve(path)


def test_writes_into_git_are_refused_but_reads_are_allowed(
    booby_trapped: Path, workspace: Workspace
) -> None:
    assert workspace.resolve(".git/config") == booby_trapped / ".git" / "config"
    with pytest.raises(PathRefusedError, match=r"inside \.git/"):
        workspace.resolve(".git/config", write=True)


def test_symlinks_inside_the_workspace_are_followed(root: Path, workspace: Workspace) -> None:
    (root / "real").mkdir()
    (root / "alias").symlink_to(root / "real")
    assert workspace.resolve("alias/new.txt") == root / "real" / "new.txt"


def test_absolute_path_inside_the_workspace_is_accepted(root: Path, workspace: Workspace) -> None:
    (root / "a.txt").write_text("x")
    assert workspace.resolve(str(root / "a.txt")) == root / "a.txt"


def test_several_roots(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    workspace = Workspace([first, second])
    assert workspace.resolve("x.txt") == first / "x.txt"
    assert workspace.resolve(str(second / "y.txt")) == second / "y.txt"
    with pytest.raises(PathRefusedError):
        workspace.resolve(str(tmp_path / "three" / "z.txt"))


def test_directory_swapped_for_symlink_after_planning_writes_nothing(
    root: Path, canary: Path, workspace: Workspace, canary_untouched: Callable[[], None]
) -> None:
    (root / "sub").mkdir()
    target = workspace.resolve("sub/secret.txt", write=True)
    plan = EditPlan(
        tool="write_file",
        changes=(WriteFile(path=target, text="pwned", old_text=None),),
        summary="create sub/secret.txt",
    )
    (root / "sub").rmdir()
    (root / "sub").symlink_to(canary)  # swapped between check and use
    outcome = DiskApplier(workspace).apply_sync(plan)
    assert not outcome.applied
    assert "outside the workspace" in outcome.reason
    canary_untouched()


def test_file_swapped_for_symlink_after_resolving_is_not_read(
    root: Path, canary: Path, workspace: Workspace, canary_untouched: Callable[[], None]
) -> None:
    (root / "notes.txt").write_text("mine")
    path = workspace.resolve("notes.txt")
    (root / "notes.txt").unlink()
    (root / "notes.txt").symlink_to(canary / "secret.txt")
    with pytest.raises(PathRefusedError, match="replaced by a symlink"):
        open_confined(workspace, path)
    canary_untouched()


def test_parent_swapped_for_symlink_after_resolving_is_not_read(
    root: Path, canary: Path, workspace: Workspace, canary_untouched: Callable[[], None]
) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "secret.txt").write_text("mine")
    path = workspace.resolve("sub/secret.txt")
    (root / "sub" / "secret.txt").unlink()
    (root / "sub").rmdir()
    (root / "sub").symlink_to(canary)
    with pytest.raises(PathRefusedError, match="leads outside the workspace"):
        os.close(open_confined(workspace, path))
