"""``foehn.run``, ``foehn.cancel`` and ``foehn.tools``. Palette calls send ``arguments: []``,
so every command takes ``*args``."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from foehn_lsp.errors import FoehnError
from foehn_lsp.lsp.arguments import BadArguments, run_arguments
from foehn_lsp.lsp.server import FoehnServer

REQUEST_FAILED = -32803
"""LSP 3.17's RequestFailed: the request was well formed but cannot be served."""


async def run(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    from foehn_lsp.lsp import turns

    try:
        arguments = run_arguments(args)
    except BadArguments as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    if not ls.workspace_roots():
        raise JsonRpcException(
            code=REQUEST_FAILED, message="Foehn needs a workspace folder: open a folder first"
        )
    request_id = ls.protocol.msg_id
    await ls.known()  # a run starts without waiting for the editor's settings
    try:
        return await turns.start(ls, arguments, request_id)
    except FoehnError as exc:  # a busy session, an unknown session id
        raise JsonRpcException(code=REQUEST_FAILED, message=str(exc)) from None


def cancel(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    if len(args) > 1 or (args and not isinstance(args[0], str)):
        raise JsonRpcInvalidParams("foehn.cancel takes [] (every run) or [runId]")
    return {"cancelled": ls.running.cancel(args[0] if args else None)}


async def tools(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    from foehn_lsp.lsp.language_tools import offered
    from foehn_lsp.sessions.audit import audit_path
    from foehn_lsp.sessions.builder import catalogue_json

    await ls.ready()
    assert ls.tools is not None
    return {
        # The editor's language tools too, where the client serves them (listed, never called).
        **catalogue_json(offered(ls, ls.tools, run_id="")),
        "auditLog": str(audit_path(roots[0])) if (roots := ls.workspace_roots()) else None,
    }
