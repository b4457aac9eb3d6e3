"""MCP as a tool source: the tools of the MCP servers a person configured become Foehn tools
under Foehn's safety model (``foehn mcp``, Foehn's own tools for MCP clients, is
``foehn_lsp.mcp_server``).

Nothing is imported here, so that loading the settings (``foehn_lsp.config.mcp``) does not load
the SDK; ``foehn_lsp.mcp.tools.add_servers`` is the way in."""
