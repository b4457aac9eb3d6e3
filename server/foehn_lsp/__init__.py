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

from foehn_lsp.risk import RiskLevel
from foehn_lsp.tools.contract import Tool, ToolContext, ToolResult
from foehn_lsp.tools.decorator import tool

__version__ = "0.1.0"

__all__ = ["RiskLevel", "Tool", "ToolContext", "ToolResult", "__version__", "tool"]
