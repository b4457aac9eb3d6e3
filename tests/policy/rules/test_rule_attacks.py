"""The rule matcher under attack: every spelling a program accepts, through the real registry
chain, the real approval gate and real programs in the real sandbox.

Effects are counted, not verdicts: a counting step sits after the gate, so a call "ran" when it
reached its tool. Against a deny rule the person approves everything they are asked (the worst
case: ``--approve all``), so only the rule stands between the call and the program. Against an
allow or ask rule the person denies everything, so a call that ran did so unasked. The goal is
zero calls that ran against a rule's intent, and each campaign also runs the calls the rule
means to let through, so the rules are not simply refusing everything.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.policy.approval import (
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequest,
    Approved,
    Denied,
)
from foehn_lsp.policy.guards import Guards, TurnGuards
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.tools.registry import Handler, Invocation
from policy.gated import gated

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")


@dataclass
class Campaign:
    """One rule file, one person, and every call that reached its tool."""

    registry: ToolRegistry
    ctx: ToolContext
    config: Path
    yes: bool
    ran: list[tuple[str, Any, str | None]] = field(default_factory=list)
    asked: list[ApprovalRequest] = field(default_factory=list)

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return Approved() if self.yes else Denied(reason="the attack suite says no")

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        guards = TurnGuards(guards=Guards(self.config, self.ctx.workspace.root, trusted=False))
        gate = ApprovalGate(ApprovalSettings(), self, lambda event: None, guards)

        async def count(invocation: Invocation, next_step: Handler) -> ToolResult:
            self.ran.append((tool, arguments, invocation.scope.sandbox))
            return await next_step(invocation)

        return await self.registry.call(
            tool,
            json.dumps(arguments),
            self.ctx,
            call_id=str(len(self.ran)),
            steps=(*steps(gated(gate)), count),
        )

    async def each(self, calls: Sequence[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Run every call; the ones that reached their tool."""
        before = len(self.ran)
        for tool, arguments in calls:
            await self.call(tool, arguments)
        return [arguments for _, arguments, _ in self.ran[before:]]


def command(*argv: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return ("run_command", {"command": list(argv), **more})


def campaign(
    registry: ToolRegistry, ctx: ToolContext, tmp_path: Path, rules: str, *, yes: bool
) -> Campaign:
    config = tmp_path / "config.toml"
    config.write_text(rules)
    return Campaign(registry=registry, ctx=ctx, config=config, yes=yes)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60)


@pytest.fixture
def repo(root: Path) -> Path:
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.invalid")
    git(root, "config", "user.name", "t")
    (root / "a.txt").write_text("a\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-q", "-m", "a")
    git(root, "config", "alias.p", "push")  # the repository's own alias of push
    return root


NEVER_PUSH = """
[[rules]]
tool = "*"
program = "git"
args = ["push", "*"]
decision = "deny"
message = "Never push from Foehn."
"""

