"""``foehn mcp``: Foehn's own tools for any MCP client.

command.py the command: the workspace, the allowed risk, stdio or HTTP
server.py  the tools, one connection per client, and stdio
http.py    ``--http``: streamable HTTP behind a bearer token, Host/Origin checked
"""
