"""A compact map of the workspace for the first request: its source files and their top-level
definitions, the most referenced first, within a token budget that follows the model's window.

Ranking follows Aider's repository map: files are nodes, a file that uses a name another file
defines gives that file weight (more for long, specific names; less for private ones and for
names defined in many places), and PageRank over that graph orders the files. Definitions come
from ``workspace.symbols`` (ast, tree-sitter); uses are the identifiers in each file's text. A
map of a handful of files is not worth its tokens, so small workspaces get none. Files are
listed as the listing tools list them, hidden ones left out, and read only if they really are inside
the workspace.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

from foehn_lsp.errors import PathRefusedError
from foehn_lsp.workspace.listing import list_files
from foehn_lsp.workspace.paths import Workspace, open_confined
from foehn_lsp.workspace.symbols import Symbol, language_of, outline

MIN_FILES = 5
"""Fewer source files than this: no map (``scan`` shows them as cheaply)."""
MAX_FILES = 1000
MAX_FILE_BYTES = 200_000
LIST_TIMEOUT = 10.0
MAX_MAP_TOKENS = 1024
CHARS_PER_TOKEN = 4
MIN_WINDOW = 32_768
"""A model with a smaller window gets no map. The embedded 1.5B model (16k) went after the
names the map listed rather than those its task named: on bench/bench_tasks.py it searched a
test the map listed instead of the failing test named (two boltons fixes) and edited a test
the map listed (``mt-window``); and each task's first step read the map's ~900 tokens (about
25 s on 2 cores)."""
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")

HEADER = (
    "[Foehn] A map of the workspace: source files, the most used first, with their top-level "
    "definitions (outline shows a file's definitions with line ranges, read_symbol one's text):"
)


def map_budget(window: int | None) -> int:
    """Tokens the map may take: a sixteenth of the window, at most ``MAX_MAP_TOKENS``; an
    unknown window gets the most, a window under ``MIN_WINDOW`` none."""
    if window is None:
        return MAX_MAP_TOKENS
    if window < MIN_WINDOW:
        return 0
    return min(MAX_MAP_TOKENS, window // 16)


def repo_map(workspace: Workspace, budget: int) -> str:
    """The map, or ``""`` when the workspace is too small for one or the budget too small."""
    if budget < 64:
        return ""
    files = _source_files(workspace)
    if len(files) < MIN_FILES:
        return ""
    texts: dict[str, str] = {}
    for path in files:
        try:
            fd = open_confined(workspace, path)
        except (OSError, PathRefusedError):
            continue
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        if len(data) <= MAX_FILE_BYTES:
            texts[workspace.display(path)] = data.decode("utf-8", "replace")
    symbols = {name: _top_level(outline(name, text).symbols) for name, text in texts.items()}
    ranked = rank(symbols, {name: Counter(_IDENTIFIER.findall(t)) for name, t in texts.items()})
    lines: list[str] = []
    used = len(HEADER) // CHARS_PER_TOKEN
    for name in ranked:
        line = _line(name, symbols[name])
        cost = len(line) // CHARS_PER_TOKEN + 1
        if used + cost > budget:
            lines.append(f"... {len(ranked) - len(lines)} more files (scan lists them)")
            break
        lines.append(line)
        used += cost
    return "\n".join([HEADER, *lines]) if lines else ""


def rank(symbols: Mapping[str, Sequence[Symbol]], uses: Mapping[str, Counter[str]]) -> list[str]:
    """Files by PageRank over 'uses a name defined there' edges, best first; ties by name."""
    defines: dict[str, set[str]] = defaultdict(set)
    for name, found in symbols.items():
        for symbol in found:
            defines[symbol.name.rsplit(".", 1)[-1]].add(name)
    edges: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for ident, definers in defines.items():
        weight = 1.0
        if len(ident) >= 8 and ("_" in ident or any(c.isupper() for c in ident[1:])):
            weight *= 10
        if ident.startswith("_"):
            weight *= 0.1
        if len(definers) > 5:
            weight *= 0.1
        for user, counts in uses.items():
            count = counts.get(ident, 0) - (1 if user in definers else 0)
            if count <= 0:
                continue
            for definer in definers:
                if definer != user:
                    edges[user][definer] += weight * math.sqrt(count)
    nodes = sorted(symbols)
    score = dict.fromkeys(nodes, 1.0 / max(len(nodes), 1))
    for _ in range(30):
        flow = dict.fromkeys(nodes, (1 - 0.85) / len(nodes))
        dangling = sum(score[n] for n in nodes if not edges.get(n))
        for node in nodes:
            out = edges.get(node)
            if not out:
                continue
            total = sum(out.values())
            for target, weight in out.items():
                flow[target] += 0.85 * score[node] * weight / total
        for node in nodes:
            flow[node] += 0.85 * dangling / len(nodes)
        score = flow
    return sorted(nodes, key=lambda n: (-score[n], n))


def _top_level(symbols: Sequence[Symbol]) -> list[Symbol]:
    return [s for s in symbols if s.depth == 0]


def _line(name: str, symbols: Sequence[Symbol]) -> str:
    shown = ", ".join(f"{s.kind} {s.name}" for s in symbols[:12])
    more = f", +{len(symbols) - 12} more" if len(symbols) > 12 else ""
    return f"{name}: {shown}{more}" if shown else name


def _source_files(workspace: Workspace) -> list[Path]:
    """Source files under the root as the listing tools list them (``workspace.listing``'s
    rules), hidden ones left out, by name; none when listing fails or takes too long."""
    try:
        names = list_files(workspace, timeout=LIST_TIMEOUT)
    except (OSError, TimeoutError):
        return []
    shown = [n for n in names if not any(part.startswith(".") for part in n.split("/"))]
    return [workspace.root / n for n in shown if language_of(n) is not None][:MAX_FILES]
