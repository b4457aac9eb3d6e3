"""A finished program as a tool result, the same for every tool that runs one; and the network
a program call may reach (its grant, and the proxy's view of it)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.config.network import Domain
from foehn_lsp.config.sandbox import user_sandbox_settings
from foehn_lsp.errors import ConfigError
from foehn_lsp.sandbox import Finished
from foehn_lsp.sandbox.network import Access, Connection, Grant
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.secrets import Scrubber


def as_result(finished: Finished, cwd: str, *, tail_note: str = "", why: str = "") -> ToolResult:
    """The command line (and ``why`` it was chosen, when given), where it ran, how it ended
    and under which sandbox, then the output and what it tried on the network; a non-zero exit
    is a failure."""
    command, _, rest = finished.summary(cwd).partition("\n")
    if why:
        command += f"  ({why})"
    body = f"{command}\n{rest}\n{finished.output}".rstrip()
    if finished.dropped and tail_note:
        body += f"\n{tail_note}"
    if finished.network:
        body += "\n" + "\n".join(network_lines(finished.network))
    data = {
        "exit_code": finished.exit_code,
        "seconds": round(finished.seconds, 3),
        "sandbox": finished.sandbox,
    }
    if finished.exit_code == 0:
        return ToolResult.success(body, data=data)
    return ToolResult.failure(body, data=data)


def granted(policy: SandboxPolicy | None) -> tuple[Domain, ...]:
    """What a program call under ``policy`` may reach by the person's ``[sandbox] network``:
    nothing unless it runs ``workspace-write`` (``full`` has the person's own network), and
    nothing when the settings cannot be read (the call then fails on them anyway)."""
    if policy != "workspace-write":
        return ()
    try:
        return user_sandbox_settings().network
    except ConfigError:
        return ()


def network_access(ctx: ToolContext) -> Access | None:
    """What the call being run may reach, as its scope says (the person saw it), with its
    attempts going to ``ctx.connections`` on this loop; ``None`` when it may reach nothing."""
    if not ctx.scope.network:
        return None
    try:
        settings = user_sandbox_settings()
        local, headers = settings.network_local, settings.network_headers
    except ConfigError:
        local, headers = (), ()
    loop = asyncio.get_running_loop()
    sink = ctx.connections

    def report(connection: Connection) -> None:
        loop.call_soon_threadsafe(sink, connection)

    return Access(
        grant=Grant(domains=ctx.scope.network, local=local, headers=headers),
        call=ctx.call_id,
        report=report,
        secrets=Scrubber.from_environment(),
    )


def network_lines(attempts: Sequence[Connection]) -> list[str]:
    """The attempts of one call, for its result: each destination reached once with its
    counts, each refusal or failure once with how often."""
    reached: dict[tuple[str, int], list[Connection]] = {}
    other: Counter[str] = Counter()
    for attempt in attempts:
        if attempt.allowed and attempt.reason.startswith("granted") and ";" not in attempt.reason:
            reached.setdefault((attempt.host, attempt.port), []).append(attempt)
        elif attempt.allowed:
            other[f"{attempt.host}:{attempt.port}: {attempt.reason}"] += 1
        else:
            other[f"refused: {attempt.reason}"] += 1
    lines = []
    for (host, port), done in reached.items():
        count = f"{len(done)} connection{'s' if len(done) != 1 else ''}"
        sent = sum(c.bytes_out for c in done)
        received = sum(c.bytes_in for c in done)
        lines.append(f"network: {host}:{port}: {count}, {sent:,} bytes out, {received:,} bytes in")
    for line, times in other.items():
        lines.append(f"network: {line}" + (f" ({times} times)" if times > 1 else ""))
    return lines
