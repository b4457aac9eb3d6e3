"""One new process asking the real model one question after a small fixed prompt, printing
what it had to do: ``python local_state_probe.py MODEL STATES MODEL_SHA256``."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from foehn_lsp.providers.local.engine import EngineSettings, FixedPrompt, engine_for
from foehn_lsp.providers.local.model import runtime_version
from foehn_lsp.providers.local.prompt import fingerprint

FIXED = [
    {"role": "system", "content": "You are terse. " * 30 + "Answer in one word."},
    {"role": "user", "content": "Colour of the sky?"},
    {"role": "assistant", "content": "Blue."},
]


async def main(model: str, states: str, sha256: str) -> None:
    engine = engine_for(
        EngineSettings(
            model=Path(model),
            model_sha256=sha256,
            runtime=runtime_version(),
            window=2048,
            batch=64,
            states=Path(states),
        )
    )
    statuses: list[str] = []
    last: dict[str, Any] = {}

    def chunk(data: Any) -> bool:
        if isinstance(data.get("timings"), dict):
            last.update(data["timings"])
        return False

    body = {"messages": [*FIXED, {"role": "user", "content": "Colour of grass?"}], "max_tokens": 3}
    fixed = FixedPrompt(messages=tuple(FIXED), sha256=fingerprint(FIXED))
    await engine.chat(body, chunk, fixed=fixed, on_status=statuses.append)
    print(
        json.dumps(
            {
                "statuses": statuses,
                "cache_n": last.get("cache_n", 0),
                "prompt_n": last.get("prompt_n", 0),
            }
        )
    )
    engine.close()


asyncio.run(main(*sys.argv[1:4]))
