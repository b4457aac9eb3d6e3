"""Signing in to the MCP servers Foehn uses, through the editor, with the tokens in its secret
storage.

Signing in: the page is shown by the editor. A client that says
``initializationOptions.mcpSignIn: true`` gets the request ``foehn/mcpSignIn``
``{server, url}`` and answers ``{opened: boolean}`` once it showed the page (VS Code:
``env.openExternal`` after the person agreed); other clients are asked with
``window/showMessageRequest`` ("Open the sign-in page") and then ``window/showDocument``
``{uri, external: true}``, or, without that, told the address in ``window/showMessage``. The
browser comes back to Foehn's loopback listener either way.

Tokens: a client that says ``initializationOptions.secretStorage: true`` keeps them (VS
Code's ``SecretStorage``) through the requests ``foehn/secretsGet`` ``{key}`` →
``{value: string | null}``, ``foehn/secretsStore`` ``{key, value}`` → ``{}`` and
``foehn/secretsDelete`` ``{key}`` → ``{}``; a client that does not answer them in time makes
the sign-in fail (nothing is kept elsewhere instead). Other clients: the OS keyring or the
state folder, as in the terminal.

The commands are ``lsp.mcp_servers``'s; this module is loaded when the server loads its tools.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from lsprotocol import types

from foehn_lsp.lsp import convert
from foehn_lsp.lsp.server import FoehnServer
from foehn_lsp.lsp.table import MCP_SIGN_IN, SECRETS_DELETE, SECRETS_GET, SECRETS_STORE
from foehn_lsp.lsp.wire import client
from foehn_lsp.mcp.consent import ConsentError, SignIn
from foehn_lsp.mcp.stores import SecretStore, StoreError, default_store

T = TypeVar("T")
SIGN_IN_HINT = 'use "Foehn: Sign in to an MCP server" ({server})'
OPEN_PAGE = "Open the sign-in page"


def editor_sign_in(server: FoehnServer) -> SignIn:
    """How the person signs in from this editor, and where the tokens go."""
    store: SecretStore = (
        EditorSecrets(server) if server.init_options.get("secretStorage") else default_store()
    )
    asks = bool(server.init_options.get("mcpSignIn"))
    return SignIn(
        store=store,
        show=lambda name, url: _on_editor(server, _show(server, name, url)),
        hint=SIGN_IN_HINT if asks else SignIn.hint,
    )


async def _on_editor(server: FoehnServer, work: Coroutine[Any, Any, T]) -> T:
    """``work`` run on the language server's loop (the MCP servers live on a loop of their
    own, in another thread)."""
    loop = server.main_loop
    if loop is None:
        work.close()
        raise ConsentError("the editor is not connected yet")
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, loop))


async def _show(server: FoehnServer, name: str, url: str) -> None:
    within = server.timeouts.confirm
    if server.init_options.get("mcpSignIn"):
        reply = await client.request(
            server.protocol, MCP_SIGN_IN, {"server": name, "url": url}, within
        )
        opened = isinstance(reply, client.Answer) and isinstance(reply.value, dict)
        if not opened or reply.value.get("opened") is not True:  # type: ignore[union-attr]
            raise ConsentError("the sign-in page was not opened in the editor")
        return
    question = types.ShowMessageRequestParams(
        type=types.MessageType.Info,
        message=f"The MCP server {name!r} asks you to sign in.",
        actions=[types.MessageActionItem(title=OPEN_PAGE)],
    )
    reply = await client.request(server.protocol, "window/showMessageRequest", question, within)
    chosen = reply.value if isinstance(reply, client.Answer) else None
    title = chosen.get("title") if isinstance(chosen, dict) else getattr(chosen, "title", None)
    if title != OPEN_PAGE:
        raise ConsentError("the sign-in page was not opened (the editor's answer was no)")
    window = server.client_capabilities.window
    if window is not None and window.show_document is not None and window.show_document.support:
        shown = await client.request(
            server.protocol,
            "window/showDocument",
            types.ShowDocumentParams(uri=url, external=True),
            within,
        )
        if isinstance(shown, client.Answer):
            return
    server.window_show_message(
        convert.show(f"Foehn: sign in to the MCP server {name!r} at {url}", error=False)
    )


class EditorSecrets:
    """A ``SecretStore`` in the editor's secret storage (``foehn/secrets*``)."""

    description = "the editor's secret storage"

    def __init__(self, server: FoehnServer) -> None:
        self.server = server

    async def _ask(self, method: str, params: dict[str, str]) -> Any:
        reply = await _on_editor(
            self.server,
            client.request(self.server.protocol, method, params, self.server.timeouts.confirm),
        )
        if not isinstance(reply, client.Answer):
            raise StoreError(f"the editor's secret storage did not answer {method}: {reply.reason}")
        return reply.value

    async def get(self, key: str) -> str | None:
        value = await self._ask(SECRETS_GET, {"key": key})
        found = value.get("value") if isinstance(value, dict) else None
        return found if isinstance(found, str) else None

    async def put(self, key: str, value: str) -> None:
        await self._ask(SECRETS_STORE, {"key": key, "value": value})

    async def delete(self, key: str) -> None:
        await self._ask(SECRETS_DELETE, {"key": key})
