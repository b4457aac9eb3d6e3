"""The ``foehn`` command: a thin parser that hands each subcommand to its own function.

Exit codes (``args.EXIT_CODES``): 0 answered · 1 provider/config/runtime error · 2 usage error ·
3 stopped by a limit · 130 cancelled · 141 stdout's reader went away (``| head``: quietly, as
Unix tools stop). Flags are checked before anything runs; errors meant for
the person are one line on stderr; no traceback reaches the terminal (``FOEHN_DEBUG=1`` logs
them). stdout carries only the answer or ``--json`` events.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foehn_lsp import __version__
from foehn_lsp.cli.args import (
    EXIT_CANCELLED,
    EXIT_CODES,
    EXIT_ERROR,
    EXIT_LIMIT,
    EXIT_OK,
    EXIT_USAGE,
    Parser,
    UsageError,
    base_url,
    folder,
    positive_int,
    task_text,
    writable_file,
)
from foehn_lsp.cli.output import EXIT_PIPE, Stdout, silence_stdout
from foehn_lsp.cli.stdin import context_block, is_piped, read_piped
from foehn_lsp.errors import FoehnError

if TYPE_CHECKING:
    from foehn_lsp.agent import TurnOutcome
    from foehn_lsp.agent.plan_mode import TurnMode
    from foehn_lsp.config import Settings
    from foehn_lsp.events import EventSink
    from foehn_lsp.policy.approval import Approver

# Each subcommand's module is imported by the function that runs it (and its flags are built
# only when it is named), so that ``foehn serve`` loads no front end: the language server
# answers ``initialize`` about as fast as an empty pygls server.


def _tools_command(args: argparse.Namespace) -> int:
    from foehn_lsp.cli import trust as trust_cli
    from foehn_lsp.config import load_settings
    from foehn_lsp.sandbox import report as sandbox_report
    from foehn_lsp.sandbox import system_sandbox
    from foehn_lsp.sessions.builder import catalogue_json, load_tools
    from foehn_lsp.workspace.trust import waiting

    workspace = folder(args.workspace)
    settings = load_settings()
    found = load_tools(settings, workspace, lazy=False)  # starts every MCP server
    catalogue = catalogue_json(found)
    sandbox = system_sandbox()
    if args.json:
        shown = sandbox_report.for_tools(sandbox, workspace)
        json.dump({**catalogue, "sandbox": shown}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print("\n".join(sandbox_report.summary(sandbox, workspace)))
        for entry in catalogue["tools"]:
            params = ", ".join(tool_parameters(entry["parameters"]))
            risk = "assessed per call" if entry["risk_per_call"] else entry["risk"]
            print(f"{entry['name']:<16} {risk:<12} ({params})")
            print(f"    {entry['description']}")
            if offered := entry.get("offered"):
                print(f"    ({offered})")
            if origin := entry.get("mcp"):
                print(f"    MCP server {origin['server']}; risk from {origin['risk_source']}")
        for problem in found.problems:
            print(f"skipped plugin {problem}", file=sys.stderr)
    if settings.trust_workspace and (items := waiting(workspace)):
        print(f"foehn: {trust_cli.waiting_line(workspace, items)}", file=sys.stderr)
    return EXIT_OK


STOP_CODES = {
    "answer": EXIT_OK,
    "error": EXIT_ERROR,
    "max_iterations": EXIT_LIMIT,
    "budget": EXIT_LIMIT,
    "repeated_call": EXIT_LIMIT,
    "cancelled": EXIT_CANCELLED,
}


def approve_mode(requested: str | None) -> str:
    """``--approve`` as given, else ``ask`` on a terminal and ``never`` without one."""
    return requested or ("ask" if sys.stdin.isatty() else "never")


def _approver(mode: str, stop: asyncio.Event, printer: EventSink) -> Approver:
    from foehn_lsp.cli.terminal import HumanPrinter, TerminalApprover
    from foehn_lsp.policy.approval import Approved, Denied, FixedApprover

    if mode == "all":
        return FixedApprover(Approved(scope="run"))
    if mode == "never":
        return FixedApprover(Denied(reason="--approve never"))
    if isinstance(printer, HumanPrinter):
        return TerminalApprover(
            on_cancel=stop.set, before_prompt=printer.stop_spinner, diffs_shown=printer.diffs_shown
        )
    return TerminalApprover(on_cancel=stop.set)


def _task_and_context(task: str, mode: str) -> tuple[str, str]:
    """The task and what a piped stdin adds (``cli.stdin``): the task itself for ``-``, else
    the context; under ``--approve ask`` stdin carries the answers and is not read here."""
    if task == "-" and mode == "ask" and is_piped():
        raise UsageError(
            "foehn run - reads the task from stdin, so no approval can be typed there; "
            "add --approve never or --approve all"
        )
    piped = read_piped() if mode != "ask" else None
    if piped is not None and piped.cut:
        print(f"foehn: {piped.note()}", file=sys.stderr)
    if task != "-":
        return task_text(task), context_block(piped) if piped else ""
    if piped is None:
        raise UsageError("foehn run - reads the task from stdin, but nothing was piped in")
    return task_text(piped.text.strip()), ""


def _run_command(args: argparse.Namespace) -> int:
    from foehn_lsp.cli import trust as trust_cli
    from foehn_lsp.cli.terminal import HumanPrinter, JsonPrinter, error_console, run_header
    from foehn_lsp.config import load_settings

    mode = approve_mode(args.approve)
    if args.task != "-":
        task_text(args.task)
    root = folder(args.workspace)
    transcript = writable_file(args.transcript, "--transcript") if args.transcript else None
    if args.base_url is not None:
        base_url(args.base_url)
    task, context = _task_and_context(args.task, mode)
    overrides = {
        "provider": args.provider,
        "model": args.model,
        "base_url": args.base_url,
        "max_tool_iterations": args.max_iterations,
    }
    settings = load_settings(overrides={k: v for k, v in overrides.items() if v is not None})
    if args.base_url is not None and not settings.model:
        raise UsageError(
            "with a base URL of your own, name the server's model: --model NAME (or FOEHN_MODEL)"
        )
    out = Stdout()
    printer: EventSink = JsonPrinter(out) if args.json else HumanPrinter(out)
    print(run_header(settings, root, mode), file=sys.stderr)
    trust_cli.before_session(
        settings, root, ask=mode == "ask" and sys.stdin.isatty(), err=error_console()
    )
    stop = asyncio.Event()
    out.on_gone = stop.set  # nobody reads the rest of the turn: stop it
    outcome = _run_to_end(
        _run(
            settings,
            root,
            task,
            context,
            _approver(mode, stop, printer),
            printer,
            transcript,
            stop,
            session_id=args.session,
            continue_latest=args.continue_latest,
            mode="plan" if args.plan else "act",
        )
    )
    if out.gone:
        silence_stdout()
        return EXIT_PIPE
    if outcome.reason == "cancelled":
        # A call to the embedded model cannot be interrupted in its worker thread; exit now
        # rather than wait for it (the session and transcript are closed already).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_CANCELLED)
    return STOP_CODES[outcome.reason]


def _run_to_end(coroutine: Any) -> Any:
    """``asyncio.run`` without waiting for worker threads at the end (see ``_run_command``)."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.run_until_complete(_finish_tasks())
        loop.close()


