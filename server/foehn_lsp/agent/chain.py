"""The steps every call runs through, in order. This docstring is the only place the order is
written; the registry runs the steps it is given, the executor and the loop take them as built.

     1. validate      the model's JSON against the tool's schema       tools.registry.validate_step
     2. assess        the call's risk and scope (program, sandbox)    tools.registry.assess_step
     3. plan          a tool that changes files plans its edits once  tools.registry.plan_step
     4. announce      the call, its risk and sandbox, to the front end  agent.execution.Announcer
     5. mode          plan mode, an investigation: above read-only is refused  agent.plan_mode
        tests         a turn that is to fix the code: changes to tests are refused
                                                                    agent.test_driven.TestGuard
     6. front end     the front end's own checks (``foehn mcp``: the risk it was started for)
     7. pre-hooks     the person's pre_tool hooks answer            policy.hook_steps.PreToolHooks
     8. approval      rules, the hooks' answers and the policy decide; ask; remember
                                                                      policy.approval.ApprovalGate
     9. post-hooks    around what follows: post_tool hooks see the result, may add a note
                                                                    policy.hook_steps.PostToolHooks
    10. watch         a program that may write is watched; what it changed is checkpointed
                                                                 sessions.checkpoints.ProgramWatch
    11. edit checks   the files a call will change are checked before their first change
                                                                         checks.checking.EditChecks
    12. execute       the approved plan applied, or the tool run, within its timeout
                                                                          tools.registry.execute

Steps 1-3 only prepare the call: what approval sees is what runs. A step may end the call with
a result (a refusal, a failed validation); nothing after it runs. A part a front end does not
have (no hooks, no program watch outside a session) is left out, never replaced by another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from foehn_lsp.agent.plan_mode import ReadOnlyGuard
from foehn_lsp.agent.test_driven import TestGuard
from foehn_lsp.checks.checking import EditChecks
from foehn_lsp.tools.contract import ToolContext, ToolResult
from foehn_lsp.tools.registry import (
    Handler,
    Invocation,
    Middleware,
    ToolRegistry,
    assess_step,
    plan_step,
    validate_step,
)
from foehn_lsp.workspace import FileAccess, Workspace

StepName = Literal[
    "validate",
    "assess",
    "plan",
    "announce",
    "mode",
    "tests",
    "front end",
    "pre-hooks",
    "approval",
    "post-hooks",
    "watch",
    "edit checks",
]


@dataclass(frozen=True, kw_only=True)
class Step:
    """One named step of a call's chain."""

    name: StepName
    run: Middleware

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        return await self.run(invocation, next_step)


@dataclass(frozen=True, kw_only=True)
class Parts:
    """The steps a front end has for its calls, besides the tool's own (validate, assess,
    plan, execute); a part left out (``None``) is not in the chain."""

    announce: Middleware | None = None
    mode: ReadOnlyGuard | None = None
    tests: TestGuard | None = None
    front_end: tuple[Middleware, ...] = ()
    pre_hooks: Middleware | None = None
    approval: Middleware | None = None
    post_hooks: Middleware | None = None
    watch: Middleware | None = None
    edit_checks: EditChecks | None = None


def steps(parts: Parts = Parts()) -> tuple[Step, ...]:
    """The chain of a call with ``parts``, in the order above (``execute``, which the registry
    runs last, is not a step of the list)."""
    chosen: list[tuple[StepName, Middleware | None]] = [
        ("validate", validate_step),
        ("assess", assess_step),
        ("plan", plan_step),
        ("announce", parts.announce),
        ("mode", parts.mode),
        ("tests", parts.tests),
        *(("front end", check) for check in parts.front_end),
        ("pre-hooks", parts.pre_hooks),
        ("approval", parts.approval),
        ("post-hooks", parts.post_hooks),
        ("watch", parts.watch),
        ("edit checks", parts.edit_checks),
    ]
    return tuple(Step(name=name, run=run) for name, run in chosen if run is not None)


async def prepare(
    registry: ToolRegistry, tool: str, arguments: Any, workspace: Workspace
) -> Invocation | ToolResult:
    """A call in ``workspace`` made ready (validated, assessed, planned) and stopped before
    anything else: what approval would see (``foehn explain``), or why it could not get there."""
    seen: list[Invocation] = []
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace))

    async def stop(invocation: Invocation, next_step: Handler) -> ToolResult:
        seen.append(invocation)
        return ToolResult.success("prepared")

    result = await registry.call(
        tool, arguments, ctx, call_id="explain", steps=steps(Parts(approval=stop))
    )
    return seen[0] if seen else result
