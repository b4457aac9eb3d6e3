"""The loop: ask the model, run the tools it calls, repeat; always end, with a reason.

    ask ──text only──▶ done(answer)
     │
     └─tool calls──▶ limits? ──▶ wrap up: results say "not run", ask for a summary ─▶ done(limit)
                       │
                       └──▶ run the calls, each through its chain (agent.chain) ──▶ ask …

A person stopping the turn (``stop`` set) cancels whatever is in flight, the HTTP request or a
tool, and the turn ends with ``cancelled``; a provider failure ends it with ``error``.

An answer is checked before it ends the turn (``checks.honesty``, on what ``checks.claims`` reads
in its words): right after a failed change it goes back once, asking for a tool call; after
edits, the problems they added to the changed files (``checks.checking``) go back with it; one
that claims a change the turn did not make goes back once with what changed, and is withheld if
it claims again; one that says a run would show something (the tests pass, a bug is fixed,
something is faster) needs a run after the last change that shows it. After a rename
(``workspace.references``) whose old name still appears in the workspace, the answer goes back
once with the places; said again, it stands with them after it, less any sentence that says
every use was changed. In plan mode
(``agent.plan_mode``) the answer is the plan, which the person reviews; once approved the same
turn carries it out. A turn that is to fix the code behind a failing test does not change the
tests (``agent.test_driven``, a step of the chain the loop gives the task).

This is one turn of a conversation. History goes in (``history``) and comes out
(``TurnOutcome.messages``); the agent keeps nothing between turns, so a ``Session`` (or anyone)
owns the conversation. Before each request the optional ``ContextWindow`` may compact the
messages to fit the model's window, and a provider that refuses a request as too long gets one
compacted retry.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from foehn_lsp.agent.execution import TurnExecutor
from foehn_lsp.agent.plan_mode import (
    MAX_REJECTIONS,
    PLAN_NOTE,
    ReadOnlyGuard,
    TurnMode,
    approved_note,
    as_tasks,
    propose,
    read_only_tools,
    rejected_note,
)
from foehn_lsp.agent.prompt import system_message
from foehn_lsp.checks import checking, claims, honesty
from foehn_lsp.config import Settings
from foehn_lsp.errors import (
    ErrorKind,
    FileReadError,
    PathRefusedError,
    ProviderError,
    ProviderRequestError,
    error_kind,
)
from foehn_lsp.events import (
    Checked,
    CheckedProblem,
    Compacted,
    Done,
    EventSink,
    PlanEvent,
    PlanStatus,
    StopReason,
    TextDelta,
    Thinking,
    UsageEvent,
)
from foehn_lsp.policy.plans import ApprovePlan, PlanReviewer, ProposedPlan, RejectPlan
from foehn_lsp.providers import Provider
from foehn_lsp.providers.effects import may_have_changed, output_of
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ModelResponse,
    SystemMessage,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.tools.contract import ToolContext
from foehn_lsp.tools.registry import ToolRegistry
from foehn_lsp.tools.tasks import TaskItem
from foehn_lsp.workspace import references
from foehn_lsp.workspace.references import Rename

if TYPE_CHECKING:
    from foehn_lsp.agent.context import ContextWindow

log = logging.getLogger(__name__)

WARN_ITERATIONS_LEFT = 3


@dataclass(frozen=True, kw_only=True)
class TurnRequest:
    task: str
    context: str = ""
    """What the editor adds: the active file, the selection, a diagnostic."""
    mode: TurnMode = "act"
    """``plan``: plan first (read-only tools), and carry the plan out once it is approved."""


@dataclass(frozen=True, kw_only=True)
class TurnOutcome:
    reason: StopReason
    answer: str
    iterations: int
    input_tokens: int = 0
    output_tokens: int = 0
    messages: tuple[Message, ...] = ()
    """The whole conversation after the turn: the history it was given (possibly compacted),
    then this turn's messages."""
    error: ErrorKind | None = None
    """For ``reason`` "error": what kind of failure it was."""