async def _finish_tasks() -> None:
    left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in left:
        task.cancel()
    await asyncio.gather(*left, return_exceptions=True)
    await asyncio.get_running_loop().shutdown_asyncgens()


async def _run(
    settings: Settings,
    root: Path,
    task: str,
    context: str,
    approver: Approver,
    printer: EventSink,
    transcript_path: Path | None,
    stop: asyncio.Event,
    *,
    session_id: str | None = None,
    continue_latest: bool = False,
    mode: TurnMode = "act",
) -> TurnOutcome:
    from foehn_lsp.cli.mcp import terminal_sign_in
    from foehn_lsp.cli.terminal import TerminalApprover
    from foehn_lsp.sessions.builder import FrontEnd, build_session

    asks = isinstance(approver, TerminalApprover)
    session = build_session(
        settings,
        root,
        FrontEnd(name="cli", approver=approver, sign_in=terminal_sign_in(ask=asks)),
        transcript=transcript_path,
        session_id=session_id,
        continue_latest=continue_latest,
    )
    for problem in session.tools.problems:
        print(f"foehn: skipped plugin {problem}", file=sys.stderr)
    loop = asyncio.get_running_loop()

    def interrupted() -> None:
        if stop.is_set():  # a second Ctrl-C: something is stuck, so leave at once
            os._exit(EXIT_CANCELLED)
        stop.set()

    loop.add_signal_handler(signal.SIGINT, interrupted)
    try:
        return await session.prompt(task, context=context, emit=printer, stop=stop, mode=mode)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await session.aclose()


