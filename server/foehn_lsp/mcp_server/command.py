"""``foehn mcp``'s command: the workspace and the risk the person allowed, then stdio
(``mcp_server.server``) or streamable HTTP (``mcp_server.http``)."""

from __future__ import annotations

import sys
from pathlib import Path

from foehn_lsp.config import load_settings
from foehn_lsp.mcp_server.server import serve
from foehn_lsp.risk import RiskLevel


def main(
    *,
    workspace: str | None,
    allow_writes: bool,
    allow_destructive: bool,
    http: str | None = None,
    token_file: str | None = None,
    stateless: bool = False,
) -> int:
    """``foehn mcp``: exit code 0 when the client hangs up (stdio) or the server is stopped
    (HTTP), 2 for a workspace that is not a folder or an address or token file that will not
    do (told on stderr: stdout belongs to the protocol)."""
    root = Path(workspace or ".").resolve()
    if not root.is_dir():
        print(f"foehn mcp: workspace {workspace!r} is not a folder", file=sys.stderr)
        return 2
    allowed = (
        RiskLevel.DESTRUCTIVE
        if allow_destructive
        else RiskLevel.WRITE
        if allow_writes
        else RiskLevel.READ_ONLY
    )
    if http is None:
        serve(load_settings(), root, allowed=allowed)
        return 0
    from foehn_lsp.mcp_server.http import serve_http  # uvicorn and starlette only for HTTP

    return serve_http(
        load_settings(),
        root,
        allowed=allowed,
        address=http,
        token_file=token_file,
        stateless=stateless,
    )
