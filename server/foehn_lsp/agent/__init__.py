"""One turn: the loop (``loop``), the ordered steps of a call (``chain``), running a turn's calls
(``execution``), the system message, the context window, plan mode, investigate, the repository
map, the read ledger and the editor context. The person's say over calls (rules, hooks,
approval) is ``policy/``; what an answer and an edit are held against is ``checks/``; a saved
conversation is ``sessions/``."""

from foehn_lsp.agent.loop import Agent, TurnOutcome, TurnRequest

__all__ = ["Agent", "TurnOutcome", "TurnRequest"]
