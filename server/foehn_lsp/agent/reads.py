"""What earlier turns showed the model of the workspace's files, read back from the
conversation, so the edit guards hold across turns, processes and front ends alike.

A successful ``read_file`` or ``write_file`` counts for the whole file, a successful
``read_symbol`` for that definition, and each definition a failing ``run_tests`` showed whole
(its digest: ``NAME, which …:`` over ``PATH: lines …``) for that definition, as long as its
result is still in the conversation: a result compacted to a note no longer counts, because the
model no longer has the text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from foehn_lsp.agent.context import NOTE_PREFIX
from foehn_lsp.errors import PathRefusedError
from foehn_lsp.providers.messages import AssistantMessage, Message, ToolResultMessage
from foehn_lsp.workspace import ReadLedger, Workspace

WHOLE_FILE_TOOLS = frozenset({"read_file", "write_file"})
DIGEST_BLOCK = re.compile(
    r"^(\S+), (?:the failing test|which [^\n]*):\n(\S[^\n]*?): lines \d+-\d+ of \d+$",
    re.MULTILINE,
)
"""A definition a failing run's digest shows whole: its name, then where it is."""


def replay_reads(messages: Sequence[Message], workspace: Workspace) -> ReadLedger:
    """The ledger of reads that ``messages`` still carry."""
    ledger = ReadLedger()
    results = {
        m.call_id: m
        for m in messages
        if isinstance(m, ToolResultMessage) and not m.content.startswith(NOTE_PREFIX)
    }
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        for call in message.tool_calls:
            if call.id not in results:
                continue
            if call.name == "run_tests":  # a failing run shows code; a failed read does not
                for name, shown in DIGEST_BLOCK.findall(results[call.id].content):
                    try:
                        ledger.saw_symbol(workspace.resolve(shown), name)
                    except (OSError, PathRefusedError):
                        continue
                continue
            if results[call.id].is_error:
                continue
            try:
                arguments = json.loads(call.arguments or "{}")
                path = workspace.resolve(str(arguments["path"]))
            except (json.JSONDecodeError, KeyError, TypeError, OSError, PathRefusedError):
                continue
            if call.name in WHOLE_FILE_TOOLS:
                ledger.saw_file(path)
            elif call.name == "read_symbol" and isinstance(arguments.get("name"), str):
                ledger.saw_symbol(path, arguments["name"])
    return ledger
