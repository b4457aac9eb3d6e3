"""How much a tool returns for the model's context window (``ToolContext.window``).

A small window (up to ``SMALL_WINDOW`` tokens: the embedded model's is 16,384) is filled by a
few whole files, and on a CPU every token of a result is read before the next step: a 430-line
test file cost 150-200 s on 2 busy cores. There, ``read_file`` of a long file shows an outline
and the region asked for (a sixteenth of the window), a read by range what was asked up to a
quarter of the window, and a failing ``run_tests`` its digest without pytest's report (or,
with no digest, its output's end within a read's share). Unknown windows are taken as large.
"""

from __future__ import annotations

SMALL_WINDOW = 32_768
"""Context windows (tokens) up to this size are small."""
CHARACTERS_PER_TOKEN = 4
READ_SHARE = 16
"""A read in a small window returns at most this fraction of the window..."""
RANGE_SHARE = 4
"""... and one that names its lines (an offset or a limit) at most this one."""


def is_small(window: int | None) -> bool:
    return window is not None and window <= SMALL_WINDOW


def read_budget(window: int | None, *, ranged: bool = False) -> int | None:
    """Characters one read (``ranged``: one by offset or limit) may return in this window;
    ``None``: no limit but the tool's."""
    if not is_small(window):
        return None
    assert window is not None
    return window * CHARACTERS_PER_TOKEN // (RANGE_SHARE if ranged else READ_SHARE)
