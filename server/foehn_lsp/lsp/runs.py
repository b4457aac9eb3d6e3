"""Active runs: one per ``foehn.run``, each with its id, stop event and progress token. All three
ways of cancelling (progress cancel, ``$/cancelRequest``, ``foehn.cancel``) set the same stop
event, and the run ends with ``cancelled``."""

from __future__ import annotations

import asyncio
import logging
import uuid
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from foehn_lsp.agent import RunEvent, RunOutcome
from foehn_lsp.agent.builder import FrontEnd, build_session
from foehn_lsp.agent.custom_commands import load_commands
from foehn_lsp.agent.events import TurnStarted, event_json
from foehn_lsp.agent.focus import editor_context
from foehn_lsp.agent.slash import SESSION_COMMANDS
from foehn_lsp.agent.store import SessionBusy, SessionNotFound
from foehn_lsp.errors import FoehnError
from foehn_lsp.lsp import client, convert
from foehn_lsp.lsp.arguments import RunArguments
from foehn_lsp.lsp.confirm import EditorApprover
from foehn_lsp.lsp.edits import EditorApplier, EditorBuffers
from foehn_lsp.workspace import FileAccess, Workspace

if TYPE_CHECKING:
    from foehn_lsp.lsp.server import FoehnServer

log = logging.getLogger(__name__)


@dataclass
class ActiveRun:
    id: str
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    token: str | None = None
    """The progress token, once the client has agreed to show it."""
    progress: asyncio.Future[None] | None = None
    session: str | None = None
    """The session the run is a turn of, and the turn's index, once it started."""
    turn: int | None = None


