"""``foehn trust``: what of a trusted workspace waits for the person's approval, with the diff
against what they approved before, and the approving.

    foehn trust [--workspace DIR] [--json]          list what waits; on a terminal, ask for each
    foehn trust --approve PATH@SHA256 … [--workspace DIR]   approve that content (scripts, editors)
    foehn trust --forget PATH … [--workspace DIR]   withdraw approvals

An approval names the content's sha256 (at least its first 12 hex digits), so what is approved
is what was shown: a file that changed since is refused with a line saying so. ``foehn run``
and ``foehn chat`` ask the same question before a session starts when stdin is a terminal;
otherwise the waiting files are not loaded and one line says how to approve them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from foehn_lsp.cli.args import EXIT_ERROR, EXIT_OK, UsageError, folder
from foehn_lsp.cli.terminal import diff_text, error_console
from foehn_lsp.config import Settings, load_settings
from foehn_lsp.errors import TrustError
from foehn_lsp.workspace.trust import (
    Reviewed,
    approve,
    forget_approval,
    read_approvals,
    waiting,
    waiting_summary,
)
from foehn_lsp.workspace.trust.store import store_file

WHAT = {
    "plugin": "a plugin: Python that Foehn imports and runs in its own process",
    "mcp_servers": "MCP servers: programs Foehn starts, and endpoints it sends calls to",
    "rules": "rules and hooks: what is allowed, asked or denied, and programs run at each call",
    "command": "a custom command: a prompt sent to the model as yours",
    "system_prompt": "added to the system message the model reads",
}


def waiting_line(root: Path, items: Sequence[Reviewed]) -> str:
    """One line: what waits and how to approve it."""
    return (
        f"{waiting_summary(items)}; see the changes and approve them with: "
        f"foehn trust --workspace {root}"
    )


def show(item: Reviewed, err: Console) -> None:
    """The file, what it is, and its diff against what was approved."""
    title = Text(f"\n{item.path}", style="bold yellow")
    title.append(f" ({item.status}): {WHAT[item.kind]}")
    err.print(title)
    if item.status == "refused":
        err.print(Text(f"  cannot be used or approved: {item.reason}", style="red"))
        return
    if item.approved is not None:
        err.print(Text(f"  approved before on {item.approved.approved_at}", style="dim"))
    err.print(diff_text(item.diff()), end="")
    err.print(Text(f"  sha256 {item.sha256}", style="dim"))


def _read_answer(message: str, err: Console, stdin: TextIO) -> str:
    err.print(message, end="")
    err.file.flush()
    return stdin.readline()


def ask_each(
    root: Path, items: Sequence[Reviewed], err: Console, stdin: TextIO = sys.stdin
) -> list[str]:
    """Show each waiting file and ask; the paths approved. Only a yes approves; the content
    approved is the content shown (a file that changed meanwhile is refused)."""
    approved = []
    for item in items:
        show(item, err)
        if item.status == "refused" or item.sha256 is None:
            continue
        answer = _read_answer("Approve this content and use it? [y/N]: ", err, stdin)
        if answer.strip().lower() not in ("y", "yes"):
            err.print(Text(f"  {item.path} is not used", style="dim"))
            continue
        try:
            approve(root, item.path, item.sha256)
        except TrustError as exc:
            err.print(Text(f"  {exc}", style="red"))
            continue
        approved.append(item.path)
        err.print(Text(f"  ✓ approved {item.path}", style="green"))
    return approved


def before_session(settings: Settings, root: Path, *, ask: bool, err: Console) -> None:
    """For ``foehn run`` and ``foehn chat``: in a trusted workspace, ask about each waiting
    file when ``ask`` (a terminal, approvals asked), else say in one line how to approve."""
    if not settings.trust_workspace:
        return
    items = waiting(root)
    problem = read_approvals(root).problem
    if problem is not None:
        err.print(Text(f"foehn: {problem}", style="red"))
    if not items:
        return
    if ask:
        err.print(Text(f"{len(items)} file(s) of this workspace wait for your approval:"))
        ask_each(root, items, err)
        return
    err.print(f"foehn: {waiting_line(root, items)}")


def trust_command(args: argparse.Namespace) -> int:
    root = folder(args.workspace)
    err = error_console()
    if args.approve or args.forget:
        return _change(root, args.approve or [], args.forget or [], err)
    settings = load_settings()
    items = waiting(root)
    approvals = read_approvals(root)
    if args.json:
        document: dict[str, Any] = {
            "workspace": str(root),
            "trusted": settings.trust_workspace,
            "store": str(store_file(root)),
            "problem": approvals.problem,
            "waiting": [item.json() for item in items],
            "approved": [
                {"path": a.path, "sha256": a.sha256, "approvedAt": a.approved_at}
                for a in approvals.files.values()
            ],
        }
        json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return EXIT_OK
    if not settings.trust_workspace:
        err.print(
            "foehn: this workspace is not trusted (trustWorkspace is off in your config), so "
            "none of its files are used, approved or not"
        )
    if approvals.problem is not None:
        err.print(Text(f"foehn: {approvals.problem}", style="red"))
    if not items:
        err.print(f"nothing waits: every file Foehn uses from {root} is approved as it is")
        return EXIT_OK
    if sys.stdin.isatty():
        ask_each(root, items, err)
        return EXIT_OK
    for item in items:
        show(item, err)
        if item.sha256 is not None and item.status != "refused":
            command = f"foehn trust --workspace {root} --approve {item.path}@{item.sha256[:16]}"
            err.print(f"  approve with: {command}")
    return EXIT_OK


def _change(root: Path, approving: Sequence[str], forgetting: Sequence[str], err: Console) -> int:
    code = EXIT_OK
    for entry in approving:
        path, at, sha = entry.rpartition("@")
        if not at or not path:
            raise UsageError(
                f"--approve takes PATH@SHA256 (as foehn trust shows it), got {entry!r}"
            )
        try:
            approval = approve(root, path, sha)
        except TrustError as exc:
            err.print(f"foehn: {exc}")
            code = EXIT_ERROR
            continue
        err.print(f"approved {approval.path} (sha256 {approval.sha256[:16]}…)")
    for path in forgetting:
        try:
            forgot = forget_approval(root, path)
        except TrustError as exc:
            err.print(f"foehn: {exc}")
            code = EXIT_ERROR
            continue
        err.print(
            f"{'withdrew the approval of' if forgot else 'no approval to withdraw for'} {path}"
        )
    return code


def add_parser(commands: Any) -> None:
    trust = commands.add_parser(
        "trust",
        help="see and approve a trusted workspace's plugins, MCP servers, rules and prompts",
        description="A trusted workspace's plugins, MCP servers, rules, hooks, commands and "
        "system-message files are used only as you approved them, by content. This lists "
        "what is new or changed, with the diff against what you approved, and approves it.",
    )
    trust.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    trust.add_argument("--json", action="store_true", help="what waits and what is approved")
    trust.add_argument(
        "--approve",
        nargs="+",
        metavar="PATH@SHA256",
        help="approve this content of PATH (the hash foehn trust shows; at least 12 digits)",
    )
    trust.add_argument("--forget", nargs="+", metavar="PATH", help="withdraw these approvals")
    trust.set_defaults(handler=trust_command)
