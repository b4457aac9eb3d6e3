"""The tool contract, validation, the registry, plugin discovery and edit plans."""

from foehn_lsp.tools.contract import CallScope, Tool, ToolContext, ToolResult
from foehn_lsp.tools.decorator import tool
from foehn_lsp.tools.discovery import LoadedTools, PluginProblem, discover
from foehn_lsp.tools.registry import Invocation, Middleware, ToolRegistry

__all__ = [
    "CallScope",
    "Invocation",
    "LoadedTools",
    "Middleware",
    "PluginProblem",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "ToolResult",
    "discover",
    "tool",
]
