"""A session: a conversation in one workspace, run a turn at a time.

    session.prompt(text, context=…, emit=…)  →  turn · text · tool_call · … · files_changed · done

A turn has a run's limits, stop reasons, approvals and events; the session owns the messages and
hands them to the agent as history, so nothing about the conversation hides in the loop. Every
turn is appended to the session file as it happens and closed by a ``turn`` record; a crash
loses at most the turn that was running. Each turn's checkpoint records the files it changed, so
``undo`` can put them back, one turn further back each time; an undo is itself a turn, which
``redo`` takes back (``sessions.history``). A turn's calls run through the session's toolbox
(``sessions.toolbox``), whether the model made them (``prompt``) or someone outside did
(``calls_from``: an MCP client). Build sessions with
``foehn_lsp.sessions.builder.build_session``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from foehn_lsp.agent.context import Compaction, ContextMeter, ContextWindow
from foehn_lsp.agent.loop import Agent, TurnOutcome, TurnRequest
from foehn_lsp.agent.plan_mode import TurnMode
from foehn_lsp.agent.reads import replay_reads
from foehn_lsp.agent.repomap import map_budget, repo_map
from foehn_lsp.config import ApprovalSettings, Settings
from foehn_lsp.events import (
    ChangedFile,
    Done,
    EventSink,
    FilesChanged,
    TodoEvent,
    TurnEvent,
    TurnStarted,
)
from foehn_lsp.policy.guards import session_started, turn_ended
from foehn_lsp.policy.plans import PlanReviewer
from foehn_lsp.providers import Provider
from foehn_lsp.providers.messages import Message, ToolCall, ToolResultMessage
from foehn_lsp.sessions.checkpoints import Checkpoint, listed, merge, plan_restore
from foehn_lsp.sessions.history import redo_target, redone, undo_target
from foehn_lsp.sessions.recorder import TurnRecorder
from foehn_lsp.sessions.store import (
    MESSAGES,
    FileState,
    SessionBusy,
    SessionData,
    SessionStore,
    TurnRecord,
    title_of,
)
from foehn_lsp.sessions.toolbox import Toolbox, ToolTurn
from foehn_lsp.sessions.transcript import Transcript
from foehn_lsp.tools.discovery import LoadedTools
from foehn_lsp.tools.tasks import TaskItem, TaskList
from foehn_lsp.workspace.edits import atomic_write
from foehn_lsp.workspace.files import ReadLedger
from foehn_lsp.workspace.watch import WatchKeeper

__all__ = ["RestoreReport", "Session", "SessionBusy"]


@dataclass(frozen=True, kw_only=True)
class RestoreReport:
    """What an undo did, or why it did nothing."""

    applied: bool
    undone: tuple[int, ...] = ()
    """The turns whose changes were put back."""
    turn: int | None = None
    """The undo's own turn (undo it to redo), when it changed files."""
    redone: tuple[int, ...] = ()
    """For a redo: the asked turns whose changes came back (``undone`` is the undo taken
    back)."""
    restored: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    """Files changed by someone else since; the undo refused (unless forced)."""
    unrestorable: tuple[str, ...] = ()
    """Files a program changed whose previous content Foehn never had."""
    reason: str = ""

    def json(self) -> dict[str, Any]:
        """As the language server returns it (``foehn.session.undo``)."""
        return {
            "applied": self.applied,
            "undone": list(self.undone),
            "turn": self.turn,
            "redone": list(self.redone),
            "restored": list(self.restored),
            "conflicts": list(self.conflicts),
            "unrestorable": list(self.unrestorable),
            "reason": self.reason,
        }


@dataclass(frozen=True, kw_only=True)
class SessionParts:
    """What the builder assembled for a session (see ``sessions.builder``)."""

    toolbox: Toolbox
    """What the turns' tool calls go through."""
    provider: Provider
    transcript: Path | None = None
    """A file that gets every record too (``--transcript``)."""
    owns_provider: bool = True


