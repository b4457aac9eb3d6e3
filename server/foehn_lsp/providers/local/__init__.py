"""``local``: a small model embedded in the install, offline, on the CPU.

The runtime is ``xllamacpp`` (llama.cpp's own server code); the model is
Qwen2.5-Coder-1.5B-Instruct Q4_K_M. The parts, top to bottom:

    provider   LocalProvider: one step = one constrained JSON decision; host guards
    prompt     the fixed prompt (rules, catalogue, examples) and the conversation re-told
    schema     what a step may be: one call of a real tool with valid arguments, or an answer
    answer     the answer streamed as it is written, never a copy of tool output
    account    what a turn changed and its last test run showed, when the answer only copied
    seen       what the conversation has shown of each file (the edit's old_text choices)
    repair     the fix after a failing run, asked for as code and made into the step's edit
    engine     the worker process: start, stream, stop within half a second, kill at exit
    states     the evaluated fixed prompt saved in the user cache for the next process
    worker     the worker process itself (llama.cpp's server on 127.0.0.1)
    model      the model's files: found in their wheels, assembled once, verified
    offer      a model server already running on this machine, to suggest

Nothing here imports the runtime until a model is loaded, and it is loaded in the worker.
"""

from foehn_lsp.providers.local.model import (
    INSTALL_HINT,
    MODEL,
    MODEL_NAME,
    MODEL_SHA256,
    ModelFile,
    ensure_model,
    is_available,
)
from foehn_lsp.providers.local.offer import RunningServer, find_running
from foehn_lsp.providers.local.provider import (
    NO_ANSWER,
    STRENGTHS,
    WINDOW,
    LocalProvider,
    StepTiming,
)

__all__ = [
    "INSTALL_HINT",
    "MODEL",
    "MODEL_NAME",
    "MODEL_SHA256",
    "NO_ANSWER",
    "STRENGTHS",
    "WINDOW",
    "LocalProvider",
    "ModelFile",
    "RunningServer",
    "StepTiming",
    "ensure_model",
    "find_running",
    "is_available",
]