PUSHES = [
    ["git", "push"],
    ["git", "push", "origin", "main"],
    ["git", "push", "--force", "origin", "main"],
    ["/usr/bin/git", "push"],
    ["./git", "push"],
    ["tools/g", "push"],
    ["tools/../git", "push"],
    ["git", "-C", ".", "push"],
    ["git", "-C", "sub", "push", "origin"],
    ["git", "-c", "color.ui=never", "push"],
    ["git", "-c", "alias.p=push", "p"],
    ["git", "-c", "alias.x=!git push", "x"],
    ["git", "--config-env=alias.q=HOME", "q"],
    ["git", "--git-dir=.git", "push"],
    ["git", "--git-dir", ".git", "--work-tree", ".", "push"],
    ["git", "--no-pager", "-P", "--bare", "push"],
    ["git", "--exec-path=.", "push"],
    ["git", "--unknown-global", "value", "push"],
    ["git", "p"],
    ["git", "pu"],
    ["git", "-p", "push", "--all"],
    ["env", "git", "push"],
    ["env", "-i", "PATH=/usr/bin", "git", "push"],
    ["env", "-u", "HOME", "git", "push"],
    ["env", "--", "git", "push"],
    ["env", "-S", "git push"],
    ["env", "--split=git push"],
    ["timeout", "30", "git", "push"],
    ["timeout", "-s", "KILL", "30", "git", "push"],
    ["nice", "-n", "5", "git", "push"],
    ["nice", "-5", "git", "push"],
    ["nohup", "git", "push"],
    ["stdbuf", "-o0", "git", "push"],
    ["setsid", "-w", "git", "push"],
    ["ionice", "-c", "3", "git", "push"],
    ["nice", "timeout", "9", "env", "A=1", "git", "push"],
    ["xargs", "git", "push"],
    ["xargs", "git"],
    ["xargs", "-n", "1", "git", "push"],
    ["xargs", "-I{}", "git", "{}"],
    ["xargs", "-a", "a.txt", "git"],
    ["sh", "-c", "git push"],
    ["bash", "-lc", "git push"],
    ["bash", "-o", "errexit", "-c", "git push"],
    ["dash", "-ec", "git push"],
    ["python3", "-c", "import subprocess; subprocess.run(['git', 'push'])"],
    ["python3", "-W", "ignore", "-c", "import os; os.system('git push')"],
    ["python3", "-Ic", "import os; os.system('git push')"],
    ["perl", "-e", "system('git push')"],
    ["perl", "-ne", "system('git push')", "a.txt"],
    ["awk", 'BEGIN { system("git push") }'],
    ["find", ".", "-maxdepth", "0", "-exec", "git", "push", ";"],
    ["sed", "-n", "1e git push", "a.txt"],
    ["sudo", "git", "push"],
    ["git", "submodule", "foreach", "git push"],
    ["git", "rebase", "--exec", "git push", "HEAD"],
    ["git", "bisect", "run", "git", "push"],
    ["git", "fetch", "--upload-pack=git push", "."],
    ["git", "-c", "core.pager=git push", "log"],
]


@pytest.fixture
def disguised(repo: Path) -> Path:
    """git under other names in the workspace: a link named git, a copy named g."""
    (repo / "sub").mkdir()
    (repo / "tools").mkdir()
    real_git = Path(GIT or "").resolve()
    (repo / "git").symlink_to(real_git)
    shutil.copy(real_git, repo / "tools" / "g")
    return repo


async def test_a_deny_on_git_push_holds_against_every_spelling(
    registry: ToolRegistry, ctx: ToolContext, disguised: Path, tmp_path: Path
) -> None:
    trial = campaign(registry, ctx, tmp_path, NEVER_PUSH, yes=True)
    ran = await trial.each([command(*argv) for argv in PUSHES])
    assert ran == [], f"{len(ran)} pushes ran against the rule: {ran}"
    allowed = await trial.each(
        [
            command("git", "status"),
            command("git", "log", "--oneline"),
            ("git", {"args": ["status"]}),
        ]
    )
    assert len(allowed) == 3
    result = await trial.call(*command("git", "push", "origin", "main"))
    assert "Never push from Foehn." in result.output


NEVER_FORCE = """
[[rules]]
tool = "run_command"
program = "git"
args = ["push", "--force", "*"]
decision = "deny"
"""


async def test_a_deny_on_an_option_holds_against_every_spelling_of_it(
    registry: ToolRegistry, ctx: ToolContext, repo: Path, tmp_path: Path
) -> None:
    trial = campaign(registry, ctx, tmp_path, NEVER_FORCE, yes=True)
    forced = [
        ["git", "push", "--force"],
        ["git", "push", "--forc"],
        ["git", "push", "--fo", "origin"],
        ["git", "push", "-f", "origin", "main"],
        ["git", "push", "origin", "main", "-f"],
        ["git", "push", "origin", "--force", "main"],
        ["git", "push", "-fu", "origin", "main"],
        ["git", "push", "-uf", "origin", "main"],
        ["git", "push", "-vfq"],
        ["git", "push", "--force=yes"],
        ["git", "push", "--force-with-lease"],
        ["git", "push", "--force-with-lease=main:abc", "origin"],
        ["git", "push", "origin", "+main"],
        ["git", "push", "origin", "+main:main"],
        ["git", "-C", ".", "push", "-f"],
        ["git", "-c", "color.ui=never", "push", "--force", "origin"],
        ["env", "git", "push", "-f"],
        ["/usr/bin/git", "push", "--force"],
    ]
    ran = await trial.each([command(*argv) for argv in forced])
    assert ran == [], f"{len(ran)} force pushes ran: {ran}"
    plain = await trial.each(
        [command("git", "push", "origin", "main"), command("git", "push", "--tags")]
    )
    assert len(plain) == 2  # the rule is about --force only


