"""MCP as a tool source: the tools of the MCP servers a person configured become Foehn tools
under Foehn's safety model (``foehn mcp``, Foehn's own tools for MCP clients, is
``foehn_lsp.mcp_server``).

Nothing is imported here, so that loading the settings (``foehn_lsp.config.mcp``) does not load
the SDK; ``foehn_lsp.mcp.tools.add_servers`` is the way in.

    tools.py   servers' tools as Foehn tools, in the same registry as the built-in ones
    client.py  connections to the servers, on one background event loop
    stdio.py   the stdio transport, each message capped
    http.py    the streamable-HTTP transport, each message capped
    cut.py     what stands in for a message over its cap
    risk.py    a server tool's risk, from its annotations read with distrust
    writes.py  what a server's file write would do, shown before it is approved
    egress.py  the network servers reach: the person's grant, as for programs
    naming.py  ``mcp__SERVER__TOOL``
    cache.py   the last lists of each server, for lazy servers
    oauth.py        signing in with OAuth 2.1: the SDK's flow with Foehn's rules
    tokens.py       a server's sign-in as kept (the SDK's token storage)
    stores.py       where kept secrets live: the OS keyring, or a file only the person reads
    consent.py      how a front end shows the sign-in page (``SignIn``); loads no SDK
    loopback.py     the listener the browser comes back to, on 127.0.0.1
    elicitation.py  a server's question, put to the person and answered
    prompts.py      servers' prompts as slash commands
    resources.py    a server's resources as one read-only tool
"""
