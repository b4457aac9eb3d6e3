"""``foehn acp``: the Agent Client Protocol front end (Zed, JetBrains, Neovim's CodeCompanion
and avante.nvim, Emacs's agent-shell) over the same sessions as every other front end.

    stdio.py        the process: stdin/stdout are the protocol, everything else goes to stderr
    agent.py        the ACP methods, one Foehn session per ACP session
    convert.py      ACP schema <-> Foehn's events, prompts, approvals and history (pure)
    updates.py      one session's session/update notifications, in order
    permissions.py  approvals as session/request_permission
    elicit.py       MCP servers' questions and sign-in pages through the client
    files.py        reads and writes through the client's fs/* methods, confined first
    trust.py        a trusted workspace's waiting files, approved through permission requests
"""