class Session:
    """One conversation in one workspace. Not safe for two turns at once: a second ``prompt``
    (or ``undo``) while one runs raises ``SessionBusy``, here or from another process."""

    def __init__(self, *, data: SessionData, store: SessionStore, parts: SessionParts) -> None:
        self.id = data.id
        """The session's id (file name in the store)."""
        self.title = data.title
        self.workspace = parts.toolbox.workspace
        self.created = data.created
        self.problems: tuple[str, ...] = tuple(data.problems)
        """Damaged records skipped when the session was loaded."""
        self.store = store
        self.parts = parts
        self._messages: tuple[Message, ...] = tuple(data.messages)
        self._todo: tuple[TaskItem, ...] = tuple(data.todo)
        self._turns: list[TurnRecord] = list(data.turns)
        self._running = False
        self.context = ContextWindow(
            provider=parts.provider,
            window=parts.toolbox.settings.context_window,
            paths_of=parts.toolbox.tools.registry.paths_of,
            input_tokens=data.input_tokens,
            output_tokens=data.output_tokens,
        )
        self.context.used = self.context.count(self._messages) if self._messages else 0
        self._extra: Transcript | None = None
        self._watches = WatchKeeper()
        self.compacted: Compaction | None = None
        """What the last ``compact`` did (``None``: nothing, or not asked yet)."""
        self._hook_notes: list[str] | None = None
        """Notes of session-start and turn-end hooks for the next turn (``None``: the
        session-start hooks have not run yet)."""

    @property
    def messages(self) -> tuple[Message, ...]:
        """The whole conversation so far (system message first)."""
        return self._messages

    @property
    def todo(self) -> tuple[TaskItem, ...]:
        """The task list as the last turn left it (saved with each turn)."""
        return self._todo

    @property
    def turns(self) -> tuple[TurnRecord, ...]:
        """Every finished turn, in order: task, outcome and the files it changed."""
        return tuple(self._turns)

    @property
    def settings(self) -> Settings:
        """The settings the session was built with."""
        return self.parts.toolbox.settings

    @property
    def provider(self) -> Provider:
        """The model the session's turns ask."""
        return self.parts.provider

    @property
    def tools(self) -> LoadedTools:
        """The tools, and the plugins that were skipped."""
        return self.parts.toolbox.tools

    @property
    def busy(self) -> bool:
        """A turn (or an undo) is running in this object."""
        return self._running

    def meter(self) -> ContextMeter:
        """The context used, the window, tokens spent and cost (where prices are known)."""
        return self.context.meter()

    def set_approval(self, approval: ApprovalSettings) -> None:
        """The approval policy of the next turns (ACP's modes); a running turn keeps the one
        it started with."""
        settings = self.settings.model_copy(update={"approval": approval})
        toolbox = dataclasses.replace(self.parts.toolbox, settings=settings)
        self.parts = dataclasses.replace(self.parts, toolbox=toolbox)

    def rename(self, title: str) -> None:
        """Give the session a title (saved at once)."""
        self.store.rename(self.id, title)
        self.title = title.strip()

    async def prompt(
        self,
        text: str,
        *,
        context: str = "",
        emit: EventSink,
        stop: asyncio.Event | None = None,
        turn_id: str | None = None,
        mode: TurnMode = "act",
    ) -> TurnOutcome:
        """Run one turn: ``text`` (and the editor's ``context``) after the history. ``emit``
        gets ``turn`` first and ``done`` last. ``mode="plan"`` plans first and carries the
        plan out once the person approves it. Raises ``SessionBusy`` if a turn is running."""
        with self._hold():
            return await self._turn(text, context, emit, stop, turn_id, mode)

    async def _turn(
        self,
        text: str,
        context: str,
        emit: EventSink,
        stop: asyncio.Event | None,
        turn_id: str | None,
        mode: TurnMode,
    ) -> TurnOutcome:
        parts = self.parts
        index = len(self._turns) + 1
        if self._hook_notes is None:
            guards = parts.toolbox.guards
            self._hook_notes = await session_started(guards, self.id, index, self.workspace)
        notes = [*self._pending_notes(), *self._hook_notes]
        self._hook_notes = []
        if (earlier_list := TaskList(self._todo)).unfinished:
            notes.append(earlier_list.note())
        if not self._turns and not self._messages:
            budget = map_budget(self.context.window)
            if workspace_map := await asyncio.to_thread(repo_map, self.workspace, budget):
                notes.append(workspace_map)
        context = "\n\n".join(p for p in [*notes, context] if p)
        task = text + (f"\n\n{context}" if context else "")
        turn = self._begin(task, text, emit, turn_id, model_turn=True)
        approver = parts.toolbox.approver
        agent = Agent(
            provider=parts.provider,
            settings=self.settings,
            transcript=turn.transcript,
            context=self.context,
            reviewer=approver if isinstance(approver, PlanReviewer) else None,
        )
        tasks = turn.tools.ctx.tasks
        if tasks is not None and tasks.unfinished:
            turn.record(TodoEvent(items=tasks.items))
        try:
            outcome = await agent.run_turn(
                TurnRequest(task=text, context=context, mode=mode),
                turn.tools.executor(turn.record, provider=parts.provider),
                turn.record,
                stop,
                history=self._messages,
                # What the person's "files changed" lists: caches a run wrote are no change an
                # answer may claim.
                changed=lambda: [
                    f.path for f in _changed(listed(turn.tools.changes(), self.workspace))
                ],
                earlier_changes=[f.path for t in self._turns for f in t.files if not f.folder],
            )
        except BaseException:
            outcome = TurnOutcome(
                reason="cancelled",
                answer="The turn was stopped.",
                iterations=0,
                messages=self._messages,
            )
            self._end(turn, text, outcome)
            raise
        self._end(turn, text, outcome)
        guards = parts.toolbox.guards
        self._hook_notes += await turn_ended(guards, self.id, turn.index, self.workspace, outcome)
        return outcome

    def calls_from(
        self, who: str, *, emit: EventSink, shown: ReadLedger | None = None
    ) -> CallsTurn:
        """Open a turn whose tool calls come from ``who``, outside (an MCP client), rather than
        from the model: they run through the same toolbox (approval, checkpoint, audit) and the
        turn is saved, to be undone like any other, when ``CallsTurn.end`` is called. No hooks
        of the session or turn run (there is no model to tell). ``shown``: what ``who`` was
        shown of files by earlier calls (a read in one turn lets an edit in the next). Raises
        ``SessionBusy`` if a turn is running."""
        task = f"tool calls from {who}"
        hold = contextlib.ExitStack()
        hold.enter_context(self._hold())
        try:
            turn = self._begin(task, task, emit, None, shown=shown)
        except BaseException:
            hold.close()
            raise
        return CallsTurn(self, turn, task, hold)

    def _begin(
        self,
        task: str,
        text: str,
        emit: EventSink,
        turn_id: str | None,
        *,
        model_turn: bool = False,
        shown: ReadLedger | None = None,
    ) -> _OpenTurn:
        """Start the next turn's records: ``task`` as the model reads it (with its context),
        ``text`` as the person wrote it (the session's title, if it has none). A model's turn
        (``model_turn``) gets what the model was shown of files before and the task list;
        another gets ``shown``."""
        index = len(self._turns) + 1
        recorder = self._recorder(index, task, turn_id, emit)
        earlier = {
            self.workspace.root / f.path
            for t in self._turns
            for f in t.files
            if f.after is not None and not f.folder
        }
        opened: list[_OpenTurn] = []
        tasks = TaskList(
            self._todo, on_change=lambda items: opened[0].record(TodoEvent(items=items))
        )
        tools = self.parts.toolbox.turn(
            self.store.blobs,
            session=self.id,
            index=index,
            audit=recorder.audit,
            watches=self._watches,
            held=earlier,
            shown=replay_reads(self._messages, self.workspace, self.tools.registry)
            if model_turn
            else shown,
            tasks=tasks if model_turn else None,
            window=self.context.window,
        )
        turn = _OpenTurn(session=self.id, recorder=recorder, tools=tools)
        opened.append(turn)
        if not self._turns and not self.title:
            self.rename(title_of(text))
        turn.record(TurnStarted(session=self.id, turn=index))
        self._watches.refresh()
        return turn

    def _end(self, turn: _OpenTurn, task: str, outcome: TurnOutcome) -> None:
        tasks = turn.tools.ctx.tasks
        self._close(
            turn.recorder,
            task,
            outcome,
            turn.files(),
            todo=tasks.items if tasks is not None else None,
        )

    def _close(
        self,
        recorder: TurnRecorder,
        task: str,
        outcome: TurnOutcome,
        files: tuple[FileState, ...],
        *,
        undo_of: tuple[int, ...] = (),
        paths: tuple[str, ...] = (),
        note: str = "",
        todo: tuple[TaskItem, ...] | None = None,
    ) -> None:
        """Save the turn (``task``: the person's words; the ``run`` record has them with the
        context), with the task list as the turn left it (``None``: unchanged)."""
        old, new = self._messages, outcome.messages or self._messages
        base = 0
        while base < min(len(old), len(new)) and old[base] == new[base]:
            base += 1
        record = TurnRecord(
            index=recorder.index,
            task=task,
            reason=outcome.reason,
            answer=outcome.answer,
            iterations=outcome.iterations,
            input_tokens=outcome.input_tokens,
            output_tokens=outcome.output_tokens,
            files=files,
            undo_of=undo_of,
            paths=paths,
            note=note,
            time=time.time(),
        )
        recorder.close(record, base=base, messages=new[base:], todo=todo)
        if todo is not None:
            self._todo = todo
        self._messages = tuple(new)
        self._turns.append(record)

    async def undo(
        self,
        *,
        to_turn: int | None = None,
        paths: Sequence[str] = (),
        force: bool = False,
    ) -> RestoreReport:
        """Put back every file the latest turn still in effect changed (each undo goes one
        turn further back; ``sessions.history``), or every turn from ``to_turn`` on, through
        the session's applier, as one edit; with ``paths``, only those files (the editor's
        per-file undo: their turns stay in effect for the rest). Refuses, listing them, if
        files were changed since by someone else, unless ``force``."""
        with self._hold():
            if to_turn is not None:
                if not 1 <= to_turn <= len(self._turns):
                    return RestoreReport(
                        applied=False,
                        reason=f"there is no turn {to_turn} (1-{len(self._turns)})",
                    )
                targets = [t for t in self._turns if t.files and t.index >= to_turn]
            else:
                target = undo_target(self._turns)
                targets = [target] if target is not None else []
            if not targets:
                undone_all = to_turn is None and any(t.files for t in self._turns)
                return RestoreReport(
                    applied=False,
                    reason="every turn that changed files is undone already; redo takes the "
                    "last undo back"
                    if undone_all
                    else "no turn changed any file; nothing to undo",
                )
            undone = tuple(t.index for t in targets)
            label = f"undo turn {undone[0]}" if len(undone) == 1 else f"undo turns {undone[0]}-"
            if len(undone) > 1:
                label += str(undone[-1])
            if paths:
                changed = {f.path for t in targets for f in t.files if not f.folder}
                if missing := [p for p in paths if p not in changed]:
                    return RestoreReport(
                        applied=False,
                        undone=undone,
                        reason=f"{label.removeprefix('undo ')} did not change "
                        + ", ".join(missing),
                    )
                label = f"undo {', '.join(paths)} of {label.removeprefix('undo ')}"
            return await self._restore(targets, label, force, redo=False, paths=tuple(paths))

    async def redo(self, *, force: bool = False) -> RestoreReport:
        """Take back the latest undo still in effect (``sessions.history``): its turns'
        changes come back. Refuses as ``undo`` does."""
        with self._hold():
            target = redo_target(self._turns)
            if target is None:
                return RestoreReport(applied=False, reason="no undo to redo")
            back = redone(target, self._turns)
            shown = ", ".join(str(t) for t in back) or str(target.index)
            label = f"redo turn{'s' if len(back) > 1 else ''} {shown}"
            report = await self._restore([target], label, force, redo=True)
            return dataclasses.replace(report, redone=back)

    async def _restore(
        self,
        targets: Sequence[TurnRecord],
        label: str,
        force: bool,
        *,
        redo: bool,
        paths: tuple[str, ...] = (),
    ) -> RestoreReport:
        """Put every file ``targets`` changed (only ``paths``, if given) back as it was before
        them, as a turn of its own (``undo_of``: the targets) that the model hears about at
        its next turn."""
        undone = tuple(t.index for t in targets)
        toolbox = self.parts.toolbox
        checkpoint = Checkpoint(self.workspace, self.store.blobs, toolbox.buffers)
        merged = merge([t.files for t in targets])
        if paths:
            merged = {path: state for path, state in merged.items() if path in paths}
        restore = await asyncio.to_thread(
            plan_restore, merged, checkpoint, force=force, label=label
        )
        if restore.conflicts and not force:
            listed = ", ".join(restore.conflicts)
            return RestoreReport(
                applied=False,
                undone=undone,
                conflicts=restore.conflicts,
                unrestorable=restore.unrestorable,
                reason=f"changed since by someone else: {listed}; undo with force to "
                "overwrite them",
            )
        if restore.plan.changes:
            applied = await toolbox.applier.apply(restore.plan)
            if not applied.applied:
                return RestoreReport(applied=False, undone=undone, reason=applied.reason)
        for relative, content in restore.binary:
            await asyncio.to_thread(
                atomic_write, self.workspace, self.workspace.root / relative, content
            )
        files = await asyncio.to_thread(checkpoint.changes)
        index = len(self._turns) + 1
        listed = ", ".join(restore.restored) or "no file"
        if redo:
            note = (
                f"[Foehn] The person redid {label.removeprefix('redo ')}: {listed} changed "
                "again as that turn left them. Read files again before relying on what you saw."
            )
        else:
            note = (
                f"[Foehn] The person undid {label.removeprefix('undo ')}: {listed} "
                "put back as before. Read files again before relying on what you saw."
            )
        recorder = self._recorder(index, label, None, _nowhere)
        outcome = TurnOutcome(reason="answer", answer=note, iterations=0, messages=self._messages)
        self._close(recorder, label, outcome, files, undo_of=undone, paths=paths, note=note)
        return RestoreReport(
            applied=True,
            undone=undone,
            turn=index if files else None,
            restored=restore.restored,
            conflicts=restore.conflicts,
            unrestorable=restore.unrestorable,
            reason="" if restore.restored else "every file was already as before",
        )

    async def compact(self) -> ContextMeter:
        """Compact the conversation now (``/compact``), whatever its size, and save it; the
        meter after. ``compacted`` says what was done (``None``: too short to shorten)."""
        with self._hold():
            result = await self.context.fit(
                self._messages, self.tools.registry.definitions(), force=True
            )
            self.compacted = result
            if result is not None:
                self._messages = result.messages
                record = {
                    "kind": "compaction",
                    "note": result.note,
                    "messages": MESSAGES.dump_python(list(result.messages), mode="json"),
                }
                self.store.append(self.id, self.parts.toolbox.scrubber.data(record))
            return self.meter()

    async def aclose(self) -> None:
        """End the session's file watch, and release the provider if the builder made it for
        this session."""
        self._watches.close()
        if self._extra is not None:
            self._extra.close()
        if self.parts.owns_provider:
            await self.parts.provider.aclose()

    def _pending_notes(self) -> list[str]:
        notes: list[str] = []
        for turn in reversed(self._turns):
            if not turn.undo_of:
                break
            notes.insert(0, turn.note)
        return [n for n in notes if n]

    def _recorder(
        self, index: int, task: str, turn_id: str | None, emit: EventSink
    ) -> TurnRecorder:
        """The records of turn ``index``: the session file (and the ``--transcript`` file the
        person asked for), the audit log, ``emit``."""
        scrubber = self.parts.toolbox.scrubber
        transcript = Transcript(self.store.path(self.id), scrubber, append=True)
        if self.parts.transcript is not None:
            if self._extra is None:
                self._extra = Transcript(self.parts.transcript, scrubber)
            transcript.tee(self._extra)
        return TurnRecorder(
            transcript=transcript,
            audit_path=self.parts.toolbox.audit_path,
            scrubber=scrubber,
            turn_id=turn_id or f"{self.id}#{index}",
            index=index,
            task=task,
            workspace=self.workspace.root,
            provider=self.parts.provider.name,
            model=self.parts.provider.model,
            emit=emit,
        )

    @contextlib.contextmanager
    def _hold(self) -> Iterator[None]:
        """The session for one turn, or ``SessionBusy``."""
        if self._running:
            raise SessionBusy(
                f"session {self.id} is busy: a turn is running in it; wait for it to finish "
                "or cancel it"
            )
        with self.store.lock(self.id):
            self._running = True
            try:
                yield
            finally:
                self._running = False