class RunManager:
    def __init__(self, server: FoehnServer) -> None:
        self.server = server
        self.active: dict[str, ActiveRun] = {}
        self.requests: dict[Any, str] = {}
        """Client request id -> run id, while the run is active."""

    def cancel(self, run_id: str | None = None) -> list[str]:
        """Stop one run, or all; returns the ids that were asked to stop."""
        chosen = [run_id] if run_id is not None else list(self.active)
        stopped = []
        for identifier in chosen:
            run = self.active.get(identifier)
            if run is not None and not run.stop.is_set():
                run.stop.set()
                stopped.append(identifier)
        return stopped

    def cancel_request(self, request_id: Any) -> None:
        """``$/cancelRequest`` for a ``foehn.run`` request stops its run."""
        run_id = self.requests.pop(request_id, None)
        if run_id is not None:
            self.cancel(run_id)

    async def start(self, arguments: RunArguments, request_id: Any) -> dict[str, Any]:
        run = ActiveRun(id=arguments.run_id or uuid.uuid4().hex[:12])
        if run.id in self.active:
            raise SessionBusy(f"a run with id {run.id!r} is already running")
        self.active[run.id] = run
        if request_id is not None:
            self.requests[request_id] = run.id
        outcome: RunOutcome | None = None
        try:
            outcome = await self._run(run, arguments)
        finally:
            self.active.pop(run.id, None)
            self.requests.pop(request_id, None)
            self._end_progress(run, outcome.reason if outcome else "error")
        result = {
            "runId": run.id,
            "answer": outcome.answer,
            "stopReason": outcome.reason,
            "iterations": outcome.iterations,
        }
        if run.session is not None:
            result |= {"session": run.session, "sessionId": run.session, "turn": run.turn}
        return result

    async def _run(self, run: ActiveRun, arguments: RunArguments) -> RunOutcome:
        server = self.server
        workspace = Workspace(server.workspace_roots())
        assert server.tools is not None
        buffers = EditorBuffers(server)
        try:
            session = build_session(
                server.settings,
                workspace,
                FrontEnd(
                    name="lsp",
                    approver=EditorApprover(server, run.id, lambda m: self._report(run, m)),
                    applier=EditorApplier(server, workspace, buffers),
                    buffers=buffers.text,
                ),
                session_id=arguments.session,
                provider=server.provider(),
                discovery=server.tools,
            )
        except SessionNotFound:
            raise
        except FoehnError as exc:
            server.window_show_message(convert.show(f"Foehn: {exc}", error=True))
            return RunOutcome(reason="error", answer=str(exc), iterations=0)
        self._begin_progress(run, arguments.task)
        reader = FileAccess(workspace, buffers=buffers.text)
        context = "\n\n".join(
            part
            for part in (self._context(arguments, workspace, reader), arguments.context)
            if part
        )

        def emit(event: RunEvent) -> None:
            if isinstance(event, TurnStarted):
                run.session, run.turn = event.session, event.turn
            server.protocol.notify("foehn/runEvent", {"runId": run.id, **event_json(event)})
            if (message := convert.progress_message(event)) is not None:
                self._report(run, message)

        commands = await asyncio.to_thread(
            load_commands,
            workspace.root,
            trusted=server.settings.trust_workspace,
            built_in=SESSION_COMMANDS,
        )
        task = commands.expand(arguments.task) or arguments.task
        try:
            outcome = await session.prompt(
                task,
                context=context,
                emit=emit,
                stop=run.stop,
                run_id=run.id,
                mode=arguments.mode,
            )
        finally:
            await session.aclose()  # the provider is the server's; this ends the session's watch
        summary = f"Foehn ({outcome.reason.replace('_', ' ')}): {outcome.answer}"
        server.window_log_message(convert.log(summary, error=outcome.reason == "error"))
        if not server.init_options.get("runEvents"):
            server.window_show_message(convert.show(summary, error=outcome.reason == "error"))
        return outcome

    def _context(self, arguments: RunArguments, workspace: Workspace, files: FileAccess) -> str:
        if arguments.uri is None:
            return ""
        path = convert.path_of(arguments.uri)
        if path is None or not workspace.contains(path.resolve()):
            return ""
        try:
            text = files.read_text(path.resolve()).text
        except Exception:  # an unreadable file adds no context; the run goes on
            log.info("no context from %s", arguments.uri, exc_info=True)
            return ""
        return editor_context(
            workspace.display(path.resolve()),
            text,
            lines=arguments.lines,
            diagnostic=arguments.diagnostic,
        )

    def _begin_progress(self, run: ActiveRun, task: str) -> None:
        """Ask for a progress indicator without waiting for it: reports before the client
        agrees are dropped, and a client that never answers costs the run nothing."""
        server = self.server
        window = server.client_capabilities.window
        if not (window and window.work_done_progress):
            return
        token = f"foehn-{run.id}"
        title = f"Foehn: {task.strip().splitlines()[0][:60]}"

        async def create() -> None:
            reply = await client.request(
                server.protocol,
                "window/workDoneProgress/create",
                types.WorkDoneProgressCreateParams(token=token),
                server.timeouts.progress,
            )
            if isinstance(reply, client.NoAnswer):
                log.info("no progress for run %s: %s", run.id, reply.reason)
                return
            cancelled: Future[Any] = Future()
            cancelled.add_done_callback(lambda f: run.stop.set() if f.cancelled() else None)
            server.work_done_progress.tokens[token] = cancelled
            run.token = token
            server.work_done_progress.begin(token, convert.begin(title))

        run.progress = asyncio.ensure_future(create())

    def _report(self, run: ActiveRun, message: str) -> None:
        if run.token is not None:
            self.server.work_done_progress.report(run.token, convert.report(message))

    def _end_progress(self, run: ActiveRun, reason: str) -> None:
        """End the indicator (whatever ended the run) and forget its token."""
        if run.progress is not None:
            run.progress.cancel()  # withdraws a creation the client has not answered
        if run.token is not None:
            progress = self.server.work_done_progress
            progress.end(run.token, convert.end(f"Finished: {reason.replace('_', ' ')}"))
            progress.tokens.pop(run.token, None)
