"""A larger model already running on this machine, to suggest while the small one answers.

Ollama, llama.cpp's server, LM Studio and vLLM each speak the OpenAI-compatible API on their
usual port. When one answers ``GET /v1/models`` with at least one model, the person is told how
to use it; it is never used without being chosen. The probe asks 127.0.0.1 only, all ports at
once, with a short timeout: a closed port refuses at once, so start-up does not wait on it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from foehn_lsp.errors import ProviderError
from foehn_lsp.providers.http import HttpClient

PORTS: tuple[tuple[int, str], ...] = (
    (11434, "Ollama"),
    (8080, "a llama.cpp server"),
    (1234, "LM Studio"),
    (8000, "vLLM"),
)
TIMEOUT = 0.3
"""Seconds a port may take to answer (a closed port answers in a millisecond)."""


@dataclass(frozen=True, kw_only=True)
class RunningServer:
    name: str
    base_url: str
    model: str

    def line(self) -> str:
        """How to use it, in one line."""
        return (
            f"{self.name} is running at {self.base_url} with {self.model}; to use it: "
            f"--provider openai --base-url {self.base_url} --model {self.model} "
            "(or FOEHN_PROVIDER, FOEHN_BASE_URL, FOEHN_MODEL)"
        )


async def _probe(port: int, name: str, seconds: float) -> RunningServer | None:
    base_url = f"http://127.0.0.1:{port}/v1"
    http = HttpClient(
        label=name, base_url=base_url, headers={}, secret=None, timeout=seconds, max_retries=0
    )
    try:
        listing = await asyncio.wait_for(http.get_json("/models"), seconds)
    except (TimeoutError, ProviderError):
        return None
    finally:
        await http.aclose()
    models = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(models, list):
        return None
    names = [m["id"] for m in models if isinstance(m, dict) and isinstance(m.get("id"), str)]
    return RunningServer(name=name, base_url=base_url, model=names[0]) if names else None


async def find_running(
    ports: Sequence[tuple[int, str]] = PORTS, seconds: float = TIMEOUT
) -> RunningServer | None:
    """The first of ``ports`` (in order) with an OpenAI-compatible server and a model, each
    given ``seconds`` to answer."""
    found = await asyncio.gather(*(_probe(port, name, seconds) for port, name in ports))
    return next((server for server in found if server is not None), None)
