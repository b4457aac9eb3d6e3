"""``foehn chat``, ``foehn sessions`` and ``foehn undo``: sessions in the terminal.

``foehn chat`` holds a conversation: each line typed is a turn in one session (saved as it
goes), the answer streams, approvals are asked in place, and a few commands act on the session:

    /undo [N] [force]   put back what the last turn (or turns N on) changed; again: further back
    /redo [force]       take the last undo back
    /clear              start a new session (the one left stays in /sessions)
    /sessions           this workspace's saved sessions
    /compact            shorten the conversation now
    /cost               context used, tokens spent and cost
    /plan TASK          plan first (read-only), then carry the plan out once approved
    /help, /exit
    /NAME [arguments]   a custom command (sessions.commands): its prompt is the turn
    /mcp__SERVER__PROMPT [arguments]   an MCP server's prompt (mcp.prompts): its text is the turn

``@path`` in a line sends that workspace file with the turn (``cli.mentions``). Ctrl-C cancels
the running turn; a second Ctrl-C, or Ctrl-D, leaves. Input comes from the
terminal (prompt_toolkit, with history) or, when stdin is not one, line by line from it, so
scripts and tests can drive a chat.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from foehn_lsp.agent.plan_mode import TurnMode
from foehn_lsp.cli import trust as trust_cli
from foehn_lsp.cli.mentions import mentions
from foehn_lsp.cli.terminal import HumanPrinter, TerminalApprover, error_console
from foehn_lsp.config import load_settings
from foehn_lsp.errors import FoehnError
from foehn_lsp.policy.approval import (
    ApprovalDecision,
    Approved,
    Denied,
    FixedApprover,
)
from foehn_lsp.sessions.builder import FrontEnd, build_session, open_saved
from foehn_lsp.sessions.commands import CustomCommands, load_commands
from foehn_lsp.sessions.history import session_to_undo
from foehn_lsp.sessions.session import RestoreReport, Session
from foehn_lsp.sessions.store import SessionNotFound, SessionStore
from foehn_lsp.slash import SESSION_COMMANDS, parse
from foehn_lsp.tools.discovery import ServerCommand

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
HELP = """\
/undo [N] [force]   put back what the last turn (or turns N and later) changed;
                    each /undo goes one turn further back
/redo [force]       take the last undo back
/clear              start a new session (the one left stays in /sessions)
/sessions           this workspace's saved sessions
/compact            shorten the conversation now
/cost               context used, tokens spent and cost
/plan TASK          plan with read-only tools; approve, edit or reject the plan, then it runs
/exit               leave (or Ctrl-D); Ctrl-C cancels a running turn"""
BUILT_IN = SESSION_COMMANDS | {"clear", "sessions", "cost", "help", "exit", "quit", "plan"}


class Lines:
    """What the person types: prompt_toolkit on a terminal, else stdin line by line. ``read``
    raises ``EOFError`` at the end and ``KeyboardInterrupt`` for Ctrl-C at the prompt."""

    def __init__(self) -> None:
        self.terminal = sys.stdin.isatty()
        self._reader: asyncio.StreamReader | None = None
        self._prompt: Any = None

    async def read(self, message: str, err: Console) -> str:
        if self.terminal:
            if self._prompt is None:
                from prompt_toolkit import PromptSession
                from prompt_toolkit.output import create_output

                self._prompt = PromptSession(output=create_output(stdout=sys.stderr))
            answer: str = await self._prompt.prompt_async(message)
            return answer
        err.print(message, end="")
        err.file.flush()
        if self._reader is None:
            reader = self._reader = asyncio.StreamReader()
            loop = asyncio.get_running_loop()
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        line = await self._reader.readline()
        if not line:
            raise EOFError
        return line.decode("utf-8", "replace").rstrip("\n")


class ChatApprover(TerminalApprover):
    """The terminal approval prompt, reading its answer from the chat's input."""

    def __init__(self, lines: Lines, err: Console, on_cancel: Callable[[], None]) -> None:
        super().__init__(err, on_cancel=on_cancel)
        self.lines = lines

    async def read(self, message: str) -> str:
        return await self.lines.read(message, self.err)


