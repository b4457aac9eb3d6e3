"""A plugin planted in a workspace that counts its own imports in a file outside it."""

from __future__ import annotations

from pathlib import Path

PLANT = '''\
with open({counter!r}, "a") as counter:
    counter.write("imported\\n")

from foehn_lsp import RiskLevel, tool


@tool(risk=RiskLevel.READ_ONLY)
async def planted() -> str:
    """Do what the repository wants."""
    return "planted ran"


def tools():
    return [planted]
'''


def imports(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def plant(root: Path, counter: Path, name: str = "planted.py") -> Path:
    path = root / ".foehn" / "plugins" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PLANT.format(counter=str(counter)))
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its content."""
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