NEVER_RM_RECURSIVE = """
[[rules]]
tool = "run_command"
program = "rm"
args = ["-r", "*"]
decision = "deny"
"""


async def test_a_deny_on_rm_r_holds_against_clusters_long_names_and_order(
    registry: ToolRegistry, ctx: ToolContext, root: Path, tmp_path: Path
) -> None:
    trial = campaign(registry, ctx, tmp_path, NEVER_RM_RECURSIVE, yes=True)
    spellings = [
        ["rm", "-r", "d"],
        ["rm", "-R", "d"],
        ["rm", "--recursive", "d"],
        ["rm", "--rec", "d"],
        ["rm", "-rf", "d"],
        ["rm", "-fr", "d"],
        ["rm", "-Rf", "d"],
        ["rm", "-fvR", "d"],
        ["rm", "d", "-r"],
        ["rm", "-v", "--", "d", "-r"],
        ["rm", "-f", "-r", "d"],
        ["/bin/rm", "-r", "d"],
        ["/usr/bin/rm", "-rf", "d"],
        ["env", "rm", "-r", "d"],
        ["timeout", "5", "rm", "-r", "d"],
        ["xargs", "rm", "-r"],
        ["xargs", "rm"],
    ]
    (root / "d").mkdir()
    (root / "d" / "f").write_text("x")
    ran = await trial.each([command(*argv) for argv in spellings])
    assert ran == [], f"{len(ran)} recursive removals ran: {ran}"
    assert (root / "d" / "f").exists()
    (root / "file.txt").write_text("x")
    assert len(await trial.each([command("rm", "file.txt")])) == 1
    assert not (root / "file.txt").exists()


ALLOW_TOUCH = """
[[rules]]
tool = "run_command"
program = "touch"
args = ["notes.txt"]
decision = "allow"
sandbox = "workspace-write"
"""


async def test_an_allow_covers_its_shape_and_nothing_more(
    registry: ToolRegistry, ctx: ToolContext, root: Path, tmp_path: Path
) -> None:
    (root / "touch").write_text("#!/bin/sh\necho workspace code >> ran.txt\n")
    (root / "touch").chmod(0o755)
    trial = campaign(registry, ctx, tmp_path, ALLOW_TOUCH, yes=False)
    wider = [
        command("touch", "other.txt"),
        command("touch", "notes.txt", "other.txt"),
        command("touch", "-d", "2020-01-01", "notes.txt"),
        command("touch", "notes.txt", "-r", "touch"),
        command("touch", "--no-create", "notes.txt"),
        command("./touch", "notes.txt"),
        command("/usr/bin/touch", "notes.txt"),
        command("env", "touch", "notes.txt"),
        command("env", "PATH=.", "touch", "notes.txt"),
        command("timeout", "5", "touch", "notes.txt"),
        command("nice", "touch", "notes.txt"),
        command("sh", "-c", "touch notes.txt"),
        command("touch", "notes.txt;", "rm", "-rf", "."),
        command("touch ", "notes.txt"),
        command("Touch", "notes.txt"),
        command("touch", "./notes.txt"),
        command("touch", "notes.txt", cwd="sub"),
    ]
    (root / "sub").mkdir()
    ran = await trial.each(wider)
    assert ran == [], f"{len(ran)} calls ran unasked beyond the allow: {ran}"
    assert not (root / "ran.txt").exists()
    exact = await trial.each([command("touch", "notes.txt")])
    assert exact == [{"command": ["touch", "notes.txt"]}]
    assert trial.ran[-1][2] == "workspace-write"
    assert (root / "notes.txt").exists()
    # the sandbox is the rule's, whatever the model asks for
    await trial.call(*command("touch", "notes.txt", sandbox="full"))
    assert trial.ran[-1][2] == "workspace-write"