class Chat:
    def __init__(
        self,
        session: Session,
        lines: Lines,
        err: Console,
        commands: CustomCommands | None = None,
        fresh: Callable[[], Session] | None = None,
    ) -> None:
        self.session = session
        self.fresh = fresh
        """Makes a new session for ``/clear`` (``None``: ``/clear`` is not offered)."""
        self.commands = commands or CustomCommands()
        self.lines = lines
        self.err = err
        self.stop: asyncio.Event | None = None
        self.leaving = False
        self.interrupted = False
        """A Ctrl-C came since the last line typed: the next one leaves, whether it comes
        while the turn is still cancelling or at the prompt after it."""

    def interrupt(self) -> None:
        """Ctrl-C while a turn runs: cancel it; a second one leaves."""
        if self.stop is not None and not self.stop.is_set():
            self.stop.set()
            self.interrupted = True
            self.err.print(Text("cancelling the turn… (Ctrl-C again to leave)", style="yellow"))
        else:
            self.leaving = True
            if self.stop is not None:
                self.stop.set()

    async def run(self) -> int:
        session = self.session
        resumed = f", {len(session.turns)} turns so far" if session.turns else ""
        self.err.print(
            Text(
                f"foehn chat: session {session.id}{resumed} in {session.workspace.root} "
                f"({session.provider.name} {session.provider.model}); /help for commands",
                style="dim",
            )
        )
        if session.provider.name == "local":
            from foehn_lsp.providers.local import STRENGTHS, find_running

            running = await find_running()
            note = f"the local model is a small one: {STRENGTHS}"
            self.err.print(Text(note + (f"\n{running.line()}" if running else ""), style="dim"))
        while not self.leaving:
            try:
                line = (await self.lines.read("› ", self.err)).strip()
            except EOFError:
                break
            except KeyboardInterrupt:
                if self.interrupted:
                    break
                self.interrupted = True
                self.err.print(Text("(Ctrl-C again or Ctrl-D to leave)", style="dim"))
                continue
            self.interrupted = False
            if not line:
                continue
            if line.startswith("/"):
                if not await self.command(line):
                    break
                continue
            await self.turn(line)
        return EXIT_OK

    async def turn(self, text: str, mode: TurnMode = "act") -> None:
        self.stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, self.interrupt)
        mentioned = mentions(text, self.session.workspace)
        if mentioned.files:
            self.err.print(Text(f"(with {', '.join(mentioned.files)})", style="dim"))
        for word in mentioned.missing:
            self.err.print(
                Text(f"({word} is no file in the workspace; sent as typed)", style="dim")
            )
        try:
            await self.session.prompt(
                text,
                context=mentioned.context,
                emit=HumanPrinter(err=self.err),
                stop=self.stop,
                mode=mode,
            )
        except FoehnError as exc:
            self.err.print(Text(f"foehn: {exc}", style="red"))
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)
            self.stop = None

    def prompt_commands(self) -> Sequence[ServerCommand]:
        servers = self.session.tools.servers
        return servers.prompt_commands() if servers is not None else []

    async def mcp_prompt(self, line: str) -> str | None:
        """The task an MCP prompt's command stands for; ``""`` when it could not be had (said
        on the terminal); ``None`` when ``line`` is not one."""
        servers = self.session.tools.servers
        if servers is None:
            return None
        from foehn_lsp.mcp.client import BadAnswerError, ConnectionLostError, ServerUnavailableError
        from foehn_lsp.mcp.prompts import PromptUsageError

        try:
            return await servers.expand(line)
        except PromptUsageError as exc:
            self.err.print(Text(f"foehn: {exc}", style="red"))
        except (ServerUnavailableError, BadAnswerError, ConnectionLostError, TimeoutError) as exc:
            self.err.print(
                Text(f"foehn: {exc or 'the server did not answer in time'}", style="red")
            )
        return ""

    async def command(self, line: str) -> bool:
        """Run a /command; ``False`` to leave."""
        slash = parse(line)
        custom = self.commands.get(slash.name) if slash is not None else None
        if slash is not None and custom is not None and slash.name not in BUILT_IN:
            await self.turn(custom.prompt(slash.arguments))
            return True
        if slash is not None and (task := await self.mcp_prompt(line)) is not None:
            if task:
                await self.turn(task)
            return True
        name = f"/{slash.name}" if slash is not None else line.split()[0]
        words = slash.words if slash is not None else []
        session = self.session
        match name:
            case "/exit" | "/quit":
                return False
            case "/help":
                self.err.print(HELP)
                for custom in self.commands.commands:
                    usage = f"/{custom.name} {custom.hint or ''}".strip()
                    self.err.print(f"{usage:<19} {custom.description}")
                for offered in self.prompt_commands():
                    self.err.print(f"{offered.usage():<19} {offered.description}")
            case "/cost":
                self.err.print(session.meter().describe())
            case "/plan":
                task = line.removeprefix("/plan").strip()
                if not task:
                    self.err.print("/plan needs a task: /plan add a --verbose flag")
                else:
                    await self.turn(task, mode="plan")
            case "/compact":
                meter = await session.compact()
                result = session.compacted
                done = f"compacted: {result.note}" if result else "nothing to compact yet"
                self.err.print(f"{done}; {meter.describe()}")
            case "/clear" if self.fresh is not None:
                left = session
                self.session = self.fresh()
                await close_session(left)
                note = f"; session {left.id} stays in /sessions" if left.turns else ""
                self.err.print(Text(f"new session {self.session.id}{note}", style="dim"))
            case "/sessions":
                for summary in SessionStore(session.workspace.root).list():
                    mark = "*" if summary.id == session.id else " "
                    self.err.print(f"{mark} {_summary_line(summary)}")
            case "/undo" | "/redo":
                numbers = [int(w) for w in words if w.isdigit()]
                force = "force" in words
                try:
                    if name == "/redo":
                        report = await session.redo(force=force)
                    else:
                        report = await session.undo(
                            to_turn=numbers[0] if numbers else None, force=force
                        )
                except FoehnError as exc:
                    self.err.print(Text(f"foehn: {exc}", style="red"))
                    return True
                print_report(report, self.err, hint=f"{name} force", redo="/redo")
            case _:
                self.err.print(f"unknown command {name}; /help lists them")
        return True


