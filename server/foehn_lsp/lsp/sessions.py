"""Session commands: start, prompt, list, load, rename, undo, compact and delete saved sessions
(their shapes: ``lsp.table``).

A prompt is a turn run like ``foehn.run`` (progress, ``foehn/runEvent`` with the client's
``runId``, confirmations, cancellation) in the saved session; ``foehn.run`` with ``session``
does the same. Undo goes through the editor as one workspace edit, from a session opened with
no model and no tools (``sessions.builder.open_saved``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from foehn_lsp.errors import FoehnError
from foehn_lsp.lsp.arguments import BadArguments, run_arguments
from foehn_lsp.lsp.server import FoehnServer

if TYPE_CHECKING:
    from foehn_lsp.sessions.builder import FrontEnd
    from foehn_lsp.sessions.session import Session
    from foehn_lsp.sessions.store import SessionStore
    from foehn_lsp.workspace import Workspace


def _arguments(args: Sequence[Any], command: str) -> tuple[str, dict[str, Any]]:
    """The session id and the other arguments, from ``[id, …]`` or ``[{sessionId, …}]``."""
    if args and isinstance(args[0], str) and args[0]:
        return args[0], {"_rest": list(args[1:])}
    if len(args) == 1 and isinstance(args[0], Mapping):
        value = dict(args[0])
        session = value.pop("sessionId", None) or value.pop("session", None)
        if isinstance(session, str) and session:
            return session, value
    raise BadArguments(f"{command} takes [sessionId] or [{{sessionId, ...}}]")


def _store(ls: FoehnServer) -> SessionStore:
    from foehn_lsp.sessions.store import SessionStore

    return SessionStore(ls.opened().root)


def _front(ls: FoehnServer, workspace: Workspace) -> FrontEnd:
    """The editor as applier (for undo) and nobody to approve anything."""
    from foehn_lsp.lsp.edits import EditorApplier, EditorBuffers
    from foehn_lsp.policy.approval import Denied, FixedApprover
    from foehn_lsp.sessions.builder import FrontEnd

    buffers = EditorBuffers(ls)
    return FrontEnd(
        name="lsp",
        approver=FixedApprover(Denied(reason="no turn is running")),
        applier=EditorApplier(ls, workspace, buffers),
        buffers=buffers.text,
    )


def _session(ls: FoehnServer, session_id: str, workspace: Workspace) -> Session:
    """The saved session with the server's model (to compact it)."""
    from foehn_lsp.providers.nomodel import NoModel
    from foehn_lsp.sessions.builder import build_session

    try:
        provider = ls.provider()
    except FoehnError as exc:
        provider = NoModel(str(exc))
    return build_session(
        ls.settings,
        workspace,
        _front(ls, workspace),
        session_id=session_id,
        provider=provider,
        tools=ls.tools,
    )


async def new(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    store = _store(ls)
    title = ""
    if args and isinstance(args[0], Mapping) and isinstance(args[0].get("title"), str):
        title = args[0]["title"]
    data = store.create(title=title)
    return {"sessionId": data.id, "title": data.title}


async def prompt(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    from foehn_lsp.lsp import turns

    if len(args) != 1 or not isinstance(args[0], Mapping):
        raise BadArguments(
            "foehn.session.prompt takes [{sessionId, task, context?, runId?, uri?, range?}]"
        )
    session_id, value = _arguments(args, "foehn.session.prompt")
    arguments = run_arguments([{**value, "session": session_id}])
    ls.opened()
    request_id = ls.protocol.msg_id
    await ls.known()  # a run starts without waiting for the editor's settings
    return await turns.start(ls, arguments, request_id)


async def list_sessions(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    store = _store(ls)
    sessions = store.list()
    return {
        "sessions": [summary.json() for summary in sessions],
        "problems": store.problems,
    }


async def load(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    session_id, _ = _arguments(args, "foehn.session.load")
    await ls.ready()
    session = _session(ls, session_id, ls.opened())
    meter = session.meter()
    return {
        "id": session.id,
        "sessionId": session.id,
        "title": session.title,
        "created": session.created,
        "turns": [turn.json() for turn in session.turns],
        "messages": [m.model_dump(mode="json") for m in session.messages],
        "meter": {"used": meter.used, "window": meter.window, "cost": meter.cost},
        "problems": list(session.problems),
    }


async def rename(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    session_id, value = _arguments(args, "foehn.session.rename")
    title = value.get("title", (value.get("_rest") or [None])[0])
    if not isinstance(title, str) or not title.strip():
        raise BadArguments("foehn.session.rename needs a non-empty title")
    _store(ls).rename(session_id, title)
    return {"sessionId": session_id, "title": title.strip()}


async def undo(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    session_id, value = _arguments(args, "foehn.session.undo")
    to_turn, force, redo = value.get("toTurn"), value.get("force", False), value.get("redo", False)
    paths = value.get("paths", [])
    if (
        (to_turn is not None and not isinstance(to_turn, int))
        or not isinstance(force, bool)
        or not isinstance(redo, bool)
        or not isinstance(paths, list)
        or not all(isinstance(p, str) and p for p in paths)
        or (redo and (to_turn is not None or paths))
    ):
        raise BadArguments(
            "foehn.session.undo takes [{sessionId, toTurn?, paths?, force?}] or [{sessionId, "
            "redo: true, force?}]"
        )
    from foehn_lsp.sessions.builder import open_saved

    await ls.ready()  # the person's settings: what the records are scrubbed of
    workspace = ls.opened()
    session = open_saved(ls.settings, workspace, _front(ls, workspace), session_id)
    if redo:
        report = await session.redo(force=force)
    else:
        report = await session.undo(to_turn=to_turn, paths=paths, force=force)
    return report.json() | {"sessionId": session_id}


async def compact(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    session_id, _ = _arguments(args, "foehn.session.compact")
    await ls.ready()
    session = _session(ls, session_id, ls.opened())
    meter = await session.compact()
    result = session.compacted
    return {
        "compacted": result is not None,
        "note": result.note if result else "",
        "used": meter.used,
        "window": meter.window,
        "cost": meter.cost,
    }


async def delete(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    session_id, _ = _arguments(args, "foehn.session.delete")
    _store(ls).delete(session_id)
    return {"deleted": session_id}
