"""What "allow for this run" remembers: no wider than what the person saw."""

from __future__ import annotations

from dataclasses import dataclass

from foehn_lsp.risk import RiskLevel
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.tools.registry import Invocation


@dataclass(frozen=True, kw_only=True)
class RememberedScope:
    """What "allow for this run" remembers: later calls are allowed unasked only when all five
    are equal, so an approval never widens to another program, sandbox, risk level or
    network."""

    tool: str
    risk: RiskLevel
    program: str | None
    """For calls that start a program: the program, as the model wrote it."""
    sandbox: SandboxPolicy | None
    network: tuple[str, ...] = ()
    """The domains the call may reach, as shown."""

    @classmethod
    def of(cls, invocation: Invocation) -> RememberedScope:
        return cls(
            tool=invocation.tool.name,
            risk=invocation.risk,
            program=invocation.scope.program,
            sandbox=invocation.scope.sandbox,
            network=tuple(d.shown() for d in invocation.scope.network),
        )

    def describe(self) -> str:
        """In words, as the person is shown it: 'run_command calls that run `touch`, at risk
        write, in the workspace-write sandbox'."""
        text = f"{self.tool} calls"
        if self.program is not None:
            text += f" that run `{self.program}`"
        text += f", at risk {self.risk.value}"
        if self.sandbox is not None:
            text += f", in the {self.sandbox} sandbox"
        if self.network:
            text += f", reaching {', '.join(self.network)}"
        return text
