"""What earlier turns showed the model of the workspace's files, read back from the
conversation, so the edit guards hold across turns, processes and front ends alike.

A successful call that reads or writes whole files (``read_file``, ``write_file``: their
``CallPaths.whole``) counts for those files, a successful ``read_symbol`` for that definition,
and each definition a failing ``run_tests`` showed whole (its digest: ``NAME, which …:`` over
``PATH: lines …``) for that definition, as long as its result is still in the conversation: a
result compacted to a note no longer counts, because the model no longer has the text. How the
calls of a failing test's traced statement ended is read back from the same results.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from foehn_lsp.agent.context import NOTE_PREFIX
from foehn_lsp.errors import PathRefusedError
from foehn_lsp.providers.effects import TESTS_TOOL
from foehn_lsp.providers.messages import AssistantMessage, Message, ToolResultMessage
from foehn_lsp.tools.registry import ToolRegistry
from foehn_lsp.workspace import ReadLedger, Workspace
from foehn_lsp.workspace.testfiles import NODE_ID

DIGEST_BLOCK = re.compile(
    r"^(\S+), (?:the failing test|which [^\n]*):\n(\S[^\n]*?): lines \d+-\d+ of \d+$",
    re.MULTILINE,
)
"""A definition a failing run's digest shows whole: its name, then where it is."""
FIRST_FAILURE = re.compile(rf"^The first failure, ({NODE_ID}), from the test", re.MULTILINE)
"""The test a failing run's digest is about."""
CALL_END = re.compile(
    r"^(\S+?)\(.*?\) \(([^()\s]+)\)(?:, which \S+ called,)? ran these lines and "
    r"(returned|raised) (.*) at line (\d+)(?:; the test expects .*)?:$",
    re.MULTILINE,
)
"""How a call the failing statement (or a call it made) made ended, as the traced run shows
it."""


def replay_reads(
    messages: Sequence[Message], workspace: Workspace, tools: ToolRegistry
) -> ReadLedger:
    """The ledger of reads that ``messages`` still carry: the files its calls read or wrote
    whole (``CallPaths.whole``), and the symbols ``read_symbol`` showed."""
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
            if call.name == TESTS_TOOL:  # a failing run shows code; a failed read does not
                content = results[call.id].content
                for name, shown in DIGEST_BLOCK.findall(content):
                    for path in _resolved(workspace, [shown]):
                        ledger.saw_symbol(path, name)
                if (test := FIRST_FAILURE.search(content)) is not None:
                    for name, file, how, value, line in CALL_END.findall(content):
                        ledger.saw_end(
                            test[1].partition("::")[2], (file, name), (how, int(line), value)
                        )
                continue
            if results[call.id].is_error:
                continue
            paths = tools.paths_of(call.name, call.arguments)
            named = [*paths.reads, *paths.changed]
            if paths.whole:
                for path in _resolved(workspace, named):
                    ledger.saw_file(path)
                continue
            try:
                arguments = json.loads(call.arguments or "{}")
            except json.JSONDecodeError:
                continue
            if call.name == "read_symbol" and isinstance(arguments.get("name"), str):
                for path in _resolved(workspace, paths.reads):
                    ledger.saw_symbol(path, arguments["name"])
    return ledger


def _resolved(workspace: Workspace, paths: Sequence[str]) -> list[Path]:
    found = []
    for path in paths:
        try:
            found.append(workspace.resolve(path))
        except (OSError, PathRefusedError):
            continue
    return found
