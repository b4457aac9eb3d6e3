"""One turn of a conversation. The person's say over calls (rules, hooks, approval) is
``policy/``; what an answer and an edit are held against is ``checks/``; a saved conversation is
``sessions/``.

    loop.py            the loop: ask, run the calls, repeat; always end with a reason
    chain.py           the ordered steps of a call, written once
    execution.py       running one step's calls, each through the chain
    prompt.py          the system message
    context.py         counting tokens, the window, compaction
    plan_mode.py       plan first (read-only), carry the approved plan out
    test_driven.py     a task that fixes the code behind a failing test leaves the tests alone
    investigate.py     a read-only sub-run that answers one question
    repomap.py         the map of the workspace for the first request
    reads.py           what earlier turns showed the model of files (the edit guards)
    editor_context.py  the file and selection the person is looking at
"""

from foehn_lsp.agent.loop import Agent, TurnOutcome, TurnRequest

__all__ = ["Agent", "TurnOutcome", "TurnRequest"]
