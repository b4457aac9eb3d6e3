"""What every tool call runs through, for one workspace: the one assembly that a session's turns
(the model's calls) and ``foehn mcp`` (an MCP client's calls) share. The parts of a call's
chain are made here, per turn; their order is ``agent.chain``'s.

A ``Toolbox`` holds the tools, the approval policy and who is asked, the person's rules and
hooks, where edits go (the editor, the ACP client, the disk), the secret scrubber and the audit
log. ``Toolbox.turn`` opens one turn's ``ToolTurn``: its checkpoint (every edit goes through the
checkpointing applier, every program that may write is watched), its audit log, and the
executor its calls run through. ``sessions.builder.build_toolbox`` makes a toolbox; a
``Session`` records each turn's checkpoint, so whatever went through a toolbox can be undone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from foehn_lsp.agent.chain import Parts
from foehn_lsp.agent.execution import TurnExecutor
from foehn_lsp.agent.investigate import investigate_tool, sub_run_guard, with_investigate
from foehn_lsp.agent.plan_mode import ReadOnlyGuard
from foehn_lsp.checks.checkers import SandboxCheckers
from foehn_lsp.checks.checking import EditChecks, ProblemSource
from foehn_lsp.config import Settings
from foehn_lsp.events import EventSink
from foehn_lsp.policy.approval import ApprovalGate, Approver, PendingPolicy
from foehn_lsp.policy.guards import Guards, TurnGuards
from foehn_lsp.policy.hook_steps import hooks_around
from foehn_lsp.policy.remember import RememberedScope
from foehn_lsp.providers import Provider
from foehn_lsp.secrets import Scrubber
from foehn_lsp.sessions.audit import AuditLog
from foehn_lsp.sessions.checkpoints import Checkpoint, CheckpointingApplier, ProgramWatch
from foehn_lsp.sessions.store import BlobStore, FileState
from foehn_lsp.tools.contract import ToolContext
from foehn_lsp.tools.discovery import LoadedTools
from foehn_lsp.tools.elicitation import elicit_of
from foehn_lsp.tools.registry import Middleware, ToolRegistry
from foehn_lsp.tools.tasks import TaskList
from foehn_lsp.workspace.edits import EditApplier
from foehn_lsp.workspace.files import BufferSource, FileAccess, ReadLedger
from foehn_lsp.workspace.paths import Workspace
from foehn_lsp.workspace.watch import WatchKeeper


@dataclass(frozen=True, kw_only=True)
class Toolbox:
    """The tools of one workspace and everything their calls go through."""

    workspace: Workspace
    tools: LoadedTools
    settings: Settings
    """The approval policy (``settings.approval``) and the limits of a turn."""
    approver: Approver
    """Asks the person (terminal, editor, ACP or MCP client) or answers for them."""
    applier: EditApplier
    buffers: BufferSource
    scrubber: Scrubber
    audit_path: Path
    guards: Guards = field(default_factory=Guards.none)
    """The person's rules and hooks."""
    checks: tuple[Middleware, ...] = ()
    """The front end's own steps, before approval (``foehn mcp``: the risk it was started
    for)."""
    remembered: set[RememberedScope] | None = None
    """Where "allow for this run" is remembered when it should outlast one turn (``foehn
    mcp``: the client's connection); ``None``: each turn remembers its own."""
    problems: ProblemSource | None = None
    """Where a turn's changed files are checked (the editor's language servers); ``None``:
    the workspace's own checkers in the sandbox (``checks.checkers``)."""
    pending_policy: PendingPolicy | None = None
    """The approval policy still on its way (the editor's settings): every gate waits for it
    before its first decision and decides with it from then on."""

    def turn(
        self,
        blobs: BlobStore,
        *,
        session: str,
        index: int,
        audit: AuditLog,
        watches: WatchKeeper,
        held: Iterable[Path] = (),
        shown: ReadLedger | None = None,
        tasks: TaskList | None = None,
        window: int | None = None,
    ) -> ToolTurn:
        """Turn ``index`` of ``session``: its checkpoint keeps contents in ``blobs``; programs
        are watched through ``watches`` (kept by the session); ``held`` are files earlier turns
        changed, whose content is kept before a program may overwrite them; ``shown`` is what
        the model was shown of files before (the edit rule), ``tasks`` the session's task list,
        ``window`` the model's context window (what tools return is fit to it)."""
        return ToolTurn(
            self,
            blobs,
            session=session,
            index=index,
            audit=audit,
            watches=watches,
            held=held,
            shown=shown,
            tasks=tasks,
            window=window,
        )