def _serve_command(args: argparse.Namespace) -> int:
    from foehn_lsp.lsp import create_server

    server = create_server()
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit():
            print("foehn: --tcp takes HOST:PORT, e.g. 127.0.0.1:2087", file=sys.stderr)
            return EXIT_USAGE
        return server.serve_tcp(host, int(port))
    return server.serve_stdio()


def _acp_command(args: argparse.Namespace) -> int:
    from foehn_lsp.acp.stdio import main as acp_main

    return acp_main(permission_timeout=args.permission_timeout)


def _mcp_command(args: argparse.Namespace) -> int:
    from foehn_lsp.mcp_server.command import main as mcp_main

    if (args.token_file or args.stateless) and not args.http:
        raise UsageError("--token-file and --stateless are for --http")
    return mcp_main(
        workspace=args.workspace,
        allow_writes=args.allow_writes,
        allow_destructive=args.allow_destructive,
        http=args.http,
        token_file=args.token_file,
        stateless=args.stateless,
    )


def tool_parameters(schema: Any) -> list[str]:
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return list(properties)


def _add_serve(commands: Any) -> None:
    serve = commands.add_parser("serve", help="run the language server")
    serve.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead (debugging)")
    serve.set_defaults(handler=_serve_command)


def _add_tools(commands: Any) -> None:
    tools = commands.add_parser("tools", help="print the tool catalogue")
    tools.add_argument("--json", action="store_true", help="machine-readable output")
    tools.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    tools.set_defaults(handler=_tools_command)


def _add_config(commands: Any) -> None:
    from foehn_lsp.cli.config_report import add_parser

    add_parser(commands)


def _add_sandbox(commands: Any) -> None:
    from foehn_lsp.cli.sandbox import add_parser

    add_parser(commands)


def _add_run(commands: Any) -> None:
    run = commands.add_parser(
        "run",
        help="run one task headless",
        description="Run one task: the answer on stdout, everything else on stderr.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "task",
        help="what to do, in words; - reads it from stdin. Text piped in with a task is what "
        'the task is about (cat log | foehn run "explain")',
    )
    run.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    run.add_argument(
        "--provider",
        choices=["mistral", "openai", "anthropic", "local"],
        help="the model's provider (default: FOEHN_PROVIDER or the config file, else the "
        "embedded offline model if installed)",
    )
    run.add_argument("--model", metavar="NAME", help="the model (default: the provider's)")
    run.add_argument(
        "--base-url",
        metavar="URL",
        help="an OpenAI-compatible server, e.g. http://localhost:11434/v1 (needs --model)",
    )
    run.add_argument(
        "--approve",
        choices=["ask", "never", "all"],
        help="ask on the terminal (default when stdin is a TTY), deny every call "
        "policy would ask about (default otherwise), or approve everything",
    )
    run.add_argument(
        "--max-iterations",
        type=positive_int,
        metavar="N",
        help="stop after N rounds of tool calls (default 30; at least 1)",
    )
    run.add_argument(
        "--plan",
        action="store_true",
        help="plan first with read-only tools; the plan is asked about like a call "
        "(--approve ask: on the terminal; all: approved; never: the turn ends with the plan)",
    )
    run.add_argument("--json", action="store_true", help="one JSON event per line on stdout")
    run.add_argument("--transcript", metavar="FILE", help="record the run for foehn replay")
    resume = run.add_mutually_exclusive_group()
    resume.add_argument(
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="one more turn in the workspace's latest session",
    )
    resume.add_argument("--session", metavar="ID", help="one more turn in this saved session")
    run.set_defaults(handler=_run_command)


def _add_replay(commands: Any) -> None:
    from foehn_lsp.cli.replay import add_parser

    add_parser(commands)


def _add_chat(commands: Any) -> None:
    from foehn_lsp.cli.chat import add_parsers

    add_parsers(commands)


def _add_rules(commands: Any) -> None:
    from foehn_lsp.cli.rules import add_parsers

    add_parsers(commands)


def _add_trust(commands: Any) -> None:
    from foehn_lsp.cli.trust import add_parser

    add_parser(commands)


def _add_acp(commands: Any) -> None:
    acp = commands.add_parser("acp", help="Agent Client Protocol agent on stdio (Zed, Emacs, …)")
    acp.add_argument(
        "--permission-timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="an unanswered permission request counts as a denial after this long",
    )
    acp.set_defaults(handler=_acp_command)


