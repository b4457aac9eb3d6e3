"""Hooks through the real gate, with real hook programs in the real sandbox: what they see on
stdin, every way an answer can be wrong (each fails closed and says why), Claude Code's shapes,
and malformed tables (reported with file, line and key, and ignored whole)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalGate, ApprovalRequest, Approved
from foehn_lsp.policy.guards import Guards, TurnGuards, load
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.tools.registry import Handler, Invocation
from policy.gated import gated


def python(code: str) -> str:
    """A hook command that runs ``code`` with the system's python."""
    return json.dumps(["python3", "-c", code])


def pre_tool(code: str, **more: Any) -> str:
    extra = "".join(f"{key} = {json.dumps(value)}\n" for key, value in more.items())
    return f'[[hooks]]\nevent = "pre_tool"\ncommand = {python(code)}\n{extra}\n'


def post_tool(code: str) -> str:
    return f'[[hooks]]\nevent = "post_tool"\ncommand = {python(code)}\n\n'


class Yes:
    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        return Approved()


async def run(
    registry: ToolRegistry, ctx: ToolContext, config: Path, text: str, *argv: str
) -> tuple[ToolResult, bool]:
    await asyncio.to_thread(config.write_text, text)
    guards = TurnGuards(
        guards=Guards(config, ctx.workspace.root, trusted=False), session="s1", turn=2
    )
    gate = ApprovalGate(ApprovalSettings(), Yes(), lambda event: None, guards)
    ran: list[bool] = []

    async def count(invocation: Invocation, next_step: Handler) -> ToolResult:
        ran.append(True)
        return await next_step(invocation)

    arguments = json.dumps({"command": list(argv)})
    result = await registry.call(
        "run_command", arguments, ctx, call_id="c", steps=(*steps(gated(gate)), count)
    )
    return result, bool(ran)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return tmp_path / "config.toml"


async def test_a_pre_tool_hook_sees_the_call_and_can_deny_it(
    registry: ToolRegistry, ctx: ToolContext, config: Path
) -> None:
    code = (
        "import json, sys; call = json.load(sys.stdin); "
        "ok = call['tool_name'] == call['tool'] and call['session_id'] == call['session']; "
        "print(json.dumps({'decision': 'deny', 'message': "
        "f\"{call['event']} {call['session']} {call['turn']} \""
        "f\"{call['arguments']['command']} {ok}\"}))"
    )
    result, ran = await run(registry, ctx, config, pre_tool(code), "echo", "hi")
    assert not ran
    assert "pre_tool s1 2 ['echo', 'hi'] True" in result.output


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("print('not json')", "is not a JSON object"),
        ("print('[1, 2]')", "JSON that is not an object"),
        ('print(\'{"decision": "maybe"}\')', "does not understand"),
        ('print(\'{"verdict": "allow"}\')', "does not understand"),
        ("import sys; print('broken'); sys.exit(1)", "exited with 1: broken"),
        ("import sys; print('no rm here'); sys.exit(2)", "no rm here"),
        (
            "import json; print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',"
            " 'permissionDecision': 'deny', 'permissionDecisionReason': 'Claude-style no'}}))",
            "Claude-style no",
        ),
        ('print(\'{"decision": "block", "reason": "legacy no"}\')', "legacy no"),
        ('print(\'{"continue": false, "stopReason": "stop it"}\')', "stop it"),
    ],
)
async def test_a_hook_that_fails_or_answers_garbage_denies_and_says_why(
    registry: ToolRegistry, ctx: ToolContext, config: Path, code: str, expected: str
) -> None:
    result, ran = await run(registry, ctx, config, pre_tool(code), "echo", "hi")
    assert not ran
    assert expected in result.output


async def test_a_hook_that_hangs_past_its_timeout_denies_and_says_so(
    registry: ToolRegistry, ctx: ToolContext, config: Path
) -> None:
    hang = pre_tool("import time; time.sleep(60)", timeout_s=1)
    result, ran = await run(registry, ctx, config, hang, "echo", "hi")
    assert not ran
    assert "did not finish within 1 s" in result.output


@pytest.mark.parametrize(
    "code",
    [
        "",
        "print('{}')",
        'print(\'{"decision": "allow"}\')',
        'print(\'{"decision": "approve"}\')',
        'print(\'{"hookSpecificOutput": {"permissionDecision": "allow"}}\')',
    ],
)
async def test_a_hook_with_no_objection_lets_the_call_run(
    registry: ToolRegistry, ctx: ToolContext, config: Path, code: str
) -> None:
    result, ran = await run(registry, ctx, config, pre_tool(code or "pass"), "echo", "hi")
    assert ran
    assert result.ok, result.output


async def test_a_post_tool_hook_adds_a_note_and_a_failing_one_withholds_the_output(
    registry: ToolRegistry, ctx: ToolContext, config: Path
) -> None:
    note = (
        "import json, sys; call = json.load(sys.stdin); "
        "print(json.dumps({'note': 'saw ' + call['result']['output'].split()[-1]}))"
    )
    result, _ = await run(registry, ctx, config, post_tool(note), "echo", "SECRET-ish")
    assert result.output.splitlines()[-1].endswith("saw SECRET-ish")
    claude = 'print(\'{"hookSpecificOutput": {"additionalContext": "from Claude"}}\')'
    result, _ = await run(registry, ctx, config, post_tool(claude), "echo", "x")
    assert result.output.endswith("from Claude")
    result, ran = await run(
        registry, ctx, config, post_tool("print('garbage')"), "echo", "WITHHELD"
    )
    assert ran
    assert not result.ok
    assert "WITHHELD" not in result.output
    assert "output is withheld" in result.output


def test_malformed_hooks_are_reported_with_file_line_and_key_and_ignored(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[[hooks]]\nevent = "pre_tool"\ncommand = ["true"]\n\n'
        '[[hooks]]\nevent = "before_tool"\ncommand = ["true"]\n\n'
        '[[hooks]]\nevent = "post_tool"\ncomand = ["true"]\n\n'
        '[[hooks]]\nevent = "pre_tool"\ncommand = ["true"]\ntimeout_s = 0\n'
    )
    loaded = load(config, None, trusted=False)
    assert [h.source for h in loaded.hooks.hooks] == [f"{config}:1"]
    assert loaded.hooks.problems == (
        f"{config}:6: hooks.event: required: one of pre_tool, post_tool, turn_end, "
        "session_start, got 'before_tool'",
        f"{config}:11: hooks.comand: unknown key; did you mean 'command'?",
        f"{config}:9: hooks.command: required: the program and its arguments as a list, "
        '["python3", "…"]',
        f"{config}:16: hooks.timeout_s: seconds, more than 0 and at most 600",
    )
