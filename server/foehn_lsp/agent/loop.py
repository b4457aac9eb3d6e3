"""The loop: ask the model, run the tools it calls, repeat; always end, with a reason.

    ask ──text only──▶ done(answer)
     │
     └─tool calls──▶ limits? ──▶ wrap up: results say "not run", ask for a summary ─▶ done(limit)
                       │
                       └──▶ run the calls (validate, assess, plan, approve, execute) ──▶ ask …

A person stopping the turn (``stop`` set) cancels whatever is in flight, the HTTP request or a
tool, and the turn ends with ``cancelled``; a provider failure ends it with ``error``.

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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from foehn_lsp.agent.events import (
    Compacted,
    Done,
    EventSink,
    StopReason,
    TextDelta,
    Thinking,
    UsageEvent,
)
from foehn_lsp.agent.execution import TurnExecutor
from foehn_lsp.agent.prompt import system_message
from foehn_lsp.config import Settings
from foehn_lsp.errors import ProviderError, ProviderRequestError
from foehn_lsp.providers import Provider
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

if TYPE_CHECKING:
    from foehn_lsp.agent.context import ContextWindow

log = logging.getLogger(__name__)

WARN_ITERATIONS_LEFT = 3


@dataclass(frozen=True, kw_only=True)
class TurnRequest:
    task: str
    context: str = ""
    """What the editor adds: the active file, the selection, a diagnostic."""


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


class ResponseLog(Protocol):
    """Where each model response is recorded (a session file or a transcript)."""

    def response(self, response: ModelResponse, seconds: float) -> None: ...


@dataclass
class _State:
    messages: list[Message]
    iterations: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    last_call: str | None = None
    last_output: str | None = None
    repeats: int = 0
    warned: set[str] = field(default_factory=set)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


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
    ) -> None:
        self.provider = provider
        self.settings = settings
        self.transcript = transcript
        self.context = context

    async def run_turn(
        self,
        request: TurnRequest,
        calls: TurnExecutor,
        emit: EventSink,
        stop: asyncio.Event | None = None,
        *,
        history: Sequence[Message] = (),
    ) -> TurnOutcome:
        """Run ``request`` to its end after ``history``, the model's tool calls through
        ``calls``; ``emit`` gets every event, ``Done`` last."""
        task = request.task + (f"\n\n{request.context}" if request.context else "")
        system = SystemMessage(content=system_message(self.settings, calls.ctx.workspace))
        earlier = list(history)
        if earlier and isinstance(earlier[0], SystemMessage):
            earlier = earlier[1:]
        state = _State(messages=[system, *earlier, UserMessage(content=task)])
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
                outcome = self._outcome(state, "error", f"internal error: {exc!r}")
        else:
            body.cancel()
            await asyncio.gather(body, return_exceptions=True)
            outcome = self._outcome(state, "cancelled", "The run was cancelled.")
        emit(Done(reason=outcome.reason, answer=outcome.answer, iterations=outcome.iterations))
        return outcome

    def _outcome(self, state: _State, reason: StopReason, answer: str) -> TurnOutcome:
        messages = _closed(state.messages)
        return TurnOutcome(
            reason=reason,
            answer=answer,
            iterations=state.iterations,
            input_tokens=state.input_tokens,
            output_tokens=state.output_tokens,
            messages=tuple(messages),
        )

    async def _loop(self, state: _State, calls: TurnExecutor, emit: EventSink) -> TurnOutcome:
        tools = calls.registry.definitions()
        try:
            while True:
                response = await self._ask(state, tools, emit)
                asked = response.message.tool_calls
                if not asked:
                    return self._outcome(state, "answer", response.message.content)
                limit = self._limit_reached(state, asked)
                if limit is not None:
                    reason, why = limit
                    state.messages += [
                        ToolResultMessage(
                            call_id=c.id, name=c.name, is_error=True, content=f"not run: {why}"
                        )
                        for c in asked
                    ]
                    return await self._wrap_up(state, reason, why, emit)
                state.iterations += 1
                results = await calls.run(asked)
                state.messages += results
                self._track_repeats(state, asked, results)
                if note := self._budget_note(state):
                    state.messages.append(UserMessage(content=note))
        except ProviderError as exc:
            log.info("turn ended by a provider error: %s", exc)
            return self._outcome(state, "error", str(exc))

    async def _ask(
        self, state: _State, tools: Sequence[ToolDefinition], emit: EventSink
    ) -> ModelResponse:
        emit(Thinking(iteration=state.iterations))
        if self.context is not None:
            await self._fit(state, tools, emit, force=False)
        started = time.monotonic()
        try:
            response = await self._complete(state, tools, emit)
        except ProviderRequestError as exc:
            if self.context is None or not self.context.is_too_long(exc):
                raise
            log.info("the provider refused the request as too long; compacting once: %s", exc)
            if not await self._fit(state, tools, emit, force=True):
                raise
            started = time.monotonic()
            response = await self._complete(state, tools, emit)
        if not self.settings.enable_streaming and response.message.content:
            emit(TextDelta(text=response.message.content))
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
            on_text=lambda piece: emit(TextDelta(text=piece)),
            on_status=lambda detail: emit(Thinking(iteration=state.iterations, detail=detail)),
        )

    async def _fit(
        self, state: _State, tools: Sequence[ToolDefinition], emit: EventSink, *, force: bool
    ) -> bool:
        """Compact the conversation if the next request would not fit (or ``force``);
        whether anything was compacted."""
        assert self.context is not None
        result = await self.context.fit(state.messages, tools, force=force)
        if result is None:
            return False
        state.messages = list(result.messages)
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
                "arguments and gave the same result each time"
            )
        return None

    def _track_repeats(
        self, state: _State, calls: Sequence[ToolCall], results: Sequence[ToolResultMessage]
    ) -> None:
        if len(calls) != 1:
            state.last_call, state.last_output, state.repeats = None, None, 0
            return
        signature, output = _signature(calls[0]), results[0].content
        if signature == state.last_call and output == state.last_output:
            state.repeats += 1
        else:
            state.last_call, state.last_output, state.repeats = signature, output, 1

    def _budget_note(self, state: _State) -> str | None:
        left = self.settings.max_tool_iterations - state.iterations
        if left <= WARN_ITERATIONS_LEFT and "iterations" not in state.warned:
            state.warned.add("iterations")
            return (
                f"[Foehn] {left} tool iteration{'s' if left != 1 else ''} left in this run. "
                "Finish the most important part, then answer with what you did and what "
                "is left."
            )
        if state.tokens >= 0.8 * self.settings.token_budget and "tokens" not in state.warned:
            state.warned.add("tokens")
            return (
                f"[Foehn] {self.settings.token_budget - state.tokens:,} tokens left in this "
                "run's budget. Wrap up soon."
            )
        return None

    async def _wrap_up(
        self, state: _State, reason: StopReason, why: str, emit: EventSink
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
            response = await self._ask(state, [], emit)
            summary = response.message.content.strip()
        except ProviderError as exc:
            summary = ""
            log.info("no summary after %s: %s", reason, exc)
        answer = f"Stopped: {why}." + (f"\n\n{summary}" if summary else "")
        return self._outcome(state, reason, answer)


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
