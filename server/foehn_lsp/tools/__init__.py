"""The tool contract and the tool's own steps of a call.

contract.py    what a tool is and does (kind, changes files, paths a call names)
decorator.py   ``@tool``: a typed async function becomes a ``Tool``
validation.py  arguments validated with messages a model can act on
registry.py    the tools that exist; validate, assess, plan and execute
plans.py       edits planned once, applied as approved
discovery.py   plugins from entry points and plugin folders
tasks.py       a session's task list (the ``todo`` tool)
elicitation.py an MCP server's question to the person during a call, as every front end asks it
"""

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
