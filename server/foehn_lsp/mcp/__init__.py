"""MCP both ways. As a client (``tools``, ``client``): the tools of the MCP servers a person
configured become Foehn tools under Foehn's safety model. As a server (``server``): ``foehn
mcp`` offers Foehn's own confined tools to any MCP client.

Only the configuration models are imported here, so that loading the settings does not load
the SDK; ``foehn_lsp.mcp.tools.connect_servers`` is the way in for the client side."""

from foehn_lsp.mcp.config import McpServerConfig, McpSettings

__all__ = ["McpServerConfig", "McpSettings"]
