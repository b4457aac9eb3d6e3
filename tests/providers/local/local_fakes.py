"""Helpers for the embedded model's tests with a stand-in worker."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from foehn_lsp.providers.local import LocalProvider

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


def requests(states: Path) -> list[dict[str, Any]]:
    """What the stand-in workers were sent, in order."""
    log = states / "requests.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.is_file() else []


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the process has used so far, from /proc."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
