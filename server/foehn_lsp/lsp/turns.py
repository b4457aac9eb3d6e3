"""One turn for the editor: ``foehn.run`` and ``foehn.session.prompt`` build the session with
the editor as approver, applier and buffer source, report progress (cancellable) and
``foehn/runEvent`` notifications, and answer with the outcome. The turn is registered in
``server.running`` while it lasts, so every way of cancelling reaches it."""

from __future__ import annotations

import asyncio
import logging
import uuid
from concurrent.futures import Future
from typing import Any

from lsprotocol import types

from foehn_lsp.agent import TurnOutcome
from foehn_lsp.agent.editor_context import editor_context
from foehn_lsp.errors import CommandError, FoehnError, error_kind
from foehn_lsp.events import TurnEvent, TurnStarted, event_json
from foehn_lsp.lsp import convert, trust
from foehn_lsp.lsp.arguments import RunArguments
from foehn_lsp.lsp.confirm import EditorApprover
from foehn_lsp.lsp.editor_checks import EditorDiagnostics, serves_diagnostics
from foehn_lsp.lsp.edits import EditorApplier, EditorBuffers
from foehn_lsp.lsp.language_tools import offered
from foehn_lsp.lsp.running import RunningTurn
from foehn_lsp.lsp.server import FoehnServer
from foehn_lsp.lsp.table import RUN_EVENT
from foehn_lsp.lsp.wire import client
from foehn_lsp.sessions.builder import FrontEnd, build_session
from foehn_lsp.sessions.commands import load_commands
from foehn_lsp.sessions.store import SessionNotFound
from foehn_lsp.slash import SESSION_COMMANDS
from foehn_lsp.workspace import FileAccess, Workspace

log = logging.getLogger(__name__)


async def start(server: FoehnServer, arguments: RunArguments, request_id: Any) -> dict[str, Any]:
    """Run one turn for ``foehn.run`` (or ``foehn.session.prompt``) and answer with its outcome."""
    turn = server.running.begin(arguments.run_id or uuid.uuid4().hex[:12], request_id)
    outcome: TurnOutcome | None = None
    try:
        outcome = await _turn(server, turn, arguments)
    finally:
        server.running.end(turn, request_id)
        _end_progress(server, turn, outcome.reason if outcome else "error")
    result = {
        "runId": turn.id,
        "answer": outcome.answer,
        "stopReason": outcome.reason,
        "iterations": outcome.iterations,
    }
    if outcome.error is not None:
        result["error"] = outcome.error
    if turn.session is not None:
        result |= {"session": turn.session, "sessionId": turn.session, "turn": turn.index}
    return result