def _summary_line(summary: Any) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(summary.updated))
    turns = f"{summary.turns} turn{'s' if summary.turns != 1 else ''}"
    return f"{summary.id}  {when}  {turns:>9}  {summary.title or '(untitled)'}"


def print_report(report: RestoreReport, err: Console, *, hint: str, redo: str) -> None:
    """What an undo or a redo did, saying which it was and what the next one would do."""
    if report.applied:
        restored = ", ".join(report.restored) or "nothing needed restoring"
        if report.redone:
            redone = ", ".join(str(t) for t in report.redone)
            err.print(f"redid turn {redone}: {restored}")
            next_step = "redo again for the undo before it"
        else:
            undone = ", ".join(str(t) for t in report.undone)
            err.print(f"undid turn {undone}: {restored}")
            next_step = f"undo again to go one turn further back; {redo} puts it back"
        if report.turn is not None:
            err.print(Text(f"(this is turn {report.turn}; {next_step})", style="dim"))
    else:
        err.print(Text(f"foehn: nothing undone: {report.reason}", style="red"))
        if report.conflicts:
            err.print(f"to overwrite those changes anyway: {hint}")
    if report.unrestorable:
        listed = ", ".join(report.unrestorable)
        err.print(
            Text(
                f"not restorable (a program changed them and Foehn never had their content): "
                f"{listed}",
                style="yellow",
            )
        )


def _root(args: argparse.Namespace) -> Path | None:
    root = Path(args.workspace or ".").resolve()
    if not root.is_dir():
        print(f"foehn: workspace {args.workspace!r} is not a folder", file=sys.stderr)
        return None
    return root


def chat_command(args: argparse.Namespace) -> int:
    overrides = {"provider": args.provider, "model": args.model, "base_url": args.base_url}
    settings = load_settings(overrides={k: v for k, v in overrides.items() if v is not None})
    root = _root(args)
    if root is None:
        return EXIT_USAGE
    err = error_console()
    asking = sys.stdin.isatty() and args.approve not in ("all", "never")
    trust_cli.before_session(settings, root, ask=asking, err=err)
    lines = Lines()

    async def main() -> int:
        chat: Chat | None = None

        def cancel() -> None:
            if chat is not None and chat.stop is not None:
                chat.stop.set()

        approver: Any = ChatApprover(lines, err, on_cancel=cancel)
        if args.approve == "all":
            approver = _fixed(Approved(scope="run"))
        elif args.approve == "never":
            approver = _fixed(Denied(reason="--approve never"))
        from foehn_lsp.cli.mcp import terminal_sign_in

        front = FrontEnd(
            name="cli",
            approver=approver,
            sign_in=terminal_sign_in(ask=isinstance(approver, ChatApprover)),
        )
        session = build_session(
            settings,
            root,
            front,
            session_id=args.session,
            continue_latest=args.continue_latest,
        )
        for problem in session.tools.problems:
            err.print(f"foehn: skipped plugin {problem}")
        commands = load_commands(root, trusted=settings.trust_workspace, built_in=BUILT_IN)
        for skipped in commands.problems:
            err.print(f"foehn: skipped command {skipped}")

        def fresh() -> Session:
            return build_session(settings, root, front)

        chat = Chat(session, lines, err, commands, fresh)
        try:
            return await chat.run()
        finally:
            await close_session(chat.session)

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        return EXIT_OK


async def close_session(session: Session) -> None:
    """End a session the chat leaves; one nothing was said in is not kept."""
    if not session.turns:
        with contextlib.suppress(FoehnError):
            session.store.delete(session.id)
    await session.aclose()


def _fixed(decision: ApprovalDecision) -> FixedApprover:
    return FixedApprover(decision)