def _add_mcp(commands: Any) -> None:
    from foehn_lsp.cli.mcp import add_actions

    mcp = commands.add_parser(
        "mcp",
        help="Foehn's tools as an MCP server (stdio, or HTTP); list, login, logout",
        description="Serve Foehn's tools to an MCP client on stdio, or over streamable HTTP "
        "with --http; or, with an ACTION, the MCP servers Foehn itself uses.",
    )
    mcp.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    mcp.add_argument("--allow-writes", action="store_true", help="offer tools that write too")
    mcp.add_argument(
        "--allow-destructive",
        action="store_true",
        help="offer destructive tools too (deleting, replacing; implies --allow-writes)",
    )
    mcp.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve streamable HTTP on HOST:PORT (e.g. 127.0.0.1:8808) instead of stdio; a "
        "bearer token is required",
    )
    mcp.add_argument(
        "--token-file",
        metavar="F",
        help="with --http: the bearer token clients must send, read from F (default: one is "
        "made and printed once on stderr)",
    )
    mcp.add_argument(
        "--stateless",
        action="store_true",
        help="with --http: no sessions, each request on its own (all share one Foehn "
        "session; calls that would be asked about are refused)",
    )
    mcp.set_defaults(handler=_mcp_command)
    add_actions(mcp)


SUBCOMMANDS: tuple[tuple[frozenset[str], Callable[[Any], None]], ...] = (
    (frozenset({"serve"}), _add_serve),
    (frozenset({"tools"}), _add_tools),
    (frozenset({"config"}), _add_config),
    (frozenset({"sandbox"}), _add_sandbox),
    (frozenset({"run"}), _add_run),
    (frozenset({"replay"}), _add_replay),
    (frozenset({"chat", "sessions", "undo"}), _add_chat),
    (frozenset({"explain", "rules"}), _add_rules),
    (frozenset({"trust"}), _add_trust),
    (frozenset({"acp"}), _add_acp),
    (frozenset({"mcp"}), _add_mcp),
)
"""Every subcommand, in the order ``foehn --help`` lists them, with what adds its parser."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``command`` (a subcommand's name), only that subcommand's part,
    which parses that subcommand's arguments exactly as the whole parser does."""
    parser = Parser(
        prog="foehn",
        description="A tool-using LLM agent for editors, as a language server.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"foehn {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for names, add in SUBCOMMANDS:
        if command is None or command in names:
            add(commands)
    return parser


def named_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names first, if it is one; else ``None`` (options such as
    ``--help`` or ``--version``, an unknown word, nothing), for which the whole parser answers."""
    if argv and any(argv[0] in names for names, _ in SUBCOMMANDS):
        return argv[0]
    return None


def _startup_warning() -> str | None:
    from foehn_lsp.sandbox import startup_warning

    return startup_warning()


class StderrNow(logging.StreamHandler):  # type: ignore[type-arg]
    """Log lines go to whatever ``sys.stderr`` is when they are written, so that while the
    spinner runs (rich redirects stderr then) they print above it instead of across it."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass  # the stream is always the current stderr


def run() -> int:
    """``main`` as the process itself (the ``foehn`` script, ``python -m foehn_lsp``): the same
    exit status, then an exit that skips the collector's walks over what the process loaded."""
    code = main()
    # What is left lives until the process ends. The interpreter's exit would collect it
    # object by object first (a second or more for the protocol and settings models, in every
    # server a client starts); frozen, the collector skips it and files still close as usual.
    gc.freeze()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    debug = bool(os.environ.get("FOEHN_DEBUG"))
    handler = StderrNow()
    # The person reads warnings (a retry, say) as Foehn's own lines; the logger's name and
    # level are for debugging.
    handler.setFormatter(
        logging.Formatter("%(levelname)s %(name)s: %(message)s" if debug else "foehn: %(message)s")
    )
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, handlers=[handler])
    if not os.environ.get("FOEHN_DEBUG"):
        # The CLI prints plugin problems itself, once; the log line would repeat them.
        logging.getLogger("foehn_lsp.tools.discovery").setLevel(logging.ERROR)
    arguments = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(named_command(arguments)).parse_args(arguments)
    # ``tools`` prints the sandbox report itself; ``serve`` warns once ``initialize`` is answered.
    if args.command not in ("tools", "serve") and (warning := _startup_warning()):
        print(f"foehn: {warning}", file=sys.stderr)
    try:
        code: int = args.handler(args)
    except UsageError as exc:
        print(f"foehn {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except FoehnError as exc:
        print(f"foehn: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_CANCELLED
    except BrokenPipeError:  # stdout's reader has read enough (``| head``): stop quietly
        silence_stdout()
        return EXIT_PIPE
    return code
