"""Foehn: a language server that runs a tool-using LLM agent in the editor.

This module is the plugin author's API; everything else is internal. A plugin is a callable,
named by an entry point in the group ``foehn_lsp.plugins`` (or a ``tools()`` function in a
plugin file), that returns tools::

    from typing import Annotated
    from pydantic import Field
    from foehn_lsp import RiskLevel, tool

    @tool(risk=RiskLevel.READ_ONLY)
    async def shout(text: Annotated[str, Field(description="Text to shout.")]) -> str:
        \"\"\"Return the text in upper case.\"\"\"
        return text.upper()

    def tools():
        return [shout]
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from foehn_lsp.risk import RiskLevel
    from foehn_lsp.tools.contract import Tool, ToolContext, ToolResult
    from foehn_lsp.tools.decorator import tool

__version__ = "0.1.0"

__all__ = ["RiskLevel", "Tool", "ToolContext", "ToolResult", "__version__", "tool"]

_API = {
    "RiskLevel": "foehn_lsp.risk",
    "Tool": "foehn_lsp.tools.contract",
    "ToolContext": "foehn_lsp.tools.contract",
    "ToolResult": "foehn_lsp.tools.contract",
    "tool": "foehn_lsp.tools.decorator",
}
"""Where each name of the plugin API lives. They are loaded on first use (PEP 562), so that the
language server's start-up does not pay for the tool contract (pydantic, the sandbox)."""


def __getattr__(name: str) -> object:
    if name not in _API:
        raise AttributeError(f"module 'foehn_lsp' has no attribute {name!r}")
    value = getattr(importlib.import_module(_API[name]), name)
    globals()[name] = value  # later look-ups find it without coming here
    return value
