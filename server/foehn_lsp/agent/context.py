"""Context that fits: counting tokens, knowing the window, compacting before it overflows.

Counting: the provider's own usage when it reports it (the input tokens of the last request are
what the conversation took), an estimate before sending (characters / 4, scaled by how far the
estimates were off the last time the provider reported). Windows: a table for the known default
models, the ``contextWindow`` setting for the rest.

Compaction, when the next request would not fit (or the provider refused one as too long):

1. old tool results become a short note of what they were (tool, size, first line); the last
   ``KEEP_RESULTS`` stay whole;
2. if that is not enough, the oldest part of the conversation is summarised by the model, and
   replaced by one note that keeps, verbatim, every task the person gave and the files changed;
   the last ``KEEP_EXCHANGES`` exchanges stay as they were.

The model is told what was compacted (the note says so, and how to get it back).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from foehn_lsp.errors import ProviderError
from foehn_lsp.providers import Provider
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolDefinition,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from foehn_lsp.tools.contract import CallPaths

PathsLookup = Callable[[str, object], CallPaths]
"""The paths a call of a tool (by name) with these arguments names (``ToolRegistry.paths_of``)."""

log = logging.getLogger(__name__)
T = TypeVar("T")

KNOWN_WINDOWS: dict[str, int] = {
    "devstral": 128_000,
    "mistral-large": 128_000,
    "mistral-medium": 128_000,
    "mistral-small": 128_000,
    "codestral": 256_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-5": 400_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "claude": 200_000,
    "qwen2.5-coder-1.5b": 16_384,  # providers/local/provider.py WINDOW
}
"""Model name prefix -> context window in tokens (the longest matching prefix wins)."""

PRICES: dict[str, tuple[float, float]] = {
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-haiku-4": (1.00, 5.00),
    "qwen2.5-coder-1.5b": (0.0, 0.0),
}
"""Model name prefix -> US dollars per million input and output tokens, where known."""

CHARS_PER_TOKEN = 4.0
MESSAGE_OVERHEAD = 4
KEEP_RESULTS = 4
KEEP_EXCHANGES = 4
TARGET = 0.6
"""After compacting, the conversation should take at most this share of the window."""
NOTE_PREFIX = "[Foehn] "
COMPACTED = f"{NOTE_PREFIX}To fit the model's context window"
TASKS = "Tasks the person gave in that part, verbatim:"
FILES = "Files changed in that part: "
TOO_LONG = re.compile(
    r"(?i)(context[ _]length|context window|too long|too many tokens|maximum context|"
    r"prompt is too long|reduce the length|exceeds? the (?:model's )?(?:maximum|context))"
)


def _longest_prefix(table: Mapping[str, T], model: str) -> T | None:
    best = ""
    for prefix in table:
        if model.lower().startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return table[best] if best else None


def known_window(model: str) -> int | None:
    """The context window of a model Foehn knows, by the longest matching name prefix."""
    return _longest_prefix(KNOWN_WINDOWS, model)


def known_prices(model: str) -> tuple[float, float] | None:
    """US dollars per million input and output tokens, for models whose prices are known."""
    return _longest_prefix(PRICES, model)


@dataclass(frozen=True, kw_only=True)
class ContextMeter:
    """What the person sees: the window used, and the cost."""

    used: int
    """Tokens the conversation takes now (as last reported, or estimated)."""
    window: int | None
    input_tokens: int
    """Spent in the session so far."""
    output_tokens: int
    cost: float | None
    """US dollars so far, where the provider's prices are known."""

    def describe(self) -> str:
        """One line for the person: 'context 1,200 / 128,000 tokens (1%); spent …'."""
        window = f"{self.used:,} / {self.window:,} tokens" if self.window else f"{self.used:,}"
        share = f" ({self.used / self.window:.0%})" if self.window else ""
        cost = f", ${self.cost:.4f}" if self.cost is not None else ""
        return (
            f"context {window}{share}; spent {self.input_tokens:,} in + "
            f"{self.output_tokens:,} out{cost}"
        )


@dataclass(frozen=True, kw_only=True)
class Compaction:
    """The compacted conversation, its size before and after, and what was done, in words."""

    messages: tuple[Message, ...]
    before_tokens: int
    after_tokens: int
    note: str