async def _turn(server: FoehnServer, turn: RunningTurn, arguments: RunArguments) -> TurnOutcome:
    workspace = Workspace(server.workspace_roots())
    assert server.tools is not None
    await trust.tell_waiting(server, workspace.root)
    buffers = EditorBuffers(server)
    try:
        session = build_session(
            server.settings,
            workspace,
            FrontEnd(
                name="lsp",
                approver=EditorApprover(server, turn.id, lambda m: _report(server, turn, m)),
                applier=EditorApplier(server, workspace, buffers),
                buffers=buffers.text,
                problems=(
                    EditorDiagnostics(server, turn.id, workspace)
                    if serves_diagnostics(server)
                    else None
                ),
                # Started before the editor answered its settings: calls wait for them.
                pending_policy=None if server.settled else server.settled_policy,
            ),
            session_id=arguments.session,
            provider=server.provider(),
            tools=offered(server, server.tools, turn.id),
        )
    except SessionNotFound:
        raise
    except FoehnError as exc:
        # A client that shows run events shows this failure in its own words.
        if not server.init_options.get("runEvents"):
            server.window_show_message(convert.show(f"Foehn: {exc}", error=True))
        return TurnOutcome(reason="error", answer=str(exc), iterations=0, error=error_kind(exc))
    _begin_progress(server, turn, arguments.task)
    reader = FileAccess(workspace, buffers=buffers.text)
    context = "\n\n".join(
        part for part in (_context(arguments, workspace, reader), arguments.context) if part
    )

    def emit(event: TurnEvent) -> None:
        if isinstance(event, TurnStarted):
            turn.session, turn.index = event.session, event.turn
        server.protocol.notify(RUN_EVENT, {"runId": turn.id, **event_json(event)})
        if (message := convert.progress_message(event)) is not None:
            _report(server, turn, message)

    commands = await asyncio.to_thread(
        load_commands,
        workspace.root,
        trusted=server.settings.trust_workspace,
        built_in=SESSION_COMMANDS,
    )
    task = commands.expand(arguments.task)
    if task is None and server.tools.servers is not None:
        try:
            task = await server.tools.servers.expand(arguments.task)  # an MCP prompt's command
        except CommandError as exc:
            await session.aclose()
            if not server.init_options.get("runEvents"):
                server.window_show_message(convert.show(f"Foehn: {exc}", error=True))
            return TurnOutcome(reason="error", answer=str(exc), iterations=0, error=error_kind(exc))
    try:
        outcome = await session.prompt(
            task or arguments.task,
            context=context,
            emit=emit,
            stop=turn.stop,
            turn_id=turn.id,
            mode=arguments.mode,
        )
    finally:
        await session.aclose()  # the provider is the server's; this ends the session's watch
    summary = f"Foehn ({outcome.reason.replace('_', ' ')}): {outcome.answer}"
    server.window_log_message(convert.log(summary, error=outcome.reason == "error"))
    if not server.init_options.get("runEvents"):
        server.window_show_message(convert.show(summary, error=outcome.reason == "error"))
    return outcome


def _context(arguments: RunArguments, workspace: Workspace, files: FileAccess) -> str:
    if arguments.uri is None:
        return ""
    path = convert.path_of(arguments.uri)
    if path is None or not workspace.contains(path.resolve()):
        return ""
    try:
        text = files.read_text(path.resolve()).text
    except Exception:  # an unreadable file adds no context; the turn goes on
        log.info("no context from %s", arguments.uri, exc_info=True)
        return ""
    return editor_context(
        workspace.display(path.resolve()),
        text,
        lines=arguments.lines,
        diagnostic=arguments.diagnostic,
    )


def _begin_progress(server: FoehnServer, turn: RunningTurn, task: str) -> None:
    """Ask for a progress indicator without waiting for it: reports before the client
    agrees are dropped, and a client that never answers costs the turn nothing."""
    window = server.client_capabilities.window
    if not (window and window.work_done_progress):
        return
    token = f"foehn-{turn.id}"
    title = f"Foehn: {task.strip().splitlines()[0][:60]}"

    async def create() -> None:
        reply = await client.request(
            server.protocol,
            "window/workDoneProgress/create",
            types.WorkDoneProgressCreateParams(token=token),
            server.timeouts.progress,
        )
        if isinstance(reply, client.NoAnswer):
            log.info("no progress for turn %s: %s", turn.id, reply.reason)
            return
        cancelled: Future[Any] = Future()
        cancelled.add_done_callback(lambda f: turn.stop.set() if f.cancelled() else None)
        server.work_done_progress.tokens[token] = cancelled
        turn.token = token
        server.work_done_progress.begin(token, convert.begin(title))

    turn.progress = asyncio.ensure_future(create())


def _report(server: FoehnServer, turn: RunningTurn, message: str) -> None:
    if turn.token is not None:
        server.work_done_progress.report(turn.token, convert.report(message))


def _end_progress(server: FoehnServer, turn: RunningTurn, reason: str) -> None:
    """End the indicator (whatever ended the turn) and forget its token."""
    if turn.progress is not None:
        turn.progress.cancel()  # withdraws a creation the client has not answered
    if turn.token is not None:
        progress = server.work_done_progress
        progress.end(turn.token, convert.end(f"Finished: {reason.replace('_', ' ')}"))
        progress.tokens.pop(turn.token, None)