class _OpenTurn:
    """A turn being recorded: every event goes to its recorder; at ``done`` the checkpoint
    closes and ``files_changed`` says what it holds."""

    def __init__(self, *, session: str, recorder: TurnRecorder, tools: ToolTurn) -> None:
        self.session = session
        self.index = recorder.index
        self.recorder = recorder
        self.tools = tools
        self._files: tuple[FileState, ...] | None = None

    @property
    def transcript(self) -> Transcript:
        return self.recorder.transcript

    def record(self, event: TurnEvent) -> None:
        if isinstance(event, Done) and self._files is None:
            files = listed(self.files(), self.tools.ctx.workspace)
            self.record(FilesChanged(session=self.session, turn=self.index, files=_changed(files)))
        self.recorder.record(event)

    def files(self) -> tuple[FileState, ...]:
        """What the turn changed (the checkpoint's record, taken once)."""
        if self._files is None:
            self._files = self.tools.changes()
        return self._files


class CallsTurn:
    """A turn of tool calls from outside (``Session.calls_from``). ``call`` may run several
    calls at once; ``end`` (once, after the last) saves the turn and frees the session."""

    def __init__(
        self, session: Session, turn: _OpenTurn, task: str, hold: contextlib.ExitStack
    ) -> None:
        self.session = session
        self.task = task
        self._turn = turn
        self._hold = hold
        self._executor = turn.tools.executor(turn.record)
        self._done: list[str] = []

    @property
    def index(self) -> int:
        """The turn's index in its session (``/undo N``)."""
        return self._turn.index

    async def call(self, call: ToolCall) -> ToolResultMessage:
        """Run one call through the toolbox: validated, assessed, planned, approved, run."""
        (result,) = await self._executor.run([call])
        self._done.append(f"{call.name}: {'failed' if result.is_error else 'ok'}")
        return result

    def end(self) -> TurnOutcome:
        session, turn = self.session, self._turn
        answer = "; ".join(self._done) or "no call ran"
        iterations = len(self._done)
        try:
            turn.record(Done(reason="answer", answer=answer, iterations=iterations))
            outcome = TurnOutcome(
                reason="answer", answer=answer, iterations=iterations, messages=session.messages
            )
            session._end(turn, self.task, outcome)
        finally:
            self._hold.close()
        return outcome


def _changed(states: Sequence[FileState]) -> tuple[ChangedFile, ...]:
    return tuple(
        ChangedFile(path=s.path, change=s.change, source=s.source)  # type: ignore[arg-type]
        for s in states
        if not s.folder
    )


def _nowhere(event: TurnEvent) -> None:
    """An undo turn's events go to its records only."""
