"""Running one turn's tool calls: concurrently, except tools marked sequential, with results
returned in call order, each through the turn's chain (``agent.chain``), which announces it
(``Announcer``) once it is prepared; from there on, what the tool says of its progress
(``ctx.progress``) becomes the call's ``ToolProgress`` events."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from foehn_lsp.agent.chain import Parts, steps
from foehn_lsp.agent.test_driven import TestGuard
from foehn_lsp.events import (
    EventSink,
    NetworkEvent,
    ToolCallEvent,
    ToolProgress,
    ToolResultEvent,
)
from foehn_lsp.providers.messages import ToolCall, ToolResultMessage
from foehn_lsp.risk import RiskLevel
from foehn_lsp.sandbox.network import Connection
from foehn_lsp.tools.contract import ToolContext, ToolResult
from foehn_lsp.tools.registry import Handler, Invocation, ToolRegistry
from foehn_lsp.workspace.references import Rename

MAX_RESULT_CHARS = 60_000


def shown_arguments(raw: str) -> Any:
    """The arguments as events show them: parsed if they are JSON, else the raw text."""
    try:
        return json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return raw


class Announcer:
    """The chain's announce step: each call's event goes out once, as soon as its risk and
    sandbox are known; a call that never got that far is announced with its declared risk."""

    def __init__(self, emit: EventSink) -> None:
        self.emit = emit
        self._announced: set[str] = set()

    async def __call__(self, invocation: Invocation, next_step: Handler) -> ToolResult:
        call_id, name = invocation.call_id, invocation.tool.name
        self.announce(
            call_id,
            name,
            invocation.raw_arguments,
            invocation.risk,
            invocation.scope.sandbox,
            invocation.tool.kind,
        )

        def progress(message: str, /) -> None:
            self.emit(ToolProgress(id=call_id, tool=name, message=message))

        ctx = dataclasses.replace(invocation.ctx, progress=progress)
        return await next_step(dataclasses.replace(invocation, ctx=ctx))

    def announce(
        self,
        call_id: str,
        name: str,
        raw: str,
        risk: RiskLevel,
        policy: str | None = None,
        kind: str | None = None,
    ) -> None:
        if call_id not in self._announced:
            self._announced.add(call_id)
            self.emit(
                ToolCallEvent(
                    id=call_id,
                    tool=name,
                    arguments=shown_arguments(raw),
                    risk=risk.value,
                    policy=policy,
                    tool_kind=kind,
                )
            )


class TurnExecutor:
    """A turn's calls, each through the chain of ``parts`` (``agent.chain``) with the
    executor's own announce step and test rule (``agent.test_driven``: the loop gives it the
    turn's task). The loop reads two more parts: ``mode`` (plan mode's guard, lifted once a
    plan is approved) and ``edit_checks`` (asked again before an answer ends the turn)."""

    def __init__(
        self,
        registry: ToolRegistry,
        ctx: ToolContext,
        emit: EventSink,
        parts: Parts | None = None,
    ) -> None:
        self.registry = registry
        self.ctx = dataclasses.replace(ctx, connections=self._connection)
        self.emit = emit
        self.announcer = Announcer(emit)
        self.tests = TestGuard()
        self.parts = dataclasses.replace(
            parts or Parts(), announce=self.announcer, tests=self.tests
        )
        self.steps = steps(self.parts)
        self.written: list[str] = []
        """The files the turn's successful planned calls wrote, as their results'
        ``data["files"]`` name them (workspace-relative), in order, once each."""
        self.renamed: list[Rename] = []
        """The definitions those calls renamed (their results' ``data["renamed"]``)."""
        self._contents: dict[str, tuple[str | None, str | None]] = {}
        """Each written file's content (sha256) before the turn's first write of it and after
        its last (the results' ``data["sha256"]``)."""

    def restored(self) -> set[str]:
        """The files the turn wrote whose content is now what it was before its first write:
        its writes undid each other (``+ 1`` added, then taken out)."""
        return {path for path, (before, after) in self._contents.items() if before == after}

    def _connection(self, attempt: Connection) -> None:
        """A call's connection attempt, as the turn's ``network`` event."""
        self.emit(NetworkEvent.of(attempt))

    async def run(self, calls: Sequence[ToolCall]) -> list[ToolResultMessage]:
        results: list[ToolResultMessage | None] = [None] * len(calls)
        batch: list[int] = []

        async def flush() -> None:
            outcomes = await asyncio.gather(*(self._one(calls[i]) for i in batch))
            for index, outcome in zip(batch, outcomes, strict=True):
                results[index] = outcome
            batch.clear()

        for index, call in enumerate(calls):
            tool = self.registry.get(call.name)
            if tool is not None and tool.sequential:
                await flush()
                results[index] = await self._one(call)
            else:
                batch.append(index)
        await flush()
        return [r for r in results if r is not None]

    async def _one(self, call: ToolCall) -> ToolResultMessage:
        result = await self.registry.call(
            call.name, call.arguments, self.ctx, call_id=call.id, steps=self.steps
        )
        tool = self.registry.get(call.name)
        self.announcer.announce(
            call.id,
            call.name,
            call.arguments,
            tool.risk if tool else RiskLevel.UNDEFINED,
            kind=tool.kind if tool else None,
        )
        # Only an applied plan's files are written ones (investigate's data names files it read).
        planned = tool is not None and tool.plan is not None
        files = result.data.get("files") if planned and result.ok and result.data else None
        if isinstance(files, list):
            self.written += [f for f in files if isinstance(f, str) and f not in self.written]
        contents = result.data.get("sha256") if isinstance(files, list) and result.data else None
        for path, (before, after) in contents.items() if isinstance(contents, dict) else ():
            self._contents[path] = (self._contents.get(path, (before, None))[0], after)
        renamed = result.data.get("renamed") if isinstance(files, list) and result.data else None
        for path, old, new in renamed if isinstance(renamed, list) else ():
            self.renamed.append(Rename(path=path, old=old, new=new))
        output = result.output
        if len(output) > MAX_RESULT_CHARS:
            cut = len(output) - MAX_RESULT_CHARS
            output = output[:MAX_RESULT_CHARS] + f"\n... ({cut} characters cut; ask for less)"
        self.emit(
            ToolResultEvent(
                id=call.id,
                tool=call.name,
                ok=result.ok,
                output=output,
                data=dict(result.data) if result.data else None,
            )
        )
        return ToolResultMessage(
            call_id=call.id, name=call.name, content=output, is_error=not result.ok
        )