class ResponseLog(Protocol):
    """Where each model response is recorded (a session file or a transcript)."""

    def response(self, response: ModelResponse, seconds: float) -> None: ...


@dataclass
class _State:
    messages: list[Message]
    text: claims.HeldText
    task: str
    mode: TurnMode
    guard: ReadOnlyGuard | None
    """The chain's read-only guard, active while planning."""
    start: int
    """Where this turn's messages begin."""
    changed: Callable[[], Sequence[str]] | None
    earlier: Sequence[str]
    iterations: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    last_call: str | None = None
    last_output: str | None = None
    repeats: int = 0
    warned: set[str] = field(default_factory=set)
    failure: ToolResultMessage | None = None
    """The last step's failed change, which the next reply must act on."""
    acted: set[str] = field(default_factory=set)
    """Failed changes an answer was already sent back for."""
    attempted: bool = False
    """The turn called a tool that changes files."""
    claimed: bool = False
    """An answer was sent back for a false claim."""
    rejections: int = 0
    planned_from: tuple[TaskItem, ...] = ()
    """The task list when planning began (a list made while planning holds the steps)."""
    checks: checking.EditChecks | None = None
    written: Sequence[str] = ()
    """The files the turn's successful calls said they wrote (the executor's record)."""
    restored: Callable[[], Collection[str]] = tuple
    """The files among them that the turn's writes left as they were (the executor's record)."""
    renamed: Sequence[Rename] = ()
    """The definitions those calls renamed (the executor's record)."""
    told_left: bool = False
    """An answer was sent back because a rename's old name still appeared."""
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    """The turn's tools: what each does (``Tool.changes_files``, ``Tool.paths``)."""

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


def _claims_checked(state: _State) -> bool:
    """Whether an answer that claims a change is checked against the files changed: the turn
    asks for a change or tried one (a question's answer may say "lists are created with …")."""
    return state.mode != "plan" and (state.attempted or claims.asks_for_change(state.task))


def _held(state: _State, sentence: str) -> bool:
    """Whether ``sentence`` (and what follows it) waits for the answer's checks: a claim the
    loop checks, where a definition is, what code returns after a failed ``run_command``, any
    answer to what a command prints before it ran, or words copied from a note of Foehn's
    (an answer that only copies the note is shown without them)."""
    if claims.claims(sentence) and _claims_checked(state):
        return True
    if state.mode != "plan" and claims.locations(sentence):
        return True
    turn = state.messages[state.start :]
    if honesty.copies_note(sentence, turn):
        return True
    if state.mode != "plan" and (
        honesty.check_program_asked(sentence, task=state.task, turn=turn, tools=state.tools)
        is not None
    ):
        return True
    return (
        claims.claims_value(sentence)
        and honesty.check_value_claim(sentence, turn, state.tools) is not None
    )


def iterations_note(left: int) -> str:
    """The warning the model gets when ``left`` tool iterations remain."""
    return (
        f"[Foehn] {left} tool iteration{'s' if left != 1 else ''} left in this run. "
        "Finish the most important part, then answer with what you did and what is left."
    )


def tokens_note(left: int) -> str:
    """The warning the model gets when ``left`` tokens of the budget remain."""
    return f"[Foehn] {left:,} tokens left in this run's budget. Wrap up soon."


def _signature(call: ToolCall) -> str:
    try:
        arguments = json.dumps(json.loads(call.arguments), sort_keys=True)
    except json.JSONDecodeError:
        arguments = call.arguments
    return f"{call.name}:{arguments}"


