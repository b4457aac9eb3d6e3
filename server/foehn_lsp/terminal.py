"""``foehn run`` in a terminal: events rendered for people, and approval prompts."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TextIO

from foehn_lsp.agent.approval import ApprovalDecision, ApprovalRequest, Approved, Denied
from foehn_lsp.agent.events import (
    ApprovalEvent,
    Done,
    RunEvent,
    TextDelta,
    Thinking,
    ToolCallEvent,
    ToolResultEvent,
    event_json,
)

MAX_ARGUMENT_CHARS = 160


class JsonPrinter:
    """``--json``: one JSON object per event per line on stdout."""

    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out

    def __call__(self, event: RunEvent) -> None:
        self.out.write(json.dumps(event_json(event), ensure_ascii=False) + "\n")
        self.out.flush()


class HumanPrinter:
    """Streamed text on stdout; a line per tool call and its outcome, and progress, on stderr."""

    def __init__(self, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> None:
        self.out, self.err = out, err
        self.progress = err.isatty()
        self._status = False
        self._text_since_tool = ""

    def _clear_status(self) -> None:
        if self._status:
            self.err.write("\r\033[K")
            self._status = False

    def __call__(self, event: RunEvent) -> None:
        self._clear_status()
        match event:
            case Thinking(iteration=iteration) if self.progress:
                self.err.write(f"… thinking (step {iteration + 1})")
                self._status = True
            case TextDelta(text=text):
                self.out.write(text)
                self._text_since_tool += text
            case ToolCallEvent(tool=tool, arguments=arguments, risk=risk):
                if self._text_since_tool and not self._text_since_tool.endswith("\n"):
                    self.out.write("\n")
                self._text_since_tool = ""
                shown = json.dumps(arguments, ensure_ascii=False)
                if len(shown) > MAX_ARGUMENT_CHARS:
                    shown = shown[:MAX_ARGUMENT_CHARS] + "…"
                self.err.write(f"▸ {tool} {shown} [{risk}]\n")
            case ApprovalEvent(decision="deny", reason=reason):
                self.err.write(f"  ✗ denied: {reason}\n")
            case ToolResultEvent(ok=ok, output=output):
                lines = output.splitlines() or [""]
                more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
                self.err.write(f"  {'✓' if ok else '✗'} {lines[0][:150]}{more}\n")
            case Done(reason=reason, answer=answer, iterations=iterations):
                if reason != "answer" and answer:
                    self.out.write(("\n" if self._text_since_tool else "") + answer)
                self.out.write("\n")
                self.err.write(
                    f"[{reason}, {iterations} tool iteration{'s' if iterations != 1 else ''}]\n"
                )
        self.out.flush()
        self.err.flush()


class TerminalApprover:
    """Asks on the terminal: the tool, its risk, the exact arguments and the diff."""

    def __init__(self, err: TextIO = sys.stderr) -> None:
        self.err = err

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        lines = [
            f"\nFoehn wants to run {request.tool} ({request.risk}):",
            json.dumps(request.arguments, indent=2, ensure_ascii=False),
        ]
        if request.preview:
            lines += [request.summary or "", request.preview]
        self.err.write("\n".join(lines) + "\n")
        self.err.write("Allow? [y] once, [a] for this run, [N] deny: ")
        self.err.flush()
        try:
            answer = await asyncio.to_thread(sys.stdin.readline)
        except (OSError, ValueError):
            answer = ""
        match answer.strip().lower():
            case "y" | "yes":
                return Approved(scope="once")
            case "a" | "all":
                return Approved(scope="run")
            case "":
                return Denied(reason="no answer")
            case _:
                return Denied(reason="denied in the terminal")
