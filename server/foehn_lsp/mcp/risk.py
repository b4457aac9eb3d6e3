"""The risk of a server's tool, from its annotations, read with distrust.

MCP annotations are hints the server gives about itself, so only a hint that lowers the risk
in a way the spec defines counts, and a missing hint means the worst: ``readOnlyHint: true`` is
read-only; ``destructiveHint: false`` (without ``readOnlyHint``) is a write; anything else,
including no annotations at all, is destructive. A person can pin the risk for a whole server
or for one tool in the user config; the pin wins either way (up or down), because the person
decided it. ``openWorldHint`` does not change the risk; it decides whether each call is asked
about (``asks_each_call``): a tool that may reach outside is a way out for whatever the model
read, so unless the person allowed it in their config (``allow_open_world``) every call asks,
read-only or not.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_types import ToolAnnotations

from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.risk import RiskLevel

_PINNED = {
    "read_only": RiskLevel.READ_ONLY,
    "write": RiskLevel.WRITE,
    "destructive": RiskLevel.DESTRUCTIVE,
}


@dataclass(frozen=True, kw_only=True)
class AssessedRisk:
    risk: RiskLevel
    source: str
    """Where the risk came from, for ``foehn tools``: 'readOnlyHint', 'destructiveHint=false',
    'no annotations', 'config: tool', 'config: server'."""
    idempotent: bool
    """Safe to send again after a transient failure: read-only, or ``idempotentHint: true``."""
    open_world: bool
    """The tool may reach outside (the internet, other systems): ``openWorldHint`` not false."""
    asks_each_call: bool
    """Open-world and not allowed by the person's ``allow_open_world``: every call is asked."""


def assess(tool: str, annotations: ToolAnnotations | None, config: McpServerConfig) -> AssessedRisk:
    """The risk of ``tool`` of the server configured as ``config``."""
    hints = annotations or ToolAnnotations()
    if hints.read_only_hint is True:
        risk, source = RiskLevel.READ_ONLY, "readOnlyHint"
    elif hints.destructive_hint is False:
        risk, source = RiskLevel.WRITE, "destructiveHint=false"
    elif annotations is None:
        risk, source = RiskLevel.DESTRUCTIVE, "no annotations"
    else:
        risk, source = RiskLevel.DESTRUCTIVE, "annotations do not say it is safe"
    if tool in config.tools:
        risk, source = _PINNED[config.tools[tool]], "config: tool"
    elif config.risk is not None:
        risk, source = _PINNED[config.risk], "config: server"
    # The spec's default for openWorldHint is true: only an explicit false is closed.
    open_world = hints.open_world_hint is not False
    return AssessedRisk(
        risk=risk,
        source=source,
        idempotent=risk is RiskLevel.READ_ONLY or hints.idempotent_hint is True,
        open_world=open_world,
        asks_each_call=open_world and not config.allows_open_world(tool),
    )
