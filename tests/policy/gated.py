"""The chain's parts around an approval gate, as a toolbox makes them (without its checkpoints
and audit): the pre-tool hooks, the gate, the post-tool hooks."""

from __future__ import annotations

from foehn_lsp.agent.chain import Parts
from foehn_lsp.policy.approval import ApprovalGate
from foehn_lsp.policy.hook_steps import hooks_around


def gated(gate: ApprovalGate) -> Parts:
    pre_hooks, post_hooks = hooks_around(gate)
    return Parts(pre_hooks=pre_hooks, approval=gate, post_hooks=post_hooks)
