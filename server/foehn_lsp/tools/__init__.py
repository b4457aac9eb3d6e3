"""The tool contract, validation, the registry and plugin discovery."""

from foehn_lsp.tools.contract import (
    CallScope,
    RiskLevel,
    SandboxPolicy,
    Tool,
    ToolContext,
    ToolResult,
)
from foehn_lsp.tools.decorator import tool
from foehn_lsp.tools.discovery import Discovery, PluginProblem, discover
from foehn_lsp.tools.registry import Invocation, Middleware, ToolDefinition, ToolRegistry

__all__ = [
    "CallScope",
    "Discovery",
    "Invocation",
    "Middleware",
    "PluginProblem",
    "RiskLevel",
    "SandboxPolicy",
    "Tool",
    "ToolContext",
    "ToolDefinition",
    "ToolRegistry",
    "ToolResult",
    "discover",
    "tool",
]
