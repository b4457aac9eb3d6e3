"""scan and search on a generated 50,000-file tree with a .gitignore, against ripgrep itself
(``rg --files`` and ``rg PATTERN`` on the same tree) in the same run; and edit_file on a 5 MB
file. Each figure is the median of several end-to-end calls."""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from foehn_lsp import ToolContext
from foehn_lsp.agent.chain import steps
from foehn_lsp.tools import discover
from foehn_lsp.workspace import FileAccess, Workspace
from foehn_lsp.workspace.listing import ripgrep

FILES = 50_000
ROUNDS = 11


def build_tree(root: Path) -> None:
    """A git repository (so plain ``rg`` honours its .gitignore too) of small Python files."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("ignored/\n*.tmp\n")
    per_folder = 100
    for index in range(FILES):
        folder = root / ("ignored" if index % 10 == 0 else "src") / f"pkg{index // per_folder}"
        if index % per_folder == 0 or not folder.exists():
            folder.mkdir(parents=True, exist_ok=True)
        suffix = ".tmp" if index % 25 == 0 else ".py"
        body = f"value_{index} = {index}\n" + ("# needle here\n" if index % 997 == 0 else "")
        (folder / f"module_{index}{suffix}").write_text(body)


def _paired(ours: Callable[[], object], peer: Callable[[], object]) -> tuple[float, float]:
    """Medians of alternating runs, so both sides see the same machine conditions."""
    timings: tuple[list[float], list[float]] = ([], [])
    for _ in range(ROUNDS):
        for side, function in enumerate((ours, peer)):
            start = time.perf_counter()
            function()
            timings[side].append(time.perf_counter() - start)
    return statistics.median(timings[0]), statistics.median(timings[1])


def _median(function: Callable[[], object]) -> float:
    timings = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        function()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def main() -> list[str]:
    rg = ripgrep()
    assert rg is not None
    registry = discover().registry
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        build_tree(root)
        workspace = Workspace([root])
        ctx = ToolContext(workspace=workspace, files=FileAccess(workspace))

        def tool(name: str, arguments: dict[str, object]) -> Callable[[], object]:
            def run() -> object:
                result = asyncio.run(registry.call(name, arguments, ctx, steps=steps()))
                assert result.ok, result.output
                return result

            return run

        def peer(*args: str) -> Callable[[], object]:
            return lambda: subprocess.run([rg, *args], cwd=root, capture_output=True, check=True)

        scan, rg_files = _paired(tool("scan", {}), peer("--files"))
        search, rg_search = _paired(tool("search", {"pattern": "needle here"}), peer("needle here"))

        big = root / "big.py"
        big.write_text("".join(f"line_{i} = {i}  # some padding text\n" for i in range(125_000)))
        size = big.stat().st_size
        counter = iter(range(10**6))
        files = FileAccess(workspace)  # one session's: an edit needs the file read first
        shown = asyncio.run(
            registry.call(
                "read_file",
                {"path": "big.py", "around": "line_60000"},
                ToolContext(workspace=workspace, files=files),
                steps=steps(),
            )
        )
        assert shown.ok, shown.output

        async def edit_once() -> None:
            n = next(counter)
            old, new = (
                ("line_60000 = 60000", f"line_60000 = {n}")
                if n % 2 == 0
                else (f"line_60000 = {n - 1}", "line_60000 = 60000")
            )
            result = await registry.call(
                "edit_file",
                {"path": "big.py", "edits": [{"old_text": old, "new_text": new}]},
                ToolContext(workspace=workspace, files=files),
                steps=steps(),
            )
            assert result.ok, result.output

        edit = _median(lambda: asyncio.run(edit_once()))

    return [
        f"files ({FILES:,}-file tree with .gitignore; median of {ROUNDS}; peer: ripgrep)",
        f"  scan   {scan * 1000:8.1f} ms   rg --files {rg_files * 1000:8.1f} ms   "
        f"ratio {scan / rg_files:5.2f}x",
        f"  search {search * 1000:8.1f} ms   rg PATTERN {rg_search * 1000:7.1f} ms   "
        f"ratio {search / rg_search:5.2f}x",
        f"  edit_file on a {size / 1e6:.1f} MB file: {edit * 1000:.1f} ms (read, match, diff, "
        "atomic write)",
    ]


if __name__ == "__main__":
    print("\n".join(main()))
