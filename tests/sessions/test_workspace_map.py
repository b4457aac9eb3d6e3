"""The workspace map: ranked by use, cut to its budget, given in a session's first request only,
and left out where a workspace is too small to need one."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.test_loop import Recorder
from agent.turns import say
from foehn_lsp.agent.repomap import HEADER, map_budget, repo_map
from foehn_lsp.config import Settings
from foehn_lsp.policy.approval import Approved, FixedApprover
from foehn_lsp.providers.messages import UserMessage
from foehn_lsp.providers.scripted import ScriptedProvider
from foehn_lsp.sessions.builder import FrontEnd, build_session
from foehn_lsp.workspace import Workspace


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture
def package(root: Path) -> Path:
    (root / "pkg").mkdir()
    (root / "pkg" / "money.py").write_text("def format_amount(cents):\n    return cents / 100\n")
    for name in ("orders", "invoices", "refunds"):
        (root / "pkg" / f"{name}.py").write_text(
            "from pkg.money import format_amount\n\n\n"
            f"def {name}_total(items):\n    return format_amount(sum(items))\n"
        )
    (root / "pkg" / "lonely.py").write_text("class Lonely:\n    pass\n")
    (root / "README.md").write_text("# pkg\n")
    return root


def test_the_most_used_file_comes_first_within_the_budget(package: Path) -> None:
    text = repo_map(Workspace([package]), 512)
    lines = text.splitlines()
    assert lines[0] == HEADER
    assert lines[1] == "pkg/money.py: function format_amount"
    assert set(lines[2:]) == {
        "pkg/invoices.py: function invoices_total",
        "pkg/lonely.py: class Lonely",
        "pkg/orders.py: function orders_total",
        "pkg/refunds.py: function refunds_total",
    }
    short = repo_map(Workspace([package]), 70).splitlines()
    assert short[1] == "pkg/money.py: function format_amount"
    assert short[-1].startswith("... ")
    assert short[-1].endswith("more files (scan lists them)")


def test_a_small_workspace_or_a_small_window_gets_no_map(package: Path) -> None:
    (package / "pkg" / "lonely.py").unlink()
    (package / "pkg" / "refunds.py").unlink()
    assert repo_map(Workspace([package]), 512) == ""
    assert map_budget(16_384) == 0
    assert map_budget(32_768) == 1024
    assert map_budget(200_000) == 1024
    assert map_budget(None) == 1024


def test_the_map_lists_files_by_the_listing_rules(package: Path) -> None:
    (package / ".gitignore").write_text("build/\n")
    (package / ".foehnignore").write_text("vendor/\n")
    for folder in ("build", "vendor", ".cache"):
        (package / folder).mkdir()
        (package / folder / "generated.py").write_text("def generated():\n    pass\n")
    text = repo_map(Workspace([package]), 512)
    assert "pkg/money.py: function format_amount" in text
    assert "generated" not in text


async def test_the_map_is_in_the_first_request_of_a_session_only(package: Path) -> None:
    provider = ScriptedProvider([say("Five modules."), say("Yes.")])
    chat = build_session(
        Settings(),
        package,
        FrontEnd(name="cli", approver=FixedApprover(Approved())),
        provider=provider,
    )
    await chat.prompt("What is in here?", emit=Recorder())
    await chat.prompt("Is money.py the core?", emit=Recorder())
    first = [m.content for m in provider.requests[0][0] if isinstance(m, UserMessage)]
    assert first[0].startswith("What is in here?\n\n" + HEADER)
    assert "pkg/money.py: function format_amount" in first[0]
    second = [m.content for m in provider.requests[1][0] if isinstance(m, UserMessage)]
    assert second[-1] == "Is money.py the core?"
