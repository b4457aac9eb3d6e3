"""``foehn run`` in a terminal: events rendered for people, and approval prompts.

stdout carries only the answer (or, with ``--json``, the events); everything else — the header,
tool lines, diffs, the spinner, the summary, errors — goes to stderr, so that
``out=$(foehn run …)`` captures the answer and nothing else. Colour follows the terminal and
``NO_COLOR`` (rich decides). The approval prompt is asynchronous (prompt_toolkit on a terminal, a
cancellable pipe reader otherwise), so Ctrl-C or a stop ends it at once.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from foehn_lsp.cli import approval_prompt, elicit_prompt
from foehn_lsp.cli.output import Stdout
from foehn_lsp.config import Settings
from foehn_lsp.errors import FoehnError
from foehn_lsp.events import (
    ApprovalEvent,
    Checked,
    Done,
    FilesChanged,
    NetworkEvent,
    PlanEvent,
    TextDelta,
    Thinking,
    TodoEvent,
    ToolCallEvent,
    ToolProgress,
    ToolResultEvent,
    TurnEvent,
    event_json,
)
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalRequest, Denied, reaching
from foehn_lsp.policy.plans import ApprovePlan, PlanDecision, ProposedPlan, RejectPlan
from foehn_lsp.providers.status import provider_status
from foehn_lsp.tools.contract import CHANGING_KINDS
from foehn_lsp.tools.elicitation import ElicitationAnswer, ElicitationRequest
from foehn_lsp.tools.tasks import TaskItem

MAX_ARGUMENT_CHARS = 160
MAX_PROBLEMS_SHOWN = 10
SPINNER_FRAMES_PER_SECOND = 12.5


def error_console() -> Console:
    """stderr as rich sees it: styles only on a terminal and without ``NO_COLOR`` (which,
    unlike rich's own reading of it, drops bold and dim too: no escape codes at all)."""
    plain = bool(os.environ.get("NO_COLOR"))
    return Console(
        file=sys.stderr,
        highlight=False,
        soft_wrap=True,
        markup=False,
        emoji=False,
        color_system=None if plain else "auto",
    )


def diff_text(diff: str) -> Text:
    """A unified diff, coloured by line: additions green, removals red, hunks cyan."""
    text = Text()
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = ""
        text.append(line + "\n", style=style)
    return text


def split_diff(output: str) -> tuple[str, str]:
    """A file tool's output as (summary, unified diff); the diff is empty if there is none."""
    start = output.find("\n--- ")
    if start < 0:
        return output, ""
    return output[:start], output[start + 1 :]


APPROVE_MODES = {
    "ask": "ask before risky calls",
    "never": "deny every call policy would ask about",
    "all": "every call will run without asking",
}


def run_header(settings: Settings, root: Path, approve: str) -> str:
    """One line: provider, model, workspace and approval mode; when the small embedded model
    answers, what it is good at, and a second line naming a model server already running on
    this machine, if there is one (offered, never used unasked)."""
    from foehn_lsp.providers import local

    status = provider_status(settings)
    name = status.provider or "none"
    offer = ""
    if status.embedded:
        model = f"{status.embedded_model} ({local.STRENGTHS})"
        running = asyncio.run(local.find_running())
        offer = f"\n{running.line()}" if running else ""
    else:
        try:
            model = settings.resolved_model()
        except FoehnError:
            model = "?"
    home = Path.home()
    shown = f"~/{root.relative_to(home)}" if root.is_relative_to(home) else str(root)
    return (
        f"foehn · {name} · {model} · {shown} · --approve {approve}: {APPROVE_MODES[approve]}"
        + offer
    )


class JsonPrinter:
    """``--json``: one JSON object per event per line on stdout."""

    def __init__(self, out: Stdout | None = None) -> None:
        self.out = out or Stdout()

    def __call__(self, event: TurnEvent) -> None:
        self.out.write(json.dumps(event_json(event), ensure_ascii=False) + "\n")
        self.out.flush()


@dataclass
class RunSummary:
    """What the person is told at the end: files changed (``files_changed``: without the files
    the workspace ignores), calls denied, tests run."""

    changed: dict[str, None] = field(default_factory=dict)
    denied: int = 0
    tests: list[str] = field(default_factory=list)

    def line(self, reason: str, iterations: int) -> str:
        steps = f"{iterations} tool iteration{'s' if iterations != 1 else ''}"
        files = ", ".join(self.changed) if self.changed else "none"
        tests = "; ".join(self.tests) if self.tests else "none"
        denied = f"{self.denied} call{'s' if self.denied != 1 else ''} denied"
        return f"[{reason}, {steps}] files changed: {files} · {denied} · tests run: {tests}"


def _spinner(text: str) -> Spinner:
    return Spinner("dots", text=text, style="status.spinner")


class HumanPrinter:
    """The answer on stdout; a header, a line per tool call and its outcome, the diff of every
    change the person did not already see in a prompt, a spinner while the model thinks, and a
    summary at the end, on stderr."""

    def __init__(self, out: Stdout | None = None, err: Console | None = None) -> None:
        self.out = out or Stdout()
        self.err = err or error_console()
        self.summary = RunSummary()
        self._status: Live | None = None
        self._calls: dict[str, ToolCallEvent] = {}
        self.diffs_shown: set[str] = set()
        """Calls whose diff the person saw in an approval prompt (not shown again)."""
        self._streamed = ""

    def header(self, line: str) -> None:
        self.err.print(Text(line, style="dim"))

    def stop_spinner(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def __call__(self, event: TurnEvent) -> None:
        if isinstance(event, Thinking) and event.detail and self._status is not None:
            step = f"step {event.iteration + 1}: {event.detail}"
            self._status.update(_spinner(step), refresh=True)
            return
        self.stop_spinner()
        match event:
            case Thinking(iteration=iteration, detail=detail) if self.err.is_terminal:
                shown = f"step {iteration + 1}: {detail}" if detail else None
                self._status = Live(
                    _spinner(shown or f"thinking (step {iteration + 1})…"),
                    console=self.err,
                    transient=True,
                    refresh_per_second=SPINNER_FRAMES_PER_SECOND,
                )
                # Drawn before a line can be printed above it: a line (a retry's log) printed
                # as the refresh thread first draws it could land on the spinner's line.
                self._status.start(refresh=True)
            case TextDelta(text=text):
                self.out.write(text)
                self._streamed += text
            case ToolCallEvent(id=call_id, tool=tool, arguments=arguments, risk=risk):
                self._end_text()
                self._calls[call_id] = event
                shown = json.dumps(arguments, ensure_ascii=False)
                if len(shown) > MAX_ARGUMENT_CHARS:
                    shown = shown[:MAX_ARGUMENT_CHARS] + "…"
                line = Text("▸ ", style="bold")
                line.append(tool, style="bold")
                line.append(f" {shown} ")
                line.append(f"[{risk}]", style="yellow" if risk != "read_only" else "dim")
                self.err.print(line)
            case ApprovalEvent(decision="allow", reason=reason) if reason.startswith(
                ("rule ", "approved; rule saved", "approved once; the rule")
            ):
                self.err.print(Text(f"  ✓ {reason}", style="dim"))
            case ApprovalEvent(decision="deny", reason=reason):
                self.summary.denied += 1
                self.err.print(Text(f"  ✗ denied: {reason}", style="red"))
            case ToolProgress(message=message):
                self.err.print(Text(f"  … {message}", style="dim"))
            case ToolResultEvent():
                self._result(event)
            case FilesChanged(files=files):
                for changed in files:
                    self.summary.changed.setdefault(changed.path)
            case TodoEvent(items=items):
                self._end_text()
                self.err.print(task_list(items))
            case PlanEvent():
                self._plan(event)
            case Checked():
                self._checked(event)
            case NetworkEvent(allowed=False, reason=reason):
                self.err.print(Text(f"  ⊘ network: refused: {reason}", style="yellow"))
            case Done() if not self.out.gone:  # stopped by its reader: quiet, as Unix tools are
                self._done(event)
        self.out.flush()

    def _checked(self, event: Checked) -> None:
        self._end_text()
        if event.problems:
            count = len(event.problems)
            self.err.print(
                Text(f"checks: {count} new problem{'s' if count != 1 else ''}", style="yellow")
            )
            for problem in event.problems[:MAX_PROBLEMS_SHOWN]:
                self.err.print(
                    Text(f"  {problem.path}:{problem.line}: {problem.message} ({problem.source})")
                )
        for line in event.skipped:
            self.err.print(Text(f"checks: {line}", style="dim"))

    def _plan(self, event: PlanEvent) -> None:
        self._end_text()
        match event.status:
            case "proposed":
                files = ", ".join(event.files) or "none named"
                steps = f"{len(event.steps)} step{'s' if len(event.steps) != 1 else ''}"
                self.err.print(Text(f"plan: {steps}; files: {files}", style="bold"))
            case "approved" | "edited":
                self.err.print(Text(f"plan {event.status}: carrying it out", style="green"))
            case "rejected":
                self.err.print(Text(f"plan rejected: {event.reason}", style="yellow"))
            case "unreviewed":
                self.err.print(
                    Text(
                        "plan not reviewed (nobody to ask: --approve never or no terminal); "
                        "nothing was changed",
                        style="yellow",
                    )
                )

    def _end_text(self) -> None:
        if self._streamed and not self._streamed.endswith("\n"):
            self.out.write("\n")
        self._streamed = ""

    def _result(self, event: ToolResultEvent) -> None:
        summary, diff = split_diff(event.output)
        lines = summary.splitlines() or [""]
        more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 and not diff else ""
        mark = Text("  ✓ " if event.ok else "  ✗ ", style="green" if event.ok else "red")
        self.err.print(mark + Text(f"{lines[0][:150]}{more}"))
        call = self._calls.get(event.id)
        changes = call is not None and call.tool_kind in CHANGING_KINDS
        if event.ok and changes and diff and event.id not in self.diffs_shown:
            self.err.print(diff_text(diff), end="")
        if event.tool == "run_tests":
            self.summary.tests.append(lines[0][:80])

    def _done(self, event: Done) -> None:
        if event.reason == "answer":
            if self._streamed and not self._streamed.endswith("\n"):
                self.out.write("\n")
            if not self._streamed and event.answer:
                self.out.write(event.answer + "\n")
        elif event.reason in ("error", "cancelled"):
            self._end_text()
            self.err.print(Text(f"foehn: {event.answer}", style="red"))
        else:
            # At a limit the model's summary has streamed already; the answer repeats it
            # after the "Stopped: …" line, which is the part not yet shown.
            stopped, _, rest = event.answer.partition("\n\n")
            if not self._streamed.strip() and rest:
                self.out.write(rest + "\n")
            self._end_text()
            self.err.print(Text(f"foehn: {stopped}", style="yellow"))
        self._streamed = ""
        self.err.print(Text(self.summary.line(event.reason, event.iterations), style="dim"))


TASK_MARKS = {"pending": ("○", "dim"), "in_progress": ("▸", "bold yellow"), "done": ("✓", "green")}


def task_list(items: tuple[TaskItem, ...]) -> Text:
    """The task list as the terminal shows it, one line per step."""
    done = sum(item.status == "done" for item in items)
    text = Text(f"tasks ({done}/{len(items)} done):", style="bold")
    for item in items:
        mark, style = TASK_MARKS[item.status]
        text.append(f"\n  {mark} ", style=style)
        text.append(item.text, style="dim" if item.status == "done" else "")
    return text


async def _pipe_reader() -> asyncio.StreamReader:
    """A reader of a non-terminal stdin, without a thread, so that waiting on it can be
    cancelled at once. One per process: a second would lose what the first buffered."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return reader


async def _prompt_terminal(message: str) -> str:
    """One answer typed at the terminal (prompt_toolkit, drawn on stderr). Ctrl-C raises
    ``KeyboardInterrupt``, Ctrl-D ``EOFError``."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.output import create_output

    session: PromptSession[str] = PromptSession(output=create_output(stdout=sys.stderr))
    return await session.prompt_async(message)


class TerminalApprover:
    """Asks on the terminal: the tool, its risk, the exact arguments, the coloured diff, and
    what "for this run" would remember. Ctrl-C at the prompt calls ``on_cancel`` (which stops
    the run) and denies the call."""

    def __init__(
        self,
        err: Console | None = None,
        *,
        on_cancel: Callable[[], None] = lambda: None,
        before_prompt: Callable[[], None] = lambda: None,
        diffs_shown: set[str] | None = None,
    ) -> None:
        self.err = err or error_console()
        self.on_cancel = on_cancel
        self.before_prompt = before_prompt
        self.diffs_shown = diffs_shown if diffs_shown is not None else set()
        """Where to note the calls whose diff was shown (``HumanPrinter.diffs_shown``)."""
        self._pipe: asyncio.StreamReader | None = None

    def show(self, request: ApprovalRequest) -> None:
        title = Text("\nFoehn wants to run ", style="bold")
        title.append(request.tool, style="bold yellow")
        title.append(f" ({request.risk})")
        if request.program is not None:
            title.append(f" running `{request.program}`")
        if request.sandbox is not None:
            sandbox = request.sandbox
            title.append(
                f" in the {sandbox} sandbox",
                style="bold red" if sandbox == "full" else "",
            )
        title.append(":")
        self.err.print(title)
        if request.outside is not None:
            self.err.print(
                Text(
                    f"These arguments go to {request.outside}: all of it may leave this computer.",
                    style="bold red",
                )
            )
        if request.network:
            self.err.print(Text(f"It may reach {reaching(request.network)}.", style="bold"))
        self.err.print(json.dumps(request.arguments, indent=2, ensure_ascii=False))
        if request.summary:
            self.err.print(Text(request.summary, style="bold"))
        if request.preview:
            self.err.print(diff_text(request.preview), end="")
            self.diffs_shown.add(request.call_id)

    async def read(self, message: str) -> str:
        """One answer: prompt_toolkit on a terminal, else a line of the piped stdin (an input
        that is gone is the end of input)."""
        try:
            # Once the pipe reader has seen the end of the input it closes stdin, so stdin is
            # asked whether it is a terminal only before there is a reader.
            if self._pipe is None and sys.stdin.isatty():
                return await _prompt_terminal(message)
            self.err.print(message, end="")
            self.err.file.flush()
            if self._pipe is None:
                self._pipe = await _pipe_reader()
            line = await self._pipe.readline()
        except (OSError, ValueError):
            raise EOFError from None
        if not line:
            raise EOFError
        return line.decode("utf-8", "replace")

    async def review_plan(self, plan: ProposedPlan) -> PlanDecision:
        """Show the plan's steps and files; approve, edit (type the steps) or reject (why)."""
        self.before_prompt()
        last = " (the last try: a second rejection ends the turn)" if plan.attempt > 1 else ""
        self.err.print(Text(f"\nFoehn's plan{last}:", style="bold"))
        for number, step in enumerate(plan.steps, 1):
            self.err.print(f"  {number}. {step}")
        self.err.print(Text(f"files: {', '.join(plan.files) or 'none named'}", style="dim"))
        try:
            answer = await self.read("Carry it out? [y] yes, [e] edit the steps, [n WHY] no: ")
            word, _, rest = answer.strip().partition(" ")
            match word.lower():
                case "y" | "yes":
                    return ApprovePlan()
                case "e" | "edit":
                    return await self._edited()
                case "":
                    return RejectPlan(reason="no answer")
                case _:
                    return RejectPlan(reason=rest.strip() or "rejected in the terminal")
        except KeyboardInterrupt:
            self.on_cancel()
            return RejectPlan(reason="cancelled at the prompt")
        except (EOFError, OSError, ValueError):
            return RejectPlan(reason="no answer")

    async def _edited(self) -> PlanDecision:
        self.err.print("Type the steps, one per line; an empty line ends:")
        steps: list[str] = []
        while line := (await self.read("  ")).strip():
            steps.append(line)
        if not steps:
            return RejectPlan(reason="the edited plan was empty")
        return ApprovePlan(edited="\n".join(f"{n}. {s}" for n, s in enumerate(steps, 1)))

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        """An MCP server's question, asked as approvals are (``cli.elicit_prompt``)."""
        self.before_prompt()
        try:
            return await elicit_prompt.answer(request, self.read, self.err)
        except KeyboardInterrupt:
            self.on_cancel()
            return ElicitationAnswer(action="cancel")

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.before_prompt()
        self.show(request)
        try:
            return await approval_prompt.answer(request, self.read, self.err)
        except KeyboardInterrupt:
            self.on_cancel()
            return Denied(reason="cancelled at the prompt")
