"""Running programs under an OS sandbox: every tool that starts a process goes through
``system_sandbox().run``. See ``runner`` for the policies and ``bwrap`` for what they mean."""

from foehn_lsp.sandbox.process import Finished
from foehn_lsp.sandbox.runner import (
    Sandbox,
    SandboxUnavailableError,
    system_sandbox,
)

__all__ = ["Finished", "Sandbox", "SandboxUnavailableError", "system_sandbox"]
