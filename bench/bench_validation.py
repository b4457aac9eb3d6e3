"""Argument validation throughput: Foehn's typed (pydantic) and untyped (jsonschema-rs) paths
against python-jsonschema, on the same schema and the same arguments, in one run."""

from __future__ import annotations

import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Annotated, Any, Literal

import jsonschema
from pydantic import BaseModel, Field

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult


class EditBlock(BaseModel):
    old_text: str
    new_text: str


class Arguments(BaseModel):
    path: Annotated[str, Field(min_length=1)]
    mode: Literal["replace", "append", "insert"] = "replace"
    line: Annotated[int, Field(ge=1)] = 1
    dry_run: bool = False
    edits: list[EditBlock]


async def _noop(arguments: Any, ctx: ToolContext) -> ToolResult:
    return ToolResult.success("")


TYPED = Tool.from_model(
    name="typed", description="x", model=Arguments, execute=_noop, risk=RiskLevel.WRITE
)
SCHEMA = dict(TYPED.parameters)
UNTYPED = Tool.from_schema(
    name="untyped", description="x", parameters=SCHEMA, execute=_noop, risk=RiskLevel.WRITE
)
ARGUMENTS = {
    "path": "src/app.py",
    "mode": "replace",
    "line": 12,
    "dry_run": False,
    "edits": [{"old_text": f"value = {i}", "new_text": f"value = {i + 1}"} for i in range(5)],
}


def _rate(validate: Callable[[dict[str, Any]], object], seconds: float = 1.0) -> float:
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(200):
            validate(ARGUMENTS)
        calls += 200
    return calls / elapsed


def main() -> list[str]:
    reference = jsonschema.Draft202012Validator(SCHEMA)
    peer = _rate(reference.validate)
    typed = _rate(TYPED.validate)
    untyped = _rate(UNTYPED.validate)
    return [
        f"validation (calls/s, higher is better; peer: python-jsonschema {version('jsonschema')})",
        f"  python-jsonschema           {peer:>12,.0f}",
        f"  foehn typed (pydantic)      {typed:>12,.0f}   {typed / peer:6.1f}x the peer",
        f"  foehn untyped (jsonschema-rs){untyped:>11,.0f}   {untyped / peer:6.1f}x the peer",
    ]


if __name__ == "__main__":
    print("\n".join(main()))
