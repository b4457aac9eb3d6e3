"""The network proxy's cost: the same client program, timed inside itself (so the sandbox's
start is not counted), reaching a local HTTP server by name through the sandbox's bridge and
Foehn's proxy (``workspace-write`` with a grant) and directly (``full``, the person's own
network), alternating so that both see the same machine, in one run.

Per connection: a new connection and a small GET each time (the proxy's check, resolution,
connect and relay, against a direct connect). Per MB: one large GET (the relay's copy, against
the kernel's own). And what a grant adds to a call's start (the proxy opened, the bridge
started before the program). The server is a separate process (``python -m http.server``) on
127.0.0.1, reached by the machine's own host name, which must point at 127.0.0.1 (it is
granted, and listed in ``network_local``, in a config of the benchmark's own)."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from foehn_lsp.config.network import Domain, parse_domain
from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.sandbox.network import Access, Grant
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.workspace import Workspace

ROUNDS = 5
CONNECTIONS = 200
MEGABYTES = 64
STARTS = 20
PYTHON = os.path.realpath(sys.executable)
CLIENT = """\
import http.client, sys, time
host, port, count, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
proxied = sys.argv[5] == "1"
started = time.perf_counter()
got = 0
for _ in range(count):
    if proxied:
        connection = http.client.HTTPConnection("127.0.0.1", 3128, timeout=30)
        connection.request("GET", f"http://{host}:{port}{path}")
    else:
        connection = http.client.HTTPConnection(host, port, timeout=30)
        connection.request("GET", path)
    response = connection.getresponse()
    while chunk := response.read(1 << 16):
        got += len(chunk)
    connection.close()
print(time.perf_counter() - started, got)
"""


def _name() -> str | None:
    host = socket.gethostname()
    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(host, 80, socket.AF_INET)}
    except OSError:
        return None
    return host if found and all(a.startswith("127.") for a in found) else None


def _domain(text: str) -> Domain:
    parsed = parse_domain(text, "bench")
    assert isinstance(parsed, Domain), parsed
    return parsed


async def _once(
    workspace: Workspace, host: str, port: int, count: int, path: str, policy: SandboxPolicy
) -> tuple[float, int]:
    proxied = policy != "full"
    access = None
    if proxied:
        grant = Grant(domains=(_domain(f"{host}:{port}"),), local=(_domain(host),))
        access = Access(grant=grant, call="bench")
    argv = [PYTHON, "-c", CLIENT, host, str(port), str(count), path, "1" if proxied else "0"]
    finished = await system_sandbox().run(
        argv, workspace=workspace, cwd=workspace.root, policy=policy, seconds=300, network=access
    )
    if finished.exit_code != 0:
        raise RuntimeError(f"the client failed under {policy}: {finished.output}")
    seconds, received = finished.output.split()[:2]
    return float(seconds), int(received)


async def _measure(
    workspace: Workspace, host: str, port: int
) -> dict[str, dict[SandboxPolicy, float]]:
    """Seconds per connection and per MB, median of the rounds, per policy."""
    policies: tuple[SandboxPolicy, ...] = ("full", "workspace-write")
    per_connection: dict[SandboxPolicy, list[float]] = {p: [] for p in policies}
    per_megabyte: dict[SandboxPolicy, list[float]] = {p: [] for p in policies}
    for policy in policies:  # warm-up
        await _once(workspace, host, port, 5, "/small", policy)
    for _ in range(ROUNDS):
        for policy in policies:
            seconds, _ = await _once(workspace, host, port, CONNECTIONS, "/small", policy)
            per_connection[policy].append(seconds / CONNECTIONS)
            seconds, received = await _once(workspace, host, port, 1, "/big", policy)
            assert received == MEGABYTES * 2**20, received
            per_megabyte[policy].append(seconds / MEGABYTES)
    return {
        "connection": {p: statistics.median(v) for p, v in per_connection.items()},
        "megabyte": {p: statistics.median(v) for p, v in per_megabyte.items()},
    }


async def _starts(workspace: Workspace, host: str, port: int) -> tuple[float, float]:
    """Median wall time of a ``workspace-write`` call of ``true`` with a grant (its proxy and
    bridge) and without, alternating."""
    grant = Grant(domains=(_domain(f"{host}:{port}"),), local=(_domain(host),))
    true = shutil.which("true") or "/bin/true"
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(STARTS):
        for granted in (True, False):
            started = time.perf_counter()
            await system_sandbox().run(
                [true],
                workspace=workspace,
                cwd=workspace.root,
                policy="workspace-write",
                seconds=30,
                network=Access(grant=grant, call="bench") if granted else None,
            )
            times[granted].append(time.perf_counter() - started)
    return statistics.median(times[True]), statistics.median(times[False])


def main() -> list[str]:
    sandbox = system_sandbox()
    if not sandbox.available:
        return [f"network: no sandbox here ({sandbox.note})"]
    host = _name()
    if host is None:
        return ["network: this machine's host name does not point at 127.0.0.1; nothing measured"]
    folder = Path(tempfile.mkdtemp(prefix="foehn-bench-network-"))
    server = None
    try:
        files = folder / "files"
        files.mkdir()
        (files / "small").write_bytes(b"x" * 100)
        (files / "big").write_bytes(os.urandom(2**20) * MEGABYTES)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
             "--directory", str(files)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                break
            except OSError:
                time.sleep(0.05)
        workspace = Workspace([folder])
        measured = asyncio.run(_measure(workspace, host, port))
        with_grant, without = asyncio.run(_starts(workspace, host, port))
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    connection, megabyte = measured["connection"], measured["megabyte"]
    direct_c, proxied_c = connection["full"], connection["workspace-write"]
    direct_m, proxied_m = megabyte["full"], megabyte["workspace-write"]
    return [
        f"network: the proxy against a direct connection, median of {ROUNDS} alternating rounds "
        f"(load average {load} on {os.cpu_count()} CPUs)",
        f"  per connection ({CONNECTIONS} new connections, small GET): "
        f"{proxied_c * 1000:.2f} ms through the proxy vs {direct_c * 1000:.2f} ms direct: "
        f"x{proxied_c / direct_c:.2f}, +{(proxied_c - direct_c) * 1000:.2f} ms",
        f"  per MB (one {MEGABYTES} MB GET): {proxied_m * 1000:.2f} ms through the proxy vs "
        f"{direct_m * 1000:.2f} ms direct: x{proxied_m / direct_m:.2f} "
        f"({1 / proxied_m:.0f} MB/s vs {1 / direct_m:.0f} MB/s)",
        f"  a call's start with a grant (its proxy and bridge): {with_grant * 1000:.1f} ms vs "
        f"{without * 1000:.1f} ms without, workspace-write `true`: +"
        f"{(with_grant - without) * 1000:.1f} ms",
    ]


if __name__ == "__main__":
    print("\n".join(main()))
