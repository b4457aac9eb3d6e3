"""The MCP servers Foehn uses, from the editor: ``foehn.mcp.list``, ``foehn.mcp.signIn [name]``
(signs in again, the page shown through the editor, and starts the server) and
``foehn.mcp.signOut [name]`` (``lsp.table``). Signing in itself is ``lsp.mcp_sign_in``'s; nothing
of MCP is loaded here before a command runs."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from foehn_lsp.lsp.arguments import BadArguments
from foehn_lsp.lsp.server import FoehnServer

if TYPE_CHECKING:
    from foehn_lsp.mcp.tools import McpCatalogue


def _catalogue(ls: FoehnServer) -> McpCatalogue | None:
    servers = ls.tools.servers if ls.tools is not None else None
    return cast("McpCatalogue | None", servers)


def _named(ls: FoehnServer, args: tuple[Any, ...], command: str) -> tuple[McpCatalogue, str]:
    catalogue = _catalogue(ls)
    known = list(catalogue.configs) if catalogue is not None else []
    if catalogue is None or len(args) != 1 or args[0] not in known:
        raise BadArguments(
            f"{command} takes [name], one of the MCP servers: {', '.join(known) or 'none'}"
        )
    return catalogue, args[0]


async def list_servers(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    await ls.ready()
    catalogue = _catalogue(ls)
    if catalogue is None:
        return {"servers": []}
    listed = []
    for status in await asyncio.to_thread(catalogue.statuses):
        kept = await asyncio.to_thread(catalogue.hub.signed_in, status.name)
        listed.append(
            {
                "name": status.name,
                "transport": status.transport,
                "state": status.state,
                "error": status.error,
                "signsIn": kept is not None,
                "signedIn": bool(kept and kept.tokens),
                "expiresAt": kept.expires_at if kept else None,
            }
        )
    return {"servers": listed}


async def sign_in(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    await ls.ready()
    catalogue, name = _named(ls, args, "foehn.mcp.signIn")
    return {"message": await asyncio.to_thread(catalogue.login, name)}


async def sign_out(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    await ls.ready()
    catalogue, name = _named(ls, args, "foehn.mcp.signOut")
    return {"forgotten": await asyncio.to_thread(catalogue.logout, name)}
