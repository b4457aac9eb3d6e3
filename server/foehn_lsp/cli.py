"""The ``foehn`` command: ``serve``, ``run``, ``tools``, ``replay``.

Exit codes: 0 answered · 1 provider/config/runtime error · 2 usage error · 3 stopped by a limit ·
130 cancelled. Errors meant for the person are one line on stderr; no traceback reaches the
terminal (``FOEHN_DEBUG=1`` logs them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from foehn_lsp import chat
from foehn_lsp.agent import Agent, RunEvent, RunOutcome, RunRequest
from foehn_lsp.agent.approval import (
    ApprovalDecision,
    ApprovalRequest,
    Approved,
    Approver,
    Denied,
    FixedApprover,
)
from foehn_lsp.agent.builder import FrontEnd, build_session
from foehn_lsp.agent.events import EventSink, ToolCallEvent
from foehn_lsp.agent.records import read_transcript
from foehn_lsp.config import Settings, load_settings
from foehn_lsp.config_report import add_parser as add_config_parser
from foehn_lsp.errors import FoehnError
from foehn_lsp.providers.scripted import ScriptedProvider
from foehn_lsp.sandbox import startup_warning, system_sandbox
from foehn_lsp.terminal import HumanPrinter, JsonPrinter, TerminalApprover
from foehn_lsp.tools.contract import ToolContext
from foehn_lsp.tools.discovery import Discovery, discover
from foehn_lsp.workspace import FileAccess, Workspace

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_LIMIT, EXIT_CANCELLED = 0, 1, 2, 3, 130


def load_tools(settings: Settings, workspace: Path | None) -> Discovery:
    found = discover(
        folders=settings.plugin_folders(workspace),
        default_timeout=settings.tool_timeout_seconds,
    )
    if settings.mcp.servers or settings.trust_workspace:
        from foehn_lsp.mcp.tools import add_servers

        add_servers(found, settings, workspace, lazy=False)
    return found


def _tools_command(args: argparse.Namespace) -> int:
    settings = load_settings()
    workspace = Path(args.workspace).resolve() if args.workspace else Path.cwd()
    found = load_tools(settings, workspace)
    catalogue: list[dict[str, Any]] = [
        {
            "name": tool.name,
            "risk": tool.risk.value,
            "risk_per_call": tool.assess is not None,
            "description": tool.description,
            "parameters": tool.parameters,
            **(found.mcp.catalogue_fields(tool.name) if found.mcp else {}),
        }
        for tool in found.registry
    ]
    problems = [{"plugin": p.plugin, "problems": list(p.problems)} for p in found.problems]
    sandbox = system_sandbox()
    if args.json:
        shown = {"available": sandbox.available, "note": sandbox.note}
        json.dump(
            {"tools": catalogue, "problems": problems, "sandbox": shown}, sys.stdout, indent=2
        )
        sys.stdout.write("\n")
    else:
        print(f"sandbox: {sandbox.note}")
        for entry in catalogue:
            params = ", ".join(tool_parameters(entry["parameters"]))
            risk = "assessed per call" if entry["risk_per_call"] else entry["risk"]
            print(f"{entry['name']:<16} {risk:<12} ({params})")
            print(f"    {entry['description']}")
            if origin := entry.get("mcp"):
                print(f"    MCP server {origin['server']}; risk from {origin['risk_source']}")
        for problem in found.problems:
            print(f"skipped plugin {problem}", file=sys.stderr)
    return EXIT_OK


STOP_CODES = {
    "answer": EXIT_OK,
    "error": EXIT_ERROR,
    "max_iterations": EXIT_LIMIT,
    "budget": EXIT_LIMIT,
    "repeated_call": EXIT_LIMIT,
    "cancelled": EXIT_CANCELLED,
}


def _approver(mode: str | None) -> Approver:
    if mode is None:
        mode = "ask" if sys.stdin.isatty() else "never"
    if mode == "all":
        print("foehn: --approve all: every call will run without asking", file=sys.stderr)
        return FixedApprover(Approved(scope="run"))
    if mode == "never":
        return FixedApprover(Denied(reason="--approve never"))
    return TerminalApprover()


def _run_command(args: argparse.Namespace) -> int:
    overrides = {
        "provider": args.provider,
        "model": args.model,
        "base_url": args.base_url,
        "max_tool_iterations": args.max_iterations,
    }
    settings = load_settings(overrides={k: v for k, v in overrides.items() if v is not None})
    root = Path(args.workspace or ".").resolve()
    if not root.is_dir():
        print(f"foehn: workspace {args.workspace!r} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    printer: EventSink = JsonPrinter() if args.json else HumanPrinter()
    outcome = asyncio.run(
        _run(
            settings,
            root,
            args.task,
            _approver(args.approve),
            printer,
            Path(args.transcript) if args.transcript else None,
            session_id=args.session,
            continue_latest=args.continue_latest,
        )
    )
    return STOP_CODES[outcome.reason]


async def _run(
    settings: Settings,
    root: Path,
    task: str,
    approver: Approver,
    printer: EventSink,
    transcript_path: Path | None,
    *,
    session_id: str | None = None,
    continue_latest: bool = False,
) -> RunOutcome:
    session = build_session(
        settings,
        root,
        FrontEnd(name="cli", approver=approver),
        transcript=transcript_path,
        session_id=session_id,
        continue_latest=continue_latest,
    )
    for problem in session.discovery.problems:
        print(f"foehn: skipped plugin {problem}", file=sys.stderr)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, stop.set)
    try:
        return await session.prompt(task, emit=printer, stop=stop)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await session.aclose()


def _replay_command(args: argparse.Namespace) -> int:
    recorded = read_transcript(Path(args.transcript))
    root = Path(args.workspace or recorded.workspace).resolve()
    if not root.is_dir():
        print(f"foehn: workspace {str(root)!r} does not exist; pass --workspace", file=sys.stderr)
        return EXIT_USAGE
    settings = load_settings(overrides={"enable_streaming": False})
    found = load_tools(settings, root)
    decisions = iter(recorded.decisions)

    class Replayed:
        async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
            decision = next(decisions, "deny")
            return Approved() if decision == "allow" else Denied(reason="denied when recorded")

    calls: list[tuple[str, Any]] = []

    def collect(event: RunEvent) -> None:
        if isinstance(event, ToolCallEvent):
            calls.append((event.tool, event.arguments))

    agent = Agent(
        provider=ScriptedProvider(recorded.responses),
        registry=found.registry,
        settings=settings,
        approver=Replayed(),
    )
    workspace = Workspace([root])
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace))
    asyncio.run(agent.run(RunRequest(task=recorded.task), ctx, collect))
    for number, (expected, actual) in enumerate(zip(recorded.tool_calls, calls, strict=False), 1):
        if expected != actual:
            print(
                f"replay diverged at tool call {number}: recorded {expected!r}, "
                f"replayed {actual!r}",
                file=sys.stderr,
            )
            return EXIT_ERROR
    if len(calls) != len(recorded.tool_calls):
        print(
            f"replay diverged: recorded {len(recorded.tool_calls)} tool calls, replayed "
            f"{len(calls)}",
            file=sys.stderr,
        )
        return EXIT_ERROR
    print(f"replayed {len(calls)} tool calls; all match the transcript")
    return EXIT_OK


def _serve_command(args: argparse.Namespace) -> int:
    from foehn_lsp.lsp import create_server

    server = create_server()
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit():
            print("foehn: --tcp takes HOST:PORT, e.g. 127.0.0.1:2087", file=sys.stderr)
            return EXIT_USAGE
        server.start_tcp(host, int(port))
        return EXIT_OK
    return server.serve_stdio()


def _acp_command(args: argparse.Namespace) -> int:
    from foehn_lsp.acp.stdio import main as acp_main

    return acp_main(permission_timeout=args.permission_timeout)


def _mcp_command(args: argparse.Namespace) -> int:
    from foehn_lsp.mcp.server import main as mcp_main

    return mcp_main(
        workspace=args.workspace,
        allow_writes=args.allow_writes,
        allow_destructive=args.allow_destructive,
    )


def tool_parameters(schema: Any) -> list[str]:
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return list(properties)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="foehn", description="A tool-using LLM agent for editors, as a language server."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the language server")
    serve.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead (debugging)")
    serve.set_defaults(handler=_serve_command)

    tools = commands.add_parser("tools", help="print the tool catalogue")
    tools.add_argument("--json", action="store_true", help="machine-readable output")
    tools.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    tools.set_defaults(handler=_tools_command)

    add_config_parser(commands)

    run = commands.add_parser("run", help="run one task headless")
    run.add_argument("task", help="what to do, in words")
    run.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    run.add_argument("--provider", choices=["mistral", "openai", "anthropic", "local"])
    run.add_argument("--model", metavar="NAME")
    run.add_argument("--base-url", metavar="URL")
    run.add_argument(
        "--approve",
        choices=["ask", "never", "all"],
        help="ask on the terminal (default when stdin is a TTY), deny every call "
        "policy would ask about (default otherwise), or approve everything",
    )
    run.add_argument("--max-iterations", type=int, metavar="N")
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

    replay = commands.add_parser("replay", help="re-run a recorded transcript offline")
    replay.add_argument("transcript", metavar="TRANSCRIPT")
    replay.add_argument(
        "--workspace", metavar="DIR", help="where to replay (default: the recorded workspace)"
    )
    replay.set_defaults(handler=_replay_command)
    chat.add_parsers(commands)

    acp = commands.add_parser("acp", help="Agent Client Protocol agent on stdio (Zed, Emacs, …)")
    acp.add_argument(
        "--permission-timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="an unanswered permission request counts as a denial after this long",
    )
    acp.set_defaults(handler=_acp_command)

    mcp = commands.add_parser("mcp", help="Foehn's tools as an MCP server on stdio")
    mcp.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    mcp.add_argument("--allow-writes", action="store_true", help="offer tools that write too")
    mcp.add_argument(
        "--allow-destructive",
        action="store_true",
        help="offer destructive tools too (deleting, replacing; implies --allow-writes)",
    )
    mcp.set_defaults(handler=_mcp_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(
        level=logging.DEBUG if os.environ.get("FOEHN_DEBUG") else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "tools" and (warning := startup_warning()):
        print(f"foehn: {warning}", file=sys.stderr)
    try:
        code: int = args.handler(args)
    except FoehnError as exc:
        print(f"foehn: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_CANCELLED
    return code