class Agent:
    """Runs turns with one provider; stateless between turns. The calls of a turn run through
    the executor it is given (a toolbox's: approval, checkpoints, audit; ``sessions.toolbox``)."""

    def __init__(
        self,
        *,
        provider: Provider,
        settings: Settings,
        transcript: ResponseLog | None = None,
        context: ContextWindow | None = None,
        reviewer: PlanReviewer | None = None,
    ) -> None:
        self.provider = provider
        self.settings = settings
        self.transcript = transcript
        self.context = context
        self.reviewer = reviewer
        """Who reviews a plan (plan mode); ``None``: nobody, the turn ends with the plan."""

    async def run_turn(
        self,
        request: TurnRequest,
        calls: TurnExecutor,
        emit: EventSink,
        stop: asyncio.Event | None = None,
        *,
        history: Sequence[Message] = (),
        changed: Callable[[], Sequence[str]] | None = None,
        earlier_changes: Sequence[str] = (),
    ) -> TurnOutcome:
        """Run ``request`` to its end after ``history``, the model's tool calls through
        ``calls``; ``emit`` gets every event, ``Done`` last. ``changed`` gives the files the
        turn has changed so far (the checkpoint's record; without it, the files its successful
        file tools named), ``earlier_changes`` those of the session's earlier turns: the claim
        check compares answers with them. The chain's edit checks (``calls.parts``) check the
        changed files again before an answer ends the turn; in plan mode its read-only guard
        refuses what the plan may not run until the person approves the plan."""
        state = self._start(request, calls, emit, history, changed, earlier_changes)
        body = asyncio.create_task(self._loop(state, calls, emit))
        waiters: set[asyncio.Future[Any]] = {body}
        stopper = asyncio.ensure_future(stop.wait()) if stop is not None else None
        if stopper is not None:
            waiters.add(stopper)
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            body.cancel()
            raise
        finally:
            if stopper is not None:
                stopper.cancel()
        if body.done() and not body.cancelled():
            try:
                outcome = body.result()
            except Exception as exc:
                log.exception("the turn failed")
                outcome = self._outcome(
                    state, "error", f"internal error: {exc!r}", error="internal"
                )
        else:
            body.cancel()
            await asyncio.gather(body, return_exceptions=True)
            outcome = self._outcome(state, "cancelled", "The run was cancelled.")
        emit(
            Done(
                reason=outcome.reason,
                answer=outcome.answer,
                iterations=outcome.iterations,
                error=outcome.error,
            )
        )
        return outcome

    def _start(
        self,
        request: TurnRequest,
        calls: TurnExecutor,
        emit: EventSink,
        history: Sequence[Message],
        changed: Callable[[], Sequence[str]] | None,
        earlier_changes: Sequence[str],
    ) -> _State:
        """The turn's state: the history (without its system message) after Foehn's system
        message, then the task; in plan mode the chain's read-only guard on."""
        ctx = calls.ctx
        guard = calls.parts.mode
        calls.tests.expect(request.task)
        if request.mode == "plan":
            if guard is None:
                raise ValueError("plan mode needs a chain with its read-only guard (agent.chain)")
            guard.active = True
        task = request.task + (f"\n\n{request.context}" if request.context else "")
        if request.mode == "plan":
            task += f"\n\n{PLAN_NOTE}"
        system = SystemMessage(content=system_message(self.settings, ctx.workspace))
        earlier = list(history)
        if earlier and isinstance(earlier[0], SystemMessage):
            earlier = earlier[1:]
        messages: list[Message] = [system, *earlier, UserMessage(content=task)]
        state = _State(
            messages=messages,
            text=claims.HeldText(
                lambda piece: emit(TextDelta(text=piece)), lambda sentence: _held(state, sentence)
            ),
            task=request.task,
            mode=request.mode,
            guard=guard,
            start=len(messages) - 1,
            changed=changed,
            earlier=tuple(earlier_changes),
            planned_from=ctx.tasks.items if ctx.tasks is not None else (),
            checks=calls.parts.edit_checks,
            written=calls.written,
            restored=calls.restored,
            renamed=calls.renamed,
            tools=calls.registry,
        )
        return state

    def _outcome(
        self, state: _State, reason: StopReason, answer: str, error: ErrorKind | None = None
    ) -> TurnOutcome:
        messages = _closed(state.messages)
        return TurnOutcome(
            reason=reason,
            answer=answer,
            iterations=state.iterations,
            input_tokens=state.input_tokens,
            output_tokens=state.output_tokens,
            messages=tuple(messages),
            error=error,
        )

    async def _loop(self, state: _State, executor: TurnExecutor, emit: EventSink) -> TurnOutcome:
        ctx = executor.ctx
        try:
            while True:
                tools = (
                    read_only_tools(executor.registry)
                    if state.mode == "plan"
                    else executor.registry.definitions()
                )
                response = await self._ask(state, tools, emit, ctx)
                calls = response.message.tool_calls
                if not calls:
                    ended = await self._answered(state, response.message.content, ctx, emit)
                    if ended is not None:
                        return ended
                    continue
                state.text.release()
                limit = self._limit_reached(state, calls)
                if limit is not None:
                    reason, why = limit
                    state.messages += [
                        ToolResultMessage(
                            call_id=c.id, name=c.name, is_error=True, content=f"not run: {why}"
                        )
                        for c in calls
                    ]
                    return await self._wrap_up(state, reason, why, emit, ctx)
                state.iterations += 1
                state.attempted |= any(state.tools.changes_files(c.name) for c in calls)
                results = await executor.run(calls)
                state.messages += results
                state.failure = honesty.failed_change(results, state.tools)
                self._track_repeats(state, calls, results)
                if note := self._budget_note(state):
                    state.messages.append(UserMessage(content=note))
        except ProviderError as exc:
            log.info("turn ended by a provider error: %s", exc)
            return self._outcome(state, "error", str(exc), error_kind(exc))

    async def _answered(
        self, state: _State, answer: str, ctx: ToolContext, emit: EventSink
    ) -> TurnOutcome | None:
        """The turn's outcome for an answer, or ``None`` when the answer went back to the
        model with a note (or an approved plan is to be carried out) and the loop goes on."""
        if state.mode == "plan":
            state.text.release()
            return await self._review(state, answer, ctx, emit)
        failure = state.failure
        if (
            failure is not None
            and failure.call_id not in state.acted
            and not claims.admits_failure(answer)  # an honest "I could not" is never sent back
        ):
            state.acted.add(failure.call_id)
            state.text.drop()
            state.messages.append(UserMessage(content=honesty.act_on_failure_note(failure)))
            return None
        if await self._new_problems(state, emit):
            state.text.drop()
            return None
        left = await self._left_behind(state, ctx)
        if left and not state.told_left:
            state.told_left = True
            state.text.drop()
            state.messages.append(UserMessage(content=honesty.left_behind(answer, left).note))
            return None
        check = await self._check_claim(state, answer, ctx)
        if check is None and left:
            # Sent back once already: the answer stands, less its claim that every use changed.
            check, state.claimed = honesty.left_behind(answer, left), True
        if check is None:
            state.text.release()
            return self._outcome(state, "answer", answer)
        if not state.claimed and check.note is not None:
            state.text.drop()
            state.claimed = True
            state.messages.append(UserMessage(content=check.note))
            return None
        if check.kept is not None:
            # What was sent before the first claim stays; the rest is what the check kept.
            sent = state.text.sent
            state.text.drop()
            shown = f"{check.kept}\n\n{check.statement}" if check.kept else check.statement
            rest = shown[len(sent) :] if shown.startswith(sent) else f"\n\n{check.statement}"
            state.messages[-1] = AssistantMessage(content=sent + rest)
            emit(TextDelta(text=rest))
            return self._outcome(state, "answer", sent + rest)
        state.text.drop()
        state.messages[-1] = AssistantMessage(content=check.statement)
        emit(TextDelta(text=check.statement))
        return self._outcome(state, "answer", check.statement)

    async def _new_problems(self, state: _State, emit: EventSink) -> bool:
        """Whether the turn's edits added problems to the files it changed; if so the model
        is told (and the person sees them, with any checker that was skipped)."""
        if state.checks is None:
            return False
        report = await state.checks.after(self._changed(state))
        if report is None or not (report.problems or report.skipped):
            return False
        shown = tuple(
            CheckedProblem(path=p.path, line=p.line, message=p.message, source=p.source)
            for p in report.problems
        )
        emit(Checked(problems=shown, skipped=report.skipped))
        if not report.problems:
            return False
        state.messages.append(UserMessage(content=checking.note(report)))
        return True

    async def _left_behind(self, state: _State, ctx: ToolContext) -> list[references.Leftovers]:
        """Where the old names of the turn's renames still appear in the workspace."""
        if not state.renamed:
            return []
        try:
            return await references.leftovers(ctx.workspace, state.renamed, ctx.files.buffers)
        except TimeoutError:
            return []

    def _changed(self, state: _State) -> Sequence[str]:
        # The checkpoint reads a file's open buffer first, then the disk; an edit the editor
        # applied may not have reached the buffer the server holds yet, so the successful file
        # tools' own record counts too, less the files whose writes undid each other.
        turn = state.messages[state.start :]
        restored = state.restored()  # as results name files; a call may add "./"
        by_calls = [
            path
            for path in honesty.changed_by_calls(turn, state.tools, state.written)
            if path.removeprefix("./") not in restored
        ]
        if state.changed is None:
            return by_calls
        on_disk = list(state.changed())
        return [*on_disk, *(path for path in by_calls if path not in on_disk)]

    async def _check_claim(
        self, state: _State, answer: str, ctx: ToolContext
    ) -> honesty.ClaimCheck | None:
        turn = state.messages[state.start :]
        if state.mode == "plan":
            return None
        located = honesty.check_location_claim(answer, await _texts_named(answer, ctx))
        asked = honesty.check_program_asked(answer, task=state.task, turn=turn, tools=state.tools)
        if not _claims_checked(state):
            return honesty.check_value_claim(answer, turn, state.tools) or asked or located
        changed = self._changed(state)
        return (
            honesty.check_claim(
                answer, changed=changed, earlier=state.earlier, restored=state.restored()
            )
            or honesty.check_nothing_done(
                answer,
                task=state.task,
                changed=changed,
                turn=turn,
                tools=state.tools,
                sees_programs=state.changed is not None,
            )
            or honesty.check_test_claim(answer, turn, state.tools)
            or honesty.check_test_asked(answer, task=state.task, turn=turn, tools=state.tools)
            or honesty.check_files_asked(answer, task=state.task, changed=changed, turn=turn)
            or honesty.check_definitions_asked(
                answer, task=state.task, turn=turn, tools=state.tools
            )
            or honesty.check_comment_claim(
                answer, turn=turn, task=state.task, earlier=state.earlier, tools=state.tools
            )
            or honesty.check_result_claim(answer, turn, state.tools)
            or honesty.check_unsaid_failure(answer, turn, state.tools)
            or honesty.check_content_claim(
                answer, turn=turn, session=state.messages, task=state.task, tools=state.tools
            )
            or honesty.check_whole_claim(answer, turn, state.tools)
            or honesty.check_value_claim(answer, turn, state.tools)
            or asked
            or located
        )

    async def _review(
        self, state: _State, answer: str, ctx: ToolContext, emit: EventSink
    ) -> TurnOutcome | None:
        """Plan mode's answer: the person approves, edits or rejects the plan."""
        listed = ctx.tasks.items if ctx.tasks is not None else ()
        made = listed if listed != state.planned_from else ()
        plan = propose(answer, made, attempt=state.rejections + 1)

        def told(status: PlanStatus, shown: ProposedPlan, reason: str = "") -> None:
            emit(
                PlanEvent(
                    status=status,
                    plan=shown.text,
                    steps=shown.steps,
                    files=shown.files,
                    reason=reason,
                )
            )

        told("proposed", plan)
        reviewer = self.reviewer
        decision = await reviewer.review_plan(plan) if reviewer is not None else None
        match decision:
            case None:
                told("unreviewed", plan)
                return self._outcome(state, "answer", answer)
            case RejectPlan(reason=reason):
                state.rejections += 1
                told("rejected", plan, reason)
                if state.rejections >= MAX_REJECTIONS:
                    ended = f"The person rejected the plan twice ({reason}); nothing was changed."
                    emit(TextDelta(text=f"\n\n{ended}"))
                    return self._outcome(state, "answer", ended)
                state.messages.append(UserMessage(content=rejected_note(reason)))
                return None
            case ApprovePlan(edited=edited):
                final = propose(edited) if edited else plan
                told("edited" if edited else "approved", final)
                if ctx.tasks is not None:
                    ctx.tasks.replace(as_tasks(final.steps))
                state.mode = "act"
                if state.guard is not None:
                    state.guard.active = False
                state.messages.append(
                    UserMessage(content=approved_note(final, edited=edited is not None))
                )
                return None

    async def _ask(
        self,
        state: _State,
        tools: Sequence[ToolDefinition],
        emit: EventSink,
        ctx: ToolContext | None = None,
    ) -> ModelResponse:
        emit(Thinking(iteration=state.iterations))
        if self.context is not None:
            await self._fit(state, tools, emit, force=False, ctx=ctx)
        started = time.monotonic()
        try:
            response = await self._complete(state, tools, emit)
        except ProviderRequestError as exc:
            if self.context is None or not self.context.is_too_long(exc):
                raise
            log.info("the provider refused the request as too long; compacting once: %s", exc)
            if not await self._fit(state, tools, emit, force=True, ctx=ctx):
                raise
            started = time.monotonic()
            response = await self._complete(state, tools, emit)
        if not self.settings.enable_streaming and response.message.content:
            state.text.feed(response.message.content)
        if self.transcript is not None:
            self.transcript.response(response, time.monotonic() - started)
        state.messages.append(response.message)
        state.input_tokens += response.usage.input_tokens
        state.output_tokens += response.usage.output_tokens
        meter = None
        if self.context is not None:
            meter = self.context.observe(state.messages, response.usage, tools)
        emit(
            UsageEvent(
                input_tokens=state.input_tokens,
                output_tokens=state.output_tokens,
                total_tokens=state.tokens,
                budget=self.settings.token_budget,
                window=meter.window if meter else None,
                context_tokens=meter.used if meter else None,
                cost=meter.cost if meter else None,
            )
        )
        return response

    async def _complete(
        self, state: _State, tools: Sequence[ToolDefinition], emit: EventSink
    ) -> ModelResponse:
        return await self.provider.complete(
            state.messages,
            tools,
            stream=self.settings.enable_streaming,
            on_text=state.text.feed,
            on_status=lambda detail: emit(Thinking(iteration=state.iterations, detail=detail)),
        )

    async def _fit(
        self,
        state: _State,
        tools: Sequence[ToolDefinition],
        emit: EventSink,
        *,
        force: bool,
        ctx: ToolContext | None,
    ) -> bool:
        """Compact the conversation if the next request would not fit (or ``force``);
        whether anything was compacted. The task list survives it verbatim: the model gets
        it again right after."""
        assert self.context is not None
        result = await self.context.fit(state.messages, tools, force=force)
        if result is None:
            return False
        state.messages = list(result.messages)
        state.start = min(state.start, len(state.messages))
        if ctx is not None and ctx.tasks is not None and ctx.tasks.unfinished:
            state.messages.append(UserMessage(content=ctx.tasks.note()))
        emit(
            Compacted(
                before_tokens=result.before_tokens,
                after_tokens=result.after_tokens,
                summary=result.note,
            )
        )
        return True

    def _limit_reached(
        self, state: _State, calls: Sequence[ToolCall]
    ) -> tuple[StopReason, str] | None:
        if state.iterations >= self.settings.max_tool_iterations:
            return "max_iterations", (
                f"the run reached its limit of {self.settings.max_tool_iterations} tool "
                f"iteration{'s' if self.settings.max_tool_iterations != 1 else ''}"
            )
        if state.tokens >= self.settings.token_budget:
            return "budget", f"the run spent its token budget ({self.settings.token_budget:,})"
        if (
            len(calls) == 1
            and _signature(calls[0]) == state.last_call
            and state.repeats + 1 >= self.settings.repeat_limit
        ):
            return "repeated_call", (
                f"{calls[0].name} was called {state.repeats + 1} times in a row with the same "
                "arguments, nothing changed in between, and it gave the same result each time"
            )
        return None

    def _track_repeats(
        self, state: _State, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
    ) -> None:
        """Count a call made again with nothing changed since: a call that may have changed
        the workspace (an edit, a program) makes the next one new, whatever it shows."""
        by_id = {call.id: call for call in calls}
        changed = any(
            may_have_changed(r, by_id.get(r.call_id), state.tools.changes_files) for r in results
        )
        if len(calls) != 1 or changed:
            state.last_call, state.last_output, state.repeats = None, None, 0
            return
        signature, output = _signature(calls[0]), output_of(results[0])
        if signature == state.last_call and output == state.last_output:
            state.repeats += 1
        else:
            state.last_call, state.last_output, state.repeats = signature, output, 1

    def _budget_note(self, state: _State) -> str | None:
        left = self.settings.max_tool_iterations - state.iterations
        if left <= WARN_ITERATIONS_LEFT and "iterations" not in state.warned:
            state.warned.add("iterations")
            return iterations_note(left)
        if state.tokens >= 0.8 * self.settings.token_budget and "tokens" not in state.warned:
            state.warned.add("tokens")
            return tokens_note(self.settings.token_budget - state.tokens)
        return None

    async def _wrap_up(
        self, state: _State, reason: StopReason, why: str, emit: EventSink, ctx: ToolContext
    ) -> TurnOutcome:
        """Ask, without tools, for a summary of what was done and what is left."""
        state.messages.append(
            UserMessage(
                content=(
                    f"[Foehn] The run is stopping: {why}. No more tools can be used. Reply "
                    "with a short summary of what you did, what you found, and what is left."
                )
            )
        )
        try:
            response = await self._ask(state, [], emit, ctx)
            summary = response.message.content.strip()
        except ProviderError as exc:
            summary = ""
            log.info("no summary after %s: %s", reason, exc)
        if summary and (check := await self._check_claim(state, summary, ctx)) is not None:
            state.text.drop()
            summary = f"{check.kept}\n\n{check.statement}" if check.kept else check.statement
        else:
            state.text.release()
        answer = f"Stopped: {why}." + (f"\n\n{summary}" if summary else "")
        return self._outcome(state, reason, answer)


async def _texts_named(answer: str, ctx: ToolContext) -> dict[str, str]:
    """The text of each file of the workspace that ``answer`` says a definition is in (a file
    that does not exist, or cannot be read, is left out)."""
    texts: dict[str, str] = {}
    for path in dict.fromkeys(path for _, _, path in claims.locations(answer)):
        try:
            resolved = ctx.workspace.resolve(path)
            if resolved.is_file():
                texts[path] = (await ctx.files.read(resolved)).text
        except (PathRefusedError, FileReadError, OSError):
            continue
    return texts


def _closed(messages: Sequence[Message]) -> list[Message]:
    """``messages`` fit to be the history of another turn: every tool call has its result (a
    cancelled turn may leave calls unanswered, which providers refuse)."""
    out: list[Message] = []
    for index, message in enumerate(messages):
        out.append(message)
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            continue
        answered = {
            m.call_id
            for m in messages[index + 1 : index + 1 + len(message.tool_calls)]
            if isinstance(m, ToolResultMessage)
        }
        for call in message.tool_calls:
            if call.id not in answered:
                out.append(
                    ToolResultMessage(
                        call_id=call.id, name=call.name, is_error=True, content="not run: cancelled"
                    )
                )
    return out
