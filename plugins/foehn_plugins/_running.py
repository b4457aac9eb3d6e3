"""A finished program as a tool result, the same for every tool that runs one."""

from __future__ import annotations

from foehn_lsp import ToolResult
from foehn_lsp.sandbox import Finished


def as_result(finished: Finished, cwd: str, *, tail_note: str = "", why: str = "") -> ToolResult:
    """The command line (and ``why`` it was chosen, when given), where it ran, how it ended
    and under which sandbox, then the output; a non-zero exit is a failure."""
    command, _, rest = finished.summary(cwd).partition("\n")
    if why:
        command += f"  ({why})"
    body = f"{command}\n{rest}\n{finished.output}".rstrip()
    if finished.dropped and tail_note:
        body += f"\n{tail_note}"
    data = {
        "exit_code": finished.exit_code,
        "seconds": round(finished.seconds, 3),
        "sandbox": finished.sandbox,
    }
    if finished.exit_code == 0:
        return ToolResult.success(body, data=data)
    return ToolResult.failure(body, data=data)
