"""The embedded model's own process: llama.cpp's server, loaded once, on 127.0.0.1.

    python -m foehn_lsp.providers.local.worker      (started by ``engine``, never by hand)

Why a process of its own: a request inside llama.cpp cannot be interrupted from Python, and a
thread blocked in it keeps the interpreter from exiting; a process can always be stopped (its
HTTP request closed, or the process killed), frees its cores at once, and a crash in native
code does not take the editor's language server with it.

Protocol: the parent writes one line of JSON (a ``WorkerConfig``) on stdin; the worker loads
the model and answers with one line on stdout, ``{"address": "http://127.0.0.1:PORT"}`` or
``{"error": "..."}``. It then serves llama.cpp's OpenAI-compatible API, and its slot save and
restore, on that port to whoever holds ``api_key``, and exits at once when its stdin closes
(the parent is gone), without waiting for anything.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass


@dataclass(frozen=True, kw_only=True)
class WorkerConfig:
    """What the worker loads and how it computes."""

    model: str
    """Path of the verified GGUF file."""
    window: int
    """The context window in tokens (llama.cpp's ``n_ctx``)."""
    threads: int
    """Threads generating tokens."""
    batch_threads: int
    """Threads reading prompts."""
    batch: int
    """Tokens of a prompt computed in one step (``n_batch`` = ``n_ubatch``): the longest a
    step of prompt reading runs before a stop request is seen."""
    state_dir: str
    """Where slot states are saved and restored from (llama.cpp's ``slot_save_path``)."""
    api_key: str
    """Required on every request: the port is on 127.0.0.1, but other users of the machine
    can reach it too."""
    ram_cache_mib: int = 512
    """Host memory llama.cpp may use to keep earlier prompts' states."""

    def line(self) -> str:
        return json.dumps(asdict(self)) + "\n"


def _serve(config: WorkerConfig) -> object:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = config.model
    params.n_ctx = config.window
    params.n_parallel = 1
    params.verbosity = -1
    # The warm-up decode and the memory fitting each cost seconds at every start and change
    # nothing for one small model on the CPU.
    params.warmup = False
    params.fit_params = False
    params.n_batch = params.n_ubatch = config.batch
    params.cpuparams.n_threads = config.threads
    params.cpuparams_batch.n_threads = config.batch_threads
    # Threads that spin while waiting keep a core busy after a request ends or is stopped.
    params.cpuparams.poll = params.cpuparams_batch.poll = 0
    params.slot_save_path = os.path.join(config.state_dir, "")
    params.api_keys = [config.api_key]
    params.cache_ram_mib = config.ram_cache_mib
    params.port = 0
    return xllamacpp.Server(params)


def main() -> None:
    try:
        config = WorkerConfig(**json.loads(sys.stdin.readline()))
        server = _serve(config)
        address = getattr(server, "listening_address", "")
        if not address:
            raise RuntimeError("llama.cpp's server did not report its address")
        reply = {"address": address}
    except Exception as exc:  # everything reaches the parent as one line; nothing else will
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)
        os._exit(1)
    print(json.dumps(reply), flush=True)
    sys.stdin.read()
    # Exit without running llama.cpp's destructors, which wait for a computation in progress.
    os._exit(0)


if __name__ == "__main__":
    main()
