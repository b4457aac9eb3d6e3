"""The sandbox described as data: the view a program gets, each folder with why it is there,
what each policy may write, what is masked, the ``PATH`` inside, the limits and the network a
call may reach (``foehn sandbox`` prints it, ``cli/sandbox.py``); and the short section ``foehn
tools`` shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from foehn_lsp.config.sandbox import user_sandbox_settings
from foehn_lsp.errors import ConfigError
from foehn_lsp.sandbox.limits import process_limit
from foehn_lsp.sandbox.network import PROXY_PORT
from foehn_lsp.sandbox.runner import Sandbox, SandboxViewError
from foehn_lsp.sandbox.view import PROTECTED_NAMES
from foehn_lsp.workspace import Workspace


def describe(sandbox: Sandbox, workspace: Workspace) -> dict[str, Any]:
    """The view of ``workspace`` as data (what ``foehn sandbox --json`` prints). Raises
    ``SandboxViewError`` when the sandbox settings cannot be read."""
    if not sandbox.available:
        return {"available": False, "note": sandbox.note, "network": network(available=False)}
    seen = sandbox.view(workspace, workspace.root, "workspace-write")
    machine = seen.machine
    limits = machine.limits
    return {
        "available": True,
        "note": sandbox.note,
        "visible": [{"path": str(e.path), "kind": e.kind, "why": e.why} for e in seen.entries()],
        "links": [{"path": str(link), "target": target} for link, target in machine.links],
        "scratch": [str(p) for p in seen.scratch()],
        "writable": {
            "read-only": [],
            "read-only layer": sandbox.layer,
            "workspace-write": [str(r) for r in seen.roots],
            "protected": [str(r / name) for r in seen.roots for name in PROTECTED_NAMES],
        },
        "masked": [str(p) for p in seen.masked],
        "path": {
            "read-only": [str(p) for p in seen.search_path(workspace=False)],
            "workspace-write": [str(p) for p in seen.search_path(workspace=True)],
        },
        "left_out": [{"entry": entry, "why": why} for entry, why in machine.dropped],
        "not_bound": list(machine.refused),
        "limits": {
            "memory_mb": limits.memory_mb,
            "processes": limits.processes,
            "file_size_mb": limits.file_size_mb,
            "cpu_seconds": limits.cpu_seconds,
            "processes_enforced": process_limit().note,
        },
        "network": network(available=True),
    }


def network(*, available: bool) -> dict[str, Any]:
    """What calls may reach: ``[sandbox] network`` (which approved ``workspace-write`` calls,
    sandboxed MCP servers run ``workspace-write`` and ``fetch`` get), ``network_local``, the
    headers a key may go in (``network_headers``), the entries left out, and how programs
    reach it. Raises ``SandboxViewError`` when the settings cannot be read."""
    try:
        settings = user_sandbox_settings()
    except ConfigError as exc:
        raise SandboxViewError(str(exc)) from None
    if not available:
        how = "no sandbox: every program asks and runs with your own network"
    elif settings.network:
        how = (
            f"workspace-write calls reach the granted domains through a proxy outside the "
            f"sandbox (127.0.0.1:{PROXY_PORT} inside); read-only calls have no network"
        )
    else:
        how = "none granted: no sandboxed program reaches the network"
    return {
        "granted": [{"domain": d.shown(), "source": d.source} for d in settings.network],
        "local": [{"domain": d.shown(), "source": d.source} for d in settings.network_local],
        "headers": [
            {"domain": a.domain.shown(), "headers": list(a.headers), "source": a.domain.source}
            for a in settings.network_headers
        ],
        "problems": list(settings.network_problems),
        "how": how,
    }


def lines(sandbox: Sandbox, workspace: Workspace) -> list[str]:
    """``describe`` for a person."""
    data = describe(sandbox, workspace)
    out = [f"sandbox: {data['note']}"]
    if not data["available"]:
        return out + network_lines(data["network"])
    width = max(len(e["path"]) for e in data["visible"])
    out.append("visible (read-only unless said):")
    out += [f"  {e['path']:<{width}}  {e['kind']}: {e['why']}" for e in data["visible"]]
    out += [
        f"  {link['path']:<{width}}  system: a link to {link['target']}" for link in data["links"]
    ]
    out.append(f"  scratch, private and empty for each call: {', '.join(data['scratch'])}")
    protected = ", ".join(PROTECTED_NAMES)
    out.append("writable:")
    if data["writable"]["read-only layer"]:
        out.append(
            "  read-only        nothing but the scratch folders; what it writes in the "
            "workspace lands in a throwaway layer and vanishes with the call"
        )
    else:
        out.append("  read-only        nothing but the scratch folders")
    out.append(
        f"  workspace-write  the workspace roots, except {protected} (no program creates them)"
    )
    out.append("  full             whatever the person may write (asked every time)")
    out.append("masked (cannot be opened):" if data["masked"] else "masked: nothing")
    out += [f"  {path}" for path in data["masked"]]
    out.append("PATH inside (read-only calls): " + ":".join(data["path"]["read-only"]))
    if data["path"]["workspace-write"] != data["path"]["read-only"]:
        out.append("PATH inside (other calls): " + ":".join(data["path"]["workspace-write"]))
    out += [f"left out of PATH: {d['entry'] or '(empty)'}: {d['why']}" for d in data["left_out"]]
    out += [f"not bound: {line}" for line in data["not_bound"]]
    limits = data["limits"]
    out.append(
        f"limits: memory {limits['memory_mb']} MB of data per program, processes "
        f"{limits['processes']} ({limits['processes_enforced']}), file size "
        f"{limits['file_size_mb']} MB, CPU time {limits['cpu_seconds']} s per program; "
        "set in [sandbox] of the user config"
    )
    return out + network_lines(data["network"])


def network_lines(reach: dict[str, Any]) -> list[str]:
    """The ``network`` part of ``describe``, for a person."""
    out = [f"network: {reach['how']}"]
    out += [f"  granted  {d['domain']}  ({d['source']})" for d in reach["granted"]]
    out += [f"  local    {d['domain']}  ({d['source']}): may resolve here" for d in reach["local"]]
    out += [
        f"  headers  {d['domain']}  ({d['source']}): a key may go in {', '.join(d['headers'])}"
        for d in reach["headers"]
    ]
    out += [f"  ignored  {problem}" for problem in reach["problems"]]
    return out


def for_tools(sandbox: Sandbox, root: Path) -> dict[str, Any]:
    """The ``sandbox`` object of ``foehn tools --json``: ``describe``, or the problem."""
    try:
        return describe(sandbox, Workspace([root]))
    except SandboxViewError as exc:
        return {"available": sandbox.available, "note": sandbox.note, "problem": str(exc)}


def summary(sandbox: Sandbox, root: Path) -> list[str]:
    """The short section of ``foehn tools``."""
    data = for_tools(sandbox, root)
    if "problem" in data:
        return [f"sandbox: {data['problem']}"]
    if not data["available"]:
        return [f"sandbox: {data['note']}"]
    kinds: dict[str, int] = {}
    for entry in data["visible"]:
        kinds[entry["kind"]] = kinds.get(entry["kind"], 0) + 1
    shown = ", ".join(f"{n} {kind}" for kind, n in kinds.items())
    limits = data["limits"]
    return [
        f"sandbox: {data['note']}",
        f"  sees {shown} (foehn sandbox lists them); {len(data['masked'])} paths masked",
        f"  limits: {limits['memory_mb']} MB, {limits['processes']} processes, "
        f"{limits['file_size_mb']} MB files, {limits['cpu_seconds']} s CPU",
    ]
