"""``foehn mcp``: Foehn's own tools for any MCP client, over stdio (``server``)."""
