"""The two steps of a call's chain (``agent.chain``) that run the person's hooks
(``policy.hooks``): before approval, the ``pre_tool`` hooks answer and the approval step weighs
their answers; around the call, the ``post_tool`` hooks see what it returned and may add a note
for the model.

Pre-tool hooks are not run for a call that is refused already (by a rule or the policy): their
answers could not change that, and a hook should not see a call that never runs. Post-tool hooks
see only calls that ran: the step stands after approval.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from foehn_lsp.policy.approval import ApprovalGate
from foehn_lsp.policy.guards import TurnGuards
from foehn_lsp.policy.hooks import HookEvent, payload, post_tool, pre_tool
from foehn_lsp.policy.rules.decision import Verdict
from foehn_lsp.tools.contract import ToolResult
from foehn_lsp.tools.registry import Handler, Invocation


def _data(event: HookEvent, guards: TurnGuards, invocation: Invocation, result: Any = None) -> Any:
    return payload(
        event,
        session=guards.session,
        turn=guards.turn,
        cwd=invocation.ctx.workspace.root,
        tool=invocation.tool.name,
        arguments=invocation.shown_arguments(),
        result=result,
    )


class PreToolHooks:
    """The step that asks the ``pre_tool`` hooks about a call and passes their answers on
    (``Invocation.answers``). ``verdict`` is the approval step's decision as the call stands,
    which says whether it is refused already."""

    def __init__(
        self, guards: TurnGuards, verdict: Callable[[Invocation], Awaitable[Verdict]]
    ) -> None:
        self.guards = guards
        self.verdict = verdict

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        hooks = self.guards.guards.hooks.of("pre_tool", invocation.tool.name)
        if not hooks or (await self.verdict(invocation)).decision == "deny":
            return await next_step(invocation)
        data = _data("pre_tool", self.guards, invocation)
        answers = await pre_tool(hooks, data, invocation.ctx.workspace)
        return await next_step(dataclasses.replace(invocation, answers=tuple(answers)))


class PostToolHooks:
    """The step that runs the call, then shows its result to the ``post_tool`` hooks."""

    def __init__(self, guards: TurnGuards) -> None:
        self.guards = guards

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        result = await next_step(invocation)
        hooks = self.guards.guards.hooks.of("post_tool", invocation.tool.name)
        if not hooks:
            return result
        shown = {"ok": result.ok, "output": result.output}
        data = _data("post_tool", self.guards, invocation, shown)
        return await post_tool(hooks, data, invocation.ctx.workspace, result)


def hooks_around(gate: ApprovalGate) -> tuple[PreToolHooks, PostToolHooks]:
    """The hook steps of the turn whose approval step is ``gate``: its guards, and its verdict
    to skip the pre-tool hooks of a call refused already."""
    return PreToolHooks(gate.guards, gate.verdict), PostToolHooks(gate.guards)
