"""``foehn.run``, ``foehn.cancel`` and ``foehn.tools`` (their shapes: ``lsp.table``)."""

from __future__ import annotations

from typing import Any

from foehn_lsp.lsp.arguments import BadArguments, run_arguments
from foehn_lsp.lsp.server import FoehnServer


async def run(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    from foehn_lsp.lsp import turns

    arguments = run_arguments(args)
    ls.opened()
    request_id = ls.protocol.msg_id
    await ls.known()  # a run starts without waiting for the editor's settings
    return await turns.start(ls, arguments, request_id)


def cancel(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    if len(args) > 1 or (args and not isinstance(args[0], str)):
        raise BadArguments("foehn.cancel takes [] (every run) or [runId]")
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