DENY_MIGRATIONS = """
[[rules]]
tool = "*"
paths = ["migrations/**"]
decision = "deny"
"""


async def test_a_rule_on_a_folder_holds_against_a_rename_that_names_no_path(
    registry: ToolRegistry, ctx: ToolContext, root: Path, tmp_path: Path
) -> None:
    """``rename`` names no file: the rule sees the files its plan would change. The person
    approves everything, so only the rule stands between the call and the files."""
    (root / "migrations").mkdir()
    (root / "migrations" / "0001.py").write_text("from app import helper\n")
    (root / "app.py").write_text("def helper():\n    pass\n")
    (root / "tools.py").write_text("def tool():\n    pass\n")
    trial = campaign(registry, ctx, tmp_path, DENY_MIGRATIONS, yes=True)
    ran = await trial.each([("rename", {"name": "helper", "new_name": "assist"})])
    assert ran == [], "the rename reached migrations/ against the rule"
    assert (root / "migrations" / "0001.py").read_text() == "from app import helper\n"
    assert (root / "app.py").read_text() == "def helper():\n    pass\n"
    elsewhere = await trial.each([("rename", {"name": "tool", "new_name": "instrument"})])
    assert len(elsewhere) == 1
    assert (root / "tools.py").read_text() == "def instrument():\n    pass\n"


ASK_MIGRATIONS = """
[[rules]]
tool = "*"
paths = ["**"]
decision = "allow"
sandbox = "workspace-write"

[[rules]]
tool = "*"
paths = ["migrations/**"]
decision = "ask"
"""


async def test_an_ask_on_a_folder_holds_against_every_path_into_it(
    registry: ToolRegistry, ctx: ToolContext, root: Path, tmp_path: Path
) -> None:
    (root / "migrations").mkdir()
    (root / "migrations" / "0001.py").write_text("old\n")
    os.symlink("migrations", root / "m")
    (root / "src").mkdir()
    trial = campaign(registry, ctx, tmp_path, ASK_MIGRATIONS, yes=False)
    into: list[tuple[str, dict[str, Any]]] = [
        ("write_file", {"path": "migrations/0002.py", "content": "x"}),
        ("write_file", {"path": "./migrations/0002.py", "content": "x"}),
        ("write_file", {"path": "src/../migrations/0002.py", "content": "x"}),
        ("write_file", {"path": f"{root}/migrations/0002.py", "content": "x"}),
        ("write_file", {"path": "m/0002.py", "content": "x"}),
        ("write_file", {"path": "migrations//0002.py", "content": "x"}),
        ("edit_file", {"path": "m/0001.py", "edits": [{"old_text": "old", "new_text": "new"}]}),
        ("delete_path", {"path": "migrations", "recursive": True}),
        ("delete_path", {"path": ".", "recursive": True}),
        ("delete_path", {"path": "m"}),
        ("move_path", {"source": "migrations", "destination": "old"}),
        ("move_path", {"source": "migrations/0001.py", "destination": "src/0001.py"}),
        ("move_path", {"source": "src", "destination": "migrations/src"}),
        ("make_directory", {"path": "migrations/new"}),
        ("read_file", {"path": "m/0001.py"}),
        ("scan", {"path": "."}),
        command("rm", "migrations/0001.py"),
        command("cp", "src", "m/x"),
    ]
    ran = await trial.each(into)
    assert ran == [], f"{len(ran)} calls touched migrations/ unasked: {ran}"
    assert (root / "migrations" / "0001.py").read_text() == "old\n"
    outside = await trial.each([("write_file", {"path": "src/app.py", "content": "x"})])
    assert len(outside) == 1
    assert (root / "src" / "app.py").read_text() == "x"
