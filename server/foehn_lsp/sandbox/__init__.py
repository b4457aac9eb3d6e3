"""Running programs under an OS sandbox: every tool that starts a process goes through
``system_sandbox().run``.

    runner.py        the one way Foehn starts a program: policy, view, limits, environment
    policy.py        the sandbox policies, weakest first
    view.py          what a program sees of the file system: granted, never hidden
    toolchains.py    the person's toolchains, found from their ``PATH``
    project.py       which environment and test runner a project uses
    masks.py         what stays masked inside the folders the view shows
    placeholders.py  protected names that do not exist yet, bound read-only
    bwrap.py         bubblewrap: finding it, checking it, its command line
    limits.py        memory, processes, file size and CPU time
    handshake.py     setting a call's limits from outside before its program starts
    environment.py   the environment a program sees: an allowlist
    network/         the network by grant: the proxy outside, the bridge inside
    process.py       starting one process and collecting what it prints
    report.py        the sandbox described as data (``foehn sandbox``)
"""

from foehn_lsp.sandbox.process import Finished
from foehn_lsp.sandbox.runner import (
    ProgramStartError,
    Sandbox,
    SandboxUnavailableError,
    SandboxViewError,
    system_sandbox,
)

__all__ = [
    "Finished",
    "ProgramStartError",
    "Sandbox",
    "SandboxUnavailableError",
    "SandboxViewError",
    "startup_warning",
    "system_sandbox",
]


def startup_warning() -> str | None:
    """What to tell the person once at start-up: ``None`` when programs are sandboxed, else
    that there is no sandbox and that every program will ask."""
    sandbox = system_sandbox()
    return None if sandbox.available else sandbox.note
