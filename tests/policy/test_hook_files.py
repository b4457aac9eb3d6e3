"""Hooks run their own files: a hook's script and the folder it lives in are bound read-only into
that hook's sandbox alone (its credential files masked, never a folder that would show the
workspace's siblings), and a hook that cannot start is a broken hook, named with its
``FILE:LINE`` and how to fix it, never passed off as the person's refusal. Effects are counted
from outside: files removed, secrets printed, what other calls see."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.events import ApprovalEvent, TurnEvent
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalGate, ApprovalRequest, Approved
from foehn_lsp.policy.guards import Guards, TurnGuards
from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.tools.registry import Handler, Invocation
from policy.gated import gated

pytestmark = pytest.mark.skipif(not system_sandbox().available, reason="needs the sandbox")

GUARD = """\
import json, sys
from helper import MESSAGE          # a module next to the script: its folder is bound
call = json.load(sys.stdin)
if call["arguments"]["command"][0] == "rm":
    print(json.dumps({"decision": "deny", "message": MESSAGE}))
"""


class Yes:
    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        return Approved()


async def command(
    registry: ToolRegistry,
    ctx: ToolContext,
    config: Path,
    hooks: str,
    *argv: str,
    events: list[TurnEvent] | None = None,
) -> tuple[ToolResult, bool]:
    """``run_command argv`` through the gate with the hooks of ``config``: its result and
    whether it ran."""
    await asyncio.to_thread(config.write_text, hooks)
    guards = TurnGuards(
        guards=Guards(config, ctx.workspace.root, trusted=False), session="s1", turn=1
    )
    sink = events if events is not None else []
    gate = ApprovalGate(ApprovalSettings(), Yes(), sink.append, guards)
    ran: list[bool] = []

    async def count(invocation: Invocation, next_step: Handler) -> ToolResult:
        ran.append(True)
        return await next_step(invocation)

    arguments = json.dumps({"command": list(argv)})
    result = await registry.call(
        "run_command", arguments, ctx, call_id="c", steps=(*steps(gated(gate)), count)
    )
    return result, bool(ran)


def hook_table(*argv: str) -> str:
    return f'[[hooks]]\nevent = "pre_tool"\ncommand = {json.dumps(list(argv))}\n'


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / "config").mkdir()
    return tmp_path / "config" / "config.toml"


@pytest.fixture
def hooks_home(tmp_path: Path) -> Path:
    """The documented home of hook scripts, outside every folder the sandbox shows."""
    folder = tmp_path / "xdg" / "foehn" / "hooks"
    folder.mkdir(parents=True)
    (folder / "guard.py").write_text(GUARD)
    (folder / "helper.py").write_text('MESSAGE = "Never rm from Foehn; move it to trash/."\n')
    return folder


async def test_a_hook_under_the_config_folder_denies_rm_with_its_message(
    registry: ToolRegistry, ctx: ToolContext, config: Path, hooks_home: Path, root: Path
) -> None:
    (root / "keep.txt").write_text("keep\n")
    table = hook_table("python3", str(hooks_home / "guard.py"))
    result, ran = await command(registry, ctx, config, table, "rm", "keep.txt")
    assert not ran
    assert "Never rm from Foehn; move it to trash/." in result.output
    assert (root / "keep.txt").read_text() == "keep\n"
    allowed, ran = await command(registry, ctx, config, table, "echo", "fine")
    assert ran
    assert allowed.ok, allowed.output


async def test_a_hooks_files_are_seen_by_that_hook_alone(
    registry: ToolRegistry, ctx: ToolContext, config: Path, hooks_home: Path
) -> None:
    table = hook_table("python3", str(hooks_home / "guard.py"))
    await command(registry, ctx, config, table, "rm", "x")  # the hook ran, with its folder
    seen, ran = await command(registry, ctx, config, "", "cat", str(hooks_home / "helper.py"))
    assert ran
    assert not seen.ok
    assert "Never rm" not in seen.output


async def test_credential_files_in_a_hooks_folder_stay_masked(
    registry: ToolRegistry, ctx: ToolContext, config: Path, hooks_home: Path
) -> None:
    (hooks_home / ".netrc").write_text("machine example.org password hunter2\n")
    (hooks_home / "peek.py").write_text(
        "import json, pathlib\n"
        "try:\n"
        "    text = (pathlib.Path(__file__).parent / '.netrc').read_text()\n"
        "except OSError as exc:\n"
        "    text = f'unreadable: {exc.strerror}'\n"
        "print(json.dumps({'decision': 'deny', 'message': text}))\n"
    )
    table = hook_table("python3", str(hooks_home / "peek.py"))
    result, ran = await command(registry, ctx, config, table, "echo", "x")
    assert not ran
    assert "hunter2" not in result.output
    assert "unreadable" in result.output


async def test_a_script_beside_the_workspace_does_not_show_its_siblings(
    registry: ToolRegistry, ctx: ToolContext, config: Path, root: Path
) -> None:
    beside = root.parent
    (beside / "sibling-secret.txt").write_text("sibling\n")
    (beside / "look.py").write_text(
        "import json, pathlib\n"
        "secret = pathlib.Path(__file__).parent / 'sibling-secret.txt'\n"
        "print(json.dumps({'decision': 'deny', 'message': f'sibling seen: {secret.exists()}'}))\n"
    )
    table = hook_table("python3", str(beside / "look.py"))
    result, ran = await command(registry, ctx, config, table, "echo", "x")
    assert not ran
    assert "sibling seen: False" in result.output


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["python3", "{home}/missing.py"], "its script {home}/missing.py does not exist"),
        (["no-such-hook-program-xyz"], "'no-such-hook-program-xyz' was not found on PATH"),
        (["python3", "{home}/locked.py"], "its program could not start it"),
    ],
    ids=["missing script", "missing program", "unreadable script"],
)
async def test_a_hook_that_cannot_start_is_named_as_broken_and_not_as_a_refusal(
    registry: ToolRegistry,
    ctx: ToolContext,
    config: Path,
    hooks_home: Path,
    root: Path,
    argv: list[str],
    why: str,
) -> None:
    locked = hooks_home / "locked.py"
    locked.write_text("print('never')\n")
    locked.chmod(0)  # the sandbox drops every capability: not even root reads it
    (root / "keep.txt").write_text("keep\n")
    filled = [word.format(home=hooks_home) for word in argv]
    events: list[TurnEvent] = []
    table = hook_table(*filled)
    result, ran = await command(registry, ctx, config, table, "rm", "keep.txt", events=events)
    assert not ran
    assert (root / "keep.txt").exists()
    told = result.output
    assert "blocked by a hook that failed" in told
    assert "nobody refused it" in told
    assert "person's own rule" not in told
    assert why.format(home=hooks_home) in told
    [decided] = [e for e in events if isinstance(e, ApprovalEvent)]
    assert decided.decision == "deny"
    assert f"the pre_tool hook {config}:1 is broken" in decided.reason
    assert why.format(home=hooks_home) in decided.reason
    assert "hooks/" in decided.reason  # where hook scripts belong
    assert f"Fix its command in {config}" in decided.reason


async def test_a_hook_that_blocks_with_exit_2_is_still_its_decision(
    registry: ToolRegistry, ctx: ToolContext, config: Path, hooks_home: Path
) -> None:
    (hooks_home / "block.py").write_text("import sys\nprint('no rm here')\nsys.exit(2)\n")
    table = hook_table("python3", str(hooks_home / "block.py"))
    result, ran = await command(registry, ctx, config, table, "rm", "x")
    assert not ran
    assert "no rm here" in result.output
    assert "person's own rule" in result.output
