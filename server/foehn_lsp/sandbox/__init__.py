"""Running programs under an OS sandbox: every tool that starts a process goes through
``system_sandbox().run``. See ``runner`` for the policies, ``view`` for what a program sees,
``limits`` for what bounds it and ``bwrap`` for how it is built."""

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
