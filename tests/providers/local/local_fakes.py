"""Helpers for the embedded model's tests with a stand-in worker."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from foehn_lsp.providers.local import LocalProvider
from foehn_lsp.providers.messages import AssistantMessage, Message, ToolCall, ToolResultMessage

FAKE_WORKER = Path(__file__).with_name("local_fake_worker.py")

MakeProvider = Callable[..., LocalProvider]


def answer_chunks(text: str, size: int = 4) -> list[str]:
    """``{"answer": text}`` as the model would stream it, ``size`` characters at a time."""
    raw = json.dumps({"answer": text})
    return [raw[i : i + size] for i in range(0, len(raw), size)]


def example_calls(messages: Sequence[Mapping[str, str]]) -> list[str]:
    """The tools the fixed prompt's examples call, in order (each example step is one JSON
    object: a call or an answer)."""
    steps = (json.loads(m["content"]) for m in messages if m["role"] == "assistant")
    return [step["tool"] for step in steps if "tool" in step]


def exchange(
    call_id: str, name: str, arguments: dict[str, Any], result: str, *, failed: bool = False
) -> list[Message]:
    """A call of ``name`` with ``arguments`` and its ``result`` (an error if ``failed``)."""
    call = ToolCall(id=call_id, name=name, arguments=json.dumps(arguments))
    return [
        AssistantMessage(tool_calls=(call,)),
        ToolResultMessage(call_id=call_id, name=name, content=result, is_error=failed),
    ]


def requests(states: Path) -> list[dict[str, Any]]:
    """What the stand-in workers were sent, in order."""
    log = states / "requests.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.is_file() else []


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the process has used so far, from /proc."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