class ToolTurn:
    """One turn's calls: the context the tools get, the checkpoint of what they change, the
    audit log, and the executor (``executor``) they run through."""

    def __init__(
        self,
        toolbox: Toolbox,
        blobs: BlobStore,
        *,
        session: str,
        index: int,
        audit: AuditLog,
        watches: WatchKeeper,
        held: Iterable[Path],
        shown: ReadLedger | None = None,
        tasks: TaskList | None = None,
        window: int | None = None,
    ) -> None:
        self.toolbox = toolbox
        self.session = session
        self.index = index
        workspace = toolbox.workspace
        self.checkpoint = Checkpoint(workspace, blobs, toolbox.buffers)
        files = FileAccess(
            workspace,
            applier=CheckpointingApplier(toolbox.applier, checkpoint=self.checkpoint),
            buffers=toolbox.buffers,
            shown=shown,
        )
        self.ctx = ToolContext(
            workspace=workspace,
            files=files,
            tasks=tasks,
            window=window,
            elicit=elicit_of(toolbox.approver),
        )
        """What the turn's tools may touch; every edit goes through the checkpoint; an MCP
        server's questions go to the person the way approvals do."""
        self.audit = audit
        """The turn's audit log (its recorder's): a sub-run's events go only there."""
        earlier = tuple(held)
        self._watch = ProgramWatch(self.checkpoint, lambda: [*files.seen, *earlier], keeper=watches)

    def edit_checks(self) -> EditChecks:
        """Checking the turn's edits (the model's turns): in the chain of ``executor``'s calls
        to check files before their first change, then asked before the answer."""
        workspace = self.toolbox.workspace
        return EditChecks(self.toolbox.problems or SandboxCheckers(workspace), workspace)

    def executor(self, emit: EventSink, *, provider: Provider | None = None) -> TurnExecutor:
        """The executor of the turn's calls; ``emit`` gets their events (and should pass them
        to ``audit``). With ``provider`` (the model's turns) the chain checks edits and the
        tools gain ``investigate``, whose read-only sub-runs ask it."""
        registry = self.toolbox.tools.registry
        if provider is None:
            return self._executor(registry, self.ctx, emit)
        tool = investigate_tool(
            provider=provider,
            settings=self.toolbox.settings,
            tools=registry,
            calls=self._sub_run_calls,
        )
        registry = with_investigate(registry, tool)
        return self._executor(registry, self.ctx, emit, checks=self.edit_checks())

    def _sub_run_calls(self, registry: ToolRegistry) -> TurnExecutor:
        """A sub-run's chain: this turn's, read-only, without the task list and with reads of
        its own (what the sub-run was shown lets the parent edit nothing); its events go only
        to the audit log."""
        files = self.ctx.files
        own = FileAccess(self.toolbox.workspace, applier=files.applier, buffers=files.buffers)
        ctx = dataclasses.replace(self.ctx, files=own, tasks=None)
        return self._executor(registry, ctx, self.audit, mode=sub_run_guard())

    def _executor(
        self,
        registry: ToolRegistry,
        ctx: ToolContext,
        emit: EventSink,
        *,
        mode: ReadOnlyGuard | None = None,
        checks: EditChecks | None = None,
    ) -> TurnExecutor:
        toolbox = self.toolbox
        gate = ApprovalGate(
            toolbox.settings.approval,
            toolbox.approver,
            emit,
            TurnGuards(guards=toolbox.guards, session=self.session, turn=self.index),
            toolbox.remembered,
            toolbox.pending_policy,
        )
        pre_hooks, post_hooks = hooks_around(gate)
        parts = Parts(
            mode=mode or ReadOnlyGuard(),
            front_end=toolbox.checks,
            pre_hooks=pre_hooks,
            approval=gate,
            post_hooks=post_hooks,
            watch=self._watch,
            edit_checks=checks,
        )
        return TurnExecutor(registry, ctx, emit, parts)

    def changes(self) -> tuple[FileState, ...]:
        """Every file the turn has changed so far, before and after (its checkpoint)."""
        return self.checkpoint.changes()
