"""Counting, the meter and compaction, on conversations built by hand."""

from __future__ import annotations

import json

import pytest

from agent.turns import say
from foehn_lsp.agent.context import ContextWindow, known_prices, known_window, trim_results
from foehn_lsp.errors import ProviderRequestError
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from foehn_lsp.providers.scripted import ScriptedProvider
from foehn_lsp.tools import discover

REGISTRY = discover().registry
"""The first-party tools, which name the files a compaction note lists."""


def conversation(steps: int, result_chars: int = 2000) -> list[Message]:
    messages: list[Message] = [
        SystemMessage(content="You are Foehn."),
        UserMessage(content="Fix the parser."),
    ]
    for step in range(steps):
        arguments = json.dumps({"path": f"src/f{step}.py", "content": "x"})
        messages.append(
            AssistantMessage(
                tool_calls=(ToolCall(id=f"c{step}", name="write_file", arguments=arguments),)
            )
        )
        messages.append(
            ToolResultMessage(
                call_id=f"c{step}", name="write_file", content=f"line {step}\n" * result_chars
            )
        )
    return messages


def test_known_models_have_windows_and_prices() -> None:
    assert known_window("devstral-latest") == 128_000
    assert known_window("claude-sonnet-4-5") == 200_000
    assert known_window("gpt-4.1-mini") == 1_047_576
    assert known_window("my-own-model") is None
    assert known_prices("gpt-4.1-mini") == (0.40, 1.60)
    assert known_prices("devstral-latest") is None


def test_the_meter_counts_usage_and_cost() -> None:
    window = ContextWindow(
        paths_of=REGISTRY.paths_of, provider=ScriptedProvider([], model="gpt-4.1-mini"), window=None
    )
    window.prices = known_prices("gpt-4.1-mini")
    meter = window.observe(
        [UserMessage(content="hi" * 400), AssistantMessage(content="ok")],
        Usage(input_tokens=1_000_000, output_tokens=500_000),
    )
    assert meter.window == 1_047_576
    assert meter.used == 1_500_000
    assert meter.cost == pytest.approx(1.20)
    assert "$1.2000" in meter.describe()


def test_the_window_is_measured_by_the_prompt_a_response_came_from() -> None:
    """The embedded model asks again after a guard's note: a step's input tokens are two
    prompts, and measured by their sum the window looked twice as full as it was, and was
    compacted (bench: no-mi-divide, where each compaction cost a re-read of the conversation)."""
    window = ContextWindow(
        paths_of=REGISTRY.paths_of, provider=ScriptedProvider([], model="local"), window=16_384
    )
    sent: list[Message] = [UserMessage(content="x" * 4000), AssistantMessage(content="ok")]
    meter = window.observe(sent, Usage(input_tokens=2_000, output_tokens=10, context_tokens=1_000))
    assert meter.used == 1_010
    assert meter.input_tokens == 2_000
    assert window.count(sent[:1]) == 1_000, "calibrated by the one prompt, not the sum"
    # A response none of whose requests held the conversation (the embedded model's fix
    # written as code) is estimated by that calibration, its tokens still counted.
    meter = window.observe(sent, Usage(input_tokens=300, output_tokens=40, context_tokens=None))
    assert meter.used == window.count(sent) > 1_000
    assert meter.input_tokens == 2_300


def test_old_tool_results_become_a_note_and_the_last_stay() -> None:
    messages = conversation(6)
    trimmed, count = trim_results(messages, keep=2)
    assert count == 4
    results = [m for m in trimmed if isinstance(m, ToolResultMessage)]
    assert results[0].content.startswith("[Foehn] write_file result compacted")
    assert "2,000 lines" in results[0].content or "2000 lines" in results[0].content
    assert results[-1] == messages[-1]
    assert [m.call_id for m in results] == [f"c{i}" for i in range(6)]


async def test_compaction_keeps_the_task_the_files_and_the_last_exchanges() -> None:
    provider = ScriptedProvider([say("Wrote f0-f5; decided to keep the old API.")])
    window = ContextWindow(paths_of=REGISTRY.paths_of, provider=provider, window=4000, reserve=500)
    messages = conversation(10, result_chars=300)
    messages.insert(12, UserMessage(content="Also rename the module."))
    result = await window.fit(messages)
    assert result is not None
    assert result.after_tokens < result.before_tokens
    assert window.fits(result.messages)
    first = result.messages[1]
    assert isinstance(first, UserMessage)
    assert first.content.startswith("Fix the parser.")
    assert "Also rename the module." in first.content
    assert "src/f0.py" in first.content
    assert "decided to keep the old API" in first.content
    assert result.messages[-1] == messages[-1]
    assert result.messages[-4:] == tuple(messages[-4:])
    calls = {c.id for m in result.messages if isinstance(m, AssistantMessage) for c in m.tool_calls}
    answered = {m.call_id for m in result.messages if isinstance(m, ToolResultMessage)}
    assert calls == answered


async def test_a_request_refused_as_too_long_is_recognised() -> None:
    window = ContextWindow(paths_of=REGISTRY.paths_of, provider=ScriptedProvider([]), window=None)
    refused = ProviderRequestError("refused (400): This model's maximum context length is 8192")
    assert window.is_too_long(refused)
    assert not window.is_too_long(ProviderRequestError("refused (400): unknown parameter"))
    forced = await window.fit(conversation(8), force=True)
    assert forced is not None
    assert forced.after_tokens < forced.before_tokens


async def test_a_second_compaction_folds_the_first_note_in() -> None:
    provider = ScriptedProvider([say("first summary"), say("second summary")])
    window = ContextWindow(paths_of=REGISTRY.paths_of, provider=provider, window=4000, reserve=500)
    messages = conversation(10, result_chars=300)
    messages.insert(12, UserMessage(content="Also rename\nthe module."))
    first = await window.fit(messages)
    assert first is not None
    grown = [*first.messages, *conversation(10, result_chars=300)[2:]]
    second = await window.fit(grown)
    assert second is not None
    head = second.messages[1]
    assert isinstance(head, UserMessage)
    assert head.content.count("[Foehn] To fit the model's context window") == 1
    assert head.content.startswith("Fix the parser.\n\n[Foehn]")
    assert "- Also rename\n  the module." in head.content
    assert "second summary" in head.content
    assert "first summary" not in head.content
    assert "src/f0.py" in head.content
