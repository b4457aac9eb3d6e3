"""Session commands: start, prompt, list, load, rename, undo, compact and delete saved sessions.

    foehn.session.new      [{title?}]                               -> {sessionId, title}
    foehn.session.prompt   [{sessionId, task, context?, runId?, uri?, range?, mode?}]
                           -> {runId, answer, stopReason, iterations, sessionId, turn}
    foehn.session.list     []                                       -> {sessions, problems}
    foehn.session.load     [sessionId] or [{sessionId}]             -> {id, title, turns, messages}
                           (also registered as foehn.session.show)
    foehn.session.rename   [sessionId, title] or [{sessionId, title}]
    foehn.session.undo     [{sessionId, toTurn?, paths?, force?, redo?}] -> the RestoreReport
                           (no toTurn: one turn further back each time; paths: only those
                           files, the editor's per-file undo; redo: the last undo taken back)
    foehn.session.compact  [sessionId] or [{sessionId}]   -> {compacted, note, used, window, cost}
    foehn.session.delete   [sessionId] or [{sessionId}]             -> {deleted}

A prompt is a turn run like ``foehn.run`` (progress, ``foehn/runEvent`` with the client's
``runId``, confirmations, cancellation) in the saved session; ``foehn.run`` with ``session``
does the same. Objects may name the session ``session`` instead of ``sessionId``. Undo goes
through the editor as one workspace edit. Errors the person should read (no such session, a
busy session) come back as RequestFailed with the message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from foehn_lsp.errors import FoehnError
from foehn_lsp.lsp.arguments import BadArguments, run_arguments
from foehn_lsp.lsp.server import FoehnServer

if TYPE_CHECKING:
    from foehn_lsp.sessions.session import Session
    from foehn_lsp.sessions.store import SessionStore
    from foehn_lsp.workspace import Workspace

REQUEST_FAILED = -32803


def _failed(exc: Exception) -> JsonRpcException:
    return JsonRpcException(code=REQUEST_FAILED, message=str(exc))


def _workspace(ls: FoehnServer) -> Workspace:
    from foehn_lsp.workspace import Workspace

    roots = ls.workspace_roots()
    if not roots:
        raise _failed(FoehnError("Foehn needs a workspace folder: open a folder first"))
    return Workspace(roots)


def _arguments(args: Sequence[Any], command: str) -> tuple[str, dict[str, Any]]:
    """The session id and the other arguments, from ``[id, …]`` or ``[{sessionId, …}]``."""
    if args and isinstance(args[0], str) and args[0]:
        return args[0], {"_rest": list(args[1:])}
    if len(args) == 1 and isinstance(args[0], Mapping):
        value = dict(args[0])
        session = value.pop("sessionId", None) or value.pop("session", None)
        if isinstance(session, str) and session:
            return session, value
    raise JsonRpcInvalidParams(f"{command} takes [sessionId] or [{{sessionId, ...}}]")


def _store(ls: FoehnServer) -> SessionStore:
    from foehn_lsp.sessions.store import SessionStore

    return SessionStore(_workspace(ls).root)


def _session(ls: FoehnServer, session_id: str, workspace: Workspace) -> Session:
    """The saved session, with the editor as applier (for undo) and no approvals."""
    from foehn_lsp.lsp.edits import EditorApplier, EditorBuffers
    from foehn_lsp.policy.approval import Denied, FixedApprover
    from foehn_lsp.sessions.builder import FrontEnd, NoModel, build_session

    try:
        provider = ls.provider()
    except FoehnError as exc:
        provider = NoModel(str(exc))
    buffers = EditorBuffers(ls)
    front = FrontEnd(
        name="lsp",
        approver=FixedApprover(Denied(reason="no turn is running")),
        applier=EditorApplier(ls, workspace, buffers),
        buffers=buffers.text,
    )
    try:
        return build_session(
            ls.settings,
            workspace,
            front,
            session_id=session_id,
            provider=provider,
            tools=ls.tools,
        )
    except FoehnError as exc:
        raise _failed(exc) from None


async def new(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    from foehn_lsp.sessions.store import new_id

    store = _store(ls)
    title = ""
    if args and isinstance(args[0], Mapping) and isinstance(args[0].get("title"), str):
        title = args[0]["title"]
    data = store.create(new_id(), title=title)
    return {"sessionId": data.id, "title": data.title}


async def prompt(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    from foehn_lsp.lsp import turns

    if len(args) != 1 or not isinstance(args[0], Mapping):
        raise JsonRpcInvalidParams(
            "foehn.session.prompt takes [{sessionId, task, context?, runId?, uri?, range?}]"
        )
    session_id, value = _arguments(args, "foehn.session.prompt")
    try:
        arguments = run_arguments([{**value, "session": session_id}])
    except BadArguments as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    _workspace(ls)
    request_id = ls.protocol.msg_id
    await ls.known()  # a run starts without waiting for the editor's settings
    try:
        return await turns.start(ls, arguments, request_id)
    except FoehnError as exc:
        raise _failed(exc) from None


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
    session = _session(ls, session_id, _workspace(ls))
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
        raise JsonRpcInvalidParams("foehn.session.rename needs a non-empty title")
    try:
        _store(ls).rename(session_id, title)
    except FoehnError as exc:
        raise _failed(exc) from None
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
        raise JsonRpcInvalidParams(
            "foehn.session.undo takes [{sessionId, toTurn?, paths?, force?}] or [{sessionId, "
            "redo: true, force?}]"
        )
    await ls.ready()
    session = _session(ls, session_id, _workspace(ls))
    try:
        if redo:
            report = await session.redo(force=force)
        else:
            report = await session.undo(to_turn=to_turn, paths=paths, force=force)
    except FoehnError as exc:
        raise _failed(exc) from None
    return report.json() | {"sessionId": session_id}


async def compact(ls: FoehnServer, *args: Any) -> dict[str, Any]:
    session_id, _ = _arguments(args, "foehn.session.compact")
    await ls.ready()
    session = _session(ls, session_id, _workspace(ls))
    try:
        meter = await session.compact()
    except FoehnError as exc:
        raise _failed(exc) from None
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
    try:
        _store(ls).delete(session_id)
    except FoehnError as exc:
        raise _failed(exc) from None
    return {"deleted": session_id}


COMMANDS: dict[str, Callable[..., Any]] = {
    "foehn.session.new": new,
    "foehn.session.prompt": prompt,
    "foehn.session.list": list_sessions,
    "foehn.session.load": load,
    "foehn.session.show": load,
    "foehn.session.rename": rename,
    "foehn.session.undo": undo,
    "foehn.session.compact": compact,
    "foehn.session.delete": delete,
}


def register(server: FoehnServer) -> None:
    for name, handler in COMMANDS.items():
        server.command(name)(handler)
