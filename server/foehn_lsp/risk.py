"""How much harm a call can do (``RiskLevel``), and the one way risk changes: raised by an
assessment of the call, never lowered below what was declared. Below the tool contract, so that
settings, the sandbox and MCP's risk mapping name a level without importing tools."""

from __future__ import annotations

import enum


class RiskLevel(enum.Enum):
    """How much harm a call can do. Ordered ``READ_ONLY < WRITE < DESTRUCTIVE``.

    ``UNDEFINED`` is what a tool that declared nothing gets; it ranks as ``DESTRUCTIVE`` so that
    an unknown tool fails closed, but keeps its own name so policy can treat it separately.
    """

    READ_ONLY = "read_only"
    WRITE = "write"
    DESTRUCTIVE = "destructive"
    UNDEFINED = "undefined"

    @property
    def rank(self) -> int:
        """Position in the order; ``UNDEFINED`` shares ``DESTRUCTIVE``'s."""
        return _RANKS[self]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, RiskLevel):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, RiskLevel):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, RiskLevel):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, RiskLevel):
            return NotImplemented
        return self.rank >= other.rank


_RANKS = {
    RiskLevel.READ_ONLY: 0,
    RiskLevel.WRITE: 1,
    RiskLevel.DESTRUCTIVE: 2,
    RiskLevel.UNDEFINED: 2,
}


def raise_risk(declared: RiskLevel, assessed: RiskLevel) -> RiskLevel:
    """The risk of one call: an assessment may raise the declared level, never lower it."""
    return assessed if assessed > declared else declared
