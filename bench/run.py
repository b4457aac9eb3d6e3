"""Run every benchmark (or the ones named) and print each one's figures as ratios to its peer.

.venv/bin/python bench/run.py [validation] [files] ...
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

BENCHMARKS = [
    "validation",
    "files",
    "providers",
    "loop",
    "server",
    "sandbox",
    "network",
    "effectiveness",
    "tasks",
    "reading",
    "local",
    "sessions",
    "acp",
    "runners",
]


def main(names: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).parent))
    for name in names or BENCHMARKS:
        if name not in BENCHMARKS:
            print(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS)}")
            return 2
        started = time.perf_counter()
        module = importlib.import_module(f"bench_{name}")
        for line in module.main():
            print(line, flush=True)
        print(f"  ({time.perf_counter() - started:.1f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