def estimate(messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()) -> int:
    """Tokens the request would take, roughly (before calibration)."""
    chars = 0
    for message in messages:
        chars += len(message.content) if hasattr(message, "content") else 0
        if isinstance(message, AssistantMessage):
            chars += sum(len(c.name) + len(c.arguments) for c in message.tool_calls)
    chars += sum(len(t.name) + len(t.description) + len(json.dumps(t.parameters)) for t in tools)
    return int(chars / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD * len(messages)


class ContextWindow:
    """One session's view of its context: counts, the meter, compaction."""

    def __init__(
        self,
        *,
        provider: Provider,
        window: int | None,
        paths_of: PathsLookup,
        reserve: int | None = None,
        input_tokens: int = 0,
        output_tokens: int = 0,
    ) -> None:
        self.provider = provider
        self.paths_of = paths_of
        """The paths a call names (``ToolRegistry.paths_of``): the files a compaction note
        says were changed."""
        self.window = window if window is not None else known_window(provider.model)
        self.reserve = reserve if reserve is not None else min(8192, (self.window or 0) // 8)
        """Tokens left free for the answer."""
        self.prices = known_prices(provider.model) if provider.name != "scripted" else None
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.used = 0
        self.scale = 1.0
        """Reported / estimated, from the last request the provider reported on."""
        self.compactions = 0

    def count(self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()) -> int:
        """Tokens a request with ``messages`` and ``tools`` would take (calibrated estimate)."""
        return int(estimate(messages, tools) * self.scale)

    def observe(
        self,
        messages: Sequence[Message],
        usage: Usage,
        tools: Sequence[ToolDefinition] = (),
    ) -> ContextMeter:
        """Account for a response to ``messages`` (the last of which is the response) sent
        with ``tools``."""
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        prompt = 0 if usage.context_tokens is None else usage.context_tokens or usage.input_tokens
        if prompt:
            guessed = estimate(messages[:-1], tools)
            if guessed:
                self.scale = min(max(prompt / guessed, 0.25), 4.0)
            self.used = prompt + usage.output_tokens
        else:
            self.used = self.count(messages)
        return self.meter()

    def meter(self) -> ContextMeter:
        """The window used now, the session's tokens and cost."""
        cost = None
        if self.prices is not None:
            cost = (
                self.input_tokens * self.prices[0] + self.output_tokens * self.prices[1]
            ) / 1_000_000
        return ContextMeter(
            used=self.used,
            window=self.window,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost=cost,
        )

    def is_too_long(self, exc: ProviderError) -> bool:
        """Whether the provider refused a request for its length."""
        return bool(TOO_LONG.search(str(exc)))

    def fits(self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()) -> bool:
        """Whether the request, and room for the answer, fit the window (always, unknown)."""
        if self.window is None:
            return True
        return self.count(messages, tools) + self.reserve <= self.window

    async def fit(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        *,
        force: bool = False,
    ) -> Compaction | None:
        """Compacted messages if they would not fit (or ``force``), else ``None``."""
        if not force and self.fits(messages, tools):
            return None
        before = self.count(messages, tools)
        window = self.window or int(before / TARGET)
        target = int((window - self.reserve) * TARGET)
        if force:
            target = min(target, int(before * TARGET))
        trimmed, count = trim_results(messages)
        notes = [f"{count} older tool results were shortened to a note"] if count else []
        if self.count(trimmed, tools) > target:
            summarised, summarised_count = await self.summarise(trimmed)
            if summarised_count:
                trimmed = summarised
                notes.append(f"{summarised_count} older messages were summarised")
        if not notes:
            return None
        self.compactions += 1
        after = self.count(trimmed, tools)
        self.used = after
        note = "; ".join(notes)
        log.info("compacted the conversation: %s (%d -> %d tokens)", note, before, after)
        return Compaction(
            messages=tuple(trimmed), before_tokens=before, after_tokens=after, note=note
        )

    async def summarise(self, messages: Sequence[Message]) -> tuple[list[Message], int]:
        """Replace the oldest exchanges with one note; how many messages it replaced. A note
        from an earlier compaction is folded into the new one (its tasks and files carried
        over, its summary summarised again), so notes never pile up."""
        start = 2 if len(messages) > 1 and isinstance(messages[0], SystemMessage) else 1
        cut = _cut_point(messages, KEEP_EXCHANGES)
        if cut <= start:
            return list(messages), 0
        head = list(messages[:start])
        middle = list(messages[start:cut])
        tasks: list[str] = []
        files: list[str] = []
        first = head[-1]
        if isinstance(first, UserMessage) and COMPACTED in first.content:
            task, _, old = first.content.partition(f"\n\n{COMPACTED}")
            head[-1] = UserMessage(content=task)
            tasks, files = _carried(old)
            middle.insert(0, UserMessage(content=COMPACTED + old))
        tasks += [
            m.content
            for m in middle
            if isinstance(m, UserMessage) and not m.content.startswith(NOTE_PREFIX)
        ]
        files += [f for f in _files_changed(middle, self.paths_of) if f not in files]
        summary = await self._model_summary(middle)
        parts = [
            f"{COMPACTED}, {len(middle)} earlier messages of this conversation were compacted "
            "into this note. Tools can read anything again."
        ]
        if tasks:
            listed = "\n".join("- " + t.replace("\n", "\n  ") for t in tasks)
            parts.append(f"{TASKS}\n{listed}")
        if files:
            parts.append(FILES + ", ".join(files))
        if summary:
            parts.append("Summary of that part (decisions, findings, what is left):\n" + summary)
        note = UserMessage(content="\n\n".join(parts))
        out = _merge_users([*head, note, *messages[cut:]])
        return out, len(middle)

    async def _model_summary(self, middle: Sequence[Message]) -> str:
        rendered = _render(middle, limit=max(4000, int((self.window or 32_000) * 0.5 * 4)))
        request: list[Message] = [
            SystemMessage(
                content="You summarise a coding agent's work so that it can continue without "
                "the details. Keep: every decision made and why, every file changed and how, "
                "what was found (names, paths, numbers), and what is still to do. Be concise: "
                "at most 300 words, plain text."
            ),
            UserMessage(content=f"Summarise this part of the conversation:\n\n{rendered}"),
        ]
        try:
            response = await self.provider.complete(request, [], stream=False)
        except ProviderError as exc:
            log.info("no model summary (%s); compacting without one", exc)
            return ""
        self.input_tokens += response.usage.input_tokens
        self.output_tokens += response.usage.output_tokens
        return response.message.content.strip()


def trim_results(
    messages: Sequence[Message], keep: int = KEEP_RESULTS
) -> tuple[list[Message], int]:
    """Tool results older than the last ``keep`` replaced by a note of what they were."""
    positions = [i for i, m in enumerate(messages) if isinstance(m, ToolResultMessage)]
    old = set(positions[:-keep] if keep else positions)
    out: list[Message] = []
    trimmed = 0
    for index, message in enumerate(messages):
        if (
            index in old
            and isinstance(message, ToolResultMessage)
            and not message.content.startswith(NOTE_PREFIX)
        ):
            message = message.model_copy(update={"content": _result_note(message)})
            trimmed += 1
        out.append(message)
    return out, trimmed


def _result_note(message: ToolResultMessage) -> str:
    lines = message.content.splitlines()
    first = lines[0][:120] if lines else ""
    outcome = "failed" if message.is_error else "result"
    return (
        f"{NOTE_PREFIX}{message.name} {outcome} compacted to save context: {len(lines)} lines, "
        f"{len(message.content):,} characters, beginning {first!r}. Call the tool again if "
        "you need it."
    )


def _carried(note: str) -> tuple[list[str], list[str]]:
    """The tasks and files an earlier compaction note listed."""
    tasks: list[str] = []
    files: list[str] = []
    for part in note.split("\n\n"):
        if part.startswith(TASKS):
            listed = part.removeprefix(TASKS).removeprefix("\n- ")
            tasks += [t.replace("\n  ", "\n") for t in listed.split("\n- ")]
        elif part.startswith(FILES):
            files += part.removeprefix(FILES).split(", ")
    return tasks, files


def _cut_point(messages: Sequence[Message], keep: int) -> int:
    """Index of the assistant message that starts the last ``keep`` exchanges."""
    starts = [i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)]
    if len(starts) <= keep:
        return 0
    return starts[-keep]


def _files_changed(messages: Sequence[Message], paths_of: PathsLookup) -> list[str]:
    files: list[str] = []
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        for call in message.tool_calls:
            for path in paths_of(call.name, call.arguments).changed:
                if path not in files:
                    files.append(path)
    return files


def _render(messages: Sequence[Message], limit: int) -> str:
    parts = []
    for message in messages:
        match message:
            case UserMessage(content=content):
                parts.append(f"PERSON: {content}")
            case AssistantMessage(content=content, tool_calls=calls):
                if content:
                    parts.append(f"AGENT: {content}")
                parts += [f"AGENT CALLS {c.name}({c.arguments[:500]})" for c in calls]
            case ToolResultMessage(name=name, content=content, is_error=error):
                parts.append(f"{name} {'FAILED' if error else 'RESULT'}: {content[:1500]}")
    text = "\n".join(parts)
    return text if len(text) <= limit else text[: limit // 2] + "\n…\n" + text[-limit // 2 :]


def _merge_users(messages: list[Message]) -> list[Message]:
    """Neighbouring person messages joined into one (providers expect turns to alternate)."""
    out: list[Message] = []
    for message in messages:
        previous = out[-1] if out else None
        if isinstance(message, UserMessage) and isinstance(previous, UserMessage):
            out[-1] = UserMessage(content=f"{previous.content}\n\n{message.content}")
        else:
            out.append(message)
    return out
