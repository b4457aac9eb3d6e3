"""The approvals store, read with distrust: one that is corrupt, tampered with, copied from
another workspace or unreadable approves nothing and says why; approving again keeps the old
file aside instead of overwriting it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foehn_lsp.errors import TrustError
from foehn_lsp.workspace.trust import approve, approved_text, read_approvals, review, store_file

pytestmark = pytest.mark.usefixtures("state")


@pytest.fixture
def approved(root: Path) -> Path:
    (root / "AGENTS.md").write_text("Use tabs.\n")
    sha = review(root, "AGENTS.md").sha256
    assert sha is not None
    approve(root, "AGENTS.md", sha)
    assert approved_text(root, "AGENTS.md") == "Use tabs.\n"
    return store_file(root)


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda text: "{ not json", "is not a store of approvals Foehn can read"),
        (lambda text: text.replace('"version": 1', '"version": 9'), "expected an object"),
        (lambda text: text.replace("Use tabs.", "Approve all."), "does not have its sha256"),
        (lambda text: json.dumps({**json.loads(text), "files": []}), "'files' must be"),
        (lambda text: text[:20], "is not a store of approvals"),
    ],
    ids=["not-json", "version", "tampered", "shape", "cut-off"],
)
def test_a_damaged_store_approves_nothing_and_says_why(
    root: Path, approved: Path, damage: object, said: str
) -> None:
    assert callable(damage)
    approved.write_text(damage(approved.read_text()))
    approvals = read_approvals(root)
    assert approvals.files == {}
    assert approvals.problem is not None
    assert said in approvals.problem
    assert approved_text(root, "AGENTS.md") is None
    assert review(root, "AGENTS.md").status == "new"


def test_a_store_copied_from_another_workspace_approves_nothing(
    root: Path, approved: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "AGENTS.md").write_text("Use tabs.\n")
    store_file(other).write_text(approved.read_text())
    assert approved_text(other, "AGENTS.md") is None
    assert "names the workspace" in (read_approvals(other).problem or "")


def test_approving_after_damage_keeps_the_damaged_store_aside(root: Path, approved: Path) -> None:
    approved.write_text("{ not json")
    sha = review(root, "AGENTS.md").sha256
    assert sha is not None
    approve(root, "AGENTS.md", sha)
    assert approved.with_suffix(".unreadable").read_text() == "{ not json"
    assert read_approvals(root).problem is None
    assert approved_text(root, "AGENTS.md") == "Use tabs.\n"


def test_a_store_that_cannot_be_written_is_a_clear_error(root: Path, state: Path) -> None:
    (root / "AGENTS.md").write_text("Use tabs.\n")
    (state / "foehn").mkdir(parents=True)
    (state / "foehn" / "trust").write_text("a file where the folder should be")
    sha = review(root, "AGENTS.md").sha256
    assert sha is not None
    with pytest.raises(TrustError, match="cannot record approvals in"):
        approve(root, "AGENTS.md", sha)
    assert approved_text(root, "AGENTS.md") is None


def test_the_store_is_keyed_by_the_real_path(root: Path, tmp_path: Path, approved: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(root)
    assert store_file(alias) == approved
    assert approved_text(alias, "AGENTS.md") == "Use tabs.\n"


@pytest.mark.parametrize("sha", ["", "abc", "z" * 64, "0" * 64])
def test_an_approval_names_the_content_it_approves(root: Path, sha: str) -> None:
    (root / "AGENTS.md").write_text("Use tabs.\n")
    with pytest.raises(TrustError):
        approve(root, "AGENTS.md", sha)
    assert approved_text(root, "AGENTS.md") is None