def sessions_command(args: argparse.Namespace) -> int:
    root = _root(args)
    if root is None:
        return EXIT_USAGE
    store = SessionStore(root)
    if args.action == "list":
        sessions = store.list()
        if args.json:
            rows = [summary.json() for summary in sessions]
            json.dump({"sessions": rows, "problems": store.problems}, sys.stdout, indent=2)
            print()
        else:
            for summary in sessions:
                print(_summary_line(summary))
            if not sessions:
                print(f"no saved sessions in {root}", file=sys.stderr)
        for problem in store.problems:
            print(f"foehn: {problem}", file=sys.stderr)
        return EXIT_OK
    if not args.id:
        print(f"foehn: sessions {args.action} needs a session ID", file=sys.stderr)
        return EXIT_USAGE
    if args.action == "delete":
        store.delete(args.id)
        print(f"deleted session {args.id}", file=sys.stderr)
        return EXIT_OK
    data = store.load(args.id)
    if args.json:
        json.dump(
            {
                "id": data.id,
                "title": data.title,
                "turns": [turn.json() for turn in data.turns],
                "problems": data.problems,
            },
            sys.stdout,
            indent=2,
        )
        print()
        return EXIT_OK
    print(f"{data.id}  {data.title}")
    for turn in data.turns:
        print(f"\n[{turn.index}] {turn.task.splitlines()[0] if turn.task else ''}")
        print(f"    {turn.reason}: {turn.answer.strip().splitlines()[0] if turn.answer else ''}")
        for state in turn.files:
            print(f"    {state.change:<9} {state.path}{'/' if state.folder else ''}")
    for problem in data.problems:
        print(f"foehn: {problem}", file=sys.stderr)
    return EXIT_OK


def undo_command(args: argparse.Namespace) -> int:
    root = _root(args)
    if root is None:
        return EXIT_USAGE
    settings = load_settings()
    store = SessionStore(root)
    session_id = args.session or session_to_undo(store, redo=args.redo)
    if session_id is None:
        raise SessionNotFound(
            f"nothing to redo in {root}: no session has an undo still in effect"
            if args.redo
            else f"nothing to undo in {root}: no session has a change still in effect "
            "(foehn undo --redo takes the last undo back)"
        )
    if args.redo and args.to_turn is not None:
        print("foehn undo: --redo takes no --to-turn", file=sys.stderr)
        return EXIT_USAGE
    err = error_console()

    async def main() -> RestoreReport:
        session = open_saved(
            settings,
            root,
            FrontEnd(name="cli", approver=_fixed(Denied(reason="undo asks nothing"))),
            session_id,
        )
        if args.redo:
            return await session.redo(force=args.force)
        return await session.undo(to_turn=args.to_turn, force=args.force)

    report = asyncio.run(main())
    again = f"foehn undo --session {session_id}"
    print_report(
        report,
        err,
        hint=f"{again}{' --redo' if args.redo else ''} --force",
        redo=f"{again} --redo",
    )
    return EXIT_OK if report.applied else EXIT_ERROR


def add_parsers(commands: Any) -> None:
    """``chat``, ``sessions`` and ``undo``, as DESIGN.md's CLI block names them."""
    chat = commands.add_parser("chat", help="an interactive session in the terminal")
    chat.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    resume = chat.add_mutually_exclusive_group()
    resume.add_argument("--session", metavar="ID", help="go on with this saved session")
    resume.add_argument(
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="go on with the workspace's latest session",
    )
    chat.add_argument("--provider", choices=["mistral", "openai", "anthropic", "local"])
    chat.add_argument("--model", metavar="NAME")
    chat.add_argument("--base-url", metavar="URL")
    chat.add_argument(
        "--approve",
        choices=["ask", "never", "all"],
        default="ask",
        help="ask in the chat (default), deny, or approve everything",
    )
    chat.set_defaults(handler=chat_command)

    sessions = commands.add_parser("sessions", help="list, show or delete saved sessions")
    sessions.add_argument("action", choices=["list", "show", "delete"])
    sessions.add_argument("id", nargs="?", metavar="ID")
    sessions.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    sessions.add_argument("--json", action="store_true", help="machine-readable output")
    sessions.set_defaults(handler=sessions_command)

    undo = commands.add_parser(
        "undo",
        help="put back every file the last turn changed (again: one turn further back); "
        "--redo takes the last undo back",
    )
    undo.add_argument(
        "--session",
        metavar="ID",
        help="default: the session that made the latest changes still in effect here",
    )
    undo.add_argument(
        "--redo", action="store_true", help="take the last undo back (its changes return)"
    )
    undo.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    undo.add_argument("--to-turn", type=int, metavar="N", help="put back everything from turn N on")
    undo.add_argument(
        "--force", action="store_true", help="overwrite files changed since by someone else"
    )
    undo.set_defaults(handler=undo_command)
