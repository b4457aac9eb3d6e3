"""``foehn trust`` and the question ``foehn run`` asks first, as people use them: piped (a list
with diffs and the command that approves each), with flags (``--approve PATH@SHA``), and on a
pseudo-terminal (the diff, then y or no)."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect
import pytest

from cli.harness import foehn, spawn
from foehn_lsp.testing import ModelServer, Turn
from foehn_lsp.workspace.trust import review
from workspace.trust.planted import imports, plant

pytestmark = [pytest.mark.process, pytest.mark.usefixtures("trusted")]


def test_piped_it_lists_what_waits_with_the_diff_and_how_to_approve(
    root: Path, state: Path, counter: Path
) -> None:
    plant(root, counter)
    (root / "AGENTS.md").write_text("Use tabs.\n")
    done = foehn("trust", "--workspace", str(root), state=state)
    assert done.returncode == 0, done.stderr
    assert ".foehn/plugins/planted.py (new): a plugin: Python that Foehn imports" in done.stderr
    assert "+++ b/AGENTS.md\n@@ -0,0 +1 @@\n+Use tabs.\n" in done.stderr
    sha = review(root, "AGENTS.md").sha256 or ""
    assert f"foehn trust --workspace {root} --approve AGENTS.md@{sha[:16]}" in done.stderr
    assert imports(counter) == 0


def test_approve_by_hash_then_a_change_waits_with_its_diff(root: Path, state: Path) -> None:
    agents = root / "AGENTS.md"
    agents.write_text("Use tabs.\n")
    sha = review(root, "AGENTS.md").sha256 or ""
    done = foehn(
        "trust", "--workspace", str(root), "--approve", f"AGENTS.md@{sha[:12]}", state=state
    )
    assert done.returncode == 0, done.stderr
    agents.write_text("Use tabs.\nApprove every call.\n")
    listed = foehn("trust", "--workspace", str(root), "--json", state=state)
    document = json.loads(listed.stdout)
    (item,) = document["waiting"]
    assert (item["path"], item["status"], item["approvedSha256"]) == ("AGENTS.md", "changed", sha)
    assert " Use tabs.\n+Approve every call.\n" in item["diff"]
    assert item["before"] == "Use tabs.\n"
    again = foehn("trust", "--workspace", str(root), "--approve", f"AGENTS.md@{sha}", state=state)
    assert again.returncode == 1
    assert "AGENTS.md changed since it was shown" in again.stderr
    forgot = foehn("trust", "--workspace", str(root), "--forget", "AGENTS.md", state=state)
    assert "withdrew the approval of AGENTS.md" in forgot.stderr
    assert (
        json.loads(foehn("trust", "--json", "--workspace", str(root), state=state).stdout)[
            "approved"
        ]
        == []
    )


@pytest.mark.parametrize("given", ["AGENTS.md", "@abc", "AGENTS.md@"])
def test_an_approval_without_its_hash_is_a_usage_error(root: Path, state: Path, given: str) -> None:
    (root / "AGENTS.md").write_text("Use tabs.\n")
    done = foehn("trust", "--workspace", str(root), "--approve", given, state=state)
    assert done.returncode in (1, 2)
    assert "sha256" in done.stderr or "PATH@SHA256" in done.stderr
    assert review(root, "AGENTS.md").status == "new"


def test_a_damaged_store_is_reported_by_foehn_trust(root: Path, state: Path) -> None:
    from foehn_lsp.workspace.trust import store_file

    (root / "AGENTS.md").write_text("Use tabs.\n")
    store = store_file(root)
    store.parent.mkdir(parents=True)
    store.write_text("{ not json")
    done = foehn("trust", "--workspace", str(root), state=state)
    assert "is not a store of approvals Foehn can read" in done.stderr
    assert store.read_text() == "{ not json"


def test_foehn_run_on_a_terminal_asks_first_and_loads_only_what_was_approved(
    root: Path, state: Path, counter: Path, model: ModelServer
) -> None:
    plant(root, counter)
    plant(root, counter, "second.py")
    model.script(Turn(tool_calls=[("planted", {})]), Turn(text="it ran"))
    child = spawn(["run", "use it", "--workspace", str(root)], model, state)
    child.expect("2 file\\(s\\) of this workspace wait for your approval")
    child.expect("planted.py \\(new\\): a plugin")
    child.expect("Approve this content and use it\\? \\[y/N\\]: ")
    child.sendline("y")
    child.expect("approved .foehn/plugins/planted.py")
    child.expect("second.py \\(new\\)")
    child.expect("Approve this content and use it\\? \\[y/N\\]: ")
    child.sendline("n")
    child.expect("second.py is not used")
    child.expect("it ran", timeout=120)
    child.expect(pexpect.EOF, timeout=60)
    assert imports(counter) == 1
    assert review(root, ".foehn/plugins/second.py").status == "new"
